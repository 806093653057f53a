"""core.db / core.migrations: the shipped migrations build exactly the models' schema, are
idempotent, and are safe to run concurrently."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy.engine import Engine
from sqlmodel import SQLModel

import core.models  # noqa: F401  (registers tables)
from core.db import MIGRATIONS_DIR, alembic_config, current_revision, lock_for_migration, make_engine, migrate

TASK_INDEXES_0001 = {
    "ix_tasks_user_open_deadline": ["user_id", "is_completed", "deadline_at", "priority_group", "urgency_threshold_at"],
    "ix_tasks_user_completed_at": ["user_id", "completed_at"],
    "ix_tasks_user_created_at": ["user_id", "created_at"],
}
TASK_INDEXES_0002 = {
    "ix_tasks_user_open_deadline": ["user_id", "is_completed", "deadline_at", "priority_group", "urgency_threshold_at"],
    "ix_tasks_user_state_group": ["user_id", "is_completed", "priority_group", "urgency_threshold_at"],
    "ix_tasks_user_state_completed_at": ["user_id", "is_completed", "completed_at", "deadline_at", "priority_group"],
    "ix_tasks_user_state_created_at": ["user_id", "is_completed", "created_at"],
    "ix_tasks_user_state_title": ["user_id", "is_completed", "title", "priority_group", "urgency_threshold_at"],
}


def _head() -> str | None:
    return ScriptDirectory.from_config(alembic_config()).get_current_head()


def _snapshot(engine: Engine) -> dict[str, object]:
    insp = sa.inspect(engine)
    return {
        t: (
            [c["name"] for c in insp.get_columns(t)],
            sorted(i["name"] or "" for i in insp.get_indexes(t)),
        )
        for t in sorted(insp.get_table_names())
    }


def test_migrations_ship_in_the_package() -> None:
    assert (MIGRATIONS_DIR / "env.py").is_file()
    assert (MIGRATIONS_DIR / "script.py.mako").is_file()
    for n in range(1, 13):
        assert list((MIGRATIONS_DIR / "versions").glob(f"{n:04d}_*.py")), n
    assert _head() == "0013_lists_labels"


def test_migrate_twice_is_a_noop(engine_factory: Callable[[], Engine]) -> None:
    engine = engine_factory()
    assert current_revision(engine) is None
    migrate(engine)
    assert current_revision(engine) == _head()
    before = _snapshot(engine)
    assert {"users", "api_keys", "tasks", "alembic_version"} <= set(before)
    migrate(engine)
    assert current_revision(engine) == _head()
    assert _snapshot(engine) == before


def _task_indexes(engine: Engine) -> dict[str, list[str]]:
    insp = sa.inspect(engine)
    return {
        str(i["name"]): [str(c) for c in i["column_names"]]
        for i in insp.get_indexes("tasks")
        if not i.get("unique") and not str(i["name"]).startswith("uq_")
    }


def _downgrade(engine: Engine, revision: str) -> None:
    from alembic import command

    with engine.begin() as conn:
        lock_for_migration(conn)
        command.downgrade(alembic_config(conn), revision)


def _task_count(engine: Engine) -> int:
    with engine.connect() as conn:
        return int(conn.execute(sa.text("SELECT count(*) FROM tasks")).scalar_one())


def test_0002_upgrades_a_deployed_0001_database(engine_factory: Callable[[], Engine]) -> None:
    """Deployed databases ran 0001 with data in them: 0002 swaps indexes and keeps every row."""
    engine = engine_factory()
    migrate(engine, "0001_initial")
    assert current_revision(engine) == "0001_initial"
    assert _task_indexes(engine) == TASK_INDEXES_0001
    with engine.begin() as conn:
        conn.execute(
            sa.text("INSERT INTO users (name, created_at) VALUES ('alice', :t)"),
            {"t": "2026-01-01 00:00:00"},
        )
        conn.execute(
            sa.text(
                "INSERT INTO tasks (user_id, title, priority_group, is_completed, created_at, updated_at) "
                "SELECT id, '交报告', 2, false, created_at, created_at FROM users"
            )
        )

    migrate(engine, "0002_query_indexes")
    assert current_revision(engine) == "0002_query_indexes"
    assert _task_indexes(engine) == TASK_INDEXES_0002
    assert _task_count(engine) == 1

    _downgrade(engine, "0001_initial")
    assert current_revision(engine) == "0001_initial"
    assert _task_indexes(engine) == TASK_INDEXES_0001
    assert _task_count(engine) == 1

    migrate(engine, "0002_query_indexes")
    assert _task_indexes(engine) == TASK_INDEXES_0002
    assert _task_count(engine) == 1


def test_migrated_schema_matches_models(engine: Engine) -> None:
    with engine.connect() as conn:
        ctx = MigrationContext.configure(conn, opts={"compare_type": True, "compare_server_default": False})
        diff = compare_metadata(ctx, SQLModel.metadata)
    assert diff == []


def test_concurrent_migrate(engine_factory: Callable[[], Engine]) -> None:
    engines = [engine_factory() for _ in range(3)]
    barrier = threading.Barrier(len(engines))
    errors: list[BaseException] = []

    def run(eng: Engine) -> None:
        try:
            barrier.wait(timeout=10)
            migrate(eng)
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(e,)) for e in engines]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not errors, errors
    assert current_revision(engines[0]) == _head()


_MIGRATE_SCRIPT = """
import sys, time
import alembic.command, core.migrations, core.models
from core.db import make_engine, migrate
url, schema, start = sys.argv[1], sys.argv[2], float(sys.argv[3])
kwargs = {"connect_args": {"options": f"-csearch_path={schema}"}} if schema else {}
engine = make_engine(url, **kwargs)
time.sleep(max(0.0, start - time.time()))  # all processes start migrating together
migrate(engine)
engine.dispose()
"""


def test_concurrent_migrate_across_processes(backend: str, engine_factory: Callable[[], Engine]) -> None:
    engine = engine_factory()  # creates the (empty) database / schema
    url = engine.url.render_as_string(hide_password=False)
    schema = ""
    if backend == "postgresql":
        # PgSchema passes the search_path through connect_args; recover it from a connection.
        with engine.connect() as conn:
            schema = str(conn.exec_driver_sql("SHOW search_path").scalar())
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": str(root)}
    start = str(time.time() + 3.0)
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _MIGRATE_SCRIPT, url, schema, start],
            cwd=root,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(3)
    ]
    outputs = [p.communicate(timeout=120) for p in procs]
    for p, (_out, err) in zip(procs, outputs, strict=True):
        assert p.returncode == 0, err
    assert current_revision(engine) == _head()


def test_sqlite_engine_settings(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path}/nested/dir/s.db")
    try:
        with engine.connect() as conn:
            assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
            assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
            assert conn.exec_driver_sql("PRAGMA busy_timeout").scalar() == 5000
        assert (tmp_path / "nested" / "dir" / "s.db").exists()
    finally:
        engine.dispose()


def test_sqlite_foreign_keys_enforced(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path}/fk.db")
    try:
        migrate(engine)
        with engine.connect() as conn:
            try:
                conn.execute(
                    sa.text(
                        "INSERT INTO tasks (user_id, title, priority_group, is_completed, created_at, "
                        "updated_at) VALUES (999, 'x', 1, 0, '2026-01-01 00:00:00.000000', "
                        "'2026-01-01 00:00:00.000000')"
                    )
                )
            except sa.exc.IntegrityError:
                pass
            else:  # pragma: no cover
                raise AssertionError("foreign key not enforced")
    finally:
        engine.dispose()


def test_0005_keys_every_existing_title(engine_factory: Callable[[], Engine]) -> None:
    """Tasks stored before 0005 get their title_key, so keyword search finds them on every backend."""
    engine = engine_factory()
    migrate(engine, "0004_task_changes")
    with engine.begin() as conn:
        conn.execute(sa.text("INSERT INTO users (name, created_at) VALUES ('alice', :t)"), {"t": "2026-01-01 00:00:00"})
        for title in ("İstanbul 出差", "ÉTÉ Plans", "交报告"):
            conn.execute(
                sa.text(
                    "INSERT INTO tasks (user_id, title, priority_group, is_completed, created_at, updated_at) "
                    "SELECT id, :title, 2, false, created_at, created_at FROM users"
                ),
                {"title": title},
            )
    migrate(engine)
    with engine.connect() as conn:
        keys = conn.execute(sa.text("SELECT title_key FROM tasks ORDER BY id")).scalars().all()
    assert keys == ["istanbul 出差", "été plans", "交报告"]
    _downgrade(engine, "0004_task_changes")
    assert _task_count(engine) == 3


def test_0006_takes_any_kind_and_keeps_the_log(engine_factory: Callable[[], Engine]) -> None:
    """Kinds are data: after 0006 a kind the old CHECK did not list is stored; the rows before are kept."""
    engine = engine_factory()
    migrate(engine, "0005_attempts_secrets_title_key")
    insert = sa.text(
        "INSERT INTO task_changes (user_id, turn_key, kind, after, created_at) "
        "SELECT id, 't', :kind, '{}', created_at FROM users"
    )
    with engine.begin() as conn:
        conn.execute(sa.text("INSERT INTO users (name, created_at) VALUES ('alice', :t)"), {"t": "2026-01-01 00:00:00"})
        conn.execute(insert, {"kind": "create"})
    with pytest.raises(sa.exc.IntegrityError), engine.begin() as conn:
        conn.execute(insert, {"kind": "delete"})
    migrate(engine)
    with engine.begin() as conn:
        conn.execute(insert, {"kind": "delete"})
        kinds = conn.execute(sa.text("SELECT kind FROM task_changes ORDER BY id")).scalars().all()
    assert kinds == ["create", "delete"]
    _downgrade(engine, "0005_attempts_secrets_title_key")
    with engine.connect() as conn:
        assert conn.execute(sa.text("SELECT kind FROM task_changes")).scalars().all() == ["create"]
