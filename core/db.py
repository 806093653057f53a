"""Engine creation and schema migration.

``make_engine(url)``
    SQLite: the file's directory is created, and every new connection gets ``journal_mode=WAL``
    (readers never block the writer), ``foreign_keys=ON``, ``busy_timeout`` (a writer waits
    for the lock instead of failing at once), ``synchronous=NORMAL`` and ``mmap_size``; ``check_same_thread=False`` so a pooled
    connection can serve any thread. PostgreSQL: psycopg 3 with ``pool_pre_ping``, a connect
    timeout, a server-side ``statement_timeout`` and TCP keepalives (see :func:`pg_connect_args`),
    so a database that is gone or hangs fails a request in seconds instead of 130 s. A bare
    ``postgresql://`` URL is given the psycopg driver.
``is_outage(exc)``
    The error means the database cannot serve now (refused, lost, timed out, shutting down, locked),
    not a bug: the web layer answers it with a 503 and one log line (docs/fdr/0023).
``migrate(engine)``
    ``alembic upgrade head`` with the migration scripts shipped in :mod:`core.migrations`; no
    ``alembic.ini`` is needed. Idempotent. On PostgreSQL it runs in one transaction holding a
    transaction-level advisory lock, so two processes starting at once serialise: the second
    waits, then finds the schema at head and does nothing. When the database already records
    :data:`SCHEMA_HEAD`, alembic is not even imported: that check is one SELECT, while importing
    alembic and running its no-op upgrade is about a tenth of a second of every CLI start.
``session_factory(engine)``
    A callable returning new :class:`sqlmodel.Session` objects bound to the engine.

Nothing happens at import time.
"""

from __future__ import annotations

import functools
import math
import sqlite3
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

import sqlalchemy as sa
from sqlalchemy.engine import URL, Engine, make_url
from sqlmodel import Session

MIGRATIONS_DIR = Path(__file__).resolve().parent / "migrations"
# The newest migration's revision. tests/core/test_db_head.py checks it against alembic's own
# reading of the scripts, so a new migration that forgets to move it fails the suite.
SCHEMA_HEAD = "0013_lists_labels"
SQLITE_BUSY_TIMEOUT_MS = 5000
# PostgreSQL defaults (the service passes its settings). Without a connect timeout psycopg waits
# 130 s for a server that accepts the TCP connection but never answers.
PG_CONNECT_TIMEOUT_S = 5
PG_STATEMENT_TIMEOUT_S = 10.0
# A peer that vanished (host down, network cut) without a reset: found after ~25 s of silence by
# keepalive probes, and unacknowledged writes give up after 20 s instead of Linux's ~15 min of
# retransmissions. Neither bounds a server whose kernel still acknowledges: statement_timeout does.
PG_KEEPALIVES = {"keepalives": 1, "keepalives_idle": 10, "keepalives_interval": 5, "keepalives_count": 3}
PG_TCP_USER_TIMEOUT_MS = 20_000
SQLITE_MMAP_BYTES = 256 * 1024 * 1024
# pg_advisory_xact_lock key: a fixed 63-bit number derived from "suikou:migrate".
MIGRATION_LOCK_KEY = 0x5375_696B_6F75_4D31 & 0x7FFF_FFFF_FFFF_FFFF
# Alembic's ``context``/``op`` proxies are process-global, so migrations in one process must not
# overlap; across processes the database lock below does the serialising.
_MIGRATE_LOCK = threading.Lock()


def normalize_url(url: str | URL) -> URL:
    u = make_url(url)
    if u.drivername in ("postgresql", "postgres"):
        u = u.set(drivername="postgresql+psycopg")
    return u


def _sqlite_on_connect(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute(f"PRAGMA busy_timeout = {SQLITE_BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA foreign_keys = ON")
        _ensure_wal(cursor)
        cursor.execute("PRAGMA synchronous = NORMAL")
        # Reads through the OS page cache instead of a small per-connection cache: about 2x
        # faster scans of a large task list, no per-connection memory.
        cursor.execute(f"PRAGMA mmap_size = {SQLITE_MMAP_BYTES}")
    finally:
        cursor.close()


def _ensure_wal(cursor: Any) -> None:
    """Switch a database file to WAL (persistent, so usually already done).

    The switch needs an exclusive lock and does not wait on ``busy_timeout``, so several
    processes opening a brand-new file at once can see "database is locked": retry briefly.
    """
    deadline = time.monotonic() + SQLITE_BUSY_TIMEOUT_MS / 1000
    while True:
        try:
            mode = cursor.execute("PRAGMA journal_mode").fetchone()[0]
            if str(mode).lower() in ("wal", "memory"):
                return
            cursor.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.02)


