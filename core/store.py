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

The hot path: :func:`query_tasks` builds each statement shape once (values are bind
parameters), compiles it once per dialect and runs it on the driver's cursor
(:mod:`core.prepared`), mapping rows straight to :class:`TaskRow`.

:func:`task_facts` is off the hot path: a few capped counts that explain an empty answer, read
only when a query found nothing, in one prepared statement.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal, NamedTuple, cast

import sqlalchemy as sa
from pydantic import BaseModel, Field
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.engine import Dialect
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from core import estimates, listnames, lists, occurrences, reminders, series, titlegrams
from core.models import (
    PROMOTABLE_GROUPS,
    Task,
    TaskCreate,
    TaskLabel,
    TaskOccurrence,
    TaskUpdate,
    UTCDateTime,
    effective_group,
)
from core.prepared import Prepared, db_time, fetch, prepare, read_time
from core.trace import traced

# Matches are counted up to this many (plus the page's end); past it the total reads "1000+".
TOTAL_CAP = 1000
# A point in time in SQL: a datetime, or the bind parameter that carries one.
Moment = datetime | sa.BindParameter[datetime]

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
    # Only tasks without a deadline ("没有截止时间的"): deadline_at IS NULL, a range of
    # ix_tasks_user_open_deadline (both backends index NULLs).
    no_deadline: bool = False
    repeating: bool = False  # only repeating tasks ("我有哪些重复的任务"): recurrence IS NOT NULL
    keyword: str | None = None  # case-insensitive literal substring of the title
    # Free time ("我有两个小时空"): only tasks whose estimate (else their group's default) fits in it.
    fits_minutes: int | None = Field(default=None, ge=1)
    # Only the tasks in this list / with this label (names, compared as core.listnames.key does).
    list_name: str | None = None
    label: str | None = None
    sort_by: Literal["deadline", "priority", "id"] = "deadline"
    order: Literal["asc", "desc"] = "asc"
    limit: int = Field(default=5, ge=0)
    offset: int = Field(default=0, ge=0)


class TaskRow(NamedTuple):
    """One task as a query returns it, with its effective (possibly promoted) group.

    A named tuple: a page maps every row it reads into one, and building one costs a quarter of
    a frozen dataclass's (0.26 vs 1.0 µs)."""

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
    recurrence: str | None = None  # a repeating task's rule, stored form (core.recurrence)
    estimate_minutes: int | None = None
    list_name: str | None = None
    labels: str | None = None  # stored form (core.listnames.label_list reads it)


@dataclass(frozen=True)
class TaskPage:
    total: int  # every match, not just this page; a lower bound when not total_exact
    items: list[TaskRow]
    total_exact: bool = True  # False: more than `total` tasks match (counting stopped there)

    @property
    def total_label(self) -> str:
        """The total as shown to people: "37", or "1000+" when counting stopped."""
        return str(self.total) if self.total_exact else f"{self.total}+"


# ---------------------------------------------------------------------------------------------
# promotion


def _promotion_condition(now: Moment, completed: bool | None = None) -> sa.ColumnElement[bool]:
    open_test = [] if completed is False else [col(Task.is_completed) == sa.false()]
    return sa.and_(
        *open_test,
        col(Task.urgency_threshold_at).is_not(None),
        col(Task.urgency_threshold_at) <= now,
        col(Task.priority_group).in_(PROMOTABLE_GROUPS),
    )


def effective_group_expr(now: Moment, *, completed: bool | None = None) -> sa.ColumnElement[int]:
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


def group_terms(groups: Iterable[int], *, now: Moment, completed: bool | None = None) -> list[sa.ColumnElement[bool]]:
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
        recurrence=task.recurrence,
        estimate_minutes=task.estimate_minutes,
        list_name=task.list_name,
        labels=task.labels,
    )


# ---------------------------------------------------------------------------------------------
# query


# Bind parameters of the query shapes. Each has a placeholder value so that constant IN lists can
# be expanded at compile time (see core.prepared); the real values are bound per call.
_USER = sa.bindparam("user_id", 0, type_=sa.Integer)
_NOW = sa.bindparam("now", None, type_=UTCDateTime())
_AFTER = sa.bindparam("time_after", None, type_=UTCDateTime())
_BEFORE = sa.bindparam("time_before", None, type_=UTCDateTime())
_PATTERN = sa.bindparam("pattern", "", type_=sa.String)
_GROUP = sa.bindparam("group", 0, type_=sa.Integer)
_LIMIT = sa.bindparam("limit", 0, type_=sa.Integer)
_OFFSET = sa.bindparam("offset", 0, type_=sa.Integer)
_CAP = sa.bindparam("cap", 0, type_=sa.BigInteger)  # offset + limit + 1 can pass 2**31 - 1
_FITS = sa.bindparam("fits", 0, type_=sa.Integer)
_LIST = sa.bindparam("list_key", "", type_=sa.Text)
_LABEL = sa.bindparam("label_key", "", type_=sa.Text)

_TIME_COLUMNS = {
    "deadline": col(Task.deadline_at),
    "completed": col(Task.completed_at),
    "created": col(Task.created_at),
}
_GROUPS = (1, 2, 3, 4)


