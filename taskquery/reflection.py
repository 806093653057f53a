"""Reflect's structured output and how a patch changes the plan."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from taskquery.plan import QueryPlan, SortBy, TimeField


class PlanPatch(BaseModel):
    """Only the fields to change; absent fields stay as they are."""

    quadrants: list[int] | None = None
    clear_quadrants: bool = Field(default=False, description="Search all groups.")
    time_text: str | None = None
    clear_time: bool = Field(default=False, description="Drop the time window.")
    time_field: TimeField | None = None
    include_completed: bool | None = None
    keyword: str | None = None
    clear_keyword: bool = False
    sort_by: SortBy | None = None
    order: Literal["asc", "desc"] | None = None
    limit: int | None = Field(default=None, description="Ignored when the user gave an explicit count.")


class Reflection(BaseModel):
    satisfied: bool = True
    need_retry: bool = False
    patch: PlanPatch | None = None
    prefix: str = Field(default="", description="One short line (≤ 30 characters), no list.")


def apply_patch(plan: QueryPlan, patch: PlanPatch, *, limit_locked: bool) -> tuple[QueryPlan, list[str]]:
    """The patched plan and human notes on what changed (or was refused)."""
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
        if limit_locked:
            notes.append(f"忽略了把条数改成 {patch.limit} 的建议（你指定的条数已锁定）")
        else:
            changes["limit"] = patch.limit
    notes += [f"{k}→{v}" for k, v in changes.items()]
    return plan.model_copy(update=changes), notes
