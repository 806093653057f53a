"""Workers as separate processes (`suikou worker`), on PostgreSQL: two of them share the due
deliveries without sending one twice (row leases, SKIP LOCKED), and a worker killed with SIGKILL in
the middle of a delivery leaves it to another, which sends it under the same delivery id once the
lease has expired. On SQLite a second worker refuses to start (one process delivers)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import col, select

from core import writes
from core.accounts import ensure_user
from core.db import make_engine, migrate, session_factory
from core.models import Delivery, TaskCreate, Webhook
from support.fake_receivers import Receiver, receiver
from support.harness import pg_schema

ROOT = Path(__file__).resolve().parents[2]


def _env(url: str, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SUIKOU_")}
    env.update(
        SUIKOU_DATABASE_URL=url,
        SUIKOU_WEBHOOK_ALLOW_PRIVATE="true",
        SUIKOU_WORKER_POLL_S="0.05",
        SUIKOU_DELIVERY_LEASE_S="7",  # the shortest the settings allow for the timeout below
        SUIKOU_WEBHOOK_TIMEOUT_S="2",
        **extra,
    )
    return env


@contextmanager
def worker(url: str) -> Iterator[subprocess.Popen[bytes]]:
    proc = subprocess.Popen(
        [sys.executable, "-c", "from app.cli import main; main()", "worker"],
        cwd=ROOT,
        env=_env(url),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        yield proc
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def _setup(url: str, fake: Receiver, tasks: int) -> Any:
    engine = make_engine(url)
    migrate(engine)
    sessions = session_factory(engine)
    now = datetime.now(UTC)
    with sessions() as session:
        user = ensure_user(session, "alice", now=now)
        session.commit()
        assert user.id is not None
        session.add(Webhook(user_id=user.id, url=fake.url, kind="generic", events='["task.created"]',
                            secret="k", timezone="Asia/Shanghai", created_at=now))  # fmt: skip
        session.commit()
        user_id = user.id
    with writes.writing(sessions, writes.author(user_id, now, "rest")) as w:
        for i in range(tasks):
            w.create(TaskCreate(title=f"任务{i}"))
    return engine, sessions


def _statuses(sessions: Any) -> list[str]:
    with sessions() as session:
        return [d.status for d in session.exec(select(Delivery).order_by(col(Delivery.created_at)))]


@pytest.fixture
def pg_url() -> Iterator[str]:
    with pg_schema() as url:
        yield url


@pytest.mark.postgres
def test_two_workers_send_each_delivery_once(pg_url: str) -> None:
    with receiver("generic", "k") as fake:
        engine, sessions = _setup(pg_url, fake, 60)
        try:
            with worker(pg_url) as a, worker(pg_url) as b:
                got = fake.wait(60, timeout=60)
                time.sleep(0.5)  # anything sent twice would arrive by now
                assert a.poll() is None and b.poll() is None
            ids = [r.headers["x-suikou-delivery"] for r in fake.received]
            assert len(ids) == len(set(ids)) == 60 and len(got) == 60
            assert _statuses(sessions) == ["succeeded"] * 60
        finally:
            engine.dispose()


@pytest.mark.postgres
def test_a_worker_killed_mid_delivery_leaves_it_to_another_under_the_same_id(pg_url: str) -> None:
    with receiver("generic", "k") as fake:
        fake.script, fake.hang_s = ["hang"], 6.0
        engine, sessions = _setup(pg_url, fake, 1)
        try:
            with worker(pg_url) as first:
                deadline = time.monotonic() + 30
                while not fake.received:
                    assert time.monotonic() < deadline, "the first worker never sent"
                    time.sleep(0.02)
                first.send_signal(signal.SIGKILL)  # mid-delivery: no chance to record anything
                first.wait(timeout=10)
            assert _statuses(sessions) == ["pending"]  # still leased by a dead worker
            with worker(pg_url):
                [taken] = fake.wait(1, timeout=30)
            sent = [r.headers["x-suikou-delivery"] for r in fake.received]
            assert len(sent) == 2 and sent[0] == sent[1] == taken.headers["x-suikou-delivery"]
            assert _statuses(sessions) == ["succeeded"]
            with sessions() as session:
                [delivery] = session.exec(select(Delivery)).all()
                assert delivery.attempts == 2
        finally:
            engine.dispose()


def test_on_sqlite_one_process_delivers(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'suikou.db'}"
    migrate(make_engine(url))
    with worker(url) as first:
        time.sleep(1.5)
        assert first.poll() is None
        second = subprocess.run(
            [sys.executable, "-c", "from app.cli import main; main()", "worker"],
            cwd=ROOT, env=_env(url), capture_output=True, timeout=60,
        )  # fmt: skip
    assert second.returncode != 0 and b"Another process already delivers" in second.stderr