@dataclass(frozen=True)
class _Shape:
    """What about a filter changes the SQL text; values (user, now, bounds, pattern, page) don't.

    Statements are built and compiled once per shape and dialect (:func:`_prepared`)."""

    dialect: str
    completed: bool | None  # what the filter fixes is_completed to (None: both)
    time_field: str
    after: bool
    before: bool
    only_overdue: bool
    keyword: bool  # a title-key substring condition
    wanted: tuple[int, ...] | None  # effective groups; None: all
    sort_by: str
    order: str
    # The title-gram lookup ANDed with the keyword's LIKE/ILIKE: core.titlegrams.KeywordPlan.shape,
    # (number of grams, marked); None: scan the user's titles.
    grams: tuple[int, bool] | None = None
    # Last and defaulted, so a filter without it has the same shape (and compiled statements) as before.
    no_deadline: bool = False
    repeating: bool = False
    fits: bool = False
    in_list: bool = False
    labeled: bool = False

    @property
    def split(self) -> bool:
        # A keyword makes every count a scan of the user's titles anyway: one pass, not one per term.
        return not self.keyword


def _completion(flt: TaskFilter) -> bool | None:
    """What the filter fixes ``is_completed`` to (``None``: both)."""
    if flt.time_field == "completed":
        # "what did I finish ...": completed tasks only, whatever include_completed says.
        return True
    if not flt.include_completed or flt.only_overdue:
        return False
    return None


def _shape(flt: TaskFilter, dialect: str, plan: titlegrams.KeywordPlan | None = None) -> _Shape:
    completed = _completion(flt)
    return _Shape(
        dialect=dialect,
        completed=completed,
        time_field=flt.time_field,
        # "Today" with what is overdue: no lower bound on open tasks' deadlines.
        after=flt.time_after is not None and not (flt.with_overdue and completed is False),
        before=flt.time_before is not None,
        only_overdue=flt.only_overdue,
        keyword=bool(_keyword_key(flt)),
        wanted=tuple(sorted(set(flt.quadrants))) if flt.quadrants else None,
        sort_by=flt.sort_by,
        order=flt.order,
        grams=plan.shape if plan is not None else None,
        no_deadline=flt.no_deadline,
        repeating=flt.repeating,
        fits=flt.fits_minutes is not None,
        in_list=flt.list_name is not None,
        labeled=flt.label is not None,
    )


def _values(flt: TaskFilter, user_id: int, now: datetime, dialect: str) -> dict[str, Any]:
    """The run-time values of a filter's statements (see the bind parameters above)."""
    values: dict[str, Any] = {"user_id": user_id, "now": db_time(now, dialect)}
    if flt.time_after is not None:
        values["time_after"] = db_time(flt.time_after, dialect)
    if flt.time_before is not None:
        values["time_before"] = db_time(flt.time_before, dialect)
    key = _keyword_key(flt)
    if key:
        values["pattern"] = _like_pattern(key)
    if flt.fits_minutes is not None:
        values["fits"] = flt.fits_minutes
    values.update(_named_values(flt))
    return values


def _named_values(flt: TaskFilter) -> dict[str, str]:
    """The list's and label's keys a filter binds."""
    values = {}
    if flt.list_name is not None:
        values["list_key"] = listnames.key(flt.list_name)
    if flt.label is not None:
        values["label_key"] = listnames.key(flt.label)
    return values


def _labeled(task_id: Any) -> sa.ColumnElement[bool]:
    """The task has the label: a range of task_labels' primary key (user, key, task)."""
    tagged = sa.select(col(TaskLabel.task_id)).where(col(TaskLabel.user_id) == _USER, col(TaskLabel.key) == _LABEL)
    return cast(sa.ColumnElement[bool], task_id.in_(tagged))


def _needed_minutes() -> sa.ColumnElement[int]:
    """What a task takes: its estimate, else its group's default (core.estimates.DEFAULT_MINUTES)."""
    default = sa.case(estimates.DEFAULT_MINUTES, value=col(Task.priority_group), else_=60)
    return sa.func.coalesce(col(Task.estimate_minutes), default)


def _base_conditions(shape: _Shape) -> list[sa.ColumnElement[bool]]:
    """Every condition except the quadrant filter (see :func:`group_terms`)."""
    conds: list[sa.ColumnElement[bool]] = [col(Task.user_id) == _USER]
    time_col = _TIME_COLUMNS[shape.time_field]
    done = col(Task.is_completed)
    if shape.completed is not None:
        conds.append(done == sa.true() if shape.completed else done == sa.false())
    elif shape.after or shape.before:
        # Always true (NOT NULL column), but it lets both planners seek the time range inside
        # each is_completed value of the (user_id, is_completed, <time>, ...) indexes instead
        # of reading all of the user's rows.
        conds.append(done.in_([False, True]))
    if shape.only_overdue:
        conds.append(col(Task.deadline_at) < _NOW)
    if shape.no_deadline:
        conds.append(col(Task.deadline_at).is_(None))
    if shape.repeating:
        conds.append(col(Task.recurrence).is_not(None))
    if shape.fits:
        conds.append(_needed_minutes() <= _FITS)
    if shape.in_list:
        conds.append(col(Task.list_key) == _LIST)
    if shape.labeled:
        conds.append(_labeled(col(Task.id)))
    if shape.after:
        conds.append(time_col >= _AFTER)
    if shape.before:
        conds.append(time_col <= _BEFORE)
    if shape.keyword:
        conds.append(_keyword_condition())
        if shape.grams is not None:
            conds.append(titlegrams.candidates(_USER, *shape.grams, dialect=shape.dialect))
    return conds


