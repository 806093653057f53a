"""Task queries and writes. Every function is scoped by ``user_id``.

Transactions: these functions ``flush`` but never ``commit``; the caller owns the unit of work
(``with session.begin(): ...`` or ``session.commit()``).

Read-time urgency promotion (brief §1): an uncompleted task whose ``urgency_threshold_at <= now``
is read one group more urgent (2 → 1, 4 → 3); nothing is written. :func:`effective_group_expr`
is that rule as one SQL ``CASE`` expression, and :func:`query_tasks` uses it for the quadrant
filter, the ``priority`` ordering and therefore for LIMIT/OFFSET, so paging sees effective
groups. :func:`effective_group` is the same rule in Python for a single, already loaded task.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

import sqlalchemy as sa
from pydantic import BaseModel, Field
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from core.models import Task, TaskCreate, TaskUpdate

PROMOTABLE_GROUPS = (2, 4)

# ---------------------------------------------------------------------------------------------
# types


class TaskFilter(BaseModel):
    """What to read. Time bounds are inclusive and apply to ``time_field``."""

    quadrants: list[int] | None = None  # effective groups to include; None or [] = all
    time_field: Literal["deadline", "completed", "created"] = "deadline"
    time_after: datetime | None = None
    time_before: datetime | None = None
    include_completed: bool = False
    only_overdue: bool = False  # deadline < now and not completed
    keyword: str | None = None  # case-insensitive literal substring of the title
    sort_by: Literal["deadline", "priority", "id"] = "deadline"
    order: Literal["asc", "desc"] = "asc"
    limit: int = Field(default=5, ge=0)
    offset: int = Field(default=0, ge=0)


@dataclass(frozen=True)
class TaskRow:
    """One task as a query returns it, with its effective (possibly promoted) group."""

    id: int
    title: str
    priority_group: int
    effective_group: int
    deadline_at: datetime | None
    urgency_threshold_at: datetime | None
    is_completed: bool
    completed_at: datetime | None
    created_at: datetime
    promoted: bool


@dataclass(frozen=True)
class TaskPage:
    total: int  # every match, not just this page
    items: list[TaskRow]


# ---------------------------------------------------------------------------------------------
# promotion


def _promotion_condition(now: datetime) -> sa.ColumnElement[bool]:
    return sa.and_(
        col(Task.is_completed) == sa.false(),
        col(Task.urgency_threshold_at).is_not(None),
        col(Task.urgency_threshold_at) <= now,
        col(Task.priority_group).in_(PROMOTABLE_GROUPS),
    )


def effective_group_expr(now: datetime) -> sa.ColumnElement[int]:
    """The effective group as a SQL CASE: stored group, minus one when promoted."""
    return sa.case(
        (_promotion_condition(now), col(Task.priority_group) - 1),
        else_=col(Task.priority_group),
    )


def effective_group(task: Task, *, now: datetime) -> int:
    """The same rule as :func:`effective_group_expr`, for one task already in memory."""
    if (
        not task.is_completed
        and task.urgency_threshold_at is not None
        and task.urgency_threshold_at <= now
        and task.priority_group in PROMOTABLE_GROUPS
    ):
        return task.priority_group - 1
    return task.priority_group


def task_row(task: Task, *, now: datetime) -> TaskRow:
    """A loaded task in the shape :func:`query_tasks` returns (e.g. for a confirmation)."""
    assert task.id is not None
    eff = effective_group(task, now=now)
    return TaskRow(
        id=task.id,
        title=task.title,
        priority_group=task.priority_group,
        effective_group=eff,
        deadline_at=task.deadline_at,
        urgency_threshold_at=task.urgency_threshold_at,
        is_completed=task.is_completed,
        completed_at=task.completed_at,
        created_at=task.created_at,
        promoted=eff != task.priority_group,
    )


# ---------------------------------------------------------------------------------------------
# query


_TIME_COLUMNS = {
    "deadline": col(Task.deadline_at),
    "completed": col(Task.completed_at),
    "created": col(Task.created_at),
}


def _conditions(
    user_id: int, flt: TaskFilter, eff: sa.ColumnElement[int], now: datetime, dialect: str
) -> list[sa.ColumnElement[bool]]:
    conds: list[sa.ColumnElement[bool]] = [col(Task.user_id) == user_id]

    if flt.time_field == "completed":
        # "what did I finish ...": completed tasks only, whatever include_completed says.
        conds.append(col(Task.is_completed) == sa.true())
    elif not flt.include_completed or flt.only_overdue:
        conds.append(col(Task.is_completed) == sa.false())

    if flt.only_overdue:
        conds.append(col(Task.deadline_at) < now)

    if flt.quadrants:
        conds.append(eff.in_(sorted(set(flt.quadrants))))

    time_col = _TIME_COLUMNS[flt.time_field]
    if flt.time_after is not None:
        conds.append(time_col >= flt.time_after)
    if flt.time_before is not None:
        conds.append(time_col <= flt.time_before)

    keyword = (flt.keyword or "").strip()
    if keyword:
        conds.append(_keyword_condition(keyword, dialect))
    return conds


def _ordering(flt: TaskFilter, eff: sa.ColumnElement[int]) -> list[Any]:
    deadline = col(Task.deadline_at)
    task_id = col(Task.id)
    desc = flt.order == "desc"
    # NULL deadlines sort last in both directions and on both backends (SQLite's default puts
    # NULLs first for ASC, PostgreSQL's last). Written as NULLS LAST rather than an
    # "IS NULL" sort key so that both planners can walk ix_tasks_user_open_deadline in order
    # and stop after LIMIT rows, sorting only ties on the effective group.
    if flt.sort_by == "id":
        return [task_id.desc() if desc else task_id.asc()]
    if flt.sort_by == "priority":
        return [eff.desc() if desc else eff.asc(), deadline.asc().nulls_last(), task_id.asc()]
    return [
        (deadline.desc() if desc else deadline.asc()).nulls_last(),
        eff.asc(),
        task_id.asc(),
    ]


def _keyword_condition(keyword: str, dialect: str) -> sa.ColumnElement[bool]:
    """Case-insensitive literal substring: %, _ and the escape character match themselves.

    The pattern is built once in Python (not per row in SQL). SQLite's LIKE is already
    case-insensitive (for ASCII, like its lower()); PostgreSQL uses ILIKE.
    """
    escaped = keyword.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    pattern = f"%{escaped}%"
    title = col(Task.title)
    if dialect == "postgresql":
        return title.ilike(pattern, escape="\\")
    if dialect == "sqlite":
        return title.like(pattern, escape="\\")
    return sa.func.lower(title).like(pattern.lower(), escape="\\")  # pragma: no cover


def query_tasks(session: Session, user_id: int, flt: TaskFilter, *, now: datetime) -> TaskPage:
    """One page of a user's tasks plus the total number of matches.

    Two statements with the same WHERE: ``COUNT(*)`` for ``total`` and the page itself
    (filter, promotion, ordering, LIMIT/OFFSET all in SQL). Only the page's rows are loaded.

    Ordering: ``deadline`` — deadline (NULLs last), then effective group, then id;
    ``priority`` — effective group, then deadline (NULLs last), then id; ``id`` — id.
    ``order`` reverses the primary key only; the tie-breakers stay ascending, and NULL
    deadlines stay last.
    """
    eff = effective_group_expr(now)
    conds = _conditions(user_id, flt, eff, now, session.get_bind().dialect.name)

    total = session.execute(sa.select(sa.func.count()).select_from(Task).where(*conds)).scalar_one()
    if total == 0 or flt.limit == 0 or flt.offset >= total:
        return TaskPage(total=total, items=[])

    eff_label = eff.label("effective_group")
    stmt = (
        sa.select(
            col(Task.id),
            col(Task.title),
            col(Task.priority_group),
            eff_label,
            col(Task.deadline_at),
            col(Task.urgency_threshold_at),
            col(Task.is_completed),
            col(Task.completed_at),
            col(Task.created_at),
        )
        .where(*conds)
        .order_by(*_ordering(flt, eff))
        .limit(flt.limit)
        .offset(flt.offset)
    )
    items = [
        TaskRow(
            id=r.id,
            title=r.title,
            priority_group=r.priority_group,
            effective_group=r.effective_group,
            deadline_at=r.deadline_at,
            urgency_threshold_at=r.urgency_threshold_at,
            is_completed=bool(r.is_completed),
            completed_at=r.completed_at,
            created_at=r.created_at,
            promoted=r.effective_group != r.priority_group,
        )
        for r in session.execute(stmt)
    ]
    return TaskPage(total=total, items=items)


# ---------------------------------------------------------------------------------------------
# writes


def get_task(session: Session, user_id: int, task_id: int) -> Task | None:
    """The task if it exists and belongs to ``user_id``; another user's task reads as missing."""
    return session.exec(select(Task).where(col(Task.id) == task_id, col(Task.user_id) == user_id)).first()


