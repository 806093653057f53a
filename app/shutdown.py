"""Graceful shutdown: on SIGTERM, keep serving while the balancer notices, then let what is open finish.

Uvicorn's own shutdown (docs/fdr/0019) closes the listeners at once, closes every connection that
has no request *parsed* yet (a request already sent but not yet read is lost: the client sees the
connection close), waits for the rest, and at ``timeout_graceful_shutdown`` cancels what is left
without running the generators' ``finally``: the client gets a truncated body. The lifespan
shutdown runs only after the connections close, so the app cannot learn from it that shutdown
began. Hence a hook chained onto uvicorn's signal handler (docs/fdr/0023):

1. the process is marked as draining at once: ``/readyz`` answers 503 "shutting down", and every
   open stream (``app.turns.stream``) and non-streaming chat turn (``app.turns.complete``) is told;
2. on SIGTERM, uvicorn is told only ``delay`` seconds later (Kubernetes' preStop pattern): until
   then the listener accepts and serves as usual, so what the balancer still sends is answered and
   it can see the 503. SIGINT (a person at a terminal) and a second signal skip the wait;
3. uvicorn then waits up to the rest of the grace period for what is open. Streams and chat turns
   get ``drain_remaining`` seconds from the signal to finish, else end well: a stream with a final
   chunk and ``[DONE]``, a turn with a 503 to retry (at another instance).

Process-wide on purpose: one process serves one app under ``suikou serve``, and the signal is
the process's. Nothing here runs on a request but a set insert and removal.
"""

from __future__ import annotations

import asyncio
import math
import signal
import threading
import time
from collections.abc import Callable
from types import FrameType
from typing import Any

# Written after the drain deadline: uvicorn cancels at the grace period, so the final chunk and
# [DONE] (or the 503) need this much of it to reach the client.
DRAIN_MARGIN_S = 1.0
DRAINING = object()  # put into an open stream's queue when draining begins

Notify = Callable[[Any], None]

_streams: dict[int, tuple[asyncio.AbstractEventLoop, Notify]] = {}
_state: dict[str, Any] = {"draining": False, "installed": False, "since": 0.0, "timer": None}


def draining() -> bool:
    """Shutdown has begun in this process (a readiness probe can answer 503 from now on)."""
    return bool(_state["draining"])


def drain_budget(grace_s: float) -> float:
    """How long a stream may keep working once draining begins."""
    return max(0.0, grace_s - DRAIN_MARGIN_S)


def drain_remaining(grace_s: float) -> float:
    """Seconds left of the drain budget, counted from the signal (a stream opened during the delay
    gets what is left, not a budget of its own: uvicorn's deadline is the signal's)."""
    return max(0.0, _state["since"] + drain_budget(grace_s) - time.monotonic())


def phases(grace_s: float, delay_s: float) -> tuple[float, int]:
    """(the delay before the listener closes, uvicorn's ``timeout_graceful_shutdown``): the delay comes
    out of the grace period, leaving at least the margin for the drain, so SIGTERM to exit stays
    within ``grace_s`` (rounded up)."""
    delay = min(delay_s, max(0.0, grace_s - DRAIN_MARGIN_S))
    return delay, math.ceil(max(0.0, grace_s - delay))


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
    if not _state["draining"]:
        _state["since"] = time.monotonic()
    _state["draining"] = True
    for loop, put in list(_streams.values()):
        if not loop.is_closed():
            loop.call_soon_threadsafe(put, DRAINING)


def reset() -> None:
    """Back to serving (tests that drain in-process)."""
    _state["draining"] = False


def install_drain_hook(delay_s: float | None = None) -> bool:
    """Chain ``begin_drain`` in front of the SIGTERM/SIGINT handlers installed now (uvicorn's).

    Call it once uvicorn has captured the signals: from the app factory or the lifespan startup.
    Only the main thread may set handlers (a server in a test thread has none to chain onto).
    ``delay_s``: how long SIGTERM waits before uvicorn hears it (default: the settings').
    """
    if _state["installed"] or threading.current_thread() is not threading.main_thread():
        return False
    if delay_s is None:
        from app.settings import get_settings

        settings = get_settings()
        delay_s = phases(settings.shutdown_grace_s, settings.shutdown_delay_s)[0]
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, _chained(signal.getsignal(sig), delay_s))
    _state["installed"] = True
    return True


def _chained(previous: Any, delay_s: float) -> Callable[[int, FrameType | None], None]:
    def handler(signum: int, frame: FrameType | None) -> None:
        begin_drain()
        if not callable(previous):
            return
        pending: threading.Timer | None = _state["timer"]
        if signum == signal.SIGTERM and delay_s > 0 and pending is None:
            # Uvicorn's Server.handle_exit only sets flags its main loop polls: safe from a thread.
            timer = threading.Timer(delay_s, previous, (signum, frame))
            timer.daemon = True
            _state["timer"] = timer
            timer.start()
            return
        if pending is not None:
            pending.cancel()  # a second signal: stop waiting
        previous(signum, frame)  # uvicorn's Server.handle_exit: stop accepting, then wait

    return handler
