"""Benchmark: core.store.query_tasks vs. its own SQL on a raw connection, and vs. load-and-filter.

    .venv/bin/python bench/query_tasks.py                 # SQLite, 1k / 10k / 100k tasks
    .venv/bin/python bench/query_tasks.py --sizes 1000 10000
    .venv/bin/python bench/query_tasks.py --filters keyword priority   # names containing either
    .venv/bin/python bench/query_tasks.py --postgres postgresql+psycopg://postgres@127.0.0.1:5432/test

For each size N it builds a database in which the queried user owns N tasks and nine other users
own N/10 tasks each (a realistic mix: groups 1..4, deadlines within ±60 days or none, 30%
completed, urgency thresholds on some group-2/4 tasks; about 0.1% of titles contain the rare word
'发票'; ``--repeating`` of the open dated tasks, 10% by default, repeat weekly from their deadline,
so a window after a series' open occurrence lists it once more, docs/fdr/0037; ``--repeating 0``
is the mix before repeating tasks). When the modules ``core.titlegrams`` and ``core.occurrences`` exist, their ``reindex_all(conn)`` runs after the bulk
load (the rows go in with raw INSERTs, past anything the store maintains on writes). Then, for
each filter, it times

  (a) store — ``query_tasks`` on one SQLAlchemy connection kept open (as a pool keeps one), each
      call ending with a rollback, as (b) does: filter, promotion, ordering and paging in SQL,
      plus the counts. The ``Session`` a caller may open around it is the caller's cost (about
      45 µs on SQLite, 0.3 ms on PostgreSQL with the pool's pre-ping; see bench/overhead.py);
  (b) raw — the very statements and parameters (a) sent, recorded during one call of (a),
      replayed on one DBAPI connection kept open (``engine.raw_connection()``, as a pool keeps
      one): ``cursor.execute(sql, params)`` and ``fetchall()`` each, then a rollback to end the
      transaction, as the pool's reset-on-return does for (a). The recording is the engine's
      ``before_cursor_execute`` event plus the DBAPI cursors of the pool's connections (a store
      may run statements on ``conn.connection.cursor()``, past SQLAlchemy's execute path and its
      events); column ``drv/ev`` counts the statements the driver got / the event saw, and the
      driver's list is the one replayed. The difference (a) - (b) is what SQLAlchemy, the
      session, the pool (on PostgreSQL its pre-ping) and the building of the result cost beyond
      the database's own work;
  (c) the reference — one SELECT of all of the user's tasks into ORM objects, then promote,
      filter, sort and slice in Python (the original design) —

checks that (a) and (c) return the same page and total, and prints medians, p95s, the ratio
store/raw and the speed-up ref/store. (a) and (b) are measured alternately, so drift of the
machine hits both alike. A total the store caps (more than 1000 matches reported as a lower
bound of at least 1000, flagged by ``TaskPage.total_exact=False`` or a ``total_capped``-style
field, read with ``getattr``; or, unflagged, as exactly 1001) is accepted against the reference's
exact total when that is above 1000; it is shown with a ``+``. A filter whose page or total
differs, or whose query raises a database error, is reported and left out of the timings, and
the exit status is 1.

Targets: store within 2x of raw at every size; every store median <= 5 ms at 100k; store at
least 50x faster than the reference at the largest size. On PostgreSQL the tables live in a
throwaway schema that is dropped at the end; after loading, the tables are ANALYZEd (and on
PostgreSQL also VACUUMed, as autovacuum would).
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import importlib.util
import random
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Engine
from sqlalchemy.pool import base as pool_base
from sqlmodel import Session, col, select

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core.db import make_engine, migrate
from core.models import Task, User
from core.recurrence import Recurrence
from core.series import first_in
from core.store import TaskFilter, TaskRow, effective_group, query_tasks, task_row

NOW = datetime(2026, 3, 10, 9, 0, tzinfo=UTC)
DAY = timedelta(days=1)
OTHER_USERS = 9
WORDS = ["报告", "周报", "开会", "体检", "买菜", "健身", "读书", "review", "deploy", "invoice", "电话", "邮件"]
RARE_WORD = "发票"  # in about RARE_SHARE of the titles, and in no word of WORDS
RARE_SHARE = 0.001
TOTAL_CAP = 1000  # a store may report "more than this" as TOTAL_CAP + 1 (with a flag)
TARGET_RAW_RATIO = 2.0
TARGET_MEDIAN_MS = 5.0
TARGET_MEDIAN_AT = 100_000
TARGET_SPEEDUP = 50.0
TITLEGRAMS = "core.titlegrams"
OCCURRENCES = "core.occurrences"
REPEATING = {"share": 0.1}  # of the open dated tasks: weekly series (set by --repeating)

FILTERS: dict[str, TaskFilter] = {
    "open, by deadline": TaskFilter(),
    "quadrant 1 (promotion)": TaskFilter(quadrants=[1]),
    "groups 3-4, next 7 days": TaskFilter(quadrants=[3, 4], time_after=NOW, time_before=NOW + 7 * DAY),
    "overdue": TaskFilter(only_overdue=True),
    "completed last 7 days": TaskFilter(time_field="completed", time_after=NOW - 7 * DAY, time_before=NOW),
    "created last 3 days": TaskFilter(time_field="created", time_after=NOW - 3 * DAY),
    "by priority, page 3": TaskFilter(sort_by="priority", limit=5, offset=10),
    "all, by priority": TaskFilter(include_completed=True, sort_by="priority"),
    "keyword '报告'": TaskFilter(keyword="报告", limit=10),
    f"keyword '{RARE_WORD}' (rare)": TaskFilter(keyword=RARE_WORD, limit=10),
    "week after next (series)": TaskFilter(time_after=NOW + 14 * DAY, time_before=NOW + 21 * DAY, limit=10),
    "keyword '报' (1 char)": TaskFilter(keyword="报", limit=10),
    "keyword 'deploy' (ASCII)": TaskFilter(keyword="deploy", limit=10),
}


# ---------------------------------------------------------------------------------------------
# data


def _task_rows(rng: random.Random, user_id: int, n: int) -> list[dict[str, Any]]:
    rows = []
    for i in range(n):
        group = rng.choices([1, 2, 3, 4], weights=[2, 4, 3, 1])[0]
        created = NOW - timedelta(minutes=rng.randrange(0, 120 * 24 * 60))
        deadline = None
        if rng.random() < 0.8:
            deadline = NOW + timedelta(minutes=rng.randrange(-60 * 24 * 60, 60 * 24 * 60))
        threshold = None
        if group in (2, 4) and deadline is not None and rng.random() < 0.4:
            threshold = deadline - timedelta(minutes=rng.randrange(0, 10 * 24 * 60))
        completed = rng.random() < 0.3
        completed_at = None
        if completed:
            span = max(1, int((NOW - created).total_seconds() // 60))
            completed_at = created + timedelta(minutes=rng.randrange(0, span))
        first = RARE_WORD if rng.random() < RARE_SHARE else rng.choice(WORDS)
        rule = None
        if deadline is not None and not completed and rng.random() < REPEATING["share"]:
            rule = Recurrence("FREQ=WEEKLY", deadline.replace(microsecond=0), "UTC").to_ical()
        rows.append(
            {
                "user_id": user_id,
                "title": f"{first} {rng.choice(WORDS)} #{i}",
                "priority_group": group,
                "deadline_at": deadline,
                "urgency_threshold_at": threshold,
                "is_completed": completed,
                "completed_at": completed_at,
                "created_at": created,
                "updated_at": created,
                "source_key": None,
                "recurrence": rule,
            }
        )
    if hasattr(Task, "title_key"):  # the folded title keyword search compares (newer than this benchmark)
        match_key = importlib.import_module(TITLEGRAMS).match_key
        for row in rows:
            row["title_key"] = match_key(row["title"])
    return rows


def titlegrams_reindexer() -> Callable[[sa.Connection], object] | None:
    """``core.titlegrams.reindex_all`` when that module exists (it is newer than this benchmark)."""
    if importlib.util.find_spec(TITLEGRAMS) is None:
        return None
    reindex: Callable[[sa.Connection], object] = importlib.import_module(TITLEGRAMS).reindex_all
    return reindex


def build(engine: Engine, n: int, seed: int = 7) -> tuple[int, str]:
    """Fill a migrated database; return the id of the user who owns ``n`` tasks, and a note."""
    rng = random.Random(seed)
    note = f"no {TITLEGRAMS}"
    with engine.begin() as conn:
        ids: list[int] = []
        for k in range(OTHER_USERS + 1):
            stmt = sa.insert(User).values(name=f"user{k}", created_at=NOW).returning(sa.column("id", sa.Integer))
            ids.append(int(conn.execute(stmt).scalar_one()))
        target = ids[0]
        plan = [(target, n)] + [(uid, max(1, n // 10)) for uid in ids[1:]]
        rng.shuffle(plan)
        for uid, count in plan:
            rows = _task_rows(rng, uid, count)
            for start in range(0, len(rows), 5000):
                conn.execute(sa.insert(Task), rows[start : start + 5000])
        reindex = titlegrams_reindexer()
        if reindex is not None:
            t0 = time.perf_counter()
            reindex(conn)
            note = f"{TITLEGRAMS}.reindex_all {time.perf_counter() - t0:.1f}s"
        if importlib.util.find_spec(OCCURRENCES) is not None:  # the series' occurrence index (0009)
            t0 = time.perf_counter()
            written = importlib.import_module(OCCURRENCES).reindex_all(conn)
            note += f"; {OCCURRENCES}.reindex_all {written} rows {time.perf_counter() - t0:.1f}s"
    with engine.connect() as conn:
        if engine.dialect.name == "sqlite":
            conn.exec_driver_sql("ANALYZE")
        else:
            # VACUUM too: a live table is kept vacuumed by autovacuum, but right after a bulk load
            # PostgreSQL's visibility map is empty, so every index-only scan (all the COUNTs the
            # covering indexes serve) would still visit the heap and the planner avoids them.
            # Every table of the schema, so an n-gram index table too.
            conn = conn.execution_options(isolation_level="AUTOCOMMIT")
            conn.exec_driver_sql(f"VACUUM ANALYZE {', '.join(schema_tables(conn))}")
    return target, note


def schema_tables(conn: sa.Connection) -> list[str]:
    """The tables of the PostgreSQL schema in use (the throwaway one), quoted, but Alembic's."""
    names = conn.exec_driver_sql(
        "SELECT tablename FROM pg_tables WHERE schemaname = current_schema() AND tablename <> 'alembic_version'"
    ).scalars()
    return [f'"{name}"' for name in sorted(names)]


