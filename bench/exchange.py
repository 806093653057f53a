"""Benchmark: importing, exporting and serving the calendar feed, each beside its baseline in one run.

    .venv/bin/python bench/exchange.py                      # SQLite in a temporary directory
    .venv/bin/python bench/exchange.py --rows 5000 --postgres postgresql+psycopg://postgres@127.0.0.1:5432/test

* import — a TickTick backup of ``--rows`` rows (a tenth repeating, a tenth all-day, reminders on a
  fifth) through ``POST /import`` (one transaction), beside the same tasks created one by one with
  ``POST /tasks`` (what a client script would do); then the same file again (every row a duplicate);
* export — ``GET /tasks/export`` in each format for those tasks;
* feed — ``GET /calendar.ics`` of ``--feed`` open tasks, beside a poll answered 304 (If-None-Match).
"""

from __future__ import annotations

import argparse
import csv
import io
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import sqlalchemy as sa

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from fastapi.testclient import TestClient  # noqa: E402

from app.main import create_app  # noqa: E402
from app.settings import Settings  # noqa: E402
from app.state import build_state  # noqa: E402
from exchange.ticktick import COLUMNS as TICKTICK_COLUMNS  # noqa: E402

NOW = datetime(2026, 11, 30, 2, 0, tzinfo=UTC)
HEADER = list(TICKTICK_COLUMNS)


def ticktick(rows: int) -> bytes:
    out = io.StringIO()
    out.write('"Date: 2026-11-30+0000"\n"Version: 7.1"\n"Status: \n0 Normal\n1 Completed\n2 Archived"\n')
    writer = csv.writer(out, quoting=csv.QUOTE_ALL)
    writer.writerow(HEADER)
    for i in range(rows):
        due = (NOW + timedelta(hours=7 * i + 1)).strftime("%Y-%m-%dT%H:00:00+0000")
        all_day = i % 10 == 1
        if all_day:
            due = (NOW + timedelta(days=i % 300)).strftime("%Y-%m-%dT16:00:00+0000")
        rule = "RRULE:FREQ=WEEKLY;INTERVAL=1" if i % 10 == 0 else ""
        reminder = "-PT15M" if i % 5 == 2 else ""
        row = ["", "Inbox", f"任务 {i} 准备材料", "TEXT", "", "", "N", "", due, reminder, rule,
               ("0", "1", "3", "5")[i % 4], "0", "2026-11-01T08:00:00+0000", "", str(i), "Asia/Shanghai",
               str(all_day).lower(), "false", "", "", "list", f"bench{i:08d}", ""]  # fmt: skip
        writer.writerow(row)
    return out.getvalue().encode()


@contextmanager
def client(url: str | None) -> Iterator[TestClient]:
    with tempfile.TemporaryDirectory() as tmp:
        database = url or f"sqlite:///{tmp}/bench.db"
        schema = None
        if url and url.startswith("postgresql"):
            schema = f"bench_{uuid.uuid4().hex[:8]}"
            engine = sa.create_engine(url)
            with engine.begin() as conn:
                conn.execute(sa.text(f"CREATE SCHEMA {schema}"))
            database = f"{url}?options=-csearch_path%3D{schema}"
        settings = Settings(_env_file=None, database_url=database, deliveries=False, allowed_hosts="testserver")  # type: ignore[call-arg]
        state = build_state(settings, clock=lambda: NOW)
        try:
            with TestClient(create_app(settings, state=state)) as c:
                yield c
        finally:
            state.engine.dispose()
            if schema is not None:
                with engine.begin() as conn:
                    conn.execute(sa.text(f"DROP SCHEMA {schema} CASCADE"))


def timed(fn: Any) -> tuple[float, Any]:
    start = time.perf_counter()
    result = fn()
    return time.perf_counter() - start, result


def warm(c: TestClient) -> None:
    """One task written and deleted: the process's first write builds caches neither side should pay for."""
    task = c.post("/tasks", json={"title": "预热 warm-up"}).json()
    c.delete(f"/tasks/{task['id']}")


def bench_import(url: str | None, rows: int) -> None:
    data = ticktick(rows)
    with client(url) as c:
        warm(c)
        spent, r = timed(lambda: c.post("/import", params={"source": "ticktick"}, content=data,
                                        headers={"Content-Type": "text/csv"}))  # fmt: skip
        assert r.status_code == 200, r.text
        created = r.json()["created"]
        again, r2 = timed(lambda: c.post("/import", params={"source": "ticktick"}, content=data,
                                         headers={"Content-Type": "text/csv"}))  # fmt: skip
        assert r2.json()["created"] == 0
        print(f"import    {created} rows in {spent:.2f} s = {created / spent:,.0f} rows/s; "
              f"the same file again {again:.2f} s = {rows / again:,.0f} rows/s (all duplicates)")  # fmt: skip
        for fmt in ("json", "csv", "ics"):
            took, e = timed(lambda f=fmt: c.get("/tasks/export", params={"format": f}))
            print(f"export    {fmt:4} {created} tasks: {took * 1000:,.0f} ms, {len(e.content) / 1024:,.0f} KiB")
    with client(url) as c:
        bodies = [{"title": f"任务 {i}", "deadline_at": (NOW + timedelta(hours=7 * i + 1)).isoformat()}
                  for i in range(rows)]  # fmt: skip
        warm(c)
        one_by_one, _ = timed(lambda: [c.post("/tasks", json=b) for b in bodies])
        print(f"baseline  POST /tasks one by one: {rows} in {one_by_one:.2f} s = {rows / one_by_one:,.0f} rows/s "
              f"(import is {one_by_one / spent:.1f}x)")  # fmt: skip


def bench_feed(url: str | None, tasks: int) -> None:
    with client(url) as c:
        c.post("/import", params={"source": "ticktick"}, content=ticktick(tasks), headers={"Content-Type": "text/csv"})
        full = []
        for _ in range(5):
            took, r = timed(lambda: c.get("/calendar.ics"))
            full.append(took)
        etag = r.headers["etag"]
        polls = []
        for _ in range(20):
            took, p = timed(lambda: c.get("/calendar.ics", headers={"If-None-Match": etag}))
            assert p.status_code == 304
            polls.append(took)
        built, polled = sorted(full)[len(full) // 2], sorted(polls)[len(polls) // 2]
        print(f"feed      {tasks} tasks: 200 in {built * 1000:,.0f} ms ({len(r.content) / 1024:,.0f} KiB), "
              f"304 in {polled * 1000:,.1f} ms ({built / polled:.0f}x) — medians")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=2000)
    parser.add_argument("--feed", type=int, default=1000)
    parser.add_argument("--postgres", default=None, help="a PostgreSQL URL (a throwaway schema is used)")
    args = parser.parse_args()
    print(f"backend: {'PostgreSQL' if args.postgres else 'SQLite'}")
    bench_import(args.postgres, args.rows)
    bench_feed(args.postgres, args.feed)


if __name__ == "__main__":
    main()
