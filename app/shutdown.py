"""Graceful shutdown: on SIGTERM, open chat streams finish (or end well) before uvicorn's deadline.

Uvicorn's own shutdown (docs/fdr/0019) closes the listeners, waits for open connections, and at
``timeout_graceful_shutdown`` cancels what is left without running the generators' ``finally``:
the client gets a truncated body. The lifespan shutdown runs only after the connections close,
so the app cannot learn from it that shutdown began. Hence a hook chained onto uvicorn's signal
handler: it marks the process as draining and wakes every open stream (``app.turns.stream``),
which then has ``drain_budget`` seconds to finish its turn, else ends with a final chunk and
``[DONE]``.

Process-wide on purpose: one process serves one app under ``suikou serve``, and the signal is
the process's. Nothing here runs on a request but a set insert and removal per stream.
"""

from __future__ import annotations

import asyncio
import signal
import threading
from collections.abc import Callable
from types import FrameType
from typing import Any

# Written after the drain deadline: uvicorn cancels at the grace period, so the final chunk and
# [DONE] need this much of it to reach the client.
DRAIN_MARGIN_S = 1.0
DRAINING = object()  # put into an open stream's queue when draining begins

Notify = Callable[[Any], None]

_streams: dict[int, tuple[asyncio.AbstractEventLoop, Notify]] = {}
_state = {"draining": False, "installed": False}


def draining() -> bool:
    """Shutdown has begun in this process (a readiness probe can answer 503 from now on)."""
    return _state["draining"]


def drain_budget(grace_s: float) -> float:
    """How long a stream may keep working once draining begins."""
    return max(0.0, grace_s - DRAIN_MARGIN_S)


def watch(put: Notify) -> Callable[[], None]:
    """Register an open stream's queue; ``DRAINING`` is put into it when shutdown begins (at once if it
    has). Returns the function that unregisters it (call it in the stream's ``finally``)."""
    key = id(put)
    _streams[key] = (asyncio.get_running_loop(), put)
    if _state["draining"]:
        put(DRAINING)
    return lambda: _streams.pop(key, None) and None


def begin_drain() -> None:
    """Mark the process as draining and wake the open streams (thread- and signal-safe)."""
    _state["draining"] = True
    for loop, put in list(_streams.values()):
        if not loop.is_closed():
            loop.call_soon_threadsafe(put, DRAINING)


def reset() -> None:
    """Back to serving (tests that drain in-process)."""
    _state["draining"] = False


def install_drain_hook() -> bool:
    """Chain ``begin_drain`` in front of the SIGTERM/SIGINT handlers installed now (uvicorn's).

    Call it once uvicorn has captured the signals: from the app factory or the lifespan startup.
    Only the main thread may set handlers (a server in a test thread has none to chain onto).
    """
    if _state["installed"] or threading.current_thread() is not threading.main_thread():
        return False
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, _chained(signal.getsignal(sig)))
    _state["installed"] = True
    return True


def _chained(previous: Any) -> Callable[[int, FrameType | None], None]:
    def handler(signum: int, frame: FrameType | None) -> None:
        begin_drain()
        if callable(previous):
            previous(signum, frame)  # uvicorn's Server.handle_exit: stop accepting, then wait

    return handler
