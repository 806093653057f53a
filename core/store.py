"""Task queries and writes. Every function is scoped by ``user_id``.

Transactions: these functions ``flush`` but never ``commit``; the caller owns the unit of work
(``with session.begin(): ...`` or ``session.commit()``).

Read-time urgency promotion (brief §1): an uncompleted task whose ``urgency_threshold_at <= now``
is read one group more urgent (2 → 1, 4 → 3); nothing is written. :func:`effective_group_expr`
is that rule as one SQL ``CASE`` expression, and :func:`query_tasks` uses it for the quadrant
filter of the page, the selected ``effective_group`` and the orderings, so paging sees effective
groups. Because the CASE depends on ``now`` it can't be indexed; :func:`group_terms` is the same
quadrant filter as disjoint index ranges, which the counts use (``total`` and, for the
``priority`` ordering, the per-group counts that locate the page). :func:`effective_group` is the
same rule in Python for a single, already loaded task.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal, cast

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
    # Also what is overdue (deadline before the window, not completed): "today" means what is left
    # to do today, which includes what should have been done already.
    with_overdue: bool = False
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


def _promotion_condition(now: datetime, completed: bool | None = None) -> sa.ColumnElement[bool]:
    open_test = [] if completed is False else [col(Task.is_completed) == sa.false()]
    return sa.and_(
        *open_test,
        col(Task.urgency_threshold_at).is_not(None),
        col(Task.urgency_threshold_at) <= now,
        col(Task.priority_group).in_(PROMOTABLE_GROUPS),
    )


def effective_group_expr(now: datetime, *, completed: bool | None = None) -> sa.ColumnElement[int]:
    """The effective group as a SQL CASE: stored group, minus one when promoted.

    ``completed`` is what the surrounding query already guarantees about ``is_completed``
    (``None``: nothing). Completed tasks are never promoted, so under ``completed=True`` the
    expression is just the stored group, and under ``completed=False`` the CASE leaves out the
    completion test; the value is the same, and an index without those columns can cover it.
    """
    if completed is True:
        return cast(sa.ColumnElement[int], col(Task.priority_group))
    return sa.case(
        (_promotion_condition(now, completed), col(Task.priority_group) - 1),
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


def group_terms(groups: Iterable[int], *, now: datetime, completed: bool | None = None) -> list[sa.ColumnElement[bool]]:
    """Disjoint, index-friendly conditions whose OR is "effective group in ``groups``".

    The effective group can't be indexed (it depends on ``now``), but each stored group maps to
    ranges of ``ix_tasks_user_state_group (user_id, is_completed, priority_group,
    urgency_threshold_at)``. Stored 1 and 3 are never promoted: ``priority_group = s``. A stored
    2 (4) reads as itself unless promoted and as 1 (3) when promoted; wanting both is again
    ``priority_group = s``, wanting one side splits on the promotion test — promoted is
    ``is_completed = false AND urgency_threshold_at <= now``, not promoted is ``is_completed =
    true``, or ``is_completed = false`` with ``urgency_threshold_at IS NULL`` or ``> now``
    (three ranges rather than one OR, so that each is an index range and they never overlap).

    ``completed`` is what the query already guarantees (as in :func:`effective_group_expr`):
    terms it rules out are dropped, and so is the ``is_completed`` test it makes redundant.
    Whole groups come first, as one ``priority_group IN (...)``. An empty list matches nothing
    (no effective group outside 1..4 exists).
    """
    wanted = set(groups)
    pg = col(Task.priority_group)
    thr = col(Task.urgency_threshold_at)
    done = col(Task.is_completed)
    open_test = [] if completed is False else [done == sa.false()]
    whole: list[int] = []
    split: list[sa.ColumnElement[bool]] = []
    for stored in (1, 2, 3, 4):
        as_stored = stored in wanted
        if stored not in PROMOTABLE_GROUPS or completed is True:  # never promoted
            if as_stored:
                whole.append(stored)
            continue
        as_promoted = stored - 1 in wanted
        if as_stored and as_promoted:
            whole.append(stored)
        elif as_promoted:
            split.append(sa.and_(pg == stored, *open_test, thr <= now))
        elif as_stored:
            if completed is None:
                split.append(sa.and_(pg == stored, done == sa.true()))
            split.append(sa.and_(pg == stored, *open_test, thr.is_(None)))
            split.append(sa.and_(pg == stored, *open_test, thr > now))
    if len(whole) == 1:
        return [pg == whole[0], *split]
    if whole:
        return [pg.in_(whole), *split]
    return split


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
_GROUPS = (1, 2, 3, 4)


def _completion(flt: TaskFilter) -> bool | None:
    """What the filter fixes ``is_completed`` to (``None``: both)."""
    if flt.time_field == "completed":
        # "what did I finish ...": completed tasks only, whatever include_completed says.
        return True
    if not flt.include_completed or flt.only_overdue:
        return False
    return None


def _base_conditions(
    user_id: int, flt: TaskFilter, completed: bool | None, now: datetime, dialect: str
) -> list[sa.ColumnElement[bool]]:
    """Every condition except the quadrant filter (see :func:`group_terms`)."""
    conds: list[sa.ColumnElement[bool]] = [col(Task.user_id) == user_id]
    time_col = _TIME_COLUMNS[flt.time_field]
    if completed is not None:
        conds.append(col(Task.is_completed) == sa.true() if completed else col(Task.is_completed) == sa.false())
    elif flt.time_after is not None or flt.time_before is not None:
        # Always true (NOT NULL column), but it lets both planners seek the time range inside
        # each is_completed value of the (user_id, is_completed, <time>, ...) indexes instead
        # of reading all of the user's rows.
        conds.append(col(Task.is_completed).in_([False, True]))

    if flt.only_overdue:
        conds.append(col(Task.deadline_at) < now)

    if flt.time_after is not None and not (flt.with_overdue and completed is False):
        conds.append(time_col >= flt.time_after)
    if flt.time_before is not None:
        conds.append(time_col <= flt.time_before)

    keyword = (flt.keyword or "").strip()
    if keyword:
        conds.append(_keyword_condition(keyword, dialect))
    return conds


def _keyword_condition(keyword: str, dialect: str) -> sa.ColumnElement[bool]:
    """Case-insensitive literal substring: %, _ and the escape character match themselves.

    The pattern is built once in Python (not per row in SQL). SQLite's LIKE is already
    case-insensitive (for ASCII, like its lower()); PostgreSQL uses ILIKE — or plain LIKE
    when the keyword has no cased character (e.g. '报告'), where case-insensitivity cannot
    change the result and LIKE is several times cheaper than ILIKE on non-ASCII text.
    """
    escaped = keyword.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    pattern = f"%{escaped}%"
    title = col(Task.title)
    if dialect == "postgresql":
        if _caseless(keyword):
            return title.like(pattern, escape="\\")
        return title.ilike(pattern, escape="\\")
    if dialect == "sqlite":
        return title.like(pattern, escape="\\")
    return sa.func.lower(title).like(pattern.lower(), escape="\\")  # pragma: no cover


def _caseless(text: str) -> bool:
    """No character of ``text`` has a case mapping (CJK, digits, punctuation, spaces...)."""
    return all(c.lower() == c == c.upper() and not unicodedata.combining(c) for c in text)


def _count(
    session: Session,
    base: list[sa.ColumnElement[bool]],
    eff: sa.ColumnElement[int],
    wanted: list[int] | None,
    *,
    now: datetime,
    completed: bool | None,
    split: bool,
) -> int:
    """COUNT(*) of ``base`` and, with ``wanted``, "effective group in ``wanted``".

    With ``split``, the quadrant filter is :func:`group_terms` and the statement sums one COUNT
    per (disjoint) term: each is a range count on an index. One COUNT over their OR makes SQLite
    union row-id sets ("MULTI-INDEX OR", ~4x slower at 100k tasks) and PostgreSQL OR bitmaps.
    Without ``split`` (a keyword: the user's titles are scanned anyway) it is one pass with the
    CASE as a filter.
    """

    def count(*extra: sa.ColumnElement[bool]) -> sa.Select[Any]:
        return sa.select(sa.func.count()).select_from(Task).where(*base, *extra)

    if wanted is None:
        stmt = count()
    elif split:
        terms = group_terms(wanted, now=now, completed=completed)
        if not terms:
            return 0
        stmt = sa.select(_sum([count(t).scalar_subquery() for t in terms]))
    else:
        stmt = count(eff.in_(wanted))
    return int(session.execute(stmt).scalar_one())


def _sum(values: list[sa.ScalarSelect[Any]]) -> sa.ColumnElement[int]:
    total: sa.ColumnElement[int] = values[0]
    for value in values[1:]:
        total = total + value
    return total


def _group_counts(
    session: Session,
    base: list[sa.ColumnElement[bool]],
    eff: sa.ColumnElement[int],
    groups: list[int],
    *,
    now: datetime,
    completed: bool | None,
    split: bool,
) -> dict[int, int]:
    """Matches per effective group, in one statement.

    ``split``: for each group, a sum of per-term range counts (as in :func:`_count`);
    otherwise one pass with a ``SUM(CASE WHEN <effective group> = g THEN 1 ELSE 0 END)`` per group.
    """
    if split:
        columns: list[sa.ColumnElement[int]] = []
        for g in groups:
            terms = group_terms([g], now=now, completed=completed)
            subqueries = [sa.select(sa.func.count()).select_from(Task).where(*base, t).scalar_subquery() for t in terms]
            columns.append(_sum(subqueries) if subqueries else sa.literal(0))
        row = session.execute(sa.select(*columns)).one()
    else:
        sums = [sa.func.sum(sa.case((eff == g, 1), else_=0)) for g in groups]
        stmt = sa.select(*sums).select_from(Task).where(*base)
        if set(groups) != set(_GROUPS):
            stmt = stmt.where(eff.in_(groups))
        row = session.execute(stmt).one()
    return {g: int(n or 0) for g, n in zip(groups, row, strict=True)}


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
    if flt.sort_by == "priority":  # within one effective group (see _priority_page)
        return [deadline.asc().nulls_last(), task_id.asc()]
    return [
        (deadline.desc() if desc else deadline.asc()).nulls_last(),
        eff.asc(),
        task_id.asc(),
    ]


def _page(
    session: Session,
    conds: list[sa.ColumnElement[bool]],
    eff: sa.ColumnElement[int],
    ordering: list[Any],
    *,
    limit: int,
    offset: int,
) -> list[TaskRow]:
    stmt = (
        sa.select(
            col(Task.id),
            col(Task.title),
            col(Task.priority_group),
            eff.label("effective_group"),
            col(Task.deadline_at),
            col(Task.urgency_threshold_at),
            col(Task.is_completed),
            col(Task.completed_at),
            col(Task.created_at),
        )
        .where(*conds)
        .order_by(*ordering)
        .limit(limit)
        .offset(offset)
    )
    return [
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


def query_tasks(session: Session, user_id: int, flt: TaskFilter, *, now: datetime) -> TaskPage:
    """One page of a user's tasks plus the total number of matches.

    Filter, promotion, ordering and LIMIT/OFFSET all run in SQL; only the page's rows are
    loaded. ``deadline`` and ``id`` orderings: one COUNT statement for ``total`` and one page
    statement with the same WHERE. ``priority``: one statement counts the matches of each
    effective group (``total`` is their sum), then the page is read group by group — only the
    group(s) it spans, each ordered by deadline, so the planner walks the deadline index
    instead of sorting every match on a value that depends on ``now``.

    Ordering: ``deadline`` — deadline (NULLs last), then effective group, then id;
    ``priority`` — effective group, then deadline (NULLs last), then id; ``id`` — id.
    ``order`` reverses the primary key only; the tie-breakers stay ascending, and NULL
    deadlines stay last.
    """
    completed = _completion(flt)
    eff = effective_group_expr(now, completed=completed)
    base = _base_conditions(user_id, flt, completed, now, session.get_bind().dialect.name)
    wanted = sorted(set(flt.quadrants)) if flt.quadrants else None
    # A keyword makes every count a scan of the user's titles anyway: one pass, not one per term.
    split = not (flt.keyword or "").strip()

    if flt.sort_by == "priority":
        return _priority_page(session, flt, base, eff, wanted, now=now, completed=completed, split=split)

    total = _count(session, base, eff, wanted, now=now, completed=completed, split=split)
    if total == 0 or flt.limit == 0 or flt.offset >= total:
        return TaskPage(total=total, items=[])
    # The page keeps the CASE as its quadrant filter: it is not an index range, so the planner
    # walks ix_tasks_user_open_deadline in order, filters on its covered columns and stops after
    # LIMIT rows. (Given group_terms' ranges, SQLite would read and sort every match instead.)
    conds = base if wanted is None else [*base, eff.in_(wanted)]
    items = _page(session, conds, eff, _ordering(flt, eff), limit=flt.limit, offset=flt.offset)
    return TaskPage(total=total, items=items)


def _priority_page(
    session: Session,
    flt: TaskFilter,
    base: list[sa.ColumnElement[bool]],
    eff: sa.ColumnElement[int],
    wanted: list[int] | None,
    *,
    now: datetime,
    completed: bool | None,
    split: bool,
) -> TaskPage:
    groups = [g for g in _GROUPS if wanted is None or g in wanted]
    if flt.order == "desc":
        groups.reverse()
    if not groups:
        return TaskPage(total=0, items=[])
    counts = _group_counts(session, base, eff, groups, now=now, completed=completed, split=split)
    total = sum(counts.values())
    if total == 0 or flt.limit == 0 or flt.offset >= total:
        return TaskPage(total=total, items=[])
    items: list[TaskRow] = []
    skip = flt.offset
    ordering = _ordering(flt, eff)
    for g in groups:
        if skip >= counts[g]:
            skip -= counts[g]
            continue
        conds = [*base, eff == g]
        items += _page(session, conds, eff, ordering, limit=flt.limit - len(items), offset=skip)
        skip = 0
        if len(items) >= flt.limit:
            break
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
    "group_terms",
    "query_tasks",
    "task_row",
    "update_task",
]
