"""The structured plan a model (or the offline rules) produces for a task query."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field

TimeField = Literal["deadline", "completed", "created"]
SortBy = Literal["deadline", "priority", "id"]
Order = Literal["asc", "desc"]


class QueryPlan(BaseModel):
    """What the user is asking for, before any deterministic normalisation."""

    quadrants: list[int] | None = Field(
        default=None,
        description="Priority groups to include (1 重要且紧急, 2 重要不紧急, 3 简单不重要, 4 不简单不重要); null = all.",
    )
    time_text: str | None = Field(
        default=None,
        description="The user's time phrase copied verbatim (e.g. '下周三之前', '逾期'); null if none.",
    )
    time_after: datetime | None = Field(
        default=None, description="Optional absolute lower bound, only if the phrase is unusual."
    )
    time_before: datetime | None = Field(
        default=None, description="Optional absolute upper bound, only if the phrase is unusual."
    )
    time_field: TimeField = Field(
        default="deadline",
        description="Which time the phrase is about: deadline (default), completed ('上周完成了哪些'), "
        "created ('最近新建的').",
    )
    include_completed: bool = Field(default=False, description="Include completed tasks.")
    keyword: str | None = Field(default=None, description="A word the task title must contain, if any.")
    sort_by: SortBy = "deadline"
    order: Order = "asc"
    limit: int | None = Field(default=None, description="How many tasks to show, if the user implied one.")
