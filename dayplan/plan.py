"""The day plan as code computes it: which tasks, in what order, at what time (no database, no model).

The rules (docs/fdr/0041):

- **The window**: the plan's day within working hours (:data:`WORK_HOURS`, 09:00–18:00 in the user's
  timezone), from ``now`` when that is later than the start (rounded up to 5 minutes); tomorrow's
  plan starts at the start of working hours. A window that is over (today after 18:00) has no time.
- **The candidates, in bands** (:data:`BANDS`), each task once, in its first band: ``overdue``
  (deadline before ``now``), by effective group, then longest overdue first; ``due`` (deadline on the
  plan's day, a repeating task at its occurrence that day), earliest deadline first; ``urgent``
  (effective group 1, promoted ones included, then a group-4 task promoted to 3), and ``important``
  (group 2), each by deadline, undated last. Tomorrow's plan leaves to today what is due later today
  (and says so). Nothing else: an easy or unimportant task fills the day only when it is overdue, due
  that day or promoted, and nothing whose deadline is more than :data:`FAR` away fills it unless it is
  important (groups 1 and 2). Tasks are never invented.
- **Minutes**: the task's estimate, else its group's default (:data:`core.estimates.DEFAULT_MINUTES`:
  15 for an easy group-3 task, 60 for the others).
- **Fitting**: in order, each task from the end of the one before; a task that does not fit in what is
  left of the window is set aside ("排不下") and the next one is tried (first fit). A task placed to
  end after its own deadline is marked late.
- **Another plan** ("换一个"): the queue rotated by ``shift`` — the first ``shift`` tasks go to the end —
  then fitted the same way.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from typing import Any, Literal
from zoneinfo import ZoneInfo

from core.estimates import DEFAULT_MINUTES
from core.store import TaskRow

__all__ = [
    "BANDS",
    "FAR",
    "WORK_HOURS",
    "Band",
    "Candidate",
    "DayLoad",
    "DayPlan",
    "Queue",
    "Slot",
    "Window",
    "WorkHours",
    "build_plan",
    "candidates",
    "day_load",
    "lightest",
    "minutes_for",
    "overdue_days",
    "plan_window",
    "week_days",
]

Band = Literal["overdue", "due", "urgent", "important"]
BANDS: tuple[Band, ...] = ("overdue", "due", "urgent", "important")
# Beyond this a task that is not important (groups 3 and 4) never fills the day.
FAR = timedelta(days=7)
ROUND_MINUTES = 5  # a plan that starts now starts at the next multiple of this
_HOURS = re.compile(r"^\s*(\d{1,2}):(\d{2})\s*[-–~至到]\s*(\d{1,2}):(\d{2})\s*$")


@dataclass(frozen=True)
class WorkHours:
    """The part of a day a plan fills, in the user's timezone."""

    start: time
    end: time

    @classmethod
    def parse(cls, text: str) -> WorkHours:
        """ "09:00-18:00" (or with "–", "~", "至"); the end must be after the start."""
        m = _HOURS.match(text)
        if m is None:
            raise ValueError(f"working hours must look like 09:00-18:00, not {text!r}")
        h1, m1, h2, m2 = (int(g) for g in m.groups())
        if h2 == 24 and m2 == 0:
            h2, m2 = 23, 59
        start, end = time(h1, m1), time(h2, m2)
        if end <= start:
            raise ValueError(f"working hours end before they start: {text!r}")
        return cls(start, end)

    def __str__(self) -> str:
        return f"{self.start:%H:%M}–{self.end:%H:%M}"


# The working hours a plan fills by default; SUIKOU_WORK_HOURS sets them (TurnConfig.work_hours).
WORK_HOURS = WorkHours.parse("09:00-18:00")