def _like_pattern(keyword: str) -> str:
    """A literal substring as a LIKE pattern: %, _ and the escape character match themselves."""
    escaped = keyword.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def _keyword_key(flt: TaskFilter) -> str:
    """The keyword as titles are compared: its :func:`core.titlegrams.match_key` ("" = none)."""
    keyword = (flt.keyword or "").strip()
    return titlegrams.match_key(keyword) if keyword else ""


def _keyword_condition() -> sa.ColumnElement[bool]:
    """Case-insensitive substring of the title: a plain LIKE of the keyword's key on the stored
    ``title_key`` (both folded in Python, so every backend finds the same tasks; a plain LIKE is
    also several times cheaper than PostgreSQL's ILIKE on non-ASCII text)."""
    return col(Task.title_key).like(_PATTERN, escape="\\")


def _capped_count(*conds: sa.ColumnElement[bool]) -> sa.Select[Any]:
    """How many rows match, reading at most ``cap`` of them (an index range stops there)."""
    matches = sa.select(sa.literal_column("1")).select_from(Task).where(*conds).limit(_CAP).subquery()
    return sa.select(sa.func.count()).select_from(matches)


def _sum(values: list[sa.ScalarSelect[Any]]) -> sa.ColumnElement[int]:
    total: sa.ColumnElement[int] = values[0]
    for value in values[1:]:
        total = total + value
    return total


def _count_of(shape: _Shape, groups: tuple[int, ...] | None) -> sa.ColumnElement[int] | sa.Select[Any]:
    """Matches of the shape's base conditions in ``groups`` (None: any group), capped per term.

    Without a keyword the quadrant filter is :func:`group_terms` and the count sums one capped
    count per (disjoint) term: each is a range count on an index. One COUNT over their OR makes
    SQLite union row-id sets ("MULTI-INDEX OR", ~4x slower at 100k tasks) and PostgreSQL OR
    bitmaps. With a keyword it is one pass with the CASE as a filter.
    """
    base = _base_conditions(shape)
    if groups is None:
        return _capped_count(*base)
    if not shape.split:
        eff = effective_group_expr(_NOW, completed=shape.completed)
        return _capped_count(*base, eff == groups[0] if len(groups) == 1 else eff.in_(groups))
    terms = group_terms(groups, now=_NOW, completed=shape.completed)
    if not terms:
        return sa.literal(0)
    return _sum([_capped_count(*base, term).scalar_subquery() for term in terms])


def _build_count(shape: _Shape) -> sa.Select[Any]:
    count = _count_of(shape, shape.wanted)
    return count if isinstance(count, sa.Select) else sa.select(count)


def _build_group_counts(shape: _Shape) -> sa.Select[Any]:
    """Capped matches per effective group in one statement (the ``priority`` ordering's)."""
    columns = []
    for g in _priority_groups(shape):
        count = _count_of(shape, (g,))
        columns.append(count.scalar_subquery() if isinstance(count, sa.Select) else count)
    return sa.select(*columns)


def _priority_groups(shape: _Shape) -> list[int]:
    groups = [g for g in _GROUPS if shape.wanted is None or g in shape.wanted]
    return groups[::-1] if shape.order == "desc" else groups


def _ordering(shape: _Shape, rows: Any) -> list[Any]:
    """The page's ORDER BY over ``rows``' columns (``id``, ``deadline_at``, ``effective_group``)."""
    deadline, task_id, eff = rows.deadline_at, rows.id, rows.effective_group
    desc = shape.order == "desc"
    # NULL deadlines sort last in both directions and on both backends (SQLite's default puts
    # NULLs first for ASC, PostgreSQL's last). Written as NULLS LAST rather than an
    # "IS NULL" sort key so that both planners can walk ix_tasks_user_open_deadline in order
    # and stop after LIMIT rows, sorting only ties on the effective group.
    if shape.sort_by == "id":
        return [task_id.desc() if desc else task_id.asc()]
    if shape.sort_by == "priority":  # within one effective group (see _priority_page)
        return [deadline.asc().nulls_last(), task_id.asc()]
    return [
        (deadline.desc() if desc else deadline.asc()).nulls_last(),
        eff.asc(),
        task_id.asc(),
    ]


class _TaskColumns:
    """The table's columns under the names :func:`_ordering` reads, with the effective group."""

    def __init__(self, eff: sa.ColumnElement[int]) -> None:
        self.id, self.deadline_at, self.effective_group = col(Task.id), col(Task.deadline_at), eff


def _page_select(shape: _Shape, *, one_group: bool, window: sa.BindParameter[int] | None = None) -> Any:
    eff = effective_group_expr(_NOW, completed=shape.completed)
    conds = _base_conditions(shape)
    if one_group:
        conds.append(eff == _GROUP)
    elif shape.wanted is not None:
        # The page keeps the CASE as its quadrant filter: it is not an index range, so the planner
        # walks ix_tasks_user_open_deadline in order, filters on its covered columns and stops
        # after LIMIT rows. (Given group_terms' ranges, SQLite would read and sort every match.)
        conds.append(eff.in_(shape.wanted))
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
            col(Task.recurrence),
            col(Task.estimate_minutes),
            col(Task.list_name),
            col(Task.labels),
        )
        .where(*conds)
        .order_by(*_ordering(shape, _TaskColumns(eff)))
    )
    return stmt.limit(window) if window is not None else stmt.limit(_LIMIT).offset(_OFFSET)


