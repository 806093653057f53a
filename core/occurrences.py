"""The occurrence index: a series' coming occurrences as rows, so deadline windows list series in SQL.

A repeating task is one row whose deadline is its next open occurrence (docs/fdr/0037). A window
that starts after that deadline still shows the series once, at its first occurrence inside the
window ("下周要做什么" lists 交周报 on next Monday while this week's is open). Walking every rule in
Python for that cost about 40 µs a series (~200 ms for a user with 5,600 open series); here the
occurrences after the open one are rows of ``task_occurrences`` (:class:`core.models.TaskOccurrence`),
and a window's series are the rows with ``at`` inside it whose previous occurrence ``prev_at`` is
before it: one row per series, read from one index in the window's order, counted and paged by
the database like every other row.

What is stored, per open series with a deadline: its occurrences after the deadline up to
:data:`HORIZON` later, at most :data:`MAX_ROWS` of them; ``tasks.occurrences_until`` says how far
that reaches. A window ending after it (a year out; a daily series after four months) is answered
for that series by the walk, as before, so nothing is ever left out. Rules filtered by the
statutory calendar (``X-DAYS``) are always walked: their days change when an operator loads a new
year of holidays (``SUIKOU_HOLIDAYS_FILE``), and stored rows would keep the old guess.

Writes: the index is maintained by the application, like :mod:`core.titlegrams`: :func:`sync`
after any write to a task (the store's create, update and completion, undo's restores), which
rewrites its rows from the task as it now is; deletes cascade. :func:`reindex_all` after rows were
loaded with raw SQL (benchmarks) and in migration ``0009_task_occurrences``.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import sqlalchemy as sa
from sqlmodel import Session

from core import recurrence, series
from core.models import Task, TaskOccurrence

__all__ = ["HORIZON", "MAX_ROWS", "reindex_all", "rows_for", "sync"]

HORIZON = timedelta(days=400)  # a year's windows, from the open occurrence
MAX_ROWS = 120  # a daily series: four months; a weekly one reaches the horizon

_OCC: sa.Table = TaskOccurrence.__table__  # type: ignore[attr-defined]
_TASKS: sa.Table = Task.__table__  # type: ignore[attr-defined]


def rows_for(
    task_id: int,
    user_id: int,
    stored_rule: str | None,
    deadline: datetime | None,
    threshold: datetime | None,
    priority_group: int,
    completed: bool,
) -> tuple[datetime | None, list[dict[str, Any]]]:
    """The rows of one task and how far they reach (None: the task keeps no rows)."""
    rule = series.rule_of_stored(stored_rule)
    if completed or deadline is None or rule is None or "X-DAYS" in rule.parts():
        return None, []
    horizon = deadline + HORIZON
    found = recurrence.occurrences(rule, after=deadline, before=horizon, limit=MAX_ROWS)
    until = found[-1] if len(found) == MAX_ROWS else horizon
    lead = threshold - deadline if threshold is not None else None
    rows, prev = [], deadline
    for at in found:
        rows.append(
            {
                "task_id": task_id,
                "user_id": user_id,
                "at": at,
                "prev_at": prev,
                "until": until,
                "due_at": deadline,
                "priority_group": priority_group,
                "threshold_at": at + lead if lead is not None else None,
            }
        )
        prev = at
    return until, rows


def sync(session: Session, task: Task) -> None:
    """Rewrites ``task``'s rows from the task as it is now (none for a one-off or a done series)."""
    if task.id is None or (task.recurrence is None and task.occurrences_until is None):
        return  # a one-off that never had rows: the common case costs nothing
    until, rows = rows_for(
        task.id,
        task.user_id,
        task.recurrence,
        task.deadline_at,
        task.urgency_threshold_at,
        task.priority_group,
        task.is_completed,
    )
    conn = session.connection()
    conn.execute(sa.delete(_OCC).where(_OCC.c.task_id == task.id))
    if rows:
        conn.execute(sa.insert(_OCC), rows)
    if task.occurrences_until != until:
        task.occurrences_until = until
        session.add(task)
        session.flush()


def reindex_all(conn: sa.Connection, *, batch: int = 2000) -> int:
    """Rebuilds every series' rows (after a bulk load past the store, and in the migration);
    returns the number of rows written."""
    conn.execute(sa.delete(_OCC))
    read = sa.select(
        _TASKS.c.id,
        _TASKS.c.user_id,
        _TASKS.c.recurrence,
        _TASKS.c.deadline_at,
        _TASKS.c.urgency_threshold_at,
        _TASKS.c.priority_group,
        _TASKS.c.is_completed,
    ).where(_TASKS.c.recurrence.is_not(None))
    found = conn.execute(read).all()
    written = 0
    marks: list[dict[str, Any]] = []
    pending: list[dict[str, Any]] = []
    for task_id, user_id, rule, deadline, threshold, group, completed in found:
        until, rows = rows_for(task_id, user_id, rule, deadline, threshold, group, bool(completed))
        marks.append({"b_id": task_id, "b_until": until})
        pending.extend(rows)
        if len(pending) >= batch:
            written += _flush(conn, pending)
    written += _flush(conn, pending)
    if marks:
        mark = sa.update(_TASKS).where(_TASKS.c.id == sa.bindparam("b_id"))
        conn.execute(mark.values(occurrences_until=sa.bindparam("b_until")), marks)
    return written


def _flush(conn: sa.Connection, rows: list[dict[str, Any]]) -> int:
    n = len(rows)
    if rows:
        conn.execute(sa.insert(_OCC), rows)
        rows.clear()
    return n