# ---------------------------------------------------------------------------------------------
# the original design, as the reference


@dataclass(frozen=True)
class RefPage:
    """The reference's answer: the exact total and the page (not a TaskPage, whose fields may grow)."""

    total: int
    items: list[TaskRow]


def _series_projected(tasks: Any, flt: TaskFilter, now: datetime) -> list[tuple[Task, int]]:
    """Open series due before a deadline window that occur in it, dated at their first occurrence
    there (the store's rule, docs/fdr/0037), filtered like any task."""
    after, before = flt.time_after, flt.time_before
    if flt.time_field != "deadline" or after is None or before is None or flt.only_overdue:
        return []
    out = []
    keyword = (flt.keyword or "").strip().lower()
    for task in tasks:
        if task.is_completed or not task.recurrence or task.deadline_at is None or task.deadline_at >= after:
            continue
        moment = first_in(task, after, before)
        if moment is None or (keyword and keyword not in task.title.lower()):
            continue
        lead = task.urgency_threshold_at
        shown = task.model_copy(
            update={"deadline_at": moment, "urgency_threshold_at": lead + (moment - task.deadline_at) if lead else None}
        )
        eff = effective_group(shown, now=now)
        if not flt.quadrants or eff in flt.quadrants:
            out.append((shown, eff))
    return out


