"""A repeating task moving along its schedule: what completing or skipping an occurrence changes.

A series is one task whose deadline is its next open occurrence (docs/fdr/0037). Completing an
occurrence leaves a completed copy of it (so "今天完成了什么" lists it) and moves the deadline to
the schedule's next occurrence after the one done — once, however early; an overdue one moves to the
next occurrence after now, so missed ones don't pile up. A rule counted from completion
("做完后每3天") counts from now. Skipping moves the deadline the same way without a copy. Writes
happen in :mod:`core.writes`; this module only computes.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from zoneinfo import ZoneInfo

from core import recurrence
from core.locale import Locale
from core.models import Task
from core.timeanchor import chinacal

__all__ = [
    "Step", "day_words", "first_in", "guess_note", "moved_threshold", "next_step", "rule_of", "rule_of_stored", "rule_words", "summary",
]  # fmt: skip


def rule_of(task: Task) -> recurrence.Recurrence | None:
    """The task's rule, or None for a one-off (or a stored rule this version can't read)."""
    return rule_of_stored(task.recurrence)


@lru_cache(maxsize=8192)
def _read(stored: str) -> recurrence.Recurrence | None:
    # Reading validates the rule (a walk to its first occurrence): a window query reads every
    # series due before it, so a stored text is read once per process. Recurrence is frozen.
    try:
        return recurrence.Recurrence.from_ical(stored)
    except recurrence.RuleError:
        return None


@dataclass(frozen=True)
class Step:
    """Where a series goes from its current occurrence: the next deadline (None: the series is over),
    the urgency threshold moved along with it, and the rule (rebased when counted from completion)."""

    deadline_at: datetime | None
    urgency_threshold_at: datetime | None
    rule: str


def next_step(task: Task, *, now: datetime) -> Step | None:
    """The step a completion or a skip takes at ``now``; None when the task doesn't repeat."""
    rec = rule_of(task)
    if rec is None or task.recurrence is None:
        return None
    due = task.deadline_at or now
    if rec.from_completion:
        nxt, rule = _from_completion(rec, now)
    else:
        nxt, rule = recurrence.next_after(rec, max(due, now)), task.recurrence
    threshold = moved_threshold(task, nxt) if nxt is not None else task.urgency_threshold_at
    return Step(nxt, threshold, rule)


def moved_threshold(task: Task, deadline: datetime) -> datetime | None:
    """The urgency threshold with the same lead before ``deadline`` as before the task's own."""
    if task.urgency_threshold_at is None or task.deadline_at is None:
        return task.urgency_threshold_at
    return task.urgency_threshold_at + (deadline - task.deadline_at)


def _from_completion(rec: recurrence.Recurrence, now: datetime) -> tuple[datetime | None, str]:
    """Counted from today at the rule's time of day; the rule rebased on that next occurrence, with
    COUNT one less (the open occurrence is always the rule's first, so COUNT is what is left)."""
    parts = rec.parts()
    if parts.get("COUNT") == "1":
        return None, rec.to_ical()
    today = rec.rebased(datetime.combine(now.astimezone(rec.start.tzinfo).date(), rec.start.timetz()))
    found = recurrence.occurrences(today, after=today.start, limit=1)
    if not found:
        return None, rec.to_ical()
    if "COUNT" in parts:
        parts["COUNT"] = str(int(parts["COUNT"]) - 1)
    rest = ";".join(f"{k}={v}" for k, v in parts.items())
    return found[0], dataclasses.replace(rec, rule=rest, start=found[0].astimezone(rec.start.tzinfo)).to_ical()


def day_words(moment: datetime, tz: str, now: datetime, locale: Locale) -> str:
    """ "12月7日" / "Dec 7", with the year when it is not this one ("2027年9月12日")."""
    day, year = moment.astimezone(ZoneInfo(tz)), now.astimezone(ZoneInfo(tz)).year
    if locale == "zh":
        return f"{'' if day.year == year else f'{day.year}年'}{day.month}月{day.day}日"
    return f"{day:%b} {day.day}{'' if day.year == year else f' {day.year}'}"


def summary(rec: recurrence.Recurrence, after: datetime, tz: str, now: datetime, locale: Locale) -> str:
    """ "每周一 09:00，接下来：12月7日、12月14日、12月21日": the rule and its next three occurrences
    from ``after`` (included)."""
    coming = recurrence.occurrences(rec, after=after, limit=3, inclusive=True)
    words = recurrence.describe(rec, locale)
    if not coming:
        return words
    days = [day_words(d, tz, now, locale) for d in coming]
    text = f"{words}，接下来：{'、'.join(days)}" if locale == "zh" else f"{words}, next: {', '.join(days)}"
    return text + guess_note(rec, coming, locale)


def guess_note(rec: recurrence.Recurrence, moments: list[datetime], locale: Locale) -> str:
    """Workday rules past the published holiday schedules rest on a guess (Mon–Fri minus the fixed
    statutory days, no 调休): said, with the first such year."""
    if "X-DAYS" not in rec.parts():
        return ""
    guessed = sorted({m.year for m in moments if not chinacal.schedule_known(m.year)})
    if not guessed:
        return ""
    if locale == "zh":
        return f"（{guessed[0]}年的节假日安排还没公布，先按常规推算）"
    return f" (the {guessed[0]} holiday schedule isn't published yet, so these are estimates)"


def first_in(task: Task, after: datetime, before: datetime) -> datetime | None:
    """The first occurrence of ``task``'s series inside ``[after, before]``, or None: how a window
    that starts after the open occurrence sees the series ("下周要做什么" while this week's is open)."""
    rec = rule_of(task)
    if rec is None:
        return None
    found = recurrence.next_after(rec, after, inclusive=True)
    return found if found is not None and found <= before else None


def rule_of_stored(stored: str | None) -> recurrence.Recurrence | None:
    """A stored rule read back; None for none or a rule this version can't read."""
    return _read(stored) if stored else None


def rule_words(stored: str | None, locale: Locale) -> str | None:
    """A stored rule in words ("每周一 09:00"); None for a one-off or a rule this version can't read."""
    rule = rule_of_stored(stored)
    return recurrence.describe(rule, locale) if rule is not None else None
