"""migrate's fast path: a database already at SCHEMA_HEAD is left alone without running alembic."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from alembic import command
from alembic.script import ScriptDirectory
from sqlalchemy.engine import Engine

from core.db import SCHEMA_HEAD, alembic_config, current_revision, migrate


def test_schema_head_is_the_newest_migration() -> None:
    """A new migration must move SCHEMA_HEAD too, or databases would never be upgraded to it."""
    assert ScriptDirectory.from_config(alembic_config()).get_heads() == [SCHEMA_HEAD]


def test_at_head_migrate_does_not_run_alembic(
    engine_factory: Callable[[], Engine], monkeypatch: pytest.MonkeyPatch
) -> None:
    engine = engine_factory()
    migrate(engine)
    assert current_revision(engine) == SCHEMA_HEAD

    def refuse(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("alembic ran on a database at head")

    monkeypatch.setattr(command, "upgrade", refuse)
    migrate(engine)
    assert current_revision(engine) == SCHEMA_HEAD


def test_behind_head_or_new_migrate_runs_alembic(engine_factory: Callable[[], Engine]) -> None:
    engine = engine_factory()
    migrate(engine, "0001_initial")
    migrate(engine)
    assert current_revision(engine) == SCHEMA_HEAD
    fresh = engine_factory()
    migrate(fresh)  # no alembic_version table at all
    assert current_revision(fresh) == SCHEMA_HEAD
