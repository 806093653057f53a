"""Reflect's structured output and how a patch changes the plan."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field
from pydantic.json_schema import SkipJsonSchema

from taskquery.plan import Group, QueryPlan, SortBy, TimeField


class PlanPatch(BaseModel):
    """Only the fields to change; absent fields stay as they are."""

    quadrants: list[Group] | None = None
    clear_quadrants: bool = Field(default=False, description="Search all groups.")
    time_text: str | None = None
    clear_time: bool = Field(default=False, description="Drop the time window.")
    time_field: TimeField | None = None
    include_completed: bool | None = None
    keyword: str | None = None
    clear_keyword: bool = False
    sort_by: SortBy | None = None
    order: Literal["asc", "desc"] | None = None
    # Not offered to the model; refused if sent anyway (counts come from the user's words).
    limit: SkipJsonSchema[int | None] = None


class Reflection(BaseModel):
    satisfied: bool = True
    need_retry: bool = False
    patch: PlanPatch | None = None
    prefix: str = Field(default="", description="One short line (≤ 30 characters), no list.")


def apply_patch(plan: QueryPlan, patch: PlanPatch) -> tuple[QueryPlan, list[str]]:
    """The patched plan and human notes on what changed (or was refused).

    The result is still a proposal: the trust boundary settles it against the user's words.
    """
    changes: dict[str, object] = {}
    notes: list[str] = []
    if patch.clear_quadrants:
        changes["quadrants"] = None
    elif patch.quadrants is not None:
        changes["quadrants"] = patch.quadrants
    if patch.clear_time:
        changes.update(time_text=None, time_after=None, time_before=None)
    elif patch.time_text is not None:
        changes.update(time_text=patch.time_text, time_after=None, time_before=None)
    if patch.clear_keyword:
        changes["keyword"] = None
    elif patch.keyword is not None:
        changes["keyword"] = patch.keyword
    for name in ("time_field", "include_completed", "sort_by", "order"):
        value = getattr(patch, name)
        if value is not None:
            changes[name] = value
    if patch.limit is not None:
        notes.append(f"忽略了把条数改成 {patch.limit} 的建议（条数只由你的原话决定）")
    notes += [f"{k}→{v}" for k, v in changes.items()]
    return plan.model_copy(update=changes), notes
