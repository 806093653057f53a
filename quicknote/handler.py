"""The `quick_note_create` action."""

from __future__ import annotations

from typing import Any
from zoneinfo import ZoneInfo

from core.display import task_record
from core.graphrun import run_nodes
from core.store import task_row
from core.turn import Answer, Turn
from quicknote import steps
from quicknote.graph import Extract, quick_note_graph
from quicknote.rendering import confirmation
from quicknote.state import NoteDeps, NoteState

DESCRIPTION = (
    "随口记: the user wants to CAPTURE a new task or reminder ('帮我记一下明天下午三点交报告', "
    "'提醒我周五交报告', '添加待办：洗车'). Writes data."
)


async def handle_quick_note(turn: Turn) -> Answer:
    existing = await steps.existing_task(turn)
    if existing is not None:
        # The same turn again (client retry, regenerate, duplicate send): same answer, no new task.
        turn.trace.emit("persist", "info", "这一轮已经记过了，返回原来的确认", {"task_id": existing.id})
        answer = confirmation(existing, turn.tz, turn.now, turn.locale, again=True)
        data = {"task": task_record(task_row(existing, now=turn.now), turn.now), "created": False}
    else:
        state = NoteState(sentence=turn.text, now=turn.now, tz=turn.tz, locale=turn.locale)
        answer = await run_nodes(quick_note_graph(), Extract(), state=state, deps=NoteDeps(turn))
        data = {}
        if state.task is not None:
            data = {"task": task_record(task_row(state.task, now=turn.now), turn.now), "created": state.created}
    turn.on_content(answer)
    return Answer(answer, data)


async def explain_note(turn: Turn) -> dict[str, Any]:
    """``{"note": …}``: extract → time_anchor → priority without writing anything (brief §9)."""
    state = NoteState(sentence=turn.text, now=turn.now, tz=turn.tz, locale=turn.locale)
    draft = await steps.extract_step(state, turn)
    steps.anchor_deadline(state)
    steps.priority_step(state)
    zone = ZoneInfo(turn.tz)
    return {
        "note": {
            "title": draft.title,
            "priority_group": state.priority_group,
            "deadline_at": state.deadline_at.astimezone(zone).isoformat() if state.deadline_at else None,
            "urgency_threshold_at": (
                state.urgency_threshold_at.astimezone(zone).isoformat() if state.urgency_threshold_at else None
            ),
        }
    }
