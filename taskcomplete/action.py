"""The `task_complete` action (做完了), as the registry takes it: handler, routing, and `complete_task`."""

from __future__ import annotations

from typing import Annotated

import anyio.to_thread
from pydantic import Field

from core import writes
from core.action import Action
from core.models import TaskPublic
from core.tools import TaskIdArg, ToolContext, ToolOutput, ToolSpec, WriteResult, not_found
from taskcomplete.handler import CLARIFY, DESCRIPTION, explain_complete, handle_complete
from taskcomplete.offline import offline_signal

__all__ = ["ACTION"]


async def complete_task(
    ctx: ToolContext,
    task_id: TaskIdArg,
    completed: Annotated[bool, Field(description="False reopens the task.")] = True,
) -> ToolOutput:
    def work() -> WriteResult:
        now = ctx.clock()
        with writes.writing(ctx.sessions, writes.author(ctx.user_id, now, "mcp")) as w:
            task = w.lock(task_id)
            if task is None:
                raise not_found(task_id)
            change_id = w.complete(task, completed)
        return WriteResult(task=TaskPublic.from_task(task, now=now), change_id=change_id)

    result = await anyio.to_thread.run_sync(work)
    return ToolOutput(f"{'completed' if completed else 'reopened'}: {result.task.title}", result)


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
    examples=("交报告做完了", "买牛奶搞定了", "把交报告标记为完成", "mark the report as done", "交报告还没做完"),
    tools=(COMPLETE_TASK,),
    outcomes=("written", "again", "already", "ask", "none", "no_words"),
)