def get_task_by_source_key(session: Session, user_id: int, source_key: str) -> Task | None:
    """The task a chat turn created, if any (the turn's idempotency key)."""
    return session.exec(select(Task).where(col(Task.user_id) == user_id, col(Task.source_key) == source_key)).first()


def create_task(
    session: Session,
    user_id: int,
    data: TaskCreate,
    *,
    now: datetime,
    source_key: str | None = None,
) -> tuple[Task, bool]:
    """Create a task; with a ``source_key``, at most one task per (user, key) ever exists.

    Returns ``(task, created)``. A repeated or concurrent call with the same key returns the
    existing row with ``created=False``. The database's unique constraint is the arbiter, so this
    holds across processes: on SQLite and PostgreSQL the insert is ``INSERT ... ON CONFLICT
    (user_id, source_key) DO NOTHING RETURNING ...`` (no exception, no poisoned transaction; on
    PostgreSQL a concurrent uncommitted duplicate makes it wait for that transaction), elsewhere a
    savepoint catches the ``IntegrityError``.
    """
    values: dict[str, Any] = {
        "user_id": user_id,
        "title": data.title,
        "priority_group": data.priority_group,
        "deadline_at": data.deadline_at,
        "urgency_threshold_at": data.urgency_threshold_at,
        "is_completed": False,
        "completed_at": None,
        "created_at": now,
        "updated_at": now,
        "source_key": source_key,
    }
    if source_key is None:
        task = Task(**values)
        session.add(task)
        session.flush()
        return task, True

    for _attempt in range(3):
        existing = get_task_by_source_key(session, user_id, source_key)
        if existing is not None:
            return existing, False
        dialect = session.get_bind().dialect.name
        if dialect in ("sqlite", "postgresql"):
            insert = sqlite_insert if dialect == "sqlite" else pg_insert
            stmt = (
                insert(Task)
                .values(**values)
                .on_conflict_do_nothing(index_elements=["user_id", "source_key"])
                .returning(Task)
            )
            created = session.scalars(stmt).first()
            if created is not None:
                return created, True
        else:  # pragma: no cover - only SQLite and PostgreSQL are supported backends
            try:
                with session.begin_nested():
                    task = Task(**values)
                    session.add(task)
                return task, True
            except IntegrityError:
                pass
        # Lost the race: the winner's row is committed (or its transaction aborted); read again.
    existing = get_task_by_source_key(session, user_id, source_key)
    if existing is None:  # pragma: no cover - would need three lost races in a row
        raise RuntimeError(f"could not create or find task for source_key {source_key!r}")
    return existing, False


