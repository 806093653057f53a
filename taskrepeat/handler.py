"""The `task_repeat` action: skip one occurrence, end a series, or change its rule (docs/fdr/0037).

**Which task.** The words name it ("这周的周报不用交了" → 周报), matched among the user's tasks with
:func:`core.resolve.resolve`, the repeating one preferred; no words ("跳过这次", "不再重复") → the task
the conversation last wrote. Several series match → it asks; none → said. Nothing is written then.

**What changes** (one write-path transaction, undoable):

* skip — the deadline moves to the schedule's next occurrence (:func:`core.series.next_step`), with
  no completed copy: the occurrence skipped was never done. The last occurrence can't be skipped
  (nothing follows); the answer says so.
* end — the rule is removed; the open occurrence stays as a one-off, and the answer says how to
  delete it too.
* change — the new repetition is read by code (:func:`core.recurrence.read_repeat`); the schedule
  keeps the task's time of day and restarts from today, the deadline its first occurrence from now.
  A one-off becomes a series this way too. A repetition the rules can't read is said; nothing changes.

A copy of the same attempt (a retry) repeats the first copy's answer and writes nothing.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from datetime import datetime, time
from typing import Any, Literal, get_args
from zoneinfo import ZoneInfo

import anyio.to_thread

from core import changes, recurrence, resolve, series, writes
from core.display import format_when, task_record
from core.locale import Locale
from core.models import Task, TaskUpdate
from core.recurrence.describe import END_OF_DAY
from core.store import task_row
from core.timeanchor import deadline_of, resolve_time
from core.turn import Answer, Turn
from taskrepeat.offline import RepeatControl, read_control

__all__ = ["CLARIFY", "DESCRIPTION", "OUTCOMES", "explain_repeat", "handle_repeat"]

DESCRIPTION = (
    "重复: the user controls a REPEATING task — skips one occurrence ('这周的周报不用交了', '跳过这次', "
    "'skip this week's report'), ends the repetition ('周报以后不用交了', '不再重复', 'stop repeating the "
    "report') or changes its rule ('打卡改成每周一三五', '改成每两周'). Writes data."
)

CLARIFY: dict[Locale, str] = {
    "zh": "你是想跳过、停止还是修改某个重复的任务吗？说一下任务名，例如「这周的周报不用交了」。这次什么都没有改动。",
    "en": 'Do you want to skip, stop or change a repeating task? Name it, e.g. "skip this week\'s report". '
    "Nothing was changed.",
}

Kind = Literal["written", "again", "not_series", "last", "unread", "ask", "none", "no_words"]
OUTCOMES: tuple[str, ...] = get_args(Kind)
SHOWN_CANDIDATES = 5


@dataclass
class _Outcome:
    kind: Kind
    title: str = ""
    task: dict[str, Any] | None = None
    change_ids: list[int] = field(default_factory=list)
    candidates: list[str] = field(default_factory=list)
    line: str = ""  # what the change did, in words (rendered inside the transaction)


def _read(turn: Turn) -> RepeatControl | None:
    return turn.reading if isinstance(turn.reading, RepeatControl) else read_control(turn.text)


def _is_series(task: Task) -> bool:
    return not task.is_completed and series.rule_of(task) is not None


def _pick(w: writes.Writer, turn: Turn, control: RepeatControl) -> Task | _Outcome:
    last = changes.last_written(turn.messages, turn.seal)
    if control.words is None:
        found = resolve.target(w.session, turn.user_id, None, last)
        if found.kind in ("nothing", "gone"):
            return _Outcome("no_words")
    else:
        found = resolve.resolve(w.session, turn.user_id, control.words)
    if found.kind == "none":
        return _Outcome("none")
    repeating = [t for t in found.tasks if _is_series(t)]
    open_ = [t for t in found.tasks if not t.is_completed]
    chosen = repeating if repeating or control.op != "change" else open_
    if len(chosen) == 1:
        return chosen[0]
    if chosen:
        return _Outcome("ask", candidates=[t.title for t in chosen[:SHOWN_CANDIDATES]])
    title = found.tasks[0].title if found.tasks else ""
    return _Outcome("not_series", title)


def _when(moment: datetime | None, turn: Turn) -> str:
    return format_when(moment, turn.tz, turn.now, turn.locale) if moment is not None else ""


def _skip(w: writes.Writer, task: Task, turn: Turn) -> _Outcome:
    step = series.next_step(task, now=turn.now)
    if step is None or step.deadline_at is None:
        return _Outcome("last", task.title)
    was = task.deadline_at
    w.advance(task, step, done=False)
    en = turn.locale == "en"
    line = (
        f'Skipped "{task.title}" ({_when(was, turn)}); next: {_when(task.deadline_at, turn)}.'
        if en
        else f"好，「{task.title}」{_when(was, turn)} 这次跳过；下一次：{_when(task.deadline_at, turn)}。"
    )
    return _Outcome("written", task.title, line=line)


def _end(w: writes.Writer, task: Task, turn: Turn) -> _Outcome:
    rule = series.rule_of(task)
    words = recurrence.describe(rule, turn.locale) if rule is not None else ""
    w.update(task, TaskUpdate(recurrence=None))
    due = _when(task.deadline_at, turn)
    if turn.locale == "en":
        line = f'"{task.title}" no longer repeats ({words}).' + (
            f' The one due {due} is still there; say "delete {task.title}" to remove it too.' if due else ""
        )
    else:
        line = f"好，「{task.title}」不再重复（原来{words}）。" + (
            f"{due} 这一次还留着，不需要的话说「删掉{task.title}」。" if due else ""
        )
    return _Outcome("written", task.title, line=line)


def _said_clock(phrase: recurrence.RepeatPhrase | None, turn: Turn) -> time | None:
    """The time of day said with the new rule ("改成每天晚上9点" → 21:00); None keeps the old one."""
    window = resolve_time(phrase.rest, turn.now, turn.tz) if phrase is not None and phrase.rest else None
    moment = deadline_of(window) if window is not None else None
    clock = moment.astimezone(ZoneInfo(turn.tz)).time() if moment is not None else None
    return clock if clock != END_OF_DAY else None


def _change(w: writes.Writer, task: Task, turn: Turn, said: str) -> _Outcome:
    phrase = recurrence.read_repeat(said, now=turn.now)
    zone = ZoneInfo(turn.tz)
    old = series.rule_of(task)
    clock = _said_clock(phrase, turn) or (
        old.start.time() if old else (task.deadline_at.astimezone(zone).time() if task.deadline_at else END_OF_DAY)
    )
    # A bare period takes its phase from the open occurrence's day when that is still ahead ("改成每两周"
    # keeps its Monday); a rule that names its own days, or a daily one, starts from today.
    own_days = phrase is not None and phrase.rule is not None and re.search(r"BY|X-DAYS|X-TERM|FREQ=DAILY", phrase.rule)
    keep = task.deadline_at is not None and task.deadline_at >= turn.now and not own_days
    ahead = task.deadline_at if keep and task.deadline_at is not None else turn.now
    day = (phrase.first_day if phrase else None) or ahead.astimezone(zone).date()
    try:
        if phrase is None or phrase.rule is None:
            raise recurrence.RuleError("unreadable")
        rec = recurrence.make(phrase.rule, start=datetime.combine(day, clock), tz=turn.tz)
        first = recurrence.next_after(rec, max(turn.now, rec.start), inclusive=True)
    except recurrence.RuleError:
        first = None
    if first is None:
        return _Outcome("unread", task.title, line=phrase.words if phrase else said)
    rebased = rec.rebased(first)
    threshold = series.moved_threshold(task, first)
    w.update(task, TaskUpdate(deadline_at=first, urgency_threshold_at=threshold, recurrence=rebased.to_ical()))
    summary = series.summary(rebased, first, turn.tz, turn.now, turn.locale)
    line = f'"{task.title}" now repeats {summary}.' if turn.locale == "en" else f"好，「{task.title}」改成了{summary}。"
    return _Outcome("written", task.title, line=line)


def _decide(turn: Turn, control: RepeatControl) -> _Outcome:
    with writes.writing(turn.sessions, writes.chat_author(turn)) as w:
        if w.copy:
            return _Outcome(
                "again", str(w.prior.get("line", "")), change_ids=list(w.claim.change_ids if w.claim else [])
            )
        picked = _pick(w, turn, control)
        if isinstance(picked, _Outcome):
            return picked
        if control.op == "change":
            outcome = _change(w, picked, turn, control.repeat or "")
        elif not _is_series(picked):
            return _Outcome("not_series", picked.title)
        else:
            outcome = (_skip if control.op == "skip" else _end)(w, picked, turn)
        if outcome.kind == "written":
            w.report["line"] = outcome.line
            outcome.task = task_record(task_row(picked, now=turn.now), turn.now)
            outcome.change_ids = list(w.change_ids)
    return outcome


_TEXTS: dict[Locale, dict[str, str]] = {
    "zh": {
        "again": "这一轮已经改过了，不再改动。",
        "not_series": "「{title}」不是重复的任务，没有改动；不需要了的话说「删掉{title}」。",
        "last": "「{title}」这已经是最后一次了，没有下一次可以跳过到；要删掉就说「删掉{title}」。没有改动。",
        "unread": "「{line}」我还不会按规律重复，「{title}」没有改动。",
        "ask": "有几个重复的任务对得上：{list}。是哪一个？说一下完整的任务名，这次还没有改动。",
        "none": "没有找到对得上的重复任务，什么都没有改动。",
    },
    "en": {
        "again": "That was already done in this turn; nothing more was changed.",
        "not_series": '"{title}" doesn\'t repeat; nothing was changed. Say "delete {title}" if it is not needed.',
        "last": '"{title}" has no occurrence after this one to skip to; say "delete {title}" to remove it. '
        "Nothing was changed.",
        "unread": 'I can\'t repeat "{line}" on a schedule yet; "{title}" was not changed.',
        "ask": "Several repeating tasks match: {list}. Which one? Say its full name; nothing was changed yet.",
        "none": "No repeating task matches; nothing was changed.",
    },
}


def _render(outcome: _Outcome, turn: Turn) -> Answer:
    if outcome.kind == "no_words":
        return Answer(CLARIFY[turn.locale], {"matches": 0})
    if outcome.kind == "written" or (outcome.kind == "again" and outcome.title):
        text = outcome.line if outcome.kind == "written" else outcome.title
        data: dict[str, Any] = {"task": outcome.task, "change_ids": outcome.change_ids}
        return Answer(changes.marker(text, outcome.change_ids, turn.seal) if outcome.change_ids else text, data)
    joiner = "、" if turn.locale == "zh" else ", "
    template = _TEXTS[turn.locale][outcome.kind]
    text = template.format(title=outcome.title, line=outcome.line, list=joiner.join(outcome.candidates))
    return Answer(text, {"matches": len(outcome.candidates)})


async def handle_repeat(turn: Turn) -> Answer:
    control = _read(turn)
    if control is None:
        return Answer(CLARIFY[turn.locale], {"matches": 0}, outcome="no_words")
    turn.trace.emit("repeat", "start", f"找要改的重复任务（{control.op}）", {"op": control.op, "words": control.words})
    outcome = await anyio.to_thread.run_sync(lambda: _decide(turn, control))
    turn.trace.emit("repeat", "end", outcome.kind, {"outcome": outcome.kind})
    answer = _render(outcome, turn)
    return dataclasses.replace(answer, change_ids=tuple(outcome.change_ids), outcome=outcome.kind)


async def explain_repeat(turn: Turn) -> dict[str, Any]:
    """``{"repeat": {"op": …, "words": …, "rule_words": …}}``: what would change, without the database."""
    control = _read(turn)
    if control is None:
        return {"repeat": None}
    return {"repeat": {"op": control.op, "words": control.words, "rule_words": control.repeat}}