def reference_query(session: Session, user_id: int, flt: TaskFilter, *, now: datetime) -> RefPage:
    tasks = session.exec(select(Task).where(col(Task.user_id) == user_id)).all()
    time_attr = {"deadline": "deadline_at", "completed": "completed_at", "created": "created_at"}[flt.time_field]
    keyword = (flt.keyword or "").strip().lower()
    quadrants = set(flt.quadrants or [])
    matches = []
    for task in tasks:
        eff = effective_group(task, now=now)
        if flt.time_field == "completed":
            if not task.is_completed:
                continue
        elif (not flt.include_completed or flt.only_overdue) and task.is_completed:
            continue
        if flt.only_overdue and (task.deadline_at is None or task.deadline_at >= now):
            continue
        if quadrants and eff not in quadrants:
            continue
        value = getattr(task, time_attr)
        if flt.time_after is not None and (value is None or value < flt.time_after):
            continue
        if flt.time_before is not None and (value is None or value > flt.time_before):
            continue
        if keyword and keyword not in task.title.lower():
            continue
        matches.append((task, eff))
    matches += _series_projected(tasks, flt, now)

    desc = flt.order == "desc"
    far = datetime.max.replace(tzinfo=UTC)

    def ts(d: datetime | None) -> float:
        return (d or far).timestamp()

    if flt.sort_by == "id":
        matches.sort(key=lambda m: m[0].id or 0, reverse=desc)
    elif flt.sort_by == "priority":
        matches.sort(
            key=lambda m: (
                -m[1] if desc else m[1],
                m[0].deadline_at is None,
                ts(m[0].deadline_at),
                m[0].id,
            )
        )
    else:
        matches.sort(
            key=lambda m: (
                m[0].deadline_at is None,
                -ts(m[0].deadline_at) if desc else ts(m[0].deadline_at),
                m[1],
                m[0].id,
            )
        )
    page = matches[flt.offset : flt.offset + flt.limit]
    return RefPage(total=len(matches), items=[task_row(t, now=now) for t, _ in page])


