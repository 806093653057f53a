"""Alembic environment.

Normally driven by :func:`core.db.migrate`, which passes an open connection in
``config.attributes["connection"]``. For the ``alembic`` CLI
(``alembic -c core/migrations/alembic.ini upgrade head``) the URL comes from
``SUIKOU_DATABASE_URL`` or the ini's ``sqlalchemy.url``.
"""

from __future__ import annotations

import os

from alembic import context
from sqlmodel import SQLModel

import core.models  # noqa: F401  (registers the tables on SQLModel.metadata)

config = context.config
target_metadata = SQLModel.metadata


def _url() -> str:
    url = os.environ.get("SUIKOU_DATABASE_URL") or config.get_main_option("sqlalchemy.url")
    if not url:
        raise RuntimeError("set SUIKOU_DATABASE_URL (or sqlalchemy.url) to run migrations")
    return url


def run_migrations_offline() -> None:
    context.configure(url=_url(), target_metadata=target_metadata, literal_binds=True, render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()


def _run(connection: object) -> None:
    context.configure(
        connection=connection,  # type: ignore[arg-type]
        target_metadata=target_metadata,
        render_as_batch=True,  # SQLite needs batch mode for ALTER in future revisions
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        _run(connection)
        return
    # CLI use: same engine setup and the same PostgreSQL advisory lock as core.db.migrate.
    from core.db import lock_for_migration, make_engine

    engine = make_engine(_url())
    try:
        with engine.begin() as conn:
            lock_for_migration(conn)
            _run(conn)
    finally:
        engine.dispose()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
