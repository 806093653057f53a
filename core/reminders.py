"""Reminders: when a task's reminders fire, and their firing (docs/fdr/0038).

A task keeps its reminders in ``tasks.reminders`` (JSON, so a write logs them, undo puts them back
and a deleted task comes back with them), each either

* relative — ``{"before_s": 1800}``: that long before the deadline ("提前半小时提醒我"; 0 is "到点提醒");
  on a repeating task, before each occurrence; moving the deadline moves it;
* absolute — ``{"at": "2026-12-03T06:30:00+00:00"}``: at that moment ("明早9点提醒我").

``task_reminders`` (:class:`core.models.TaskReminder`) is the schedule derived from that column:
one row per reminder with ``next_at``, when it fires next, and ``fired_for``, the deadline (or
moment) it last fired for. :func:`reschedule` rewrites it with every write to the task (the store
calls it), keeping ``fired_for`` of reminders that stay, so a reminder never fires twice for one
deadline. :func:`fire_due` is the worker's: it claims due rows (one process per row, by the row
lock or SQLite's write lock), records a ``reminder.due`` event for each firing in the same
transaction (:mod:`core.outbox`), and moves ``next_at`` on. A firing found later than the late
window (the service was down) is recorded as missed, never sent and never dropped.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import sqlalchemy as sa
from sqlmodel import Session, col, select

from core import outbox, recurrence, series
from core.models import Task, TaskReminder
from core.reminderspec import Spec, duration_text, specs_of

__all__ = ["Fired", "fire_due", "reminder_data", "reschedule", "upcoming"]

# At most this many firings of one reminder are recorded in one pass (a daily reminder after a
# long outage): older ones are skipped as a count, so a pass stays short.
MAX_CATCH_UP = 50
_MAX_SKIPS = 1000


# --- when ---------------------------------------------------------------------------------------


def _occurrence(task: Task, after: datetime | None) -> datetime | None:
    """The deadline a relative reminder fires for next: the task's own, or for a repeating task the
    first occurrence after the one it last fired for."""
    due = task.deadline_at
    if due is None:
        return None
    if after is None or after < due:
        return due
    rule = series.rule_of(task)
    if rule is None:
        return None  # a one-off fired for its deadline already
    return recurrence.next_after(rule, after)


def upcoming(task: Task, spec: Spec, fired_for: datetime | None) -> tuple[datetime, datetime] | None:
    """(when it fires next, the deadline or moment that firing is for); None: nothing left."""
    if task.is_completed:
        return None
    if spec.at is not None:
        return None if fired_for is not None else (spec.at, spec.at)
    assert spec.before is not None
    target = _occurrence(task, fired_for)
    return (target - spec.before, target) if target is not None else None


def reschedule(session: Session, task: Task) -> None:
    """Rewrites the task's schedule rows from its reminders, keeping what each already fired for."""
    if task.id is None:
        return
    specs = specs_of(task.reminders)
    rows = list(session.exec(select(TaskReminder).where(col(TaskReminder.task_id) == task.id)))
    if not specs and not rows:
        return  # most tasks: one indexed read
    by_spec = {_spec_of(row): row for row in rows}
    for spec in specs:
        row = by_spec.pop(spec, None)
        armed = row is None
        if row is None:
            row = TaskReminder(
                task_id=task.id,
                user_id=task.user_id,
                before_s=int(spec.before.total_seconds()) if spec.before is not None else None,
                at=spec.at,
                created_at=task.updated_at,
            )
        # A one-off's deadline moved from the one a relative reminder fired for arms it again.
        moved = row.fired_for is not None and task.deadline_at is not None and row.fired_for != task.deadline_at
        if spec.before is not None and moved and series.rule_of(task) is None:
            row.fired_for, armed = None, True
        nxt = upcoming(task, spec, row.fired_for)
        # A reminder set (or armed again) for a time already past doesn't fire late for it: the
        # answer that set it said so. One already scheduled and overdue is fire_due's (late, missed).
        for _ in range(_MAX_SKIPS):
            if not armed or nxt is None or nxt[0] >= task.updated_at:
                break
            row.fired_for = nxt[1]
            nxt = upcoming(task, spec, row.fired_for)
        else:
            nxt = None  # a rule walked this far into the past is not one to remind of
        row.next_at = nxt[0] if nxt is not None else None
        session.add(row)
    for gone in by_spec.values():
        session.delete(gone)
    session.flush()


def _spec_of(row: TaskReminder) -> Spec:
    if row.before_s is not None:
        return Spec(before=timedelta(seconds=row.before_s))
    return Spec(at=row.at)


# --- firing -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Fired:
    task_id: int
    reminder_id: int
    due: datetime  # when it was meant to fire
    late: bool
    missed: bool


_TABLE: sa.Table = TaskReminder.__table__  # type: ignore[attr-defined]


def _claim(session: Session, now: datetime, limit: int) -> list[int]:
    """Takes up to ``limit`` due reminders for this transaction: their ``next_at`` is cleared in the
    claiming statement, so another process's claim can't take them (PostgreSQL: the rows are locked,
    others skipped; SQLite: the statement holds the write lock)."""
    due = sa.select(_TABLE.c.id).where(_TABLE.c.next_at <= now).order_by(_TABLE.c.next_at).limit(limit)
    if session.get_bind().dialect.name == "postgresql":
        due = due.with_for_update(skip_locked=True)
    stmt = sa.update(_TABLE).where(_TABLE.c.id.in_(due.scalar_subquery())).values(next_at=None)
    return [int(r[0]) for r in session.execute(stmt.returning(_TABLE.c.id)).all()]


def fire_due(
    session: Session,
    *,
    now: datetime,
    late_window: timedelta,
    grace: timedelta = timedelta(seconds=60),
    limit: int = 100,
) -> list[Fired]:
    """Fires what is due at ``now`` in this transaction (the caller commits): each firing is a
    ``reminder.due`` event; later than ``grace`` it is marked late, later than ``late_window``
    recorded as missed (not sent)."""
    fired: list[Fired] = []
    for reminder_id in _claim(session, now, limit):
        row = session.get(TaskReminder, reminder_id, populate_existing=True)
        task = session.get(Task, row.task_id) if row is not None else None
        if row is None or task is None:
            continue
        spec = _spec_of(row)
        nxt = upcoming(task, spec, row.fired_for)
        recorded = 0
        while nxt is not None and nxt[0] <= now:
            when, target = nxt
            missed = now - when > late_window
            if not missed or recorded < MAX_CATCH_UP:
                late = now - when > grace
                outbox.emit(session, task.user_id, "reminder.due", reminder_data(task, spec, when, target, late, missed),
                            now=now, missed=missed)  # fmt: skip
                fired.append(Fired(task.id or 0, reminder_id, when, late and not missed, missed))
                recorded += 1
            row.fired_for = target
            nxt = upcoming(task, spec, target)
        row.next_at = nxt[0] if nxt is not None else None
        session.add(row)
    session.flush()
    return fired


def reminder_data(task: Task, spec: Spec, when: datetime, target: datetime, late: bool, missed: bool) -> dict[str, Any]:
    return {
        "task": outbox.task_json(task, now=when),
        "reminder": {
            "at": when.astimezone(UTC).isoformat(),
            "before": duration_text(spec.before) if spec.before is not None else None,
            "for": target.astimezone(UTC).isoformat(),
        },
        "late": late and not missed,
        "missed": missed,
    }
