"""The quick-note steps as plain functions; graph nodes call them in order."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

import anyio

from core import changes
from core.llm import NodeSpec, run_structured
from core.models import Task, TaskCreate
from core.prompting import language_line, now_line
from core.store import create_task, get_task_by_source_key
from core.timeanchor import TimeWindow, deadline_of, resolve_time
from core.turn import Turn
from quicknote.boundary import settle_note
from quicknote.draft import NoteDraft
from quicknote.duplicates import near_duplicate
from quicknote.offline import lead_time, offline_extract_note
from quicknote.prompts import EXTRACT_INSTRUCTIONS, extract_prompt
from quicknote.split import MAX_PARTS
from quicknote.state import NoteState

# A task with a deadline reads as one group more urgent this long before it is due (2→1, 4→3).
URGENCY_LEAD = timedelta(hours=24)


EXTRACT = NodeSpec("extract", NoteDraft, EXTRACT_INSTRUCTIONS)


def part_key(write_key: str, number: int) -> str:
    """The key of part `number` (from 1) of a message that named several tasks."""
    return f"{write_key}#{number}"


async def existing_tasks(turn: Turn) -> list[Task]:
    """The tasks an earlier copy of this very attempt created, if any (retry, regenerate, double send):
    one for a single note, all parts (keys ``<key>#1``, ``#2``…) for a message that named several.

    The same words said again outside the retry window are a new note, not a copy.
    """
    keys = turn.attempt_keys()
    since = turn.now - keys.window if keys.window is not None else None

    def recent(task: Task | None) -> bool:
        return task is not None and (since is None or task.created_at >= since)

    def lookup() -> list[Task]:
        with turn.sessions() as session:
            for key in keys.candidates:
                task = get_task_by_source_key(session, turn.user_id, key)
                if task is not None and recent(task):
                    return [task]
                parts: list[Task] = []
                while len(parts) < MAX_PARTS:
                    part = get_task_by_source_key(session, turn.user_id, part_key(key, len(parts) + 1))
                    if part is None or not recent(part):
                        break
                    parts.append(part)
                if parts:
                    return parts
            return []

    return await anyio.to_thread.run_sync(lookup)


async def extract_step(state: NoteState, turn: Turn) -> NoteDraft:
    """One model call proposes the note; code settles it against the sentence and the rules."""
    rules = offline_extract_note(state.sentence, state.now, state.tz)
    proposed = await run_structured(
        EXTRACT,
        lambda: extract_prompt(state.sentence),
        node="extract",
        hub=turn.hub,
        trace=turn.trace,
        offline=lambda: rules,
        instructions=lambda: f"{now_line(state.now, state.tz)}\n{language_line(state.locale)}",
    )
    settled = settle_note(proposed, rules, state.sentence, state.now, state.tz)
    draft, state.overridden = settled.draft, settled.overridden
    if draft.title is not None:
        draft = draft.model_copy(update={"title": " ".join(draft.title.split())[:200] or None})
    state.draft = draft
    return draft


# A date- or clock-shaped fragment the anchor did not read ("13月" in "13月5日", "25点" in "明天25点").
_UNREAD_TIME = re.compile(r"[0-9０-９零〇一二两三四五六七八九十百]+\s*(?:年|月|日|号|点|时|分|[:：])|闰月")


def _fully_read(window: TimeWindow, time_text: str) -> bool:
    """Whether the anchor understood the whole phrase, not just a valid part of it."""
    rest = time_text.replace(window.phrase, "", 1)
    return _UNREAD_TIME.search(rest) is None


def anchor_deadline(state: NoteState) -> bool:
    """Resolves the deadline phrase in code. False means the phrase could not be understood.

    A phrase only partly understood ("13月5日" read as the 5th) is not understood: guessing a
    deadline the user didn't say is worse than asking.
    """
    draft = state.draft
    assert draft is not None
    if not draft.time_text:
        state.deadline_at = None  # no phrase, no deadline: a bare model timestamp is never enough
        return True
    window = resolve_time(draft.time_text, state.now, state.tz)
    if window is not None and not _fully_read(window, draft.time_text):
        state.deadline_at = draft.deadline_at
        return draft.deadline_at is not None
    if window is not None:
        state.window = window
        state.deadline_at = deadline_of(window)
        return True
    state.deadline_at = draft.deadline_at
    return draft.deadline_at is not None


def said_threshold(state: NoteState) -> datetime | None:
    """When the user said the task turns urgent: a lead before the deadline ("提前一天") counts back
    from the deadline; any other phrase is anchored on its own. Never after the deadline."""
    draft = state.draft
    text = draft.urgency_threshold_text if draft is not None else None
    if not text:
        return None
    lead = lead_time(text)
    if lead is not None:
        return state.deadline_at - lead if state.deadline_at is not None else None
    window = resolve_time(text, state.now, state.tz)
    moment = window.start if window is not None else None
    if moment is None or (state.deadline_at is not None and moment > state.deadline_at):
        return None
    return moment


def priority_step(state: NoteState) -> str:
    """Group from the extraction; an urgency threshold when the group can still be promoted."""
    draft = state.draft
    assert draft is not None
    state.priority_group = draft.priority_group if 1 <= draft.priority_group <= 4 else 2
    said = said_threshold(state)
    if said is not None:
        state.urgency_threshold_at = said
    elif state.deadline_at is not None and state.priority_group in (2, 4):
        state.urgency_threshold_at = state.deadline_at - URGENCY_LEAD
    return draft.priority_reason or "默认优先级"


def note_data(state: NoteState) -> TaskCreate:
    draft = state.draft
    assert draft is not None and draft.title
    return TaskCreate(
        title=draft.title,
        priority_group=state.priority_group,
        deadline_at=state.deadline_at,
        urgency_threshold_at=state.urgency_threshold_at,
    )


@dataclass
class Written:
    tasks: list[Task]
    created: bool  # False: an earlier copy of this attempt had written them all
    change_ids: list[int]


async def write_notes(turn: Turn, notes: Sequence[TaskCreate]) -> Written:
    """Writes the notes of one message in one transaction, each under its own key of this attempt
    (one note: the attempt's key; several: ``<key>#1``, ``#2``…), and logs each creation."""
    write_key = turn.attempt_keys().write
    keys = [write_key] if len(notes) == 1 else [part_key(write_key, n) for n in range(1, len(notes) + 1)]

    def write() -> Written:
        with turn.sessions() as session:
            results = [
                create_task(session, turn.user_id, data, now=turn.now, source_key=key)
                for data, key in zip(notes, keys, strict=True)
            ]
            change_ids = [
                changes.record(
                    session,
                    user_id=turn.user_id,
                    turn_key=turn.turn_key,
                    kind="create",
                    task=task,
                    before=None,
                    now=turn.now,
                )
                for task, created in results
                if created
            ]
            session.commit()
            return Written([task for task, _ in results], any(created for _, created in results), change_ids)

    return await anyio.to_thread.run_sync(write)


def near_duplicates(turn: Turn, notes: Sequence[TaskCreate]) -> list[Task]:
    """The open tasks these notes would repeat (at most one per note)."""
    own = turn.attempt_keys().candidates
    with turn.sessions() as session:
        found = [near_duplicate(session, turn.user_id, data.title, data.deadline_at, own_keys=own) for data in notes]
    return [task for task in found if task is not None]


async def persist_step(state: NoteState, turn: Turn) -> None:
    written = await write_notes(turn, [note_data(state)])
    state.task, state.created, state.change_ids = written.tasks[0], written.created, written.change_ids
