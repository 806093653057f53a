"""/readyz (app/readiness.py): the database reachable and at this code's schema, Redis when configured."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient

from app import shutdown
from app.main import create_app
from core.db import SCHEMA_HEAD, make_engine
from support.harness import Harness, in_ci, make_harness
from support.live import free_port


@pytest.fixture
def client(harness: Harness) -> Iterator[TestClient]:
    harness.api_key("alice")  # keys exist: /readyz still needs none
    with TestClient(create_app(harness.state.settings, state=harness.state)) as c:
        yield c


def assert_not_ready(client: TestClient, reason: str) -> dict[str, Any]:
    r = client.get("/readyz")
    assert r.status_code == 503, r.text
    error = r.json()["error"]
    assert error["code"] == "not_ready" and error["type"] == "server_error"
    assert r.headers["Retry-After"] == "5"  # what the document declares for a 503
    assert reason in error["message"]
    return dict(error)


def test_ready_when_the_database_is_reachable_and_current(client: TestClient) -> None:
    r = client.get("/readyz")
    assert (r.status_code, r.json()) == (200, {"status": "ready"})
    assert client.get("/healthz").json() == {"status": "ok"}


@pytest.mark.parametrize(
    "unreachable",
    [
        "sqlite:////nonexistent-suikou-dir/gone.db",  # a file that cannot be opened
        "postgresql+psycopg://postgres@127.0.0.1:{port}/test",  # a server that is not there
    ],
)
def test_not_ready_while_the_database_is_away_and_ready_when_it_returns(
    harness: Harness, client: TestClient, unreachable: str
) -> None:
    working = harness.state.engine
    url = unreachable.format(port=free_port())
    away = make_engine(url, connect_args={"connect_timeout": 1}) if url.startswith("postgresql") else make_engine(url)
    harness.state.engine = away
    try:
        error = assert_not_ready(client, "database: OperationalError")
        assert "nonexistent" not in error["message"] and "postgres@" not in error["message"]  # no URLs
        assert client.get("/healthz").status_code == 200  # liveness does not care
    finally:
        harness.state.engine = working
        away.dispose()
    assert client.get("/readyz").status_code == 200


def test_not_ready_once_shutdown_begins(client: TestClient) -> None:
    shutdown.begin_drain()
    try:
        assert_not_ready(client, "shutting down")
    finally:
        shutdown.reset()
    assert client.get("/readyz").status_code == 200


def set_revision(harness: Harness, revision: str) -> None:
    with harness.state.engine.begin() as conn:
        conn.execute(sa.text("UPDATE alembic_version SET version_num = :r"), {"r": revision})


def test_not_ready_on_another_schema(harness: Harness, client: TestClient) -> None:
    set_revision(harness, "0001_initial")
    try:
        assert_not_ready(client, "database: SchemaBehind")
    finally:
        set_revision(harness, SCHEMA_HEAD)
    assert client.get("/readyz").status_code == 200


def redis_harness(database_url: str, redis_url: str) -> Harness:
    return make_harness(database_url, redis_url=redis_url, readiness_timeout_s=1.0)


def test_not_ready_when_redis_is_configured_but_unreachable(database_url: str) -> None:
    h = redis_harness(database_url, f"redis://127.0.0.1:{free_port()}/0")
    with TestClient(create_app(h.state.settings, state=h.state)) as client:
        error = assert_not_ready(client, "redis: ConnectionError")
        assert "database" not in error["message"]
        assert "127.0.0.1" not in error["message"]
    h.state.engine.dispose()


def test_ready_with_redis_up(database_url: str) -> None:
    import redis

    url = "redis://127.0.0.1:6379/0"
    try:
        redis.Redis.from_url(url, socket_connect_timeout=1).ping()
    except redis.RedisError as exc:  # pragma: no cover - environment dependent
        if in_ci():
            pytest.fail(f"Redis unreachable under CI=true: {exc}")
        pytest.skip(f"Redis unreachable: {exc}")
    h = redis_harness(database_url, url)
    with TestClient(create_app(h.state.settings, state=h.state)) as client:
        assert client.get("/readyz").json() == {"status": "ready"}
    h.state.engine.dispose()


def test_the_document_declares_ready_and_not_ready(client: TestClient) -> None:
    operation = client.get("/openapi.json").json()["paths"]["/readyz"]["get"]
    assert set(operation["responses"]) == {"200", "421", "500", "503"}  # 421: a Host not served (app/guard.py)
    assert "security" not in operation
    ready = operation["responses"]["200"]["content"]["application/json"]["schema"]["$ref"]
    assert ready.endswith("/Ready")