def capped(page: object) -> bool:
    """Whether the store says its total is capped (a lower bound), looked up at run time.

    ``total_exact=False`` or ``total_capped=True`` (or another true ``*capped*`` field), so this
    works with a ``TaskPage`` with or without such a field.
    """
    if getattr(page, "total_exact", True) is False or getattr(page, "total_capped", False) is True:
        return True
    if dataclasses.is_dataclass(page):
        return any("capped" in f.name and getattr(page, f.name) is True for f in dataclasses.fields(page))
    return False


def compare(got: Any, want: RefPage) -> str | None:
    """None when the store's page agrees with the reference, else what differs.

    The page must match in every case. The total must be exact, except a capped one, accepted
    when the reference's exact total is above TOTAL_CAP: flagged (see :func:`capped`) and a lower
    bound of at least TOTAL_CAP (``1000+``, or ``1001`` as a cap might report it), or unflagged
    and exactly TOTAL_CAP + 1.
    """
    problems = []
    if list(got.items) != want.items:
        problems.append(f"items differ:\n    store {got.items}\n    ref   {want.items}")
    flagged = capped(got)
    if flagged:
        if not (want.total > TOTAL_CAP and TOTAL_CAP <= got.total <= want.total):
            problems.append(f"total {got.total} flagged as capped, but the exact total is {want.total}")
    elif got.total != want.total and not (want.total > TOTAL_CAP and got.total == TOTAL_CAP + 1):
        problems.append(f"total {got.total}, reference {want.total}")
    return "\n  ".join(problems) or None


def shown_total(got: Any, want: RefPage) -> str:
    if capped(got) or got.total != want.total:
        return f"{got.total}+"
    return str(got.total)


# ---------------------------------------------------------------------------------------------
# the store's own statements, on a raw connection


@dataclass(frozen=True)
class Statement:
    sql: str
    params: Any  # as the driver got it: a sequence (sqlite3, qmark) or a dict (psycopg, pyformat)
    kwargs: dict[str, Any] = dataclasses.field(default_factory=dict)  # e.g. psycopg's prepare=


def _frozen(params: Any) -> Any:
    if params is None:
        return None
    return dict(params) if isinstance(params, dict) else tuple(params)


class _RecordingCursor:
    """A DBAPI cursor that notes what it executes and otherwise is the driver's cursor."""

    def __init__(self, cursor: Any, log: list[Statement]) -> None:
        self._cursor = cursor
        self._log = log

    def execute(self, sql: str, params: Any = None, *args: Any, **kwargs: Any) -> Any:
        self._log.append(Statement(sql, _frozen(params), dict(kwargs)))
        if params is None and not args:
            return self._cursor.execute(sql, **kwargs)
        return self._cursor.execute(sql, params, *args, **kwargs)

    def executemany(self, sql: str, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError(f"executemany in a query: {sql[:200]}")

    def __iter__(self) -> Any:
        return iter(self._cursor)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._cursor, name)


@dataclass
class Captured:
    driver: list[Statement]  # everything the driver's cursors executed
    events: list[Statement]  # what SQLAlchemy's before_cursor_execute saw (its own execute path)


