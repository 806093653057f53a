"""The `task_complete` action (做完了), as the registry takes it: handler, routing, and `complete_task`."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from core.action import Action, ask_about
from core.tools import TaskIdArg, ToolContext, ToolOutput, ToolSpec, WriteResult, write_one
from taskcomplete.corpus import CORPUS
from taskcomplete.handler import CLARIFY, DESCRIPTION, explain_complete, handle_complete
from taskcomplete.offline import offline_signal

__all__ = ["ACTION"]


async def complete_task(
    ctx: ToolContext,
    task_id: TaskIdArg,
    completed: Annotated[bool, Field(description="False reopens the task.")] = True,
) -> ToolOutput:
    result = await write_one(ctx, task_id, lambda w, task: w.complete(task, completed))
    return ToolOutput(_SAID[completed, result.changed].format(title=result.task.title), result)


# (completed, changed) → the line: a task already as asked is said to be so, not done again.
_SAID = {
    (True, True): "completed: {title}",
    (False, True): "reopened: {title}",
    (True, False): "nothing changed: {title} was already done",
    (False, False): "nothing changed: {title} was already open",
}


COMPLETE_TASK = ToolSpec(
    "complete_task",
    "Complete a task",
    "Mark one task done (or not done again with completed=false). Recorded, so undo reverts it.",
    complete_task,
    WriteResult,
    idempotent=True,  # setting the same state twice is a no-op
)

ACTION = Action(
    "task_complete",
    DESCRIPTION,
    handle_complete,
    writes=True,
    clarify=CLARIFY,
    explain=explain_complete,
    offline=offline_signal,
    corpus=CORPUS,
    propose=ask_about("是要把「{text}」说的那件事标记为完成吗？", "Should I mark the task in “{text}” as done?"),
    examples=("交报告做完了", "买牛奶搞定了", "把交报告标记为完成", "mark the report as done", "交报告还没做完"),
    tools=(COMPLETE_TASK,),
    outcomes=("written", "again", "already", "ask", "none", "no_words"),
)