def _build_page(shape: _Shape, *, one_group: bool) -> sa.ClauseElement:
    """A page of rows: of one effective group (``:group``, for ``priority``) or of the shape's.

    Open and completed tasks together, in deadline order: no index walks both in that order, so
    a planner would sort every match. Instead each state walks its own range of
    ix_tasks_user_open_deadline for the first ``offset + limit`` rows, and the page is cut from
    their merge (UNION ALL of the two, sorted: at most twice the page's end).
    """
    if shape.completed is not None or shape.sort_by == "id":
        return _page_select(shape, one_group=one_group)
    window = sa.bindparam("window", 0, type_=sa.BigInteger)  # offset + limit can pass 2**31 - 1
    branches = [
        _page_select(dataclasses.replace(shape, completed=state), one_group=one_group, window=window).subquery()
        for state in (False, True)
    ]
    merged = sa.union_all(*(sa.select(*branch.c) for branch in branches)).subquery()
    return sa.select(*merged.c).order_by(*_ordering(shape, merged.c)).limit(_LIMIT).offset(_OFFSET)


_BUILDERS = {
    "count": _build_count,
    "group_counts": _build_group_counts,
    "page": lambda shape: _build_page(shape, one_group=False),
    "group_page": lambda shape: _build_page(shape, one_group=True),
}
_DIALECTS: dict[str, Dialect] = {}


@functools.lru_cache(maxsize=1024)
def _prepared(kind: str, shape: _Shape) -> Prepared:
    return prepare(_BUILDERS[kind](shape), _DIALECTS[shape.dialect])


@functools.lru_cache(maxsize=32)
def _probe(n: int, dialect: str) -> Prepared:
    return prepare(titlegrams.posting_counts(_USER, n), _DIALECTS[dialect])


def _keyword_plan(conn: sa.Connection, user_id: int, flt: TaskFilter) -> titlegrams.KeywordPlan | None:
    """Whether to look the keyword up in the title-gram index, and how (None: scan)."""
    grams = titlegrams.keyword_grams((flt.keyword or "").strip())
    if grams is None:
        return None
    probe = _probe(len(grams), conn.dialect.name)
    counts = fetch(conn, probe, {"user_id": user_id, **titlegrams.gram_values(grams)})[0]
    return titlegrams.choose(grams, [int(n) for n in counts])


class _Reader:
    """Runs one query's prepared statements on one connection and maps rows to :class:`TaskRow`."""

    def __init__(self, conn: sa.Connection, shape: _Shape, values: dict[str, Any]) -> None:
        self.conn, self.shape, self.values = conn, shape, values
        self.read_time = read_time(shape.dialect)

    def run(self, kind: str, **extra: Any) -> list[tuple[Any, ...]]:
        return fetch(self.conn, _prepared(kind, self.shape), {**self.values, **extra} if extra else self.values)

    def rows(self, kind: str, **extra: Any) -> list[TaskRow]:
        t = self.read_time
        return [
            TaskRow(r[0], r[1], r[2], r[3], t(r[4]), t(r[5]), bool(r[6]), t(r[7]), t(r[8]), r[3] != r[2], *r[9:13])  # type: ignore[arg-type]  # created_at is NOT NULL
            for r in self.run(kind, **extra)
        ]


def _connection(db: Session | sa.Connection) -> sa.Connection:
    connection = db.connection() if isinstance(db, Session) else db
    name = connection.dialect.name
    if name not in _DIALECTS:
        # The statements compile alike for any engine of one dialect (the SQL is plain: CASE,
        # COUNT, LIMIT, NULLS LAST), so the first engine's dialect object serves them all.
        _DIALECTS.setdefault(name, connection.dialect)
    return connection


@traced("store.query_tasks")
def query_tasks(db: Session | sa.Connection, user_id: int, flt: TaskFilter, *, now: datetime) -> TaskPage:
    """One page of a user's tasks plus the number of matches (exact up to ``TOTAL_CAP``).

    Filter, promotion, ordering and LIMIT/OFFSET all run in SQL; only the page's rows are
    loaded. ``deadline`` and ``id`` orderings: one capped COUNT statement for ``total`` and one
    page statement with the same WHERE. ``priority``: one statement counts the matches of each
    effective group (capped), then the page is read group by group — only the group(s) it spans,
    each ordered by deadline, so the planner walks the deadline index instead of sorting every
    match on a value that depends on ``now``.

    Counting stops at ``max(TOTAL_CAP, offset + limit) + 1`` matches, so its cost doesn't grow
    with the table; beyond that, ``total`` is that bound minus one and ``total_exact`` is False.

    Ordering: ``deadline`` — deadline (NULLs last), then effective group, then id;
    ``priority`` — effective group, then deadline (NULLs last), then id; ``id`` — id.
    ``order`` reverses the primary key only; the tie-breakers stay ascending, and NULL
    deadlines stay last.
    """
    conn = _connection(db)
    if not _projects_series(flt):
        return _plain_page(conn, user_id, flt, now=now)
    end = flt.offset + flt.limit
    uncovered, indexed, indexed_rows, indexed_exact = _series_indexed(conn, user_id, flt, now, end)
    walked = _series_walked(conn, user_id, flt, now) if uncovered else []
    if not walked and not indexed:
        return _plain_page(conn, user_id, flt, now=now)
    # The plain rows up to the page's end (SQL), merged with the series' rows in the filter's order.
    head = _plain_page(conn, user_id, flt.model_copy(update={"offset": 0, "limit": end}), now=now)
    merged = sorted([*head.items, *indexed_rows, *walked], key=_order_key(flt))
    return TaskPage(
        total=head.total + indexed + len(walked),
        items=merged[flt.offset : end],
        total_exact=head.total_exact and indexed_exact,
    )


