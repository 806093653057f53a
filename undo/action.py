"""The `undo` action (撤销), as the registry takes it: handler, routing, and the `undo` tool."""

from __future__ import annotations

from typing import Annotated

import anyio.to_thread
from pydantic import BaseModel, Field

from core import changes, writes
from core.action import Action, ask_about
from core.tools import ToolContext, ToolOutput, ToolSpec
from undo.corpus import CORPUS
from undo.handler import CLARIFY, DESCRIPTION, explain_undo, handle_undo
from undo.offline import offline_signal

__all__ = ["ACTION", "UndoResult"]


class UndoneChange(BaseModel):
    id: int
    kind: str
    task_id: int | None
    effect: str | None = Field(description="deleted, restored, gone (the task no longer exists), kept, or null.")


class UndoResult(BaseModel):
    undone: list[UndoneChange]
    already: bool = Field(description="Every change found had been undone before: nothing changed now.")
    missing: bool = Field(description="Some id is not one of your changes.")


async def undo(
    ctx: ToolContext,
    change_ids: Annotated[
        list[int],
        Field(min_length=1, max_length=changes.MAX_CARRIED_CHANGES, description="Change ids a write returned."),
    ],
) -> ToolOutput:
    def work() -> UndoResult:
        with writes.writing(ctx.sessions, writes.author(ctx.user_id, ctx.clock(), "mcp")) as w:
            done = w.revert(change_ids)
        rows = [UndoneChange(id=c.id, kind=c.kind, task_id=c.task_id, effect=c.effect) for c in done.changes]
        return UndoResult(undone=rows, already=done.already, missing=done.missing)

    result = await anyio.to_thread.run_sync(work)
    text = "already undone" if result.already else f"undid {sum(c.effect is not None for c in result.undone)}"
    return ToolOutput(text + (" (some ids are not yours)" if result.missing else ""), result)


UNDO = ToolSpec(
    "undo",
    "Undo writes",
    "Revert earlier writes (capture, complete, update, delete) by their change ids, newest first. Only your "
    "own changes; undoing twice changes nothing the second time.",
    undo,
    UndoResult,
    destructive=True,
    idempotent=True,
)

ACTION = Action(
    "undo",
    DESCRIPTION,
    handle_undo,
    writes=True,
    clarify=CLARIFY,
    explain=explain_undo,
    offline=offline_signal,
    corpus=CORPUS,
    propose=ask_about("是要撤销上一次改动吗？", "Do you want me to undo the last change?"),
    examples=("撤销", "撤回", "刚才那条不要了", "undo that", "scratch that"),
    tools=(UNDO,),
    outcomes=("undone", "already", "nothing", "not_found"),
)
