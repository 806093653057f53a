"""The service under test: a Suikou instance on a fresh database with a fixed clock.

Import from here (`from support.harness import make_harness, NOW`), not from `conftest`: a
test directory's own conftest.py would shadow the root one.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient
from sqlmodel import col, select

from app.main import create_app
from app.settings import Settings
from app.state import AppState, build_state
from app.turns import make_job
from app.wire import ChatRequest
from core import carry
from core.accounts import create_api_key, ensure_user
from core.db import make_engine
from core.llm import ModelHub
from core.models import Task, TaskChange, TaskCreate
from core.store import complete_task, create_task, get_task
from core.trace import StageEvent
from core.turn import ChatText

TZ = "Asia/Shanghai"
# Monday 2026-11-30 10:00 in Shanghai: the fixed "now" of the scenario tests.
NOW = datetime(2026, 11, 30, 10, 0, tzinfo=ZoneInfo(TZ))
PG_URL = os.environ.get("SUIKOU_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test")
# The Host that Starlette's TestClient sends. Not a name the service answers to by default
# (app/guard.py): the harness allows it, as a deployment would list its own name.
TEST_HOST = "testserver"


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in ("1", "true", "yes")


def test_backend() -> str:
    """Which database the service-level tests use; .ci/run runs them once per backend."""
    return os.environ.get("SUIKOU_TEST_BACKEND", "sqlite")


@contextmanager
def pg_schema() -> Iterator[str]:
    """A throwaway schema on the test PostgreSQL server, as a database URL.

    Skips when the server is unreachable, except under CI=true, where that is a failure.
    """
    admin = make_engine(PG_URL, connect_args={"connect_timeout": 3})
    schema = f"t_{uuid.uuid4().hex[:12]}"
    try:
        with admin.begin() as conn:
            conn.execute(sa.text(f'CREATE SCHEMA "{schema}"'))
    except sa.exc.OperationalError as exc:  # pragma: no cover - environment dependent
        admin.dispose()
        if in_ci():
            pytest.fail(f"PostgreSQL unreachable under CI=true: {exc}")
        pytest.skip(f"PostgreSQL unreachable: {exc}")
    try:
        yield f"{PG_URL}?options=-csearch_path%3D{schema}"
    finally:
        with admin.begin() as conn:
            conn.execute(sa.text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
        admin.dispose()


def local(text: str) -> datetime:
    """'2026-12-01 15:00' in the scenario timezone."""
    return datetime.fromisoformat(text).replace(tzinfo=ZoneInfo(TZ))


@dataclass
class Answer:
    content: str
    action: str
    events: list[StageEvent]
    requests: int  # provider requests
    offline_steps: int = 0
    seal: carry.Seal | None = None  # the records' seal of the user who asked
    data: dict[str, Any] = field(default_factory=dict)  # the action's structured result (Answer.data)

    def record(self, kind: str) -> dict[str, Any] | None:
        """The record of ``kind`` this answer carries (checked against the asking user's seal)."""
        return carry.read(self.content, kind, self.seal) if self.seal is not None else None

    @property
    def stages(self) -> list[str]:
        return [f"{e.stage}:{e.status}" for e in self.events]

    @property
    def visible(self) -> str:
        """The answer as a person sees it: without the record it carries for the next turn."""
        return carry.strip(self.content)

    @property
    def carried(self) -> dict[str, Any] | None:
        return self.record("q1")

    def snapshot(self) -> dict[str, Any]:
        """What scenario snapshots hold: the whole answer (the carried record decoded, so a diff
        reads as data) and the stage stream."""
        out = {
            "action": self.action,
            "content": self.visible,
            "stages": [f"{e.stage}:{e.status} {e.message}" for e in self.events],
            "model_requests": self.requests,
            "offline_steps": self.offline_steps,
        }
        if self.carried is not None:
            out["carried"] = self.carried
        return out


@dataclass
class Harness:
    """A Suikou instance on a fresh database with a fixed clock."""

    state: AppState
    now: datetime
    users: dict[str, int] = field(default_factory=dict)

    def user(self, name: str = "alice") -> int:
        if name not in self.users:
            with self.state.session() as session:
                user_id = ensure_user(session, name).id
                session.commit()
            assert user_id is not None
            self.users[name] = user_id
        return self.users[name]

    def api_key(self, name: str) -> str:
        with self.state.session() as session:
            key = create_api_key(session, name)
            session.commit()
        self.user(name)
        return key

    def add(
        self,
        title: str,
        group: int = 2,
        deadline: str | None = None,
        *,
        user: str = "alice",
        threshold: str | None = None,
        completed_at: str | None = None,
        created_at: str | None = None,
        estimate: int | None = None,
        list_name: str | None = None,
        labels: list[str] | None = None,
    ) -> int:
        """Adds one task; times are local scenario times like '2026-12-01 15:00'; `estimate` in minutes."""
        user_id = self.user(user)
        with self.state.session() as session:
            task, _ = create_task(
                session,
                user_id,
                TaskCreate(
                    title=title,
                    priority_group=group,
                    deadline_at=local(deadline) if deadline else None,
                    urgency_threshold_at=local(threshold) if threshold else None,
                    estimate_minutes=estimate,
                    list_name=list_name,
                    labels=labels,
                ),
                now=local(created_at) if created_at else self.now - timedelta(days=3),
            )
            assert task.id is not None
            if completed_at:
                complete_task(session, user_id, task.id, now=local(completed_at))
            session.commit()
            return task.id

    def seal(self, user: str = "alice") -> carry.Seal:
        """What signs ``user``'s carried records in this service (for records a test writes by hand)."""
        return carry.Seal(self.state.record_secret, self.user(user))

    def task(self, task_id: int, user: str = "alice") -> Task:
        """The task as stored now (detached); it must exist and be ``user``'s."""
        with self.state.session() as session:
            found = get_task(session, self.user(user), task_id)
            assert found is not None
            session.expunge(found)
            return found

    def tasks(self, user: str = "alice") -> list[Task]:
        """All of ``user``'s tasks as stored now (detached), oldest first."""
        with self.state.session() as session:
            stmt = select(Task).where(col(Task.user_id) == self.user(user)).order_by(col(Task.id))
            rows = list(session.exec(stmt).all())
            for row in rows:
                session.expunge(row)
        return rows

    def changes(self, kind: str | None = None) -> list[TaskChange]:
        """The write log, oldest first (every user's), optionally of one kind."""
        with self.state.session() as session:
            rows = list(session.exec(select(TaskChange).order_by(col(TaskChange.id))).all())
        return [r for r in rows if kind is None or r.kind == kind]

    async def ask(
        self,
        message: str,
        *,
        user: str = "alice",
        history: Sequence[tuple[str, str]] = (),
        client_message_id: str | None = None,
        tz: str = TZ,
    ) -> Answer:
        """One chat turn through the full pipeline, as the HTTP layer would run it."""
        messages = [ChatText(role, text) for role, text in history] + [ChatText("user", message)]
        request = ChatRequest(model="suikou", messages=[{"role": m.role, "content": m.text} for m in messages])
        job = make_job(
            self.state, request, messages, user_id=self.user(user), tz=tz, client_message_id=client_message_id
        )
        outcome = await job.run()
        usage = job.turn.trace.usage
        events = list(job.turn.trace.events)
        return Answer(
            outcome.content,
            outcome.action,
            events,
            usage.requests,
            usage.offline_steps,
            job.turn.seal,
            dict(outcome.data),
        )

    async def converse(self, *messages: str, user: str = "alice") -> list[Answer]:
        """Asks each message in turn, with all earlier turns (the answers' raw content) as history."""
        history: list[tuple[str, str]] = []
        answers = []
        for message in messages:
            answer = await self.ask(message, user=user, history=history)
            history += [("user", message), ("assistant", answer.content)]
            answers.append(answer)
        return answers

    def client(self) -> TestClient:
        return TestClient(create_app(self.state.settings, state=self.state))


def make_harness(database_url: str, *, now: datetime = NOW, hub: ModelHub | None = None, **settings: Any) -> Harness:
    settings.setdefault("allowed_hosts", TEST_HOST)
    settings.setdefault("deliveries", False)  # tests that deliver run the engine themselves
    cfg = Settings(_env_file=None, database_url=database_url, **settings)  # type: ignore[call-arg]
    state = build_state(cfg, hub=hub, clock=lambda: now)
    return Harness(state, now)
