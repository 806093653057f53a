"""Statements compiled once, run on the driver's own cursor.

SQLAlchemy's ``Connection.execute`` costs 40–60 µs a statement even for a cached statement
(cache key, bind and result processors, Row objects): four to five times the query itself for
the small indexed reads of the hot path. A :class:`Prepared` is a statement compiled once per
dialect into its SQL text and bind order; :func:`fetch` binds plain values and runs it on the
DBAPI cursor of an SQLAlchemy connection (so it shares that connection's transaction) and
returns plain tuples. Datetimes are the one type that needs converting by hand, and
:func:`db_time`/:func:`read_time` do it the way :class:`core.models.UTCDateTime` does.

Driver errors are re-raised as SQLAlchemy's ``DBAPIError`` family, as ``execute`` would.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Dialect
from sqlalchemy.sql.compiler import SQLCompiler

SQLITE_TIME_FORMAT = "%Y-%m-%d %H:%M:%S.%f"  # SQLAlchemy's fixed-width SQLite DateTime text


@dataclass(frozen=True, slots=True)
class Prepared:
    """One statement's SQL text for one dialect, with how to lay out its parameters."""

    sql: str
    order: tuple[str, ...] | None  # positional styles: bind names in order; None: named style
    defaults: Mapping[str, Any]  # values SQLAlchemy bound while compiling (constants)

    def args(self, values: Mapping[str, Any]) -> Sequence[Any] | Mapping[str, Any]:
        merged = {**self.defaults, **values}
        if self.order is None:
            return merged
        return [merged[name] for name in self.order]


def prepare(stmt: sa.ClauseElement, dialect: Dialect) -> Prepared:
    """Compile ``stmt`` for ``dialect``, expanding constant ``IN`` lists into the text.

    Every bind parameter that varies at run time must have a placeholder value, so that the
    expansion can run; :func:`fetch` replaces it by name.
    """
    compiled = stmt.compile(dialect=dialect, compile_kwargs={"render_postcompile": True})
    assert isinstance(compiled, SQLCompiler)
    order = tuple(compiled.positiontup) if compiled.positional and compiled.positiontup is not None else None
    return Prepared(sql=compiled.string, order=order, defaults=dict(compiled.params))


def fetch(conn: sa.Connection, prepared: Prepared, values: Mapping[str, Any]) -> list[tuple[Any, ...]]:
    """Every row of ``prepared`` run with ``values``, as tuples."""
    args = prepared.args(values)
    dbapi_error = conn.dialect.loaded_dbapi.Error
    cursor = conn.connection.cursor()
    try:
        cursor.execute(prepared.sql, args)
        return list(cursor.fetchall())
    except dbapi_error as exc:
        raise sa.exc.DBAPIError.instance(prepared.sql, args, exc, dbapi_error) from exc
    finally:
        cursor.close()


def db_time(value: datetime, dialect_name: str) -> Any:
    """An aware datetime as the dialect stores it: UTC text on SQLite, aware UTC elsewhere."""
    if value.tzinfo is None or value.utcoffset() is None:
        raise ValueError(f"naive datetime {value.isoformat()} given; pass a timezone-aware datetime")
    value = value.astimezone(UTC)
    if dialect_name == "sqlite":
        return value.replace(tzinfo=None).isoformat(" ", "microseconds")  # == SQLITE_TIME_FORMAT
    return value


def _read_sqlite_time(value: str | None) -> datetime | None:
    if value is None:
        return None
    try:  # stored naive UTC: parsing it with the offset appended is 5x faster than .replace()
        return datetime.fromisoformat(value + "+00:00")
    except ValueError:  # text written with an offset by something else
        return datetime.fromisoformat(value).astimezone(UTC)


def _read_aware_time(value: datetime | None) -> datetime | None:
    if value is None:
        return None
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def read_time(dialect_name: str) -> Callable[[Any], datetime | None]:
    """How to read a stored datetime back as aware UTC on ``dialect_name``."""
    return _read_sqlite_time if dialect_name == "sqlite" else _read_aware_time


__all__ = ["SQLITE_TIME_FORMAT", "Prepared", "db_time", "fetch", "prepare", "read_time"]