def _plain_page(conn: sa.Connection, user_id: int, flt: TaskFilter, *, now: datetime) -> TaskPage:
    plan = _keyword_plan(conn, user_id, flt)
    shape = _shape(flt, conn.dialect.name, plan)
    if shape.wanted is not None and not set(shape.wanted) & set(_GROUPS):
        return TaskPage(total=0, items=[])  # no effective group outside 1..4 exists
    cap = max(TOTAL_CAP, flt.offset + flt.limit) + 1
    values = {**_values(flt, user_id, now, shape.dialect), "cap": cap}
    if plan is not None:
        values.update(plan.values())
    reader = _Reader(conn, shape, values)
    if flt.sort_by == "priority":
        return _priority_page(reader, flt, cap)

    counted = int(reader.run("count")[0][0])
    total, exact = (counted, True) if counted < cap else (cap - 1, False)
    if total == 0 or flt.limit == 0 or flt.offset >= total:
        return TaskPage(total=total, items=[], total_exact=exact)
    items = reader.rows("page", limit=flt.limit, offset=flt.offset, window=flt.offset + flt.limit)
    return TaskPage(total=total, items=items, total_exact=exact)


# ---------------------------------------------------------------------------------------------
# series in a deadline window (docs/fdr/0037): one row each, at its first occurrence inside it


def _projects_series(flt: TaskFilter) -> bool:
    """A bounded deadline window, where a series due before it may occur inside it."""
    return (
        flt.time_field == "deadline"
        and flt.time_after is not None
        and flt.time_before is not None
        and not flt.only_overdue
        and not flt.no_deadline
        and flt.fits_minutes is None  # free time: the series' open occurrences are what can be done
        and not (flt.quadrants is not None and len(flt.quadrants) > 0 and not set(flt.quadrants) & set(_GROUPS))
    )


_TASKS: sa.Table = Task.__table__  # type: ignore[attr-defined]
_OCC: sa.Table = TaskOccurrence.__table__  # type: ignore[attr-defined]


@dataclass(frozen=True)
class _SeriesShape:
    dialect: str
    wanted: tuple[int, ...] | None
    keyword: bool
    with_overdue: bool
    sort_by: str
    order: str
    in_list: bool = False
    labeled: bool = False

    @property
    def joined(self) -> bool:
        """Whether a condition reads the task's own row (the occurrence rows don't hold it)."""
        return self.keyword or self.in_list or self.labeled


def _series_effective_group() -> sa.ColumnElement[int]:
    promoted = sa.and_(
        _OCC.c.threshold_at.is_not(None),
        _OCC.c.threshold_at <= _NOW,
        _OCC.c.priority_group.in_(PROMOTABLE_GROUPS),
    )
    return sa.case((promoted, _OCC.c.priority_group - 1), else_=_OCC.c.priority_group)


def _series_conditions(shape: _SeriesShape) -> list[sa.ColumnElement[bool]]:
    """The occurrence rows that are a series' first inside the window, for series the index covers."""
    o = _OCC.c
    conds = [o.user_id == _USER, o.at >= _AFTER, o.at <= _BEFORE, o.prev_at < _AFTER, o.until >= _BEFORE]
    if shape.with_overdue:
        conds.append(o.due_at >= _NOW)  # an overdue series is listed as overdue, at its own deadline
    if shape.wanted is not None:
        conds.append(_series_effective_group().in_(shape.wanted))
    if shape.keyword:
        conds.append(_TASKS.c.title_key.like(_PATTERN, escape="\\"))
    if shape.in_list:
        conds.append(_TASKS.c.list_key == _LIST)
    if shape.labeled:
        conds.append(_labeled(o.task_id))
    return conds


def _series_source(shape: _SeriesShape) -> Any:
    return _OCC.join(_TASKS, _TASKS.c.id == _OCC.c.task_id) if shape.joined else _OCC


def _build_series_count(shape: _SeriesShape) -> sa.Select[Any]:
    """The window's indexed series (capped), and whether any series due before it is not covered
    (then :func:`_series_walked` reads those): one statement, one round trip."""
    found = (
        sa.select(sa.literal_column("1"))
        .select_from(_series_source(shape))
        .where(*_series_conditions(shape))
        .limit(_CAP)
        .subquery()
    )
    t = _TASKS.c
    uncovered = (
        sa.select(sa.literal_column("1"))
        .where(
            t.user_id == _USER,
            t.is_completed == sa.false(),
            t.recurrence.is_not(None),
            t.deadline_at < _AFTER,
            sa.or_(t.occurrences_until.is_(None), t.occurrences_until < _BEFORE),
        )
        .limit(1)
        .subquery()
    )
    return sa.select(
        sa.select(sa.func.count()).select_from(found).scalar_subquery().label("n"),
        sa.select(sa.func.count()).select_from(uncovered).scalar_subquery().label("uncovered"),
    )


def _series_ordering(shape: _SeriesShape, at: Any, eff: Any, task_id: Any) -> list[Any]:
    desc = shape.order == "desc"
    if shape.sort_by == "id":
        return [task_id.desc() if desc else task_id.asc()]
    if shape.sort_by == "priority":
        return [eff.desc() if desc else eff.asc(), at.asc(), task_id.asc()]
    return [at.desc() if desc else at.asc(), eff.asc(), task_id.asc()]


