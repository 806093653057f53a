"""The quick-note steps as plain functions; graph nodes call them in order."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import anyio
from sqlmodel import Session, col, select

from core import attempts, recurrence, writes
from core.estimates import minutes_of
from core.llm import NodeSpec, run_structured
from core.models import TEXT_RULES, VISIBLE_TEXT, Task, TaskCreate, storable, text_problem
from core.prompting import language_line, now_line
from core.recurrence.describe import END_OF_DAY
from core.reminderspec import stored
from core.timeanchor import TimeWindow, day_before, deadline_of, numdate, resolve_time
from core.turn import Turn
from quicknote import remind
from quicknote.boundary import settle_note
from quicknote.draft import NoteDraft
from quicknote.duplicates import near_duplicate
from quicknote.offline import BY_DEADLINE, lead_time, offline_extract_note, priority_for
from quicknote.prompts import EXTRACT_INSTRUCTIONS, extract_prompt
from quicknote.state import NoteState

# A task with a deadline reads as one group more urgent this long before it is due (2→1, 4→3),
# counted in the user's wall-clock time (core.timeanchor.day_before).
URGENCY_LEAD = timedelta(hours=24)


EXTRACT = NodeSpec("extract", NoteDraft, EXTRACT_INSTRUCTIONS)
TITLE_RULES = (*TEXT_RULES, (VISIBLE_TEXT, "blank"))


@dataclass
class Written:
    tasks: list[Task]
    created: bool  # False: an earlier copy of this attempt had written them all
    change_ids: list[int]


def _tasks(session: Session, user_id: int, claim: attempts.Claim) -> list[Task]:
    """The tasks an attempt created that still exist, in the order it wrote them."""
    ids = [int(i) for i in claim.result.get("tasks", [])]
    found = {t.id: t for t in session.exec(select(Task).where(col(Task.user_id) == user_id, col(Task.id).in_(ids)))}
    return [found[i] for i in ids if i in found]


async def existing_tasks(turn: Turn) -> Written | None:
    """What an earlier copy of this very attempt wrote, if anything (retry, regenerate, double send):
    one task for a single note, all of them for a message that named several, and their change ids.

    The same words said again outside the retry window, or after all of it was undone, are a new note.
    """

    def lookup() -> Written | None:
        with turn.sessions() as session:
            claim = attempts.peek(session, user_id=turn.user_id, keys=turn.attempt_keys(), now=turn.now)
            tasks = _tasks(session, turn.user_id, claim) if claim is not None else []
            return Written(tasks, False, claim.change_ids) if claim is not None and tasks else None

    return await anyio.to_thread.run_sync(lookup)


# What a repetition leaves behind in the rest of the sentence, taken out before the note is read:
# its "都" ("我每周都得交周报"), a "from now on" ("以后每周日…"), the once of "去一次超市", and a
# clause that only restated it ("…，每周都去").
_AFTER_REPEAT = tuple(
    (re.compile(p), r)
    for p, r in (
        (
            r"(^|[我你他她们，,、\s])(?:以后|今后|往后|从今以后|从今往后|从现在起|从现在开始|从今天起)(?=[\u4e00-\u9fff])",
            r"\1",
        ),
        (r"[，,]\s*(?:都|也)?(?:如此|这样|照旧|[要得会]?[去来做弄搞开交](?:一下)?)[。！!]?$", ""),
        (r"(^|[我你他她们，,、\s])都(?=[\u4e00-\u9fff])", r"\1"),
        (r"(?<![第再这那上下每头首前后])[一1](?:次|趟|回|遍)(?!性)", ""),
    )
)


def _after_repeat(sentence: str) -> str:
    for pattern, repl in _AFTER_REPEAT:
        sentence = pattern.sub(repl, sentence)
    return sentence.strip() or sentence


async def extract_step(state: NoteState, turn: Turn) -> NoteDraft:
    """One model call proposes the note; code settles it against the sentence and the rules."""
    # The repetition ("每周一") is read by code and taken out: the rest is an ordinary note.
    state.repeat = recurrence.read_repeat(state.sentence, now=state.now)
    sentence = state.repeat.rest if state.repeat is not None and state.repeat.rest.strip() else state.sentence
    if state.repeat is not None:
        sentence = _after_repeat(sentence)
    # So is a reminder ("提前半小时提醒我"): its words are neither the deadline nor the title.
    sentence = remind.read(state, sentence)
    rules = offline_extract_note(sentence, state.now, state.tz)
    proposed = await run_structured(
        EXTRACT,
        lambda: extract_prompt(sentence),
        node="extract",
        hub=turn.hub,
        trace=turn.trace,
        offline=lambda: rules,
        instructions=lambda: f"{now_line(state.now, state.tz)}\n{language_line(state.locale)}",
    )
    repeat = state.repeat.words if state.repeat is not None else None
    settled = settle_note(proposed, rules, sentence, state.now, state.tz, repeat_text=repeat)
    draft, state.overridden = settled.draft, settled.overridden
    if draft.title is not None:
        title = " ".join(draft.title.split())[:200]
        # Only zero-width characters or NUL: nothing a person could read as a title; ask.
        draft = draft.model_copy(update={"title": title if text_problem(title, TITLE_RULES) is None else None})
    state.draft = draft
    return draft


# A date- or clock-shaped fragment the anchor did not read ("13月" in "13月5日", "25点" in "明天25点").
_UNREAD_TIME = re.compile(r"[0-9０-９零〇一二两三四五六七八九十百]+\s*(?:年|月|日|号|点|时|分|[:：])|闰月")


def _fully_read(window: TimeWindow, time_text: str) -> bool:
    """Whether the anchor understood the whole phrase, not just a valid part of it."""
    rest = time_text.replace(window.phrase, "", 1)
    return _UNREAD_TIME.search(rest) is None


def anchor_deadline(state: NoteState) -> bool:
    """The deadline phrase resolved (:func:`_anchor`), then a repetition scheduled (:func:`schedule`)."""
    if not _anchor(state):
        return False
    schedule(state)
    remind.keep(state)
    return True


# "周三和周五去健身房", "Mon and Thu": two times, not one deadline (a range, "周三到周五", and "周三和周五
# 之间" are one window; "明天或者后天" is due by the later one). A note asks rather than keep one.
_TWO_TIMES = re.compile(
    r"(?<=\S)\s*(?:和|与|跟|以及|及(?![以之][前后])|(?i:\band\b))\s*(?=\S)(?!.*(?:之间|中间|(?i:\bbetween\b)))"
)


def _anchor(state: NoteState) -> bool:
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
    # A numeric date no rule can order ("12-11-10") is not understood either (core/timeanchor/numdate.py).
    if window is not None and _TWO_TIMES.search(window.phrase):
        state.deadline_at = None  # not the model's either: it can only have picked one of them
        return False
    ambiguous = window is not None and numdate.ambiguous(window.phrase, state.now.date())
    if window is not None and _fully_read(window, draft.time_text) and not ambiguous:
        state.window = window
        state.deadline_at = deadline_of(window)
    else:
        state.deadline_at = draft.deadline_at
        if state.deadline_at is None:
            return False
    # "1900年1月1日": read, but no task may hold it (REST refuses it too): ask, as for any phrase not understood.
    return storable(state.deadline_at)


def schedule(state: NoteState) -> None:
    """A repeating note: its rule from the repetition phrase, DTSTART at the time of day the note
    said (none: a day-only deadline, 23:59:59), and the deadline its first occurrence from now.
    A repetition the rules can't read leaves a one-off that the answer names as such."""
    said = state.repeat
    if said is None:
        return
    zone = ZoneInfo(state.tz)
    clock = state.deadline_at.astimezone(zone).time() if state.deadline_at is not None else END_OF_DAY
    day = said.first_day or state.now.astimezone(zone).date()
    first = None
    if said.rule is not None:
        try:
            rec = recurrence.make(said.rule, start=datetime.combine(day, clock), tz=state.tz)
            first = recurrence.next_after(rec, max(state.now, rec.start), inclusive=True)
        except recurrence.RuleError:
            first = None
    if first is None or not storable(first):
        state.unread_repeat = said.words
        return
    state.recurrence, state.deadline_at = rec.rebased(first).to_ical(), first
    draft = state.draft
    if draft is not None and draft.priority_reason in BY_DEADLINE:
        # The words' own clock ("早上9点" today, already past) is not the deadline any more.
        group, reason = priority_for(said.rest, state.now, first)
        state.draft = draft.model_copy(update={"priority_group": group, "priority_reason": reason})


