"""What a plan reads: the user's open tasks, through the store's public query (no SQL of its own).

Every read is scoped by the turn's user (``core.store.query_tasks``): another user's tasks never reach
a plan. A deadline window that is bounded on both sides lists a repeating task at its occurrence in
it (docs/fdr/0037), so a daily series is due on every day of the week.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from sqlmodel import Session

from core.store import TaskFacts, TaskFilter, TaskPage, TaskRow, query_tasks, task_facts
from dayplan.plan import FAR, DayLoad, Window, day_load

__all__ = ["CAP", "DayRows", "read_day", "read_next", "read_week"]

CAP = 100  # rows read per band: far more than a working day holds (36 quarter hours in 9 hours)


@dataclass(frozen=True)
class DayRows:
    """The rows each band is chosen from (see :func:`dayplan.plan.candidates`)."""

    overdue: TaskPage
    due: TaskPage
    urgent: TaskPage  # effective group 1
    promoted_easy: TaskPage  # effective group 3 due within FAR (the promoted ones are taken)
    important: TaskPage  # effective group 2
    rest_of_today: TaskPage  # a later day's plan: what is due between now and the day's start

    @property
    def capped(self) -> bool:
        """Some band had more rows than were read."""
        pages = (self.overdue, self.due, self.urgent, self.promoted_easy, self.important, self.rest_of_today)
        return any(p.total > len(p.items) or not p.total_exact for p in pages)


def read_day(session: Session, user_id: int, window: Window, now: datetime) -> DayRows:
    """The open tasks a plan of ``window`` may hold, band by band: overdue at ``now``, the others
    with their groups read at ``window.ref`` (the day's start for a later day: what is promoted by then)."""
    at = window.ref

    def page(flt: TaskFilter, moment: datetime = at) -> TaskPage:
        return query_tasks(session, user_id, flt, now=moment)

    return DayRows(
        overdue=page(TaskFilter(only_overdue=True, limit=CAP), now),
        due=page(TaskFilter(time_after=at, time_before=window.day_end, limit=CAP)),
        urgent=page(TaskFilter(quadrants=[1], sort_by="priority", limit=CAP)),
        promoted_easy=page(TaskFilter(quadrants=[3], time_before=at + FAR, limit=CAP)),
        important=page(TaskFilter(quadrants=[2], sort_by="priority", limit=CAP)),
        rest_of_today=(
            TaskPage(total=0, items=[])
            if window.today
            else page(
                TaskFilter(time_after=now, time_before=window.day_start - timedelta(microseconds=1), limit=CAP), now
            )
        ),
    )


def read_next(session: Session, user_id: int, after: datetime, now: datetime) -> TaskRow | None:
    """The first open task due after ``after`` (what an empty day mentions as coming next)."""
    found = query_tasks(session, user_id, TaskFilter(time_after=after, limit=1), now=now)
    return found.items[0] if found.items else None


def read_week(
    session: Session, user_id: int, days: list[date], now: datetime, tz: str, *, cap: int = CAP
) -> tuple[list[DayLoad], TaskFacts]:
    """Each day's open tasks due on it (from ``now`` on today; series at their occurrence that day),
    and the facts the answer adds (overdue and undated tasks, which belong to no day)."""
    zone = ZoneInfo(tz)
    loads = []
    for day in days:
        start = max(datetime.combine(day, time(0), zone), now)
        end = datetime.combine(day, time(0), zone) + timedelta(days=1) - timedelta(microseconds=1)
        found = query_tasks(session, user_id, TaskFilter(time_after=start, time_before=end, limit=cap), now=now)
        exact = found.total_exact and found.total <= len(found.items)
        loads.append(day_load(day, found.items, exact=exact))
    return loads, task_facts(session, user_id, now=now)
