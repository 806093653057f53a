"""The `task_delete` action (删掉), as the registry takes it: handler, routing, and `delete_tasks`."""

from __future__ import annotations

from typing import Annotated

import anyio.to_thread
from pydantic import BaseModel, Field

from core import writes
from core.action import Action, ask_about
from core.tools import INT32_MAX, ToolContext, ToolOutput, ToolProblem, ToolSpec
from taskdelete.corpus import CORPUS
from taskdelete.handler import CLARIFY, DESCRIPTION, OUTCOMES, explain_delete, handle_delete
from taskdelete.offline import offline_signal

__all__ = ["ACTION", "DeleteResult"]


class DeletedTask(BaseModel):
    id: int
    title: str


class DeleteResult(BaseModel):
    deleted: list[DeletedTask]
    change_ids: list[int] = Field(description="Pass these to undo to bring the tasks back exactly.")


async def delete_tasks(
    ctx: ToolContext,
    task_ids: Annotated[
        list[Annotated[int, Field(ge=1, le=INT32_MAX)]],
        Field(min_length=1, max_length=50, description="Task ids from another tool's result."),
    ],
) -> ToolOutput:
    def work() -> DeleteResult:
        with writes.writing(ctx.sessions, writes.author(ctx.user_id, ctx.clock(), "mcp")) as w:
            tasks = [w.lock(i) for i in dict.fromkeys(task_ids)]
            missing = [i for i, t in zip(dict.fromkeys(task_ids), tasks, strict=True) if t is None]
            if missing:  # all or nothing: a wrong id is the model's to fix, not a partial delete
                raise ToolProblem(f"tasks not found: {missing}; nothing was deleted")
            found = [t for t in tasks if t is not None]
            deleted = [DeletedTask(id=t.id or 0, title=t.title) for t in found]
            change_ids = w.delete(found)
        return DeleteResult(deleted=deleted, change_ids=change_ids)

    result = await anyio.to_thread.run_sync(work)
    return ToolOutput(f"deleted {len(result.deleted)}: " + ", ".join(t.title for t in result.deleted), result)


DELETE_TASKS = ToolSpec(
    "delete_tasks",
    "Delete tasks",
    "WRITES. Delete tasks by id (all of them, or none when an id is not the user's). Each deletion is "
    "recorded: undo with the returned change ids brings the tasks back exactly.",
    delete_tasks,
    DeleteResult,
    destructive=True,
    idempotent=False,  # a second call finds the tasks gone
)

ACTION = Action(
    "task_delete",
    DESCRIPTION,
    handle_delete,
    writes=True,
    clarify=CLARIFY,
    explain=explain_delete,
    offline=offline_signal,
    corpus=CORPUS,
    propose=ask_about("是要删除「{text}」说的任务吗？", "Do you want me to delete the task “{text}” is about?"),
    examples=(
        "把取快递删了",
        "删掉交报告那个任务",
        "取快递不用做了，删了吧",
        "取消周三的会议",
        "删掉所有已完成的",
        "remove the dentist task",
        "delete that",
    ),
    tools=(DELETE_TASKS,),
    outcomes=OUTCOMES,
)