@dataclass(frozen=True)
class Window:
    """The time a plan fills and the moments it is read at."""

    day: date
    start: datetime  # when the first task may begin
    end: datetime  # when working hours end
    ref: (
        datetime  # what groups (promotion) are read at, and deadlines counted from: now today, the day's midnight later
    )
    day_start: datetime  # the day's 00:00
    day_end: datetime  # the day's last microsecond
    today: bool

    @property
    def minutes(self) -> int:
        return max(0, int((self.end - self.start).total_seconds() // 60))


def _round_up(moment: datetime, step: int = ROUND_MINUTES) -> datetime:
    base = moment.replace(second=0, microsecond=0)
    if base < moment:
        base += timedelta(minutes=1)
    extra = (-base.minute) % step
    return base + timedelta(minutes=extra)


def plan_window(now: datetime, tz: str, day: date, hours: WorkHours = WORK_HOURS) -> Window:
    """The window of ``day``'s plan at ``now`` (a day before today is planned as today)."""
    zone = ZoneInfo(tz)
    local_now = now.astimezone(zone)
    day = max(day, local_now.date())
    day_start = datetime.combine(day, time(0), zone)
    day_end = day_start + timedelta(days=1) - timedelta(microseconds=1)
    work_start = datetime.combine(day, hours.start, zone)
    work_end = datetime.combine(day, hours.end, zone)
    today = day == local_now.date()
    start = max(work_start, _round_up(local_now)) if today else work_start
    return Window(
        day=day,
        start=min(start, work_end),
        end=work_end,
        ref=local_now if today else day_start,
        day_start=day_start,
        day_end=day_end,
        today=today,
    )


@dataclass(frozen=True)
class Candidate:
    """A task the plan wants to place: why (its band), and for how long."""

    task: TaskRow
    band: Band
    minutes: int
    estimated: bool  # the task's own estimate; False: its group's default


@dataclass(frozen=True)
class Slot:
    candidate: Candidate
    start: datetime
    end: datetime
    late: bool = False  # placed to end after its own deadline (one overdue before the plan starts is not)


def minutes_for(task: TaskRow) -> tuple[int, bool]:
    """What a task takes in the plan: its estimate, else its group's default; and which it was."""
    if task.estimate_minutes:
        return task.estimate_minutes, True
    return DEFAULT_MINUTES.get(task.priority_group, 60), False


def _candidate(task: TaskRow, band: Band) -> Candidate:
    minutes, estimated = minutes_for(task)
    return Candidate(task, band, minutes, estimated)


def _deadline_key(task: TaskRow) -> tuple[bool, float]:
    return task.deadline_at is None, task.deadline_at.timestamp() if task.deadline_at else 0.0


@dataclass(frozen=True)
class Queue:
    """The candidates in order, and (for a later day's plan) the tasks left to today: due between now
    and the day's start, which belong to today, not to the day planned."""

    items: list[Candidate]
    left_today: list[TaskRow]


def candidates(
    overdue: Iterable[TaskRow],
    due: Iterable[TaskRow],
    urgent: Iterable[TaskRow],
    promoted_easy: Iterable[TaskRow],
    important: Iterable[TaskRow],
    *,
    window: Window,
    now: datetime,
    rest_of_today: Iterable[TaskRow] = (),
) -> Queue:
    """The plan's queue, band by band, each task once (in its first band), in the module's order.

    ``overdue``: deadline before ``now``; ``due``: deadline on the day (a series at its occurrence);
    ``urgent``: effective group 1; ``promoted_easy``: rows of effective group 3 (only the promoted ones
    are taken); ``important``: group 2 (promoted ones are group 1 already). For a later day, a row due
    between ``now`` and the day's start is today's, not the plan's: it is left out, and said
    (``rest_of_today``: every such row, whatever its group)."""
    seen: set[int] = set()
    items: list[Candidate] = []
    later: dict[int, TaskRow] = {}

    def for_today(row: TaskRow) -> bool:
        d = row.deadline_at
        return not window.today and d is not None and now <= d < window.day_start

    def take(rows: Iterable[TaskRow], band: Band, key: Callable[[TaskRow], tuple[Any, ...]]) -> None:
        fresh = []
        for row in rows:
            if row.id in seen or row.is_completed or not _wanted(row, band, window.ref):
                continue
            if for_today(row):
                later.setdefault(row.id, row)
                continue
            seen.add(row.id)
            fresh.append(row)
        items.extend(_candidate(row, band) for row in sorted(fresh, key=key))

    take(overdue, "overdue", lambda r: (r.effective_group, *_deadline_key(r), r.id))
    take(due, "due", lambda r: (*_deadline_key(r), r.effective_group, r.id))
    urgent_rows = [*urgent, *(r for r in promoted_easy if r.promoted)]
    take(urgent_rows, "urgent", lambda r: (r.effective_group, *_deadline_key(r), r.id))
    take(important, "important", lambda r: (r.effective_group, *_deadline_key(r), r.id))
    for row in rest_of_today:
        if for_today(row) and not row.is_completed:
            later.setdefault(row.id, row)
    left = sorted((row for i, row in later.items() if i not in seen), key=lambda r: (*_deadline_key(r), r.id))
    return Queue(items, left)


def _wanted(row: TaskRow, band: Band, ref: datetime) -> bool:
    """Whether a row belongs to the band (the reads are wider than the bands where the store can't say
    "promoted"), and never something far off that is not important."""
    if band == "urgent" and not (row.effective_group == 1 or (row.promoted and row.effective_group == 3)):
        return False
    if band == "important" and row.effective_group != 2:
        return False
    far = row.deadline_at is not None and row.deadline_at > ref + FAR
    return not (far and row.effective_group not in (1, 2))


@dataclass(frozen=True)
class DayPlan:
    """The plan: what was placed when, what did not fit, and how the queue was turned."""

    window: Window
    hours: WorkHours
    slots: tuple[Slot, ...]
    not_fit: tuple[Candidate, ...]
    shift: int = 0  # how far the queue was rotated ("换一个")
    moved: tuple[Candidate, ...] = ()  # the tasks the rotation sent to the end
    more: bool = False  # a read stopped at its cap: more tasks may qualify than were considered
    left_today: tuple[TaskRow, ...] = ()  # a later day's plan: tasks due today, left to today

    @property
    def queue_size(self) -> int:
        return len(self.slots) + len(self.not_fit)

    @property
    def used_minutes(self) -> int:
        return sum(s.candidate.minutes for s in self.slots)

    @property
    def free_minutes(self) -> int:
        return max(0, self.window.minutes - self.used_minutes)

    @property
    def used_defaults(self) -> bool:
        """Some task of the plan (placed or not) is counted at its group's default."""
        return any(not c.estimated for c in (*(s.candidate for s in self.slots), *self.not_fit))


def build_plan(
    window: Window,
    queue: Sequence[Candidate],
    *,
    hours: WorkHours = WORK_HOURS,
    shift: int = 0,
    more: bool = False,
    left_today: Sequence[TaskRow] = (),
) -> DayPlan:
    """Fits ``queue`` (rotated by ``shift``) into ``window``, first fit, in order."""
    turn = shift % len(queue) if queue else 0
    ordered = [*queue[turn:], *queue[:turn]]
    cursor, slots, not_fit = window.start, [], []
    for candidate in ordered:
        end = cursor + timedelta(minutes=candidate.minutes)
        if end <= window.end:
            deadline = candidate.task.deadline_at
            late = deadline is not None and window.start <= deadline < end
            slots.append(Slot(candidate, cursor, end, late))
            cursor = end
        else:
            not_fit.append(candidate)
    return DayPlan(window, hours, tuple(slots), tuple(not_fit), shift, tuple(queue[:turn]), more, tuple(left_today))


# --- the week ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DayLoad:
    """One day of the week: the open tasks due on it and the minutes they take."""

    day: date
    count: int
    minutes: int
    defaults: int  # how many of them are counted at their group's default
    exact: bool = True  # False: more tasks are due than were read (count and minutes are lower bounds)


def week_days(now: datetime, tz: str, weeks_ahead: int = 0) -> list[date]:
    """This week's days from today through Sunday (weeks start on Monday); a later week whole."""
    today = now.astimezone(ZoneInfo(tz)).date()
    monday = today - timedelta(days=today.weekday()) + timedelta(weeks=weeks_ahead)
    days = [monday + timedelta(days=i) for i in range(7)]
    return [d for d in days if d >= today]


def day_load(day: date, rows: Iterable[TaskRow], *, exact: bool = True) -> DayLoad:
    count = minutes = defaults = 0
    for row in rows:
        need, estimated = minutes_for(row)
        count += 1
        minutes += need
        defaults += not estimated
    return DayLoad(day, count, minutes, defaults, exact)


def lightest(loads: Sequence[DayLoad]) -> list[DayLoad]:
    """The least loaded days (by minutes, then count), earliest first; ties all named."""
    if not loads:
        return []
    best = min((load.minutes, load.count) for load in loads)
    return [load for load in loads if (load.minutes, load.count) == best]


def overdue_days(deadline: datetime, now: datetime, tz: str) -> tuple[int, int]:
    """How long ``deadline`` is past at ``now``: calendar days in the user's timezone, and whole hours."""
    zone = ZoneInfo(tz)
    days = (now.astimezone(zone).date() - deadline.astimezone(zone).date()).days
    hours = math.floor((now - deadline).total_seconds() / 3600)
    return days, hours
