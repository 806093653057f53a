"""The `quick_note_create` action (随口记), as the registry takes it: handler, routing, and `capture_note`."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, Field

from core import carry
from core.action import Action
from core.tools import TaskItem, ToolContext, ToolOutput, ToolSpec
from quicknote.corpus import CORPUS
from quicknote.handler import DESCRIPTION, OUTCOMES, TALLIES, explain_note, handle_quick_note, propose_note
from quicknote.offline import offline_signal
from quicknote.rendering import CLARIFY

__all__ = ["ACTION", "CaptureResult"]


class CaptureResult(BaseModel):
    answer: str = Field(description="Suikou's confirmation or clarifying question, ready to show the user.")
    written: bool = Field(description="True when this call (or the first call with its client_message_id) wrote.")
    tasks: list[TaskItem]
    question: str | None = Field(description="The clarifying question when nothing was written.")
    duplicate_of: TaskItem | None = Field(description="A near-duplicate that stopped the write, if any.")
    change_ids: list[int] = Field(description="Pass these to undo to remove what was written.")


async def capture_note(
    ctx: ToolContext,
    text: Annotated[str, Field(description="The note, as the user said it.")],
    client_message_id: Annotated[
        str | None,
        Field(
            description="A stable id for this note (HTTP's X-Client-Message-Id): a retry with it writes nothing more."
        ),
    ] = None,
    timezone: Annotated[
        str | None, Field(description="The user's IANA timezone, e.g. 'Asia/Shanghai' (default: the server's).")
    ] = None,
) -> ToolOutput:
    answer = await handle_quick_note(ctx.turn(text, client_message_id, timezone))
    data = answer.data
    shown = carry.strip(answer.text)
    records = data.get("tasks") or ([data["task"]] if "task" in data else [])
    duplicate = data.get("duplicate_of")
    result = CaptureResult(
        answer=shown,
        written=bool(records),
        tasks=[TaskItem.model_validate(r) for r in records],
        question=None if records or duplicate else shown,
        duplicate_of=TaskItem.model_validate(duplicate) if duplicate else None,
        change_ids=list(answer.change_ids),
    )
    return ToolOutput(shown, result)


CAPTURE_NOTE = ToolSpec(
    "capture_note",
    "Capture a task",
    "WRITES. Capture what the user said as a task ('明天下午三点交电费', 'call mom on Friday, important'): "
    "Suikou reads the title, deadline and priority group and stores it, or asks one clarifying question and "
    "stores nothing. Returns the task(s) written and the change ids undo takes.",
    capture_note,
    CaptureResult,
    idempotent=True,  # a retry with the same client_message_id writes nothing more
    uses_model=True,
)

ACTION = Action(
    "quick_note_create",
    DESCRIPTION,
    handle_quick_note,
    writes=True,
    clarify=CLARIFY,
    explain=explain_note,
    offline=offline_signal,  # "要" after a near-duplicate warning; a repetition ("每周一交周报")
    intent="capture",
    corpus=CORPUS,
    propose=propose_note,
    examples=("帮我记一下明天下午三点交报告", "明天买牛奶，周五交报告", "remind me to call mom tomorrow at 8pm"),
    tools=(CAPTURE_NOTE,),
    outcomes=OUTCOMES,
    tallies=TALLIES,
)