def capture_statements(engine: Engine, fn: Callable[[], object]) -> Captured:
    """Every statement (and its parameters) ``fn`` sends through ``engine``'s connections.

    Two records: the engine's ``before_cursor_execute`` event, which sees what goes through
    SQLAlchemy's execute path, and the DBAPI cursors of the pooled connections (patched for the
    duration of the call), which also see statements a store runs on ``conn.connection.cursor()``
    directly. The second is what is replayed; it includes the first.
    """
    captured = Captured([], [])

    def listener(_conn: Any, _cursor: Any, statement: str, parameters: Any, _context: Any, executemany: bool) -> None:
        captured.events.append(Statement(statement, _frozen(parameters)))

    fairy = pool_base._ConnectionFairy
    original = fairy.cursor

    def cursor(self: Any, *args: Any, **kwargs: Any) -> Any:
        return _RecordingCursor(original(self, *args, **kwargs), captured.driver)

    sa.event.listen(engine, "before_cursor_execute", listener)
    fairy.cursor = cursor  # type: ignore[method-assign]
    try:
        fn()
    finally:
        fairy.cursor = original  # type: ignore[method-assign]
        sa.event.remove(engine, "before_cursor_execute", listener)
    return captured


def replay(dbapi_conn: Any, statements: list[Statement]) -> int:
    """Send ``statements`` as captured, fetch every row, end the transaction; the rows fetched."""
    rows = 0
    cursor = dbapi_conn.cursor()
    try:
        for st in statements:
            if st.params is None:
                cursor.execute(st.sql, **st.kwargs)
            else:
                cursor.execute(st.sql, st.params, **st.kwargs)
            rows += len(cursor.fetchall())
    finally:
        cursor.close()
        dbapi_conn.rollback()
    return rows


# ---------------------------------------------------------------------------------------------
# timing


@dataclass
class Timing:
    median_ms: float
    p95_ms: float
    runs: int


def _timing(samples: list[float]) -> Timing:
    samples = sorted(samples)
    p95 = samples[min(len(samples) - 1, round(0.95 * (len(samples) - 1)))]
    return Timing(statistics.median(samples), p95, len(samples))


def measure(fn: Callable[[], object], *, budget_s: float, min_runs: int, max_runs: int) -> Timing:
    fn()  # warm-up (statement cache, page cache)
    samples: list[float] = []
    started = time.perf_counter()
    while len(samples) < max_runs and (len(samples) < min_runs or time.perf_counter() - started < budget_s):
        t0 = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - t0) * 1000)
    return _timing(samples)


def measure_pair(
    a: Callable[[], object], b: Callable[[], object], *, budget_s: float, min_runs: int, max_runs: int
) -> tuple[Timing, Timing]:
    """Both functions, alternately (a b, b a, a b, ...), so that drift hits both alike."""
    a()
    b()
    samples: tuple[list[float], list[float]] = ([], [])
    started = time.perf_counter()
    i = 0
    while len(samples[0]) < max_runs and (len(samples[0]) < min_runs or time.perf_counter() - started < budget_s):
        for k in (0, 1) if i % 2 == 0 else (1, 0):
            fn = a if k == 0 else b
            t0 = time.perf_counter()
            fn()
            samples[k].append((time.perf_counter() - t0) * 1000)
        i += 1
    return _timing(samples[0]), _timing(samples[1])


@dataclass
class Result:
    size: int
    name: str
    statements: int
    store: Timing
    raw: Timing
    ref: Timing

    @property
    def raw_ratio(self) -> float:
        return self.store.median_ms / self.raw.median_ms

    @property
    def speedup(self) -> float:
        return self.ref.median_ms / self.store.median_ms


HEADER = (
    f"{'filter':<30} {'total':>7} {'drv/ev':>6}  {'store med':>9} {'p95':>7}  {'raw med':>8} {'p95':>7} "
    f"{'store/raw':>9}  {'ref med':>8} {'ref/store':>9}"
)


def where(engine: Engine) -> str:
    """For an error report on PostgreSQL: the search_path a new connection gets, and the table."""
    if engine.dialect.name != "postgresql":
        return ""
    try:
        with engine.connect() as conn:
            schema, table = conn.exec_driver_sql("SELECT current_schema(), to_regclass('tasks')::text").one()
    except sa.exc.DBAPIError as exc:
        return f"(a new connection fails too: {type(exc.orig).__name__})"
    return f"(a new connection: current_schema {schema}, tasks -> {table})"


