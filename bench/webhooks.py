"""Benchmark: webhook delivery throughput and lag with one and with two `suikou worker` processes.

    .venv/bin/python bench/webhooks.py                        # PostgreSQL at 127.0.0.1 (a throwaway schema)
    .venv/bin/python bench/webhooks.py --events 3000 --rate 50

Two measurements, each with 1 and then 2 worker processes, side by side:

* throughput — ``--events`` task.created events are written first (one generic webhook, a local
  receiver that answers 204 at once), then the workers start; events/s is how many were taken by the
  receiver per second, from the first to the last;
* lag — with the workers running, events are written at ``--rate`` per second for ``--seconds``; the
  lag of one is from its write's commit to the receiver taking it (p50, p95, max).

Workers poll every 0.1 s when idle (SUIKOU_WORKER_POLL_S), so an idle lag of up to 0.1 s is the poll.
"""

from __future__ import annotations

import argparse
import http.server
import os
import signal
import statistics
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import sqlalchemy as sa

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from core import writes  # noqa: E402
from core.accounts import ensure_user  # noqa: E402
from core.db import make_engine, migrate, session_factory  # noqa: E402
from core.models import TaskCreate, Webhook  # noqa: E402

PG = "postgresql+psycopg://postgres@127.0.0.1:5432/test"


class Receiver:
    def __init__(self) -> None:
        self.taken: dict[str, float] = {}  # delivery id -> when it arrived
        self.titles: dict[str, float] = {}  # task title -> when it arrived
        self.lock = threading.Lock()

    @contextmanager
    def serving(self) -> Iterator[str]:
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                now = time.time()
                title = body.split(b'"title":"', 1)[-1].split(b'"', 1)[0].decode("utf-8", "replace")
                with outer.lock:
                    outer.taken.setdefault(self.headers.get("X-Suikou-Delivery", ""), now)
                    outer.titles.setdefault(title, now)
                self.send_response(204)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *_a: Any) -> None:
                return None

        http.server.ThreadingHTTPServer.request_queue_size = 256  # the default 5 refuses a burst of connections
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        server.daemon_threads = True
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        try:
            yield f"http://127.0.0.1:{server.server_address[1]}/hook"
        finally:
            server.shutdown()
            server.server_close()


@contextmanager
def schema(url: str) -> Iterator[str]:
    admin = make_engine(url)
    name = f"bench_{uuid.uuid4().hex[:10]}"
    with admin.begin() as conn:
        conn.execute(sa.text(f'CREATE SCHEMA "{name}"'))
    try:
        yield f"{url}?options=-csearch_path%3D{name}"
    finally:
        with admin.begin() as conn:
            conn.execute(sa.text(f'DROP SCHEMA IF EXISTS "{name}" CASCADE'))
        admin.dispose()


@contextmanager
def workers(url: str, n: int) -> Iterator[None]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SUIKOU_")}
    env.update(SUIKOU_DATABASE_URL=url, SUIKOU_WEBHOOK_ALLOW_PRIVATE="true", SUIKOU_WORKER_POLL_S="0.1")
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", "from app.cli import main; main()", "worker"],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for _ in range(n)
    ]
    try:
        yield
    finally:
        for p in procs:
            p.send_signal(signal.SIGTERM)
        for p in procs:
            p.wait(timeout=30)


def _setup(url: str, hook_url: str) -> tuple[Any, int]:
    engine = make_engine(url)
    migrate(engine)
    sessions = session_factory(engine)
    now = datetime.now(UTC)
    with sessions() as session:
        user = ensure_user(session, "bench", now=now)
        session.commit()
        assert user.id is not None
        session.add(Webhook(user_id=user.id, url=hook_url, kind="generic", events='["*"]', secret="k",
                            timezone="Asia/Shanghai", created_at=now))  # fmt: skip
        session.commit()
        return sessions, user.id


def _write(sessions: Any, user_id: int, titles: list[str]) -> float:
    now = datetime.now(UTC)
    with writes.writing(sessions, writes.author(user_id, now, "rest")) as w:
        for title in titles:
            w.create(TaskCreate(title=title))
    return time.time()  # committed


def _wait(rx: Receiver, n: int, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while len(rx.taken) < n:
        if time.monotonic() > deadline:
            raise SystemExit(f"only {len(rx.taken)} of {n} deliveries arrived in {timeout:.0f} s")
        time.sleep(0.01)


def throughput(url: str, n_workers: int, events: int) -> float:
    rx = Receiver()
    with rx.serving() as hook, schema(url) as db:
        sessions, user = _setup(db, hook)
        for start in range(0, events, 500):
            _write(sessions, user, [f"t{i}" for i in range(start, min(events, start + 500))])
        with workers(db, n_workers):
            _wait(rx, events, timeout=600)
        times = sorted(rx.taken.values())
        return (events - 1) / (times[-1] - times[0]) if len(times) > 1 else float("nan")


def lag(url: str, n_workers: int, rate: float, seconds: float) -> list[float]:
    rx = Receiver()
    committed: dict[str, float] = {}
    with rx.serving() as hook, schema(url) as db:
        sessions, user = _setup(db, hook)
        with workers(db, n_workers):
            time.sleep(2.0)  # the workers have started and are polling
            count = int(rate * seconds)
            started = time.monotonic()
            for i in range(count):
                title = f"lag{i}"
                committed[title] = _write(sessions, user, [title])
                time.sleep(max(0.0, started + (i + 1) / rate - time.monotonic()))
            _wait(rx, count, timeout=120)
    return sorted(rx.titles[t] - committed[t] for t in committed)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--postgres", default=PG, help="PostgreSQL URL (a throwaway schema is used)")
    parser.add_argument("--events", type=int, default=2000)
    parser.add_argument("--rate", type=float, default=20.0, help="events per second in the lag run")
    parser.add_argument("--seconds", type=float, default=10.0)
    args = parser.parse_args()
    print(
        f"PostgreSQL, {os.cpu_count()} CPUs; {args.events} events for throughput, {args.rate:g}/s for {args.seconds:g} s for lag"
    )
    rows = []
    for n in (1, 2):
        tput = throughput(args.postgres, n, args.events)
        lags = lag(args.postgres, n, args.rate, args.seconds)
        p50 = statistics.median(lags)
        p95 = lags[int(0.95 * (len(lags) - 1))]
        rows.append((n, tput, p50, p95, lags[-1]))
    print(f"{'workers':>7} {'events/s':>9} {'lag p50':>8} {'lag p95':>8} {'lag max':>8}")
    for n, tput, p50, p95, worst in rows:
        print(f"{n:>7} {tput:>9.0f} {p50 * 1000:>6.0f}ms {p95 * 1000:>6.0f}ms {worst * 1000:>6.0f}ms")
    print(f"two workers / one: throughput {rows[1][1] / rows[0][1]:.2f}x, lag p95 {rows[1][3] / rows[0][3]:.2f}x")


if __name__ == "__main__":
    main()