def make_engine(
    url: str | URL,
    *,
    connect_timeout_s: float = PG_CONNECT_TIMEOUT_S,
    statement_timeout_s: float = PG_STATEMENT_TIMEOUT_S,
    **kwargs: Any,
) -> Engine:
    """An engine for a SQLite file or a PostgreSQL server (extra kwargs go to create_engine).

    The timeouts apply to PostgreSQL only (SQLite has ``busy_timeout``); a value the URL or
    ``connect_args`` gives wins over them."""
    u = normalize_url(url)
    backend = u.get_backend_name()
    if backend == "sqlite":
        database = u.database or ""
        if database and database != ":memory:" and not database.startswith("file:"):
            Path(database).expanduser().parent.mkdir(parents=True, exist_ok=True)
        connect_args = {"check_same_thread": False, **kwargs.pop("connect_args", {})}
        engine = sa.create_engine(u, connect_args=connect_args, **kwargs)
        sa.event.listen(engine, "connect", _sqlite_on_connect)
        return engine
    if backend == "postgresql":
        kwargs.setdefault("pool_pre_ping", True)
        given = kwargs.pop("connect_args", {})
        connect_args = pg_connect_args(u, connect_timeout_s, statement_timeout_s, given)
        return sa.create_engine(u, connect_args=connect_args, **kwargs)
    raise ValueError(f"unsupported database backend {backend!r} (use sqlite or postgresql)")


def pg_connect_args(
    u: URL, connect_timeout_s: float, statement_timeout_s: float, given: dict[str, Any]
) -> dict[str, Any]:
    """libpq parameters for a PostgreSQL engine; what the URL's query or ``given`` sets wins.

    ``connect_timeout`` bounds each connection attempt as a whole (TCP, TLS, startup, auth): psycopg
    enforces it itself, in whole seconds, at least 2, and once per address the host resolves to
    (``localhost`` is two: ::1 and 127.0.0.1). ``statement_timeout`` travels in the startup packet's
    ``options`` (no extra round trip), before the URL's own options so that those win; 0 leaves it
    out (PgBouncer in transaction mode refuses startup options: set it on the role there)."""
    defaults: dict[str, Any] = {
        "connect_timeout": max(2, math.ceil(connect_timeout_s)),
        "tcp_user_timeout": PG_TCP_USER_TIMEOUT_MS,
        **PG_KEEPALIVES,
    }
    args = {name: value for name, value in defaults.items() if name not in u.query}
    args.update(given)
    if statement_timeout_s > 0:
        ours = f"-c statement_timeout={math.ceil(statement_timeout_s * 1000)}"
        theirs = args.get("options", u.query.get("options", ""))
        args["options"] = f"{ours} {theirs}".strip() if isinstance(theirs, str) else ours
    return args


# sqlite3 raises OperationalError for bugs too ("no such table", syntax errors): only these are the
# database being unable to serve now.
_SQLITE_OUTAGES = ("database is locked", "database table is locked", "unable to open", "disk i/o error", "disk is full")


def is_outage(exc: BaseException) -> bool:
    """The database cannot serve now: refused, lost or timed-out connections, a statement timeout, a
    server shutting down, an exhausted pool, SQLite locked or its file unopenable. Looks through
    ``__cause__``, ``__context__`` and exception groups (a wrapped outage is still one)."""
    return find_outage(exc) is not None


def find_outage(exc: BaseException) -> BaseException | None:
    """The first error in ``exc``'s chain that is an outage by itself, or None."""
    seen: set[int] = set()
    pending: list[BaseException] = [exc]
    while pending and len(seen) < 50:  # chains are short; a cycle or a huge group stops here
        current = pending.pop(0)
        if id(current) in seen:
            continue
        seen.add(id(current))
        if _is_outage_itself(current):
            return current
        if isinstance(current, BaseExceptionGroup):
            pending += list(current.exceptions)
        pending += [e for e in (getattr(current, "orig", None), current.__cause__, current.__context__) if e]
    return None


def _is_outage_itself(exc: BaseException) -> bool:
    if isinstance(exc, sa.exc.DBAPIError) and exc.connection_invalidated:
        return True  # SQLAlchemy's dialect saw a disconnect
    if isinstance(exc, sa.exc.TimeoutError):
        return True  # no pooled connection came free in time
    if isinstance(exc, sqlite3.OperationalError):
        return any(text in str(exc).lower() for text in _SQLITE_OUTAGES)
    psycopg = sys.modules.get("psycopg")  # imported only when a PostgreSQL engine was made
    # psycopg's OperationalError is what it says: connection failures, ConnectionTimeout, QueryCanceled
    # (statement_timeout), AdminShutdown, CannotConnectNow, lock and serialisation failures. Its
    # InterfaceError is mostly "the connection is closed", after a lost one.
    return psycopg is not None and isinstance(exc, psycopg.OperationalError | psycopg.InterfaceError)


