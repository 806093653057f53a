"""The database goes away (docs/fdr/0023): a 503 in OpenAI's shape with `Retry-After`, fast, and one log
line without a traceback; a stream ends with the same error as an event, then [DONE].

The service first runs on its test database (SQLite or PostgreSQL, as the suite runs), then its engine is
swapped for one built the way the service builds it (`build_state`) on a PostgreSQL that is gone for
real on 127.0.0.1: nothing listening (refused), or a listener that accepts and never answers (silent).
The only times asserted are upper bounds on a hang: psycopg's own default waits 130 s.
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient
from sqlalchemy.engine import Engine

from app.main import create_app
from app.settings import Settings
from app.state import build_state
from core.db import make_engine
from support.harness import Harness, make_harness, pg_schema
from support.outage import OUTAGES, gone_database

CHAT = "/v1/chat/completions"
QUESTION = {"model": "suikou", "messages": [{"role": "user", "content": "今天有什么任务"}]}
MCP_LIST = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
MCP_HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
# psycopg waits 130 s for a silent server without a connect timeout; with it, about 2 s per request.
HANG_BOUND_S = 15


@pytest.fixture(params=OUTAGES)
def gone(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[Engine]:
    """An engine as the service builds it, on a database that is gone (nothing to migrate there)."""
    monkeypatch.setattr("app.state.migrate", lambda _engine: None)
    monkeypatch.setattr("app.state.stored_secret", lambda _engine: b"a secret made before the outage")
    with gone_database(request.param) as url:
        engine = build_state(Settings(_env_file=None, database_url=url, database_connect_timeout_s=2)).engine
        yield engine
        engine.dispose()


@pytest.fixture
def service(database_url: str) -> Iterator[Harness]:
    h = make_harness(database_url, auth_cache_seconds=600)  # a key looked up before the outage stays known
    working = h.state.engine
    yield h
    working.dispose()  # the test swapped in the gone one (its fixture disposes it)


def assert_503(r: Any, took: float) -> None:
    assert r.status_code == 503, r.text
    assert r.json() == {
        "error": {
            "message": "The database is unavailable; retry in a few seconds.",
            "type": "server_error",
            "param": None,
            "code": "database_unavailable",
        }
    }
    assert int(r.headers["Retry-After"]) >= 1
    assert took < HANG_BOUND_S


def timed(call: Any) -> tuple[Any, float]:
    started = time.monotonic()
    result = call()
    return result, time.monotonic() - started


def suikou_records(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name.startswith("suikou") and r.levelno >= logging.WARNING]


def assert_one_line(caplog: pytest.LogCaptureFixture) -> None:
    """One warning for the request, naming the outage, with no traceback."""
    records = suikou_records(caplog)
    assert len(records) == 1, [r.getMessage()[:200] for r in records]
    assert records[0].levelno == logging.WARNING
    assert records[0].exc_info is None and "Traceback" not in caplog.text
    assert "unavailable" in records[0].getMessage()
    assert any(name in records[0].getMessage() for name in ("OperationalError", "ConnectionTimeout"))
    caplog.clear()


def test_uncached_key_lookups_answer_503(service: Harness, gone: Engine, caplog: pytest.LogCaptureFixture) -> None:
    key = service.api_key("alice")
    with TestClient(create_app(service.state.settings, state=service.state)) as client:
        service.state.engine = gone
        bearer = {"Authorization": f"Bearer {key}"}
        calls = {
            "tasks": lambda: client.get("/tasks", headers=bearer),
            "models": lambda: client.get("/v1/models", headers=bearer),
            "mcp": lambda: client.post("/mcp", json=MCP_LIST, headers={**bearer, **MCP_HEADERS}),
        }
        with caplog.at_level(logging.INFO):
            for call in calls.values():
                assert_503(*timed(call))
                assert_one_line(caplog)


def test_keyless_mode_answers_503_when_the_local_user_cannot_be_read(
    service: Harness, gone: Engine, caplog: pytest.LogCaptureFixture
) -> None:
    service.state.engine = gone
    with TestClient(create_app(service.state.settings, state=service.state)) as client, caplog.at_level(logging.INFO):
        assert_503(*timed(lambda: client.get("/tasks")))
        assert_one_line(caplog)


def test_rest_and_chat_answer_503_after_the_key_was_known(
    service: Harness, gone: Engine, caplog: pytest.LogCaptureFixture
) -> None:
    with TestClient(create_app(service.state.settings, state=service.state)) as client:
        assert client.get("/tasks").status_code == 200  # the local user is known now
        service.state.engine = gone
        calls = {
            "list": lambda: client.get("/tasks"),
            "create": lambda: client.post("/tasks", json={"title": "交电费"}),
            "chat": lambda: client.post(CHAT, json=QUESTION),
        }
        with caplog.at_level(logging.INFO):
            for call in calls.values():
                assert_503(*timed(call))
                assert_one_line(caplog)


def test_an_mcp_tool_call_says_the_database_is_unavailable(
    service: Harness, gone: Engine, caplog: pytest.LogCaptureFixture
) -> None:
    call = {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "tools/call",
        "params": {"name": "ask_tasks", "arguments": {"question": "今天有什么任务"}},
    }
    with TestClient(create_app(service.state.settings, state=service.state)) as client:
        assert client.get("/tasks").status_code == 200
        service.state.engine = gone
        with caplog.at_level(logging.INFO):
            r, took = timed(lambda: client.post("/mcp", json=call, headers=MCP_HEADERS))
    assert r.status_code == 200 and took < HANG_BOUND_S
    result = r.json()["result"]
    assert result["isError"] is True
    assert result["content"][0]["text"].endswith(
        "The task database is unavailable right now; try again in a few seconds."
    )
    assert "Traceback" not in caplog.text


def test_a_stream_ends_with_the_error_event_then_done(
    service: Harness, gone: Engine, caplog: pytest.LogCaptureFixture
) -> None:
    with TestClient(create_app(service.state.settings, state=service.state)) as client:
        assert client.get("/tasks").status_code == 200
        service.state.engine = gone
        with caplog.at_level(logging.INFO):
            r, took = timed(lambda: client.post(CHAT, json={**QUESTION, "stream": True}))
    assert r.status_code == 200 and took < HANG_BOUND_S
    events = [line.removeprefix("data: ") for line in r.text.splitlines() if line.startswith("data: ")]
    assert events[-1] == "[DONE]"
    assert json.loads(events[-2]) == {
        "error": {
            "message": "The database is unavailable; retry in a few seconds.",
            "type": "server_error",
            "param": None,
            "code": "database_unavailable",
        }
    }
    (line,) = suikou_records(caplog)
    assert line.exc_info is None and json.loads(line.getMessage())["error"] == "database_unavailable"
    # What the stream tells the client names no host, port or driver message.
    assert "127.0.0.1" not in r.text and "connection" not in r.text.lower()


@pytest.mark.postgres
def test_a_statement_stuck_on_a_lock_is_cancelled_by_the_server(caplog: pytest.LogCaptureFixture) -> None:
    """A transaction holding a lock (a long migration, a stuck session): the request's statement waits
    `SUIKOU_DATABASE_STATEMENT_TIMEOUT_S`, then the server cancels it and the request is a 503."""
    with pg_schema() as url:
        h = make_harness(url, database_statement_timeout_s=0.5)
        holder = make_engine(url)
        release = threading.Event()

        def hold_the_lock() -> None:
            with holder.begin() as conn:
                conn.exec_driver_sql("LOCK TABLE tasks IN ACCESS EXCLUSIVE MODE")
                release.wait(20)

        thread = threading.Thread(target=hold_the_lock)
        try:
            with TestClient(create_app(h.state.settings, state=h.state)) as client:
                assert client.get("/tasks").status_code == 200
                thread.start()
                time.sleep(0.3)  # the lock is taken
                with caplog.at_level(logging.INFO):
                    r, took = timed(lambda: client.get("/tasks"))
                assert_503(r, took)
                assert took < 5  # the lock is held for 20 s
                assert "QueryCanceled" in suikou_records(caplog)[0].getMessage()
        finally:
            release.set()
            thread.join(timeout=30)
            holder.dispose()
            h.state.engine.dispose()


# --- what is an outage ------------------------------------------------------------------------------


def _refused_error() -> BaseException:
    with gone_database("refused") as url:
        engine = make_engine(url)
        try:
            with engine.connect():
                pass
        except sa.exc.OperationalError as exc:
            return exc
        finally:
            engine.dispose()
    raise AssertionError("a refused connection connected")


def _wrapped(exc: BaseException, how: str) -> BaseException:
    try:
        try:
            raise exc
        except BaseException as inner:
            if how == "cause":
                raise RuntimeError("while answering") from inner
            if how == "context":
                raise RuntimeError("while cleaning up")  # noqa: B904 - an implicit __context__ on purpose
            raise ExceptionGroup("task group", [ValueError("other"), inner])  # noqa: B904
    except BaseException as outer:
        return outer
    raise AssertionError


def _sqlite_error(sql: str, db: str) -> sqlite3.OperationalError:
    conn = sqlite3.connect(db, timeout=0)
    try:
        conn.execute(sql)
    except sqlite3.OperationalError as exc:
        return exc
    finally:
        conn.close()
    raise AssertionError(sql)


@pytest.mark.parametrize("how", ["bare", "cause", "context", "group"])
def test_a_refused_connection_is_an_outage_however_it_is_wrapped(how: str) -> None:
    from core.db import is_outage, outage_summary

    exc = _refused_error()
    wrapped = exc if how == "bare" else _wrapped(exc, how)
    assert is_outage(wrapped)
    summary = outage_summary(wrapped)
    assert summary.startswith("OperationalError: connection failed") and "\n" not in summary


def test_bugs_and_bad_data_are_not_outages(tmp_path: Any) -> None:
    from core.db import is_outage

    db = str(tmp_path / "x.db")
    sqlite3.connect(db).execute("CREATE TABLE t (id INTEGER PRIMARY KEY)").connection.commit()
    no_table = _sqlite_error("SELECT * FROM nowhere", db)
    integrity = sa.exc.IntegrityError("INSERT", {}, sqlite3.IntegrityError("UNIQUE constraint failed"))
    for exc in (no_table, sa.exc.OperationalError("SELECT", {}, no_table), integrity, ValueError("x")):
        assert not is_outage(exc), exc
    locker = sqlite3.connect(db)
    locker.execute("BEGIN EXCLUSIVE")
    try:
        assert is_outage(_sqlite_error("SELECT * FROM t", db))  # "database is locked": retry later
    finally:
        locker.rollback()
        locker.close()


# --- the command line ---------------------------------------------------------------------------------

ROOT = Path(__file__).resolve().parents[2]
# The `suikou` script, with this tree's code (PYTHONPATH below).
SUIKOU = [sys.executable, "-c", "from app.cli import main; main()"]


@pytest.mark.parametrize("command", ["serve", "migrate"])
@pytest.mark.parametrize("kind", OUTAGES)
def test_serve_and_migrate_say_the_database_is_unreachable_in_one_line(tmp_path: Path, command: str, kind: str) -> None:
    with gone_database(kind) as url:
        env = {
            **os.environ,
            "PYTHONPATH": str(ROOT),
            "SUIKOU_DATABASE_URL": url.replace("postgres@", "postgres:s3cret@"),
            "SUIKOU_DATABASE_CONNECT_TIMEOUT_S": "2",
        }
        started = time.monotonic()
        try:
            done = subprocess.run([*SUIKOU, command], cwd=tmp_path, env=env, capture_output=True, timeout=60)
        except subprocess.TimeoutExpired:
            pytest.fail(f"`suikou {command}` still waiting on a {kind} database after 60 s")
        took = time.monotonic() - started
    stderr = done.stderr.decode()
    assert done.returncode == 1, stderr
    assert len(stderr.strip().splitlines()) == 1, stderr
    assert stderr.startswith("Cannot reach the database postgresql+psycopg://postgres:***@127.0.0.1:")
    assert "s3cret" not in stderr and "Traceback" not in stderr
    assert took < HANG_BOUND_S
