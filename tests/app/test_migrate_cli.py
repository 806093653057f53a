"""`suikou migrate` and the schema gate of `suikou serve`.

Serve never starts on a database behind the code unless told to (`--migrate`), except a fresh
embedded SQLite file (the single-user quick start), which it creates. A database migrated by a
newer release is refused even with `--migrate`. uvicorn is replaced by a recorder: what serve
would run is asserted, nothing listens.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from typer.testing import CliRunner

from app.cli import cli
from app.settings import get_settings
from core.db import SCHEMA_HEAD, make_engine, migrate, schema_status
from support.harness import pg_schema

OLDER = "0003_title_grams"


@pytest.fixture
def sqlite_url(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    url = f"sqlite:///{tmp_path / 'suikou.db'}"
    yield from _configured(url, tmp_path, monkeypatch)


@pytest.fixture
def pg_url(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    with pg_schema() as url:
        yield from _configured(url, tmp_path, monkeypatch)


def _configured(url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    monkeypatch.chdir(tmp_path)  # no .env
    monkeypatch.setenv("SUIKOU_DATABASE_URL", url)
    get_settings.cache_clear()
    yield url
    get_settings.cache_clear()


@pytest.fixture
def uvicorn_runs(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[dict[str, Any]]]:
    calls: list[dict[str, Any]] = []
    monkeypatch.setattr("uvicorn.run", lambda app, **kw: calls.append({"app": app, **kw}))
    # `serve --workers N` points the workers at a metrics directory through the environment.
    before = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    yield calls
    made = os.environ.pop("PROMETHEUS_MULTIPROC_DIR", None)
    if before is not None:
        os.environ["PROMETHEUS_MULTIPROC_DIR"] = before
    elif made is not None:
        shutil.rmtree(made, ignore_errors=True)


def status(url: str) -> tuple[str, str | None]:
    engine = make_engine(url)
    try:
        return schema_status(engine)
    finally:
        engine.dispose()


def at(url: str, revision: str) -> None:
    engine = make_engine(url)
    try:
        migrate(engine, revision)
    finally:
        engine.dispose()


def stamp(url: str, revision: str) -> None:
    engine = make_engine(url)
    with engine.begin() as conn:
        conn.execute(sa.text("UPDATE alembic_version SET version_num = :r"), {"r": revision})
    engine.dispose()


def run(*args: str) -> Any:
    return CliRunner().invoke(cli, list(args))


def test_migrate_reports_what_it_did_then_nothing(sqlite_url: str) -> None:
    first = run("migrate")
    assert first.exit_code == 0, first.output
    assert f"empty -> {SCHEMA_HEAD}" in first.output
    assert status(sqlite_url) == ("head", SCHEMA_HEAD)
    again = run("migrate")
    assert again.exit_code == 0
    assert "nothing to do" in again.output


def test_migrate_upgrades_an_older_schema(sqlite_url: str) -> None:
    at(sqlite_url, OLDER)
    assert status(sqlite_url) == ("behind", OLDER)
    result = run("migrate")
    assert result.exit_code == 0, result.output
    assert f"{OLDER} -> {SCHEMA_HEAD}" in result.output
    assert status(sqlite_url)[0] == "head"


def test_serve_creates_a_fresh_embedded_sqlite(sqlite_url: str, uvicorn_runs: list[dict[str, Any]]) -> None:
    result = run("serve", "--workers", "2")
    assert result.exit_code == 0, result.output
    assert status(sqlite_url)[0] == "head"
    (call,) = uvicorn_runs
    assert call["app"] == "app.main:serve_app"
    assert call["factory"] is True
    assert call["workers"] == 2
    # SUIKOU_SHUTDOWN_GRACE_S (20) less SUIKOU_SHUTDOWN_DELAY_S (5): the listener stays open that long first.
    assert call["timeout_graceful_shutdown"] == 15


def test_serve_with_workers_shares_metrics_through_an_emptied_directory(
    sqlite_url: str, uvicorn_runs: list[dict[str, Any]], tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # prometheus_client picks its value store at import: import it before the variable is set, as
    # every other test in this process expects single-process metrics.
    import app.metrics  # noqa: F401

    shared = tmp_path / "metrics"
    shared.mkdir()
    (shared / "counter_999.db").write_bytes(b"a dead worker's values")
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(shared))
    assert run("serve", "--workers", "3").exit_code == 0
    assert list(shared.iterdir()) == []  # emptied before the workers start
    monkeypatch.delenv("PROMETHEUS_MULTIPROC_DIR")
    assert run("serve", "--workers", "2").exit_code == 0
    made = os.environ["PROMETHEUS_MULTIPROC_DIR"]  # one made for the workers to inherit
    assert os.path.isdir(made) and os.listdir(made) == []
    assert len(uvicorn_runs) == 2


def test_serve_refuses_an_sqlite_file_behind(sqlite_url: str, uvicorn_runs: list[dict[str, Any]]) -> None:
    at(sqlite_url, OLDER)
    result = run("serve")
    assert result.exit_code == 2
    assert "suikou migrate" in result.output
    assert uvicorn_runs == []
    assert status(sqlite_url) == ("behind", OLDER)
    forced = run("serve", "--migrate")
    assert forced.exit_code == 0, forced.output
    assert status(sqlite_url)[0] == "head"
    assert len(uvicorn_runs) == 1


def test_a_newer_schema_is_refused_even_with_migrate(sqlite_url: str, uvicorn_runs: list[dict[str, Any]]) -> None:
    at(sqlite_url, "head")
    stamp(sqlite_url, "0099_from_the_future")
    for args in (["serve", "--migrate"], ["migrate"]):
        result = run(*args)
        assert result.exit_code == 2
        assert "newer than this Suikou" in result.output
    assert uvicorn_runs == []


def test_reload_with_workers_is_refused(sqlite_url: str, uvicorn_runs: list[dict[str, Any]]) -> None:
    result = run("serve", "--reload", "--workers", "3")
    assert result.exit_code == 2
    assert "--reload" in result.output
    assert uvicorn_runs == []


def test_postgresql_is_never_migrated_by_serve_unasked(pg_url: str, uvicorn_runs: list[dict[str, Any]]) -> None:
    refused = run("serve")
    assert refused.exit_code == 2
    assert "not migrated" in refused.output
    assert status(pg_url) == ("fresh", None)
    assert run("migrate").exit_code == 0
    served = run("serve")
    assert served.exit_code == 0, served.output
    assert len(uvicorn_runs) == 1
