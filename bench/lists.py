"""Benchmark: a list or label filter vs. a keyword filter of the same selectivity, and no filter.

    .venv/bin/python bench/lists.py                    # SQLite, 100k tasks of one user
    .venv/bin/python bench/lists.py --tasks 20000
    .venv/bin/python bench/lists.py --postgres postgresql+psycopg://postgres@127.0.0.1:5432/test

The user owns N tasks (groups 1..4, deadlines within ±60 days or none, 30% completed); 20 lists take
60% of them (so one list holds ~3% of the tasks); every task has 0–3 of 30 labels (and 0.1% a rare one); 3% of titles
carry the word '购物' (the same share as one list). Rows go in with raw INSERTs, then
``task_labels``/``task_title_grams`` are rebuilt as the store would write them, and the tables are
ANALYZEd. Each filter's first page (5 open tasks by deadline, with the count) is timed through
``core.store.query_tasks`` on one connection; medians and p95 in ms are printed side by side, and
each filter's time as a ratio of the unfiltered page's.
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

import sqlalchemy as sa

from core import db, listnames, titlegrams
from core.models import Task, TaskLabel, User
from core.store import TaskFilter, query_tasks

NOW = datetime(2026, 11, 30, 2, tzinfo=UTC)


def _load(engine: sa.Engine, n: int, seed: int = 7) -> int:
    rng = random.Random(seed)
    lists = [f"清单{i}" for i in range(20)]
    labels = [f"标签{i}" for i in range(30)]
    rare = "少见"
    with engine.begin() as conn:
        user_id = conn.execute(
            sa.insert(User).values(name=f"bench-{uuid.uuid4().hex[:8]}", created_at=NOW).returning(User.id)  # type: ignore[arg-type]
        ).scalar_one()
        rows = []
        for i in range(n):
            title = ("购物" if rng.random() < 0.03 else "") + f"任务{i} {rng.choice(['写', '买', '交', '修'])}"
            deadline = NOW + timedelta(hours=rng.randint(-60 * 24, 60 * 24)) if rng.random() < 0.8 else None
            done = rng.random() < 0.3
            listed = rng.choice(lists) if rng.random() < 0.6 else None
            tags = rng.sample(labels, rng.randint(0, 3)) + ([rare] if rng.random() < 0.001 else [])
            rows.append({
                "user_id": user_id, "title": title, "title_key": titlegrams.match_key(title),
                "priority_group": rng.randint(1, 4), "deadline_at": deadline, "is_completed": done,
                "completed_at": NOW if done else None, "created_at": NOW, "updated_at": NOW,
                "list_name": listed, "list_key": listnames.key(listed) if listed else None,
                "labels": listnames.labels_json(tags),
            })  # fmt: skip
        for start in range(0, n, 5000):
            conn.execute(sa.insert(Task), rows[start : start + 5000])
        found = conn.execute(sa.select(Task.id, Task.labels).where(Task.user_id == user_id)).all()  # type: ignore[arg-type]
        tagged = [
            {"user_id": user_id, "key": listnames.key(name), "task_id": task_id}
            for task_id, stored in found
            for name in listnames.label_list(stored)
        ]
        for start in range(0, len(tagged), 5000):
            conn.execute(sa.insert(TaskLabel), tagged[start : start + 5000])
        titlegrams.reindex_all(conn)
        conn.execute(sa.text("ANALYZE"))
    return int(user_id)


def _time(conn: sa.Connection, user_id: int, flt: TaskFilter, runs: int) -> tuple[float, float, int]:
    times = []
    total = 0
    for _ in range(runs):
        start = time.perf_counter()
        total = query_tasks(conn, user_id, flt, now=NOW).total
        times.append((time.perf_counter() - start) * 1000)
        conn.rollback()
    times.sort()
    return statistics.median(times), times[int(len(times) * 0.95) - 1], total


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tasks", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--postgres")
    args = parser.parse_args()
    schema = f"bench_{uuid.uuid4().hex[:10]}"  # PostgreSQL: a throwaway schema, dropped at the end
    if args.postgres:
        with db.make_engine(args.postgres).begin() as conn:
            conn.exec_driver_sql(f'CREATE SCHEMA "{schema}"')
        engine = db.make_engine(args.postgres, connect_args={"options": f"-csearch_path={schema}"})
    else:
        engine = db.make_engine(f"sqlite:///{Path(tempfile.mkdtemp()) / 'bench.db'}")
    try:
        db.migrate(engine)
        _run(engine, args.tasks, args.runs)
    finally:
        engine.dispose()
        if args.postgres:
            with db.make_engine(args.postgres).begin() as conn:
                conn.exec_driver_sql(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


def _run(engine: sa.Engine, tasks: int, runs: int) -> None:
    user_id = _load(engine, tasks)
    filters = {
        "none": TaskFilter(),
        "list": TaskFilter(list_name="清单3"),
        "label": TaskFilter(label="标签7"),
        "rare label": TaskFilter(label="少见"),
        "keyword": TaskFilter(keyword="购物"),
        "list+label": TaskFilter(list_name="清单3", label="标签7"),
        "list, a week": TaskFilter(list_name="清单3", time_after=NOW, time_before=NOW + timedelta(days=7)),
    }
    print(f"{engine.dialect.name}, {tasks} tasks, {runs} runs each")
    print(f"{'filter':<14}{'total':>8}{'median ms':>11}{'p95 ms':>9}{'x none':>8}")
    with engine.connect() as conn:
        base = None
        for name, flt in filters.items():
            _time(conn, user_id, flt, 10)  # warm the statement cache
            median, p95, total = _time(conn, user_id, flt, runs)
            base = base or median
            print(f"{name:<14}{total:>8}{median:>11.2f}{p95:>9.2f}{median / base:>8.2f}")


if __name__ == "__main__":
    main()
