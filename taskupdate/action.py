"""The `task_update` action (改一下), as the registry takes it: handler, routing, and `update_task`."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from pydantic import Field

from core import reminderspec
from core.action import Action, ask_about
from core.display import GROUP_LABELS
from core.models import Task, TaskUpdate
from core.tools import TaskIdArg, ToolContext, ToolOutput, ToolProblem, ToolSpec, WriteResult, write_one
from core.writes import Writer
from taskupdate.corpus import CORPUS
from taskupdate.handler import CLARIFY, DESCRIPTION, explain_update, handle_update
from taskupdate.offline import offline_signal

__all__ = ["ACTION"]

# The product's names for the groups (the README's table, the chat's words): one table, core.display.
GROUPS = ", ".join(f"{g} {zh} ({GROUP_LABELS['en'][g]})" for g, zh in GROUP_LABELS["zh"].items())


async def update_task(
    ctx: ToolContext,
    task_id: TaskIdArg,
    title: Annotated[str | None, Field(description="The new title.")] = None,
    deadline_at: Annotated[
        str | None, Field(description="The new deadline, RFC 3339 with an offset, e.g. 2026-12-01T15:00:00+08:00.")
    ] = None,
    clear_deadline: Annotated[bool, Field(description="Remove the deadline.")] = False,
    priority_group: Annotated[int | None, Field(description=f"The new group: {GROUPS}.")] = None,
    reminders: Annotated[
        list[str] | None,
        Field(
            description="All of the task's reminders: leads before the deadline as ISO 8601 durations (PT30M, P1D; "
            "PT0S at the deadline) or moments (RFC 3339 with an offset); [] removes them.",
            max_length=reminderspec.MAX_REMINDERS,
        ),
    ] = None,
    estimate_minutes: Annotated[
        int | None, Field(description="How long it takes, in minutes (1..14400); 0 removes the estimate.", ge=0)
    ] = None,
    list_name: Annotated[
        str | None, Field(description='Move it to this list (made on first use); "" takes it out of its list.')
    ] = None,
    labels: Annotated[
        list[str] | None, Field(description="All of its labels, without '#'; [] removes them.", max_length=20)
    ] = None,
) -> ToolOutput:
    if clear_deadline and deadline_at is not None:  # which one was meant? refuse rather than drop one
        raise ToolProblem("pass either deadline_at or clear_deadline=true, not both; nothing was changed")
    given = {"title": title, "deadline_at": deadline_at, "priority_group": priority_group}
    fields: dict[str, Any] = {name: value for name, value in given.items() if value is not None}
    if clear_deadline:
        fields["deadline_at"] = None
    if reminders is not None:
        fields["reminders"] = _stored_reminders(reminders)
    if estimate_minutes is not None:
        fields["estimate_minutes"] = estimate_minutes or None
    if list_name is not None:
        fields["list_name"] = list_name or None
    if labels is not None:
        fields["labels"] = labels
    if not fields:
        raise ToolProblem(
            "nothing to change: pass title, deadline_at, clear_deadline, priority_group, reminders, estimate_minutes, "
            "list_name or labels"
        )
    data = TaskUpdate.model_validate(fields)  # a ValidationError reads as REST's 400 message

    def update(w: Writer, task: Task) -> int | None:
        deadline = data.deadline_at if "deadline_at" in data.model_fields_set else task.deadline_at
        if deadline is None and any(s.before is not None for s in reminderspec.specs_of(fields.get("reminders"))):
            raise ToolProblem("a reminder before the deadline needs a deadline; nothing was changed")
        return w.update(task, data)

    result = await write_one(ctx, task_id, update)
    said = "updated: {title}" if result.changed else "nothing changed: {title} already had these values"
    return ToolOutput(said.format(title=result.task.title), result)


def _stored_reminders(given: list[str]) -> str | None:
    specs = []
    for item in given:
        text = item.strip()
        try:
            if text.upper().startswith("P"):
                specs.append(reminderspec.Spec(before=reminderspec.parse_duration(text)))
            else:
                moment = datetime.fromisoformat(text)
                if moment.utcoffset() is None:
                    raise ValueError(f"{text!r} has no offset")
                specs.append(reminderspec.Spec(at=moment))
            stored = reminderspec.stored(specs)
        except ValueError as exc:
            raise ToolProblem(f"reminders: {exc}; nothing was changed") from exc
    return stored if specs else None


UPDATE_TASK = ToolSpec(
    "update_task",
    "Update a task",
    "Change one task's title, deadline, priority group, reminders or estimate (only what you pass). Checked as the REST PATCH "
    "/tasks/{id} checks it. Recorded, so undo reverts it.",
    update_task,
    WriteResult,
    destructive=True,  # it overwrites fields (undo restores them)
    idempotent=True,
)

ACTION = Action(
    "task_update",
    DESCRIPTION,
    handle_update,
    writes=True,
    clarify=CLARIFY,
    explain=explain_update,
    offline=offline_signal,
    corpus=CORPUS,
    propose=ask_about(
        "是要按「{text}」修改一条已有的任务吗？", "Do you want me to change an existing task as “{text}” says?"
    ),
    examples=(
        "不对，是下周三",
        "优先级调高",
        "标题改成交季度报告",
        "把交报告改到周五",
        "写周报大概要两个小时",
        "no, make it next Wednesday",
    ),
    tools=(UPDATE_TASK,),
    outcomes=(
        "written",
        "again",
        "same",
        "ask",
        "gone",
        "none",
        "nothing",
        "unreadable",
        "no_deadline",
        "passed",
        "near_list",
        "clarify",
    ),
)