def outage_summary(exc: BaseException) -> str:
    """One short line for the log: the outage's class and the first line of its message (libpq's
    name host and port, never a password)."""
    found = find_outage(exc) or exc
    lines = str(found).strip().splitlines()
    return f"{type(found).__name__}: {lines[0][:200]}" if lines else type(found).__name__


def alembic_config(connection: sa.Connection | None = None, url: str | None = None) -> Any:
    """An Alembic Config built in code, pointing at the packaged migration scripts."""
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
    if url is not None:
        cfg.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    if connection is not None:
        cfg.attributes["connection"] = connection
    return cfg


def migrate(engine: Engine, revision: str = "head") -> None:
    """Bring the schema to ``revision`` (default head). Safe to call on every start."""
    if revision == "head" and _at_head(engine):
        return
    from alembic import command

    with _MIGRATE_LOCK, engine.begin() as conn:
        lock_for_migration(conn)
        command.upgrade(alembic_config(conn), revision)


def lock_for_migration(conn: sa.Connection) -> None:
    """Serialise migrations across processes for the rest of ``conn``'s transaction.

    PostgreSQL: a transaction-level advisory lock (DDL is transactional there). SQLite: ``BEGIN
    IMMEDIATE`` takes the write lock up front (others wait up to ``busy_timeout``), which also
    makes the migration one transaction instead of pysqlite's autocommitted DDL.

    The statement timeout is off for the transaction on PostgreSQL: a migration may rewrite a large
    table, and a second process waits on the lock while the first migrates; neither is a hung request.
    """
    if conn.dialect.name == "postgresql":
        conn.exec_driver_sql("SET LOCAL statement_timeout = 0")
        conn.execute(sa.text("SELECT pg_advisory_xact_lock(:k)"), {"k": MIGRATION_LOCK_KEY})
    elif conn.dialect.name == "sqlite":
        conn.exec_driver_sql("BEGIN IMMEDIATE")


def _at_head(engine: Engine) -> bool:
    """The database already records :data:`SCHEMA_HEAD`; any doubt (no table, an error) is False."""
    try:
        with engine.connect() as conn:
            rows = conn.exec_driver_sql("SELECT version_num FROM alembic_version").scalars().all()
    except sa.exc.DBAPIError:
        return False
    return rows == [SCHEMA_HEAD]


SchemaStatus = Literal["head", "fresh", "behind", "unknown"]


def schema_status(engine: Engine) -> tuple[SchemaStatus, str | None]:
    """Where the database stands against :data:`SCHEMA_HEAD`, without importing alembic.

    ``fresh``: no ``alembic_version`` table and no Suikou tables (an empty database); ``behind``:
    an older revision, or tables but no record; ``unknown``: a revision this code does not ship
    (a newer release migrated it). The second value is the recorded revision.
    """
    with engine.connect() as conn:
        tables = set(sa.inspect(conn).get_table_names())
        if "alembic_version" not in tables:
            return ("behind" if tables else "fresh"), None
        rows = conn.exec_driver_sql("SELECT version_num FROM alembic_version").scalars().all()
    revision = rows[0] if len(rows) == 1 else None
    if revision == SCHEMA_HEAD:
        return "head", revision
    known = {path.name.split("_", 1)[0] for path in (MIGRATIONS_DIR / "versions").glob("*.py")}
    return ("behind" if revision and revision.split("_", 1)[0] in known else "unknown"), revision


def current_revision(engine: Engine) -> str | None:
    from alembic.runtime.migration import MigrationContext

    with engine.connect() as conn:
        return MigrationContext.configure(conn).get_current_revision()


def session_factory(engine: Engine) -> Callable[[], Session]:
    """New sessions bound to ``engine``; objects stay readable after commit."""
    return functools.partial(Session, engine, expire_on_commit=False)


__all__ = [
    "MIGRATIONS_DIR",
    "SCHEMA_HEAD",
    "alembic_config",
    "current_revision",
    "find_outage",
    "is_outage",
    "lock_for_migration",
    "make_engine",
    "migrate",
    "normalize_url",
    "outage_summary",
    "pg_connect_args",
    "schema_status",
    "session_factory",
]
