"""A message that names several tasks ("明天买牛奶，周五交报告"): each part read like a single note,
then all written together, or none.

Parts come from `quicknote.split` (code decides). Each part runs the single note's steps — extract
(one model call, settled against the part's own words), time anchor, priority — under its own
stage events. If any part needs a question (no task, a time that cannot be resolved), the turn asks
about that part and writes nothing; if any part repeats an open task, the turn asks whether to
write them all (the warning carries them, `quicknote.pending`). Otherwise the parts are written in
one transaction, part n under the attempt's key + ``#n``, and confirmed as one numbered list.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import anyio

from core import changes
from core.display import group_label, task_record
from core.models import Task, TaskCreate
from core.store import task_row
from core.turn import Turn
from quicknote import steps
from quicknote.pending import attach_pending, pending_of
from quicknote.placement import NOWHERE, Place
from quicknote.rendering import (
    confirmation,
    duplicate_warning,
    list_confirmation,
    no_title_question,
    unclear_time_question,
)
from quicknote.state import NoteState


@dataclass
class Outcome:
    text: str
    data: dict[str, Any] = field(default_factory=dict)


def records(tasks: Sequence[Task], turn: Turn) -> list[dict[str, Any]]:
    return [task_record(task_row(task, now=turn.now), turn.now) for task in tasks]


async def _read_part(number: int, count: int, sentence: str, turn: Turn, place: Place) -> NoteState | str:
    """One part through extract → time_anchor → priority; a question instead when it needs one."""
    state = NoteState(sentence=sentence, now=turn.now, tz=turn.tz, locale=turn.locale)
    state.list_name, state.labels = place.list_name, list(place.labels)
    label = f"第 {number}/{count} 条"
    with turn.trace.node("extract", f"理解要记的事（{label}）") as span:
        draft = await steps.extract_step(state, turn)
        extra = {"overridden": state.overridden} if state.overridden else {}
        span.done(f"标题：{draft.title or '（无）'}", part=number, **extra)
    if not draft.title:
        return no_title_question(state.locale)
    with turn.trace.node("time_anchor", f"换算截止时间（{label}）") as span:
        understood = steps.anchor_deadline(state)
        deadline = state.deadline_at.isoformat() if state.deadline_at else None
        span.done(f"截止：{deadline or '无'}" if understood else "没看懂时间", part=number, deadline_at=deadline)
    if not understood:
        return unclear_time_question(draft.title, draft.time_text or "", state.locale)
    with turn.trace.node("priority", f"确定优先级（{label}）") as span:
        reason = steps.priority_step(state)
        span.done(f"{group_label(state.priority_group)}：{reason}", part=number, priority_group=state.priority_group)
    return state


async def write_and_confirm(turn: Turn, notes: Sequence[TaskCreate], estimates: Sequence[str | None] = ()) -> Outcome:
    """Writes the notes (idempotent per attempt) and confirms them; one note gets the one-line confirmation.

    `estimates[i]` is the estimate note i said, which the confirmation names as not saved."""
    with turn.trace.node("persist", "保存任务") as span:
        written = await steps.write_notes(turn, notes)
        span.done(
            f"已保存 {len(written.tasks)} 条" if written.created else "这一轮已经记过了，没有重复创建",
            task_ids=[t.id for t in written.tasks],
            created=written.created,
        )
    with turn.trace.node("confirm", "确认") as span:
        again = not written.created
        shown = estimates if len(estimates) == len(written.tasks) else ()
        if len(written.tasks) == 1:
            estimate = shown[0] if shown else None
            text = confirmation(written.tasks[0], turn.tz, turn.now, turn.locale, again=again, estimate=estimate)
            data: dict[str, Any] = {"task": records(written.tasks, turn)[0], "created": written.created}
        else:
            text = list_confirmation(written.tasks, turn.tz, turn.now, turn.locale, again=again, estimates=shown)
            data = {"tasks": records(written.tasks, turn), "created": written.created}
        if written.change_ids:
            text = changes.marker(text, written.change_ids, turn.seal)
            data["change_ids"] = written.change_ids
        span.done("已确认")
    return Outcome(text, data)


async def capture_parts(turn: Turn, parts: Sequence[str], *, check_duplicates: bool, place: Place = NOWHERE) -> Outcome:
    turn.trace.emit("split", "info", f"一句话里有 {len(parts)} 件事，逐条理解", {"parts": list(parts)})
    states: list[NoteState] = []
    for number, part in enumerate(parts, 1):
        read = await _read_part(number, len(parts), part, turn, place)
        if isinstance(read, str):
            turn.trace.emit("clarify", "info", "需要补充信息，什么都没写入", {"part": number})
            return Outcome(read)
        states.append(read)
    notes = [steps.note_data(state) for state in states]
    estimates = [state.draft.estimate_text if state.draft is not None else None for state in states]
    if check_duplicates:
        found = await anyio.to_thread.run_sync(steps.near_duplicates, turn, notes)
        if found:
            return ask_duplicates(turn, found, notes, estimates)
    return await write_and_confirm(turn, notes, estimates)


def ask_duplicates(
    turn: Turn, found: Sequence[Task], notes: Sequence[TaskCreate], estimates: Sequence[str | None] = ()
) -> Outcome:
    titles = "、".join(f"「{t.title}」" for t in found)
    turn.trace.emit(
        "duplicate",
        "info",
        f"已有相近的任务{titles}，先问要不要再记，什么都没写入",
        {"task_ids": [t.id for t in found]},
    )
    text = duplicate_warning(found, len(notes), turn.tz, turn.now, turn.locale)
    text = attach_pending(text, pending_of(notes, estimates), turn.seal)
    data: dict[str, Any] = {"duplicate_of": records(found[:1], turn)[0], "created": False}
    if len(found) > 1 or len(notes) > 1:
        data["duplicates"] = records(found, turn)
    return Outcome(text, data)
