"""Suite-wide guards and fixtures.

No test may reach a real model provider: pydantic-ai refuses real requests for the whole run.
Model calls use the offline model, FunctionModel/TestModel, or a fake server on 127.0.0.1.
"""

from __future__ import annotations

import os

import pydantic_ai.models

pydantic_ai.models.ALLOW_MODEL_REQUESTS = False

# Settings must come from the tests, never from a developer's environment or .env file.
for _name in [n for n in os.environ if n.startswith("SUIKOU_") and n != "SUIKOU_TEST_POSTGRES_URL"]:
    del os.environ[_name]
os.environ.setdefault("OPENAI_API_KEY", "sk-test-never-used")

# --- the service under test ------------------------------------------------------------------

import uuid  # noqa: E402
from collections.abc import Iterator, Sequence  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402
from datetime import datetime, timedelta  # noqa: E402
from typing import Any  # noqa: E402
from zoneinfo import ZoneInfo  # noqa: E402

import pytest  # noqa: E402
import sqlalchemy as sa  # noqa: E402
from fastapi.testclient import TestClient  # noqa: E402

from app.main import create_app  # noqa: E402
from app.settings import Settings  # noqa: E402
from app.state import AppState, build_state  # noqa: E402
from app.turns import make_job  # noqa: E402
from app.wire import ChatRequest  # noqa: E402
from core.accounts import create_api_key, ensure_user  # noqa: E402
from core.db import make_engine  # noqa: E402
from core.llm import ModelHub  # noqa: E402
from core.models import TaskCreate  # noqa: E402
from core.store import complete_task, create_task  # noqa: E402
from core.trace import StageEvent  # noqa: E402
from route.aux import ChatText  # noqa: E402

TZ = "Asia/Shanghai"
# Monday 2026-11-30 10:00 in Shanghai: the fixed "now" of the scenario tests.
NOW = datetime(2026, 11, 30, 10, 0, tzinfo=ZoneInfo(TZ))
PG_URL = os.environ.get("SUIKOU_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test")


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in ("1", "true", "yes")


def test_backend() -> str:
    """Which database the service-level tests use; .ci/run runs them once per backend."""
    return os.environ.get("SUIKOU_TEST_BACKEND", "sqlite")


@pytest.fixture
def database_url(tmp_path: Any) -> Iterator[str]:
    """A fresh, empty database for one test: a SQLite file, or a throwaway PostgreSQL schema."""
    if test_backend() != "postgresql":
        yield f"sqlite:///{tmp_path / 'suikou.db'}"
        return
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
    requests: int

    @property
    def stages(self) -> list[str]:
        return [f"{e.stage}:{e.status}" for e in self.events]

    def snapshot(self) -> dict[str, Any]:
        """What scenario snapshots hold: the whole answer and the stage stream."""
        return {
            "action": self.action,
            "content": self.content,
            "stages": [f"{e.stage}:{e.status} {e.message}" for e in self.events],
            "model_requests": self.requests,
        }


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
    ) -> int:
        """Adds one task; times are local scenario times like '2026-12-01 15:00'."""
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
                ),
                now=local(created_at) if created_at else self.now - timedelta(days=3),
            )
            assert task.id is not None
            if completed_at:
                complete_task(session, user_id, task.id, now=local(completed_at))
            session.commit()
            return task.id

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
        request = ChatRequest(
            model="suikou", messages=[{"role": m.role, "content": m.text} for m in messages]
        )
        job = make_job(
            self.state, request, messages, user_id=self.user(user), tz=tz, client_message_id=client_message_id
        )
        outcome = await job.run()
        return Answer(outcome.content, outcome.action, list(job.turn.trace.events), job.turn.trace.usage.requests)

    def client(self) -> TestClient:
        return TestClient(create_app(self.state.settings, state=self.state))


def make_harness(database_url: str, *, now: datetime = NOW, hub: ModelHub | None = None, **settings: Any) -> Harness:
    cfg = Settings(_env_file=None, database_url=database_url, **settings)  # type: ignore[call-arg]
    state = build_state(cfg, hub=hub, clock=lambda: now)
    return Harness(state, now)


@pytest.fixture
def harness(database_url: str) -> Iterator[Harness]:
    h = make_harness(database_url)
    yield h
    h.state.engine.dispose()
