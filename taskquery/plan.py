"""The structured plan a model (or the offline rules) produces for a task query."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from pydantic import BaseModel, Field
from pydantic.json_schema import SkipJsonSchema

TimeField = Literal["deadline", "completed", "created"]
SortBy = Literal["deadline", "priority", "id"]
Order = Literal["asc", "desc"]
Group = Annotated[int, Field(ge=1, le=4)]


def prefer_for(time_field: TimeField) -> Literal["future", "past"]:
    """Which way an ambiguous phrase ("周五") leans: completion and creation times are in the past."""
    return "past" if time_field in ("completed", "created") else "future"


class QueryPlan(BaseModel):
    """What the user is asking for, before any deterministic normalisation."""

    quadrants: list[Group] | None = Field(default=None, description="Priority groups to include; null = all.")
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
    no_deadline: bool = Field(
        default=False,
        description="Only tasks that have no deadline ('没有截止时间的', 'tasks without a deadline').",
    )
    repeating: bool = Field(
        default=False, description="Only repeating tasks ('我有哪些重复的任务', 'my recurring tasks')."
    )
    keyword: str | None = Field(default=None, description="A word the task title must contain, if any.")
    fits_minutes: int | None = Field(
        default=None,
        ge=1,
        description="Free time the user says they have, in minutes ('我有两个小时空' → 120, 'I have 30 minutes'): "
        "only tasks that fit in it. Not a deadline window.",
    )
    scope: str | None = Field(
        default=None,
        description="A list or label the user names, verbatim ('购物清单', '#工作', '工作' in '工作上的事'); "
        "Suikou reads it against the user's lists and labels. Null if none.",
        max_length=41,
    )
    sort_by: SortBy = "deadline"
    order: Order = "asc"
    # Set by the offline rules from the count lock; never part of the model's schema, never taken
    # from a model (the trust boundary rebuilds the plan without it).
    limit: SkipJsonSchema[int | None] = None