def _build_series_page(shape: _SeriesShape) -> sa.Select[Any]:
    """The first ``limit`` rows in the filter's order, read from the index alone, then joined to
    their tasks: a join before the cut made PostgreSQL fetch and join every match (5.3 ms for
    1,150 series at 100k tasks; 1.2 ms cut first)."""
    o, t = _OCC.c, _TASKS.c
    eff = _series_effective_group()
    first = (
        sa.select(o.task_id, o.priority_group, eff.label("eff"), o.at, o.threshold_at)
        .select_from(_series_source(shape))
        .where(*_series_conditions(shape))
        .order_by(*_series_ordering(shape, o.at, eff, o.task_id))
        .limit(_LIMIT)
        .subquery()
    )
    return sa.select(
        t.id.label("id"),
        t.title.label("title"),
        first.c.priority_group,
        first.c.eff,
        first.c.at,
        first.c.threshold_at,
        t.created_at.label("created_at"),
        t.recurrence.label("recurrence"),
        t.estimate_minutes.label("estimate_minutes"),
        t.list_name.label("list_name"),
        t.labels.label("labels"),
    ).select_from(first.join(_TASKS, t.id == first.c.task_id))


def _build_series_window(shape: _SeriesShape) -> sa.Select[Any]:
    """The count row joined to the page's rows (none: one row of NULLs): one round trip for both,
    which on PostgreSQL is a third of the series' cost (0.3 of 1.0 ms at 100k tasks)."""
    head = _build_series_count(shape).subquery()
    page = _build_series_page(shape).subquery()
    p = page.c
    return (
        sa.select(head.c.n, head.c.uncovered, p.id, p.title, p.priority_group, p.eff, p.at, p.threshold_at)
        .add_columns(p.created_at, p.recurrence, p.estimate_minutes, p.list_name, p.labels)
        .select_from(head.outerjoin(page, sa.true()))
        .order_by(*_series_ordering(shape, p.at, p.eff, p.id))
    )


@functools.lru_cache(maxsize=256)
def _series_prepared(shape: _SeriesShape) -> Prepared:
    return prepare(_build_series_window(shape), _DIALECTS[shape.dialect])


def _series_indexed(
    conn: sa.Connection, user_id: int, flt: TaskFilter, now: datetime, end: int
) -> tuple[bool, int, list[TaskRow], bool]:
    """The series whose occurrences the index holds for the window: (whether others must be walked,
    their count, the first ``end`` rows in the filter's order, whether the count is exact)."""
    dialect = conn.dialect.name
    key = _keyword_key(flt)
    shape = _SeriesShape(
        dialect=dialect,
        wanted=tuple(sorted(set(flt.quadrants))) if flt.quadrants else None,
        keyword=bool(key),
        with_overdue=flt.with_overdue,
        sort_by=flt.sort_by,
        order=flt.order,
        in_list=flt.list_name is not None,
        labeled=flt.label is not None,
    )
    assert flt.time_after is not None and flt.time_before is not None
    cap = max(TOTAL_CAP, end) + 1
    values: dict[str, Any] = {
        "user_id": user_id,
        "now": db_time(now, dialect),
        "time_after": db_time(flt.time_after, dialect),
        "time_before": db_time(flt.time_before, dialect),
        "cap": cap,
        "limit": end,
    }
    if key:
        values["pattern"] = _like_pattern(key)
    values.update(_named_values(flt))
    found = fetch(conn, _series_prepared(shape), values)
    counted, walk = int(found[0][0]), int(found[0][1]) > 0
    t = read_time(dialect)
    rows = [
        TaskRow(r[2], r[3], r[4], r[5], t(r[6]), t(r[7]), False, None, t(r[8]), r[5] != r[4], *r[9:13])  # type: ignore[arg-type]  # at, created_at are NOT NULL
        for r in found
        if r[2] is not None
    ]
    return (walk, counted, rows, True) if counted < cap else (walk, cap - 1, rows, False)


_SERIES_WALKED = (
    sa.select(_TASKS)
    .where(
        _TASKS.c.user_id == sa.bindparam("user_id"),
        _TASKS.c.is_completed.is_(False),
        _TASKS.c.recurrence.is_not(None),
        _TASKS.c.deadline_at < sa.bindparam("after", type_=UTCDateTime),
        sa.or_(
            _TASKS.c.occurrences_until.is_(None),
            _TASKS.c.occurrences_until < sa.bindparam("before", type_=UTCDateTime),
        ),
    )
    .order_by(_TASKS.c.id)
)


def _series_walked(conn: sa.Connection, user_id: int, flt: TaskFilter, now: datetime) -> list[TaskRow]:
    """The series due before the window that the index does not cover for it (a workday rule; a
    window past the rows' reach), each rule walked in Python."""
    after, before = flt.time_after, flt.time_before
    assert after is not None and before is not None
    found = conn.execute(_SERIES_WALKED, {"user_id": user_id, "after": after, "before": before}).mappings().all()
    key = _keyword_key(flt)
    named = _named_values(flt)
    rows = []
    for task in (Task.model_validate(dict(r)) for r in found):
        if (key and key not in task.title_key) or (
            flt.with_overdue and task.deadline_at is not None and task.deadline_at < now
        ):
            continue  # not the keyword's; or already listed as overdue
        if not _names_match(task, named):
            continue
        moment = series.first_in(task, after, before)
        if moment is None:
            continue
        shown = task.model_copy(
            update={"deadline_at": moment, "urgency_threshold_at": series.moved_threshold(task, moment)}
        )
        row = task_row(shown, now=now)
        if not flt.quadrants or row.effective_group in flt.quadrants:
            rows.append(row)
    return rows


