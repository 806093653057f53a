"""Reminders and webhook deliveries in the background of `suikou serve`, or as `suikou worker`.

Every serving process on PostgreSQL runs a worker loop (claims are leased, so they share the work);
on SQLite one process does, the one holding a lock file beside the database (the others would only
queue on its write lock). `SUIKOU_DELIVERIES=false` leaves it to `suikou worker`.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import logging
import os
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path
from typing import IO, Any

from sqlalchemy.engine import make_url

from app.state import AppState
from webhooks.engine import Engine, EngineConfig, Observer

log = logging.getLogger("suikou.deliveries")

__all__ = ["engine_for", "running", "sqlite_lock"]


def engine_for(state: AppState, observer: Observer | None = None) -> Engine:
    s = state.settings
    config = EngineConfig(
        allow_private=s.webhook_allow_private,
        timeout_s=s.webhook_timeout_s,
        lease=timedelta(seconds=s.delivery_lease_s),
        late_window=timedelta(seconds=s.reminder_late_window_s),
        poll_s=s.worker_poll_s,
    )
    engine = Engine(state.session, state.clock, config)
    if observer is not None:
        engine.observer = observer
    return engine


def sqlite_lock(database_url: str) -> IO[bytes] | bool | None:
    """On SQLite, this process's claim to be the one that delivers: an open, locked file (keep it),
    or None when another process holds it. True when no lock is needed (PostgreSQL, in-memory)."""
    url = make_url(database_url)
    if url.get_backend_name() != "sqlite" or not url.database or url.database == ":memory:":
        return True
    path = Path(url.database).with_name(Path(url.database).name + ".deliveries.lock")
    handle = open(path, "ab")  # noqa: SIM115 - held open for the process's life
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        handle.close()
        return None
    handle.write(f"{os.getpid()}\n".encode())
    handle.flush()
    return handle


@contextlib.asynccontextmanager
async def running(state: AppState, observer: Any = None) -> AsyncIterator[Engine | None]:
    """The worker loop for the block's duration (None when this process does not deliver)."""
    if not state.settings.deliveries:
        yield None
        return
    lock = sqlite_lock(state.settings.database_url)
    if lock is None:
        log.info("another process delivers for this SQLite database")
        yield None
        return
    engine = engine_for(state, observer)
    stop = asyncio.Event()
    task = asyncio.create_task(engine.run(stop), name="suikou-deliveries")
    try:
        yield engine
    finally:
        stop.set()
        try:
            await asyncio.wait_for(task, timeout=state.settings.webhook_timeout_s + 5)
        except TimeoutError:
            task.cancel()
        if not isinstance(lock, bool):
            lock.close()