def measure_filter(
    engine: Engine,
    store_conn: sa.Connection,
    raw_conn: Any,
    user_id: int,
    n: int,
    name: str,
    flt: TaskFilter,
    *,
    ref_budget_s: float,
    budget_s: float,
) -> Result | str:
    """One filter's row (printed): a Result, or what went wrong."""
    with Session(engine) as s:
        got = query_tasks(s, user_id, flt, now=NOW)
    with Session(engine) as s:
        want = reference_query(s, user_id, flt, now=NOW)
    problem = compare(got, want)
    if problem is not None:
        print(f"{name:<30} MISMATCH at {n:,}:\n  {problem}", flush=True)
        return f"{name} at {n:,} ({engine.dialect.name})"

    def store() -> object:
        try:
            return query_tasks(store_conn, user_id, flt, now=NOW)
        finally:
            store_conn.rollback()

    def ref() -> object:
        with Session(engine) as s:
            return reference_query(s, user_id, flt, now=NOW)

    captured = capture_statements(engine, store)
    statements = captured.driver
    if not statements:
        print(f"{name:<30} no statement reached the driver: nothing to replay", flush=True)
        return f"{name} at {n:,} ({engine.dialect.name}): no statements captured"

    def raw() -> object:
        return replay(raw_conn, statements)

    a, b = measure_pair(store, raw, budget_s=budget_s, min_runs=30, max_runs=1000)
    c = measure(ref, budget_s=ref_budget_s, min_runs=3, max_runs=200)
    r = Result(n, name, len(statements), a, b, c)
    stmts = f"{len(statements)}/{len(captured.events)}"
    print(
        f"{name:<30} {shown_total(got, want):>7} {stmts:>6}  "
        f"{a.median_ms:>7.2f}ms {a.p95_ms:>5.2f}ms  {b.median_ms:>6.2f}ms {b.p95_ms:>5.2f}ms "
        f"{r.raw_ratio:>8.2f}x  {c.median_ms:>6.1f}ms {r.speedup:>8.0f}x",
        flush=True,
    )
    return r


def run_size(
    engine: Engine, n: int, filters: dict[str, TaskFilter], *, ref_budget_s: float, budget_s: float
) -> tuple[list[Result], list[str]]:
    t0 = time.perf_counter()
    user_id, note = build(engine, n)
    with engine.connect() as conn:
        total_rows = conn.execute(sa.select(sa.func.count()).select_from(Task)).scalar_one()
    print(
        f"\n== {n:,} tasks for the queried user ({total_rows:,} rows, {OTHER_USERS + 1} users; "
        f"built in {time.perf_counter() - t0:.1f}s; {note})",
        flush=True,
    )
    print(HEADER)
    out: list[Result] = []
    failures: list[str] = []
    raw_conn = engine.raw_connection()  # kept open for the whole size, as a pool keeps one
    store_conn = engine.connect()
    try:
        for name, flt in filters.items():
            try:
                r = measure_filter(
                    engine, store_conn, raw_conn, user_id, n, name, flt, ref_budget_s=ref_budget_s, budget_s=budget_s
                )
            except sa.exc.DBAPIError as exc:  # the store is a moving target: report, go on
                print(f"{name:<30} ERROR at {n:,}: {str(exc.orig).splitlines()[0]} {where(engine)}", flush=True)
                r = f"{name} at {n:,} ({engine.dialect.name}): {type(exc.orig).__name__}"
            if isinstance(r, Result):
                out.append(r)
            else:
                failures.append(r)
    finally:
        store_conn.close()
        raw_conn.close()
    return out, failures