def _names_match(task: Task, named: dict[str, str]) -> bool:
    """The task is in the filter's list and has its label (keys from :func:`_named_values`)."""
    if "list_key" in named and task.list_key != named["list_key"]:
        return False
    labels = {listnames.key(n) for n in listnames.label_list(task.labels)}
    return "label_key" not in named or named["label_key"] in labels


def _order_key(flt: TaskFilter) -> Any:
    """The SQL orderings in Python: ``order`` reverses the primary key only, NULL deadlines last."""
    sign = -1 if flt.order == "desc" else 1

    def when(r: TaskRow, sign: int = 1) -> tuple[bool, float]:
        return r.deadline_at is None, sign * r.deadline_at.timestamp() if r.deadline_at else 0.0

    if flt.sort_by == "id":
        return lambda r: sign * r.id
    if flt.sort_by == "priority":
        return lambda r: (sign * r.effective_group, *when(r), r.id)
    return lambda r: (*when(r, sign), r.effective_group, r.id)


def _priority_page(reader: _Reader, flt: TaskFilter, cap: int) -> TaskPage:
    groups = _priority_groups(reader.shape)
    counts = dict(zip(groups, (int(n or 0) for n in reader.run("group_counts")[0]), strict=True))
    # A capped group count is at least offset + limit + 1, so locating the page never skips it.
    exact = all(n < cap for n in counts.values())
    total = sum(counts.values()) if exact else cap - 1
    if total == 0 or flt.limit == 0 or flt.offset >= total:
        return TaskPage(total=total, items=[], total_exact=exact)
    items: list[TaskRow] = []
    skip = flt.offset
    for g in groups:
        if skip >= counts[g]:
            skip -= counts[g]
            continue
        limit = flt.limit - len(items)
        items += reader.rows("group_page", group=g, limit=limit, offset=skip, window=skip + limit)
        skip = 0
        if len(items) >= flt.limit:
            break
    return TaskPage(total=total, items=items, total_exact=exact)


# ---------------------------------------------------------------------------------------------
# facts: why an answer is empty


@dataclass(frozen=True)
class TaskFacts:
    """A few counts over a user's tasks that explain an empty answer (see :func:`task_facts`).

    Each count stops past ``cap`` (like a page's ``total``): a value above it means "more than
    ``cap``", which :meth:`label` shows as "1000+"."""

    open: int
    done: int
    overdue: int  # open, deadline before now
    undated: int  # open, no deadline
    done_in_window: int  # completed, deadline inside the window asked about
    next_deadline: datetime | None  # the soonest open deadline after the window (or after now)
    cap: int = TOTAL_CAP

    @property
    def total(self) -> int:
        return self.open + self.done

    def label(self, count: int) -> str:
        return f"{self.cap}+" if count > self.cap else str(count)


_WINDOW_START = sa.bindparam("window_start", None, type_=UTCDateTime())
_WINDOW_END = sa.bindparam("window_end", None, type_=UTCDateTime())
_NEXT_AFTER = sa.bindparam("next_after", None, type_=UTCDateTime())
# Stand-ins for a missing window bound: the range stays an index range, and no window is empty.
_EARLIEST = datetime(1, 1, 2, tzinfo=UTC)
_LATEST = datetime(9999, 12, 30, tzinfo=UTC)


def _build_facts() -> sa.Select[Any]:
    """One statement of capped scalar subqueries, each an index range that stops at the cap.

    (One pass of SUM(CASE ...) would read every row of the user; a capped pass would miscount.)
    Open/done: a covering range on (user_id, is_completed) of any tasks index; overdue, undated
    (``deadline_at IS NULL``), done in the window and the next deadline: ranges of
    ix_tasks_user_open_deadline (the next deadline is an index walk of one row).
    """
    user, done, deadline = col(Task.user_id) == _USER, col(Task.is_completed), col(Task.deadline_at)
    is_open, is_done = [user, done == sa.false()], [user, done == sa.true()]
    counts = [
        _capped_count(*is_open),
        _capped_count(*is_done),
        _capped_count(*is_open, deadline < _NOW),
        _capped_count(*is_open, deadline.is_(None)),
        _capped_count(*is_done, deadline >= _WINDOW_START, deadline <= _WINDOW_END),
    ]
    soonest = sa.select(deadline).where(*is_open, deadline > _NEXT_AFTER).order_by(deadline.asc()).limit(1)
    return sa.select(*(count.scalar_subquery() for count in counts), soonest.scalar_subquery())


@functools.lru_cache(maxsize=8)
def _facts_statement(dialect: str) -> Prepared:
    return prepare(_build_facts(), _DIALECTS[dialect])


