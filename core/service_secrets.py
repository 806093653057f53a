"""Secrets the deployment makes for itself and keeps in its own database (``service_secrets``).

The key that signs carried records (:class:`core.carry.Seal`) is made the first time a process
needs it and stored, so every process and replica on the same database signs and checks alike,
and a restart keeps follow-ups working. Two processes starting at once race to insert it; the
database's primary key picks one, and both read the winner's. Rotating it (deleting the row, or
setting ``SUIKOU_RECORD_SECRET``) only makes records already in chat histories read as absent:
follow-ups then fall back to the visible text (docs/fdr/0024).
"""

from __future__ import annotations

import base64
import secrets
from datetime import UTC, datetime

import sqlalchemy as sa
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.engine import Engine

from core.models import ServiceSecret

RECORD_KEY = "record_hmac"


def _read(conn: sa.Connection, name: str) -> str | None:
    table = ServiceSecret.__table__  # type: ignore[attr-defined]
    return conn.execute(sa.select(table.c.value).where(table.c.name == name)).scalar_one_or_none()


def stored_secret(engine: Engine, name: str = RECORD_KEY) -> bytes:
    """The secret ``name`` (32 random bytes), made and stored on first use."""
    with engine.connect() as conn:
        found = _read(conn, name)
    if found is None:
        value = base64.urlsafe_b64encode(secrets.token_bytes(32)).decode()
        insert = pg_insert if engine.dialect.name == "postgresql" else sqlite_insert
        table = ServiceSecret.__table__  # type: ignore[attr-defined]
        with engine.begin() as conn:
            conn.execute(
                insert(table)
                .values(name=name, value=value, created_at=datetime.now(UTC))
                .on_conflict_do_nothing(index_elements=["name"])
            )
            found = _read(conn, name)
    assert found is not None
    return base64.urlsafe_b64decode(found)


__all__ = ["RECORD_KEY", "stored_secret"]