def said_threshold(state: NoteState) -> datetime | None:
    """When the user said the task turns urgent: a lead before the deadline ("提前一天") counts back
    from the deadline; any other phrase is anchored on its own. Never after the deadline."""
    draft = state.draft
    text = draft.urgency_threshold_text if draft is not None else None
    if not text:
        return None
    lead = lead_time(text)
    if lead is not None:
        moment = state.deadline_at - lead if state.deadline_at is not None else None
        return moment if storable(moment) else None
    window = resolve_time(text, state.now, state.tz)
    moment = window.start if window is not None else None
    if moment is None or (state.deadline_at is not None and moment > state.deadline_at) or not storable(moment):
        return None
    return moment


def priority_step(state: NoteState) -> str:
    """Group from the extraction; an urgency threshold when the group can still be promoted."""
    draft = state.draft
    assert draft is not None
    state.priority_group = draft.priority_group if 1 <= draft.priority_group <= 4 else 2
    said = said_threshold(state) or remind.lead_threshold(state)
    if said is not None:
        state.urgency_threshold_at = said
    elif state.deadline_at is not None and state.priority_group in (2, 4):
        threshold = day_before(state.deadline_at, state.tz)
        state.urgency_threshold_at = threshold if storable(threshold) else None
    return draft.priority_reason or "默认优先级"