@traced("store.task_facts")
def task_facts(
    db: Session | sa.Connection,
    user_id: int,
    *,
    now: datetime,
    window_start: datetime | None = None,
    window_end: datetime | None = None,
) -> TaskFacts:
    """Open, done, overdue and undated tasks, done ones due in the window, and the next deadline
    after it: one round trip, each count capped at ``TOTAL_CAP + 1``. Only the empty-answer path
    reads it. Without a window nothing is "done in it" and the next deadline is the next after now.
    """
    conn = _connection(db)
    dialect = conn.dialect.name
    start, end = window_start or _EARLIEST, window_end or _LATEST
    if window_start is None and window_end is None:
        start, end = _LATEST, _EARLIEST  # an empty range
    values = {
        "user_id": user_id,
        "now": db_time(now, dialect),
        "cap": TOTAL_CAP + 1,
        "window_start": db_time(start, dialect),
        "window_end": db_time(end, dialect),
        "next_after": db_time(window_end or now, dialect),
    }
    row = fetch(conn, _facts_statement(dialect), values)[0]
    open_, done, overdue, undated, in_window = (int(n or 0) for n in row[:5])
    return TaskFacts(open_, done, overdue, undated, in_window, read_time(dialect)(row[5]), cap=TOTAL_CAP)


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
        "title_key": titlegrams.match_key(data.title),
        "priority_group": data.priority_group,
        "deadline_at": data.deadline_at,
        "urgency_threshold_at": data.urgency_threshold_at,
        "is_completed": False,
        "completed_at": None,
        "created_at": now,
        "updated_at": now,
        "source_key": source_key,
        "recurrence": data.recurrence,
        "reminders": data.reminders,
        "estimate_minutes": data.estimate_minutes,
        "list_name": data.list_name,
        "list_key": listnames.key(data.list_name) if data.list_name else None,
        "labels": listnames.labels_json(data.labels),
    }
    if source_key is None:
        task = Task(**values)
        session.add(task)
        session.flush()
        assert task.id is not None
        titlegrams.reindex_task(session, user_id, task.id, task.title)
        refresh_derived(session, task)
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
                assert created.id is not None
                titlegrams.reindex_task(session, user_id, created.id, created.title)
                refresh_derived(session, created)
                return created, True
        else:  # pragma: no cover - only SQLite and PostgreSQL are supported backends
            try:
                with session.begin_nested():
                    task = Task(**values)
                    session.add(task)
                    session.flush()
                    assert task.id is not None
                    titlegrams.reindex_task(session, user_id, task.id, task.title)
                    refresh_derived(session, task)
                return task, True
            except IntegrityError:
                pass
        # Lost the race: the winner's row is committed (or its transaction aborted); read again.
    existing = get_task_by_source_key(session, user_id, source_key)
    if existing is None:  # pragma: no cover - would need three lost races in a row
        raise RuntimeError(f"could not create or find task for source_key {source_key!r}")
    return existing, False


def refresh_derived(session: Session, task: Task) -> None:
    """What is kept from a task's row after every write to it: its occurrence index
    (:mod:`core.occurrences`), its reminders' schedule (:mod:`core.reminders`), its labels' index
    and its list's row (:mod:`core.lists`)."""
    occurrences.sync(session, task)
    reminders.reschedule(session, task)
    lists.sync_labels(session, task)
    if task.list_name:
        lists.ensure_list(session, task.user_id, task.list_name, now=task.updated_at)


def _set_completed(task: Task, completed: bool, now: datetime) -> bool:
    if task.is_completed == completed:
        return False
    task.is_completed = completed
    task.completed_at = now if completed else None
    return True


def update_task(session: Session, user_id: int, task_id: int, data: TaskUpdate, *, now: datetime) -> Task | None:
    """Apply the fields set in ``data``; ``None`` when the task is missing or not the user's."""
    task = get_task(session, user_id, task_id)
    return apply_update(session, task, data, now=now) if task is not None else None


def apply_update(session: Session, task: Task, data: TaskUpdate, *, now: datetime) -> Task:
    """Apply the fields set in ``data`` to a task already read (and checked) in this session."""
    changes = data.model_dump(exclude_unset=True)
    completed = changes.pop("is_completed", None)
    for name in ("title", "priority_group"):  # required fields cannot be cleared
        if name in changes and changes[name] is None:
            del changes[name]
    if "labels" in changes:
        changes["labels"] = listnames.labels_json(changes["labels"])
    if "list_name" in changes:
        changes["list_key"] = listnames.key(changes["list_name"]) if changes["list_name"] else None
    for name, value in changes.items():
        setattr(task, name, value)
    if "title" in changes:
        task.title_key = titlegrams.match_key(task.title)
    if completed is not None:
        _set_completed(task, completed, now)
    task.updated_at = now
    session.add(task)
    session.flush()
    if "title" in changes:
        assert task.id is not None
        titlegrams.reindex_task(session, task.user_id, task.id, task.title)
    refresh_derived(session, task)
    return task


def complete_task(
    session: Session, user_id: int, task_id: int, *, now: datetime, completed: bool = True
) -> Task | None:
    """Mark done (or not done). Completing an already completed task keeps its completed_at."""
    task = get_task(session, user_id, task_id)
    return apply_completion(session, task, completed, now=now) if task is not None else None


def apply_completion(session: Session, task: Task, completed: bool, *, now: datetime) -> Task:
    """Marks a task already read (and checked) in this session done or not done."""
    if _set_completed(task, completed, now):
        task.updated_at = now
        session.add(task)
        session.flush()
        refresh_derived(session, task)
    return task


def delete_task(session: Session, user_id: int, task_id: int) -> bool:
    task = get_task(session, user_id, task_id)
    if task is None:
        return False
    session.delete(task)
    session.flush()
    return True


__all__ = [
    "TOTAL_CAP",
    "TaskFacts",
    "TaskFilter",
    "TaskPage",
    "TaskRow",
    "apply_completion",
    "apply_update",
    "complete_task",
    "create_task",
    "delete_task",
    "effective_group",
    "effective_group_expr",
    "get_task",
    "get_task_by_source_key",
    "group_terms",
    "query_tasks",
    "refresh_derived",
    "task_facts",
    "task_row",
    "update_task",
]
