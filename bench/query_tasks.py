"""Benchmark: core.store.query_tasks (SQL) vs. the original design (load all, filter in Python).

    .venv/bin/python bench/query_tasks.py                 # SQLite, 1k / 10k / 100k tasks
    .venv/bin/python bench/query_tasks.py --sizes 1000 10000
    .venv/bin/python bench/query_tasks.py --postgres postgresql+psycopg://postgres@127.0.0.1:5432/test

For each size N it builds a database in which the queried user owns N tasks and nine other users
own N/10 tasks each (a realistic mix: groups 1..4, deadlines within ±60 days or none, 30%
completed, urgency thresholds on some group-2/4 tasks). Then, for a few representative filters,
it times

  (a) ``query_tasks`` — filter, promotion, ordering and paging in SQL, plus COUNT(*);
  (b) the reference — one SELECT of all of the user's tasks into ORM objects, then promote,
      filter, sort and slice in Python —

each in a fresh session, checks that both return the same page and total, and prints median and
p95 and the ratio of medians. Targets: (a) at least 50x faster at 100k, (a) median under 5 ms.
On PostgreSQL the tables live in a throwaway schema that is dropped at the end; after loading,
the tables are ANALYZEd (and on PostgreSQL also VACUUMed, as autovacuum would).
"""

from __future__ import annotations

import argparse
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
from sqlmodel import Session, col, select

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core.db import make_engine, migrate
from core.models import Task, User
from core.store import TaskFilter, TaskPage, effective_group, query_tasks

NOW = datetime(2026, 3, 10, 9, 0, tzinfo=UTC)
DAY = timedelta(days=1)
OTHER_USERS = 9
WORDS = ["报告", "周报", "开会", "体检", "买菜", "健身", "读书", "review", "deploy", "invoice", "电话", "邮件"]

FILTERS: dict[str, TaskFilter] = {
    "open, by deadline": TaskFilter(),
    "quadrant 1 (promotion)": TaskFilter(quadrants=[1]),
    "groups 3-4, next 7 days": TaskFilter(quadrants=[3, 4], time_after=NOW, time_before=NOW + 7 * DAY),
    "overdue": TaskFilter(only_overdue=True),
    "completed last 7 days": TaskFilter(time_field="completed", time_after=NOW - 7 * DAY, time_before=NOW),
    "created last 3 days": TaskFilter(time_field="created", time_after=NOW - 3 * DAY),
    "by priority, page 3": TaskFilter(sort_by="priority", limit=5, offset=10),
    "keyword '报告'": TaskFilter(keyword="报告", limit=10),
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
        rows.append(
            {
                "user_id": user_id,
                "title": f"{rng.choice(WORDS)} {rng.choice(WORDS)} #{i}",
                "priority_group": group,
                "deadline_at": deadline,
                "urgency_threshold_at": threshold,
                "is_completed": completed,
                "completed_at": completed_at,
                "created_at": created,
                "updated_at": created,
                "source_key": None,
            }
        )
    return rows


def build(engine: Engine, n: int, seed: int = 7) -> int:
    """Fill a migrated database; return the id of the user who owns ``n`` tasks."""
    rng = random.Random(seed)
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
    with engine.connect() as conn:
        if engine.dialect.name == "sqlite":
            conn.exec_driver_sql("ANALYZE")
        else:
            # VACUUM too: a live table is kept vacuumed by autovacuum, but right after a bulk load
            # PostgreSQL's visibility map is empty, so every index-only scan (all the COUNTs the
            # covering indexes serve) would still visit the heap and the planner avoids them.
            conn.execution_options(isolation_level="AUTOCOMMIT").exec_driver_sql("VACUUM ANALYZE tasks")
    return target


# ---------------------------------------------------------------------------------------------
# the original design, as the reference


def reference_query(session: Session, user_id: int, flt: TaskFilter, *, now: datetime) -> TaskPage:
    from core.store import task_row

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
    return TaskPage(total=len(matches), items=[task_row(t, now=now) for t, _ in page])


# ---------------------------------------------------------------------------------------------
# timing


@dataclass
class Timing:
    median_ms: float
    p95_ms: float
    runs: int


def measure(fn: Callable[[], object], *, budget_s: float, min_runs: int, max_runs: int) -> Timing:
    fn()  # warm-up (statement cache, page cache)
    samples: list[float] = []
    started = time.perf_counter()
    while len(samples) < max_runs and (len(samples) < min_runs or time.perf_counter() - started < budget_s):
        t0 = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - t0) * 1000)
    samples.sort()
    p95 = samples[min(len(samples) - 1, round(0.95 * (len(samples) - 1)))]
    return Timing(statistics.median(samples), p95, len(samples))


