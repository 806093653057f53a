"""Database fixtures for the storage tests: every DB test runs on SQLite and on PostgreSQL.

PostgreSQL comes from ``SUIKOU_TEST_POSTGRES_URL`` (default
``postgresql+psycopg://postgres@127.0.0.1:5432/test``). Each test gets a fresh schema
(``test_<random>``, selected through ``search_path``) that is dropped afterwards. When the server
is unreachable the PostgreSQL cases skip — except with ``CI=true``, where they fail.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import Engine
from sqlmodel import Session

from core.db import make_engine, migrate, session_factory

DEFAULT_PG_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
BACKENDS = ["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)]


def _in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in ("1", "true", "yes")


@pytest.fixture(scope="session")
def postgres_url() -> str:
    url = os.environ.get("SUIKOU_TEST_POSTGRES_URL", DEFAULT_PG_URL)
    probe = make_engine(url, connect_args={"connect_timeout": 3})
    try:
        with probe.connect() as conn:
            conn.execute(sa.text("SELECT 1"))
    except Exception as exc:  # pragma: no cover - depends on the environment
        message = f"PostgreSQL not reachable at {url}: {exc}"
        if _in_ci():
            pytest.fail(message + " (CI=true: PostgreSQL tests must run)")
        pytest.skip(message)
    finally:
        probe.dispose()
    return url


class PgSchema:
    """A throwaway schema on the PostgreSQL server and engines that use it."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.name = f"test_{uuid.uuid4().hex[:12]}"
        self._admin = make_engine(url)
        with self._admin.begin() as conn:
            conn.execute(sa.text(f'CREATE SCHEMA "{self.name}"'))
        self._engines: list[Engine] = []

    def engine(self) -> Engine:
        eng = make_engine(self.url, connect_args={"options": f"-csearch_path={self.name}"})
        self._engines.append(eng)
        return eng

    def drop(self) -> None:
        for eng in self._engines:
            eng.dispose()
        with self._admin.begin() as conn:
            conn.execute(sa.text(f'DROP SCHEMA IF EXISTS "{self.name}" CASCADE'))
        self._admin.dispose()


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def engine_factory(backend: str, tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Callable[[], Engine]]:
    """Makes (unmigrated) engines that all point at this test's own empty database."""
    if backend == "sqlite":
        engines: list[Engine] = []
        db_file = tmp_path / "db" / "suikou.db"

        def make() -> Engine:
            eng = make_engine(f"sqlite:///{db_file}")
            engines.append(eng)
            return eng

        yield make
        for eng in engines:
            eng.dispose()
    else:
        schema = PgSchema(request.getfixturevalue("postgres_url"))
        try:
            yield schema.engine
        finally:
            schema.drop()


@pytest.fixture
def engine(engine_factory: Callable[[], Engine]) -> Engine:
    eng = engine_factory()
    migrate(eng)
    return eng


@pytest.fixture
def new_session(engine: Engine) -> Callable[[], Session]:
    return session_factory(engine)


@pytest.fixture
def session(new_session: Callable[[], Session]) -> Iterator[Session]:
    with new_session() as s:
        yield s