def summarize(backend: str, results: list[Result]) -> None:
    if not results:
        print(f"\n[{backend}] nothing measured")
        return
    sizes = sorted({r.size for r in results})
    print(f"\n[{backend}] summary")
    print(f"{'size':>9}  {'worst store/raw':<44} {'slowest store median':<44} {'smallest ref/store'}")
    for n in sizes:
        rows = [r for r in results if r.size == n]
        worst = max(rows, key=lambda r: r.raw_ratio)
        slowest = max(rows, key=lambda r: r.store.median_ms)
        least = min(rows, key=lambda r: r.speedup)
        print(
            f"{n:>9,}  {f'{worst.raw_ratio:.2f}x ({worst.name})':<44} "
            f"{f'{slowest.store.median_ms:.2f} ms ({slowest.name})':<44} {least.speedup:.0f}x ({least.name})"
        )
    over = {n: sum(1 for r in results if r.size == n and r.raw_ratio > TARGET_RAW_RATIO) for n in sizes}
    verdict = "met"
    if any(over.values()):
        total = {n: sum(1 for r in results if r.size == n) for n in sizes}
        verdict = "NOT met: " + ", ".join(f"{over[n]} of {total[n]} filters over at {n:,}" for n in sizes if over[n])
    print(f"  store within {TARGET_RAW_RATIO:g}x of raw at every size: {verdict}")
    at_target = [r for r in results if r.size == TARGET_MEDIAN_AT]
    if at_target:
        slow = [r for r in at_target if r.store.median_ms > TARGET_MEDIAN_MS]
        verdict = "met" if not slow else "NOT met: " + ", ".join(f"{r.name} {r.store.median_ms:.2f} ms" for r in slow)
    else:
        verdict = f"not measured ({TARGET_MEDIAN_AT:,} not among the sizes)"
    print(f"  every store median <= {TARGET_MEDIAN_MS:g} ms at {TARGET_MEDIAN_AT:,}: {verdict}")
    biggest = sizes[-1]
    least = min((r for r in results if r.size == biggest), key=lambda r: r.speedup)
    print(
        f"  store >= {TARGET_SPEEDUP:g}x faster than the reference at {biggest:,}: "
        f"{'met' if least.speedup >= TARGET_SPEEDUP else 'NOT met'} (smallest {least.speedup:.0f}x, {least.name})"
    )


def select_filters(parser: argparse.ArgumentParser, wanted: list[str] | None) -> dict[str, TaskFilter]:
    if not wanted:
        return dict(FILTERS)
    chosen = {name: flt for name, flt in FILTERS.items() if any(w.lower() in name.lower() for w in wanted)}
    if not chosen:
        parser.error(f"no filter name contains any of {wanted}; the filters: {', '.join(FILTERS)}")
    return chosen


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000, 10_000, 100_000])
    parser.add_argument("--postgres", metavar="URL", help="also run against this PostgreSQL database")
    parser.add_argument(
        "--filters", nargs="+", metavar="TEXT", help="only filters whose name contains one of these (case-insensitive)"
    )
    parser.add_argument("--budget", type=float, default=1.5, help="seconds per store+raw measurement (default 1.5)")
    parser.add_argument("--ref-budget", type=float, default=4.0, help="seconds per reference measurement")
    parser.add_argument(
        "--repeating", type=float, default=0.1, help="share of open dated tasks that repeat weekly (default 0.1)"
    )
    args = parser.parse_args(argv)
    REPEATING["share"] = args.repeating
    filters = select_filters(parser, args.filters)

    print(
        f"SQLAlchemy {sa.__version__}, sqlite {__import__('sqlite3').sqlite_version}; "
        f"{TITLEGRAMS}: {'present' if titlegrams_reindexer() else 'absent'}; {len(filters)} filters"
    )
    failures: list[str] = []
    results: list[Result] = []
    with tempfile.TemporaryDirectory(prefix="suikou-bench-") as tmp:
        for n in args.sizes:
            engine = make_engine(f"sqlite:///{tmp}/bench_{n}.db")
            migrate(engine)
            try:
                print("\n[SQLite]", end="")
                got, failed = run_size(engine, n, filters, ref_budget_s=args.ref_budget, budget_s=args.budget)
                results += got
                failures += failed
            finally:
                engine.dispose()
    summarize("SQLite", results)

    if args.postgres:
        schema = f"bench_{uuid.uuid4().hex[:10]}"
        admin = make_engine(args.postgres)
        with admin.begin() as conn:
            conn.exec_driver_sql(f'CREATE SCHEMA "{schema}"')
        pg_results: list[Result] = []
        try:
            for n in args.sizes:
                engine = make_engine(args.postgres, connect_args={"options": f"-csearch_path={schema}"})
                try:
                    migrate(engine)
                    with engine.begin() as conn:  # the previous size's rows, in every table
                        conn.exec_driver_sql(f"TRUNCATE {', '.join(schema_tables(conn))} RESTART IDENTITY CASCADE")
                    print("\n[PostgreSQL]", end="")
                    got, failed = run_size(engine, n, filters, ref_budget_s=args.ref_budget, budget_s=args.budget)
                    pg_results += got
                    failures += failed
                finally:
                    engine.dispose()
        finally:
            with admin.begin() as conn:
                conn.exec_driver_sql(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
            admin.dispose()
        summarize("PostgreSQL", pg_results)

    if failures:
        print(f"\nMISMATCHES (not timed): {'; '.join(failures)}")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