def _set_completed(task: Task, completed: bool, now: datetime) -> bool:
    if task.is_completed == completed:
        return False
    task.is_completed = completed
    task.completed_at = now if completed else None
    return True


def update_task(session: Session, user_id: int, task_id: int, data: TaskUpdate, *, now: datetime) -> Task | None:
    """Apply the fields set in ``data``; ``None`` when the task is missing or not the user's."""
    task = get_task(session, user_id, task_id)
    if task is None:
        return None
    changes = data.model_dump(exclude_unset=True)
    completed = changes.pop("is_completed", None)
    for name in ("title", "priority_group"):  # required fields cannot be cleared
        if name in changes and changes[name] is None:
            del changes[name]
    for name, value in changes.items():
        setattr(task, name, value)
    if completed is not None:
        _set_completed(task, completed, now)
    task.updated_at = now
    session.add(task)
    session.flush()
    return task


def complete_task(
    session: Session, user_id: int, task_id: int, *, now: datetime, completed: bool = True
) -> Task | None:
    """Mark done (or not done). Completing an already completed task keeps its completed_at."""
    task = get_task(session, user_id, task_id)
    if task is None:
        return None
    if _set_completed(task, completed, now):
        task.updated_at = now
        session.add(task)
        session.flush()
    return task


def delete_task(session: Session, user_id: int, task_id: int) -> bool:
    task = get_task(session, user_id, task_id)
    if task is None:
        return False
    session.delete(task)
    session.flush()
    return True


__all__ = [
    "TaskFilter",
    "TaskPage",
    "TaskRow",
    "complete_task",
    "create_task",
    "delete_task",
    "effective_group",
    "effective_group_expr",
    "get_task",
    "get_task_by_source_key",
    "query_tasks",
    "task_row",
    "update_task",
]