def run_size(engine: Engine, n: int, *, ref_budget_s: float) -> list[tuple[int, str, Timing, Timing]]:
    t0 = time.perf_counter()
    user_id = build(engine, n)
    with engine.connect() as conn:
        total_rows = conn.execute(sa.select(sa.func.count()).select_from(Task)).scalar_one()
    print(
        f"\n== {n:,} tasks for the queried user ({total_rows:,} rows, {OTHER_USERS + 1} users; "
        f"built in {time.perf_counter() - t0:.1f}s)",
        flush=True,
    )
    print(f"{'filter':<28} {'total':>6}  {'sql med':>8} {'sql p95':>8}  {'ref med':>9} {'ref p95':>9}  {'ratio':>7}")
    out = []
    for name, flt in FILTERS.items():
        with Session(engine) as s:
            got = query_tasks(s, user_id, flt, now=NOW)
        with Session(engine) as s:
            want = reference_query(s, user_id, flt, now=NOW)
        if got != want:
            raise SystemExit(f"MISMATCH for {name!r} at {n}:\n  sql {got}\n  ref {want}")

        def sql(flt: TaskFilter = flt) -> object:
            with Session(engine) as s:
                return query_tasks(s, user_id, flt, now=NOW)

        def ref(flt: TaskFilter = flt) -> object:
            with Session(engine) as s:
                return reference_query(s, user_id, flt, now=NOW)

        a = measure(sql, budget_s=1.0, min_runs=30, max_runs=500)
        b = measure(ref, budget_s=ref_budget_s, min_runs=3, max_runs=200)
        ratio = b.median_ms / a.median_ms
        print(
            f"{name:<28} {got.total:>6}  {a.median_ms:>6.2f}ms {a.p95_ms:>6.2f}ms  "
            f"{b.median_ms:>7.1f}ms {b.p95_ms:>7.1f}ms  {ratio:>6.0f}x",
            flush=True,
        )
        out.append((n, name, a, b))
    return out


def summarize(results: list[tuple[int, str, Timing, Timing]]) -> None:
    biggest = max(n for n, *_ in results)
    rows = [r for r in results if r[0] == biggest]
    worst_ratio = min(b.median_ms / a.median_ms for _, _, a, b in rows)
    worst_median = max(a.median_ms for _, _, a, _ in rows)
    print(
        f"\nAt {biggest:,}: smallest speed-up {worst_ratio:.0f}x (target >= 50x), "
        f"slowest SQL median {worst_median:.2f} ms (target < 5 ms)"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000, 10_000, 100_000])
    parser.add_argument("--postgres", metavar="URL", help="also run against this PostgreSQL database")
    parser.add_argument("--ref-budget", type=float, default=4.0, help="seconds per reference measurement")
    args = parser.parse_args(argv)

    print(f"SQLite {sa.__version__=}  sqlite {__import__('sqlite3').sqlite_version}")
    results = []
    with tempfile.TemporaryDirectory(prefix="suikou-bench-") as tmp:
        for n in args.sizes:
            engine = make_engine(f"sqlite:///{tmp}/bench_{n}.db")
            migrate(engine)
            try:
                results += run_size(engine, n, ref_budget_s=args.ref_budget)
            finally:
                engine.dispose()
    print("\n[SQLite]", end="")
    summarize(results)

    if args.postgres:
        schema = f"bench_{uuid.uuid4().hex[:10]}"
        admin = make_engine(args.postgres)
        with admin.begin() as conn:
            conn.exec_driver_sql(f'CREATE SCHEMA "{schema}"')
        pg_results = []
        try:
            for n in args.sizes:
                engine = make_engine(args.postgres, connect_args={"options": f"-csearch_path={schema}"})
                try:
                    migrate(engine)
                    with engine.begin() as conn:
                        conn.exec_driver_sql("TRUNCATE tasks, api_keys, users RESTART IDENTITY CASCADE")
                    print("\n[PostgreSQL]", end="")
                    pg_results += run_size(engine, n, ref_budget_s=args.ref_budget)
                finally:
                    engine.dispose()
        finally:
            with admin.begin() as conn:
                conn.exec_driver_sql(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
            admin.dispose()
        print("\n[PostgreSQL]", end="")
        summarize(pg_results)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