def note_data(state: NoteState) -> TaskCreate:
    draft = state.draft
    assert draft is not None and draft.title
    return TaskCreate(
        title=draft.title,
        priority_group=state.priority_group,
        deadline_at=state.deadline_at,
        urgency_threshold_at=state.urgency_threshold_at,
        recurrence=state.recurrence,
        reminders=stored(state.reminders),
        estimate_minutes=minutes_of(draft.estimate_text) if draft.estimate_text else None,
        list_name=state.list_name,
        labels=state.labels or None,
    )


async def write_notes(turn: Turn, notes: Sequence[TaskCreate]) -> Written:
    """Writes the notes of one message through the write path (:mod:`core.writes`): one
    transaction, exactly once per attempt, each note under its own part key. A copy of an attempt
    another copy wrote gets what that one wrote."""

    def write() -> Written:
        many = len(notes) > 1
        with writes.writing(turn.sessions, writes.chat_author(turn)) as w:
            if w.copy and w.claim is not None:
                return Written(_tasks(w.session, turn.user_id, w.claim), False, w.claim.change_ids)
            tasks = [w.create(data, part=n if many else None) for n, data in enumerate(notes, 1)]
        return Written(tasks, bool(w.created), w.change_ids)

    return await anyio.to_thread.run_sync(write)


def near_duplicates(turn: Turn, notes: Sequence[TaskCreate]) -> list[Task]:
    """The open tasks these notes would repeat (at most one per note)."""
    with turn.sessions() as session:
        found = [near_duplicate(session, turn.user_id, d.title, d.deadline_at) for d in notes]
        if not any(found):
            return []
        # A concurrent copy of this very attempt may have written them meanwhile: not duplicates, and
        # persisting finds them. Looked up after the tasks: a task seen means its claim is committed too.
        claim = attempts.peek(session, user_id=turn.user_id, keys=turn.attempt_keys(), now=turn.now)
        own = {int(i) for i in claim.result.get("tasks", [])} if claim is not None else set()
    return [task for task in found if task is not None and task.id not in own]


async def persist_step(state: NoteState, turn: Turn) -> None:
    written = await write_notes(turn, [note_data(state)])
    state.task, state.created, state.change_ids = written.tasks[0], written.created, written.change_ids
    if state.reminders:

        def target() -> bool:
            with turn.sessions() as session:
                return remind.has_target(session, turn.user_id)

        state.reminder_target = await anyio.to_thread.run_sync(target)
