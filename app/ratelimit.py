"""Per-key limits: a request budget, a model budget and open streams (docs/fdr/0018-rate-limits.md).

- Requests (`SUIKOU_RATE_LIMIT`): chat, /v1/models and /tasks share one budget per key.
- Model (`SUIKOU_MODEL_RATE_LIMIT`): chat requests, only while some node has a real provider.
- Streams (`SUIKOU_MAX_STREAMS_PER_KEY`): leases taken before a stream starts, released when it ends
  and expiring on their own (a stream cut at the shutdown deadline never runs its `finally`). In
  Redis each worker also records its leases under a stable name (host, port, a per-host worker
  number held by a file lock), so a worker restarted after a kill -9 gives back at start what its
  dead predecessor held instead of leaving the key short of slots until the leases expire.

The key is the caller's user id (the local user without API keys). Counts live in memory, or in Redis
when `SUIKOU_REDIS_URL` is set. Redis failing at request time fails open: served, with a log line.
With every limit off, no dependency is installed and nothing here runs on a request.
"""

from __future__ import annotations

import logging
import math
import socket
import tempfile
import time
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Protocol

import anyio
from fastapi import Depends, FastAPI, Request

from app.deps import CurrentUser
from app.errors import RateLimited, error_responses
from app.settings import Settings

if TYPE_CHECKING:
    from limits import RateLimitItem
    from limits.aio.strategies import RateLimiter

    from core.llm import ModelHub

log = logging.getLogger("suikou.ratelimit")

REQUESTS, MODEL, STREAMS = "requests", "model", "streams"
CHAT_PATHS = frozenset({"/agent/chat", "/v1/chat/completions"})  # app.api_chat.CHAT_PATHS (imports us)
STREAM_RETRY_S = 2  # when a stream ends is unknown; most turns take seconds, and a retry costs one request
OUTAGE_PAUSE_S = 5.0  # after a Redis error, don't ask it again for this long: fail open at no cost
_MESSAGES = {
    REQUESTS: "Rate limit reached for requests with this API key. Retry after {s} s.",
    MODEL: "Rate limit reached for model requests with this API key. Retry after {s} s.",
    STREAMS: "Too many open streams for this API key; close one or retry after {s} s.",
}


def rate_limited(app: Any, kind: str) -> None:
    """Metrics hook: one refused request of `kind` (requests|model|streams), counted by app/metrics.py
    (`suikou_rate_limited_total{kind}`; nothing when the app has no metrics)."""
    from app import metrics

    metrics.rate_limited(app, kind)


class Slots(Protocol):
    """Open-stream leases per key, each expiring `ttl` seconds after it was taken or renewed."""

    async def acquire(self, key: str) -> str | None: ...
    async def renew(self, key: str, lease: str) -> None: ...
    async def release(self, key: str, lease: str) -> None: ...


@dataclass
class MemorySlots:
    """One process. No await between the check and the add, so it is atomic under asyncio."""

    limit: int
    ttl: float
    clock: Callable[[], float] = time.monotonic
    leases: dict[str, dict[str, float]] = field(default_factory=dict)  # key -> lease -> expiry

    async def acquire(self, key: str) -> str | None:
        now = self.clock()
        held = {lease: end for lease, end in self.leases.get(key, {}).items() if end > now}
        if len(held) >= self.limit:
            self.leases[key] = held
            return None
        lease = uuid.uuid4().hex
        held[lease] = now + self.ttl
        self.leases[key] = held
        return lease

    async def renew(self, key: str, lease: str) -> None:
        held = self.leases.get(key, {})
        if lease in held:
            held[lease] = self.clock() + self.ttl

    async def release(self, key: str, lease: str) -> None:
        held = self.leases.get(key, {})
        held.pop(lease, None)
        if not held:
            self.leases.pop(key, None)


# A sorted set of leases per key, scored by expiry, in Redis server time (no clock skew between workers;
# a script may call TIME since Redis 5 replicates effects); and a set per worker of its "key lease"
# pairs (KEYS[2], when the worker has a stable name), which its successor reclaims. One script per
# operation: atomic across processes, one round trip each.
_NOW = "local t = redis.call('TIME'); local now = tonumber(t[1]) + tonumber(t[2]) / 1e6\n"
_OWNED = """
if KEYS[2] then
  redis.call('SADD', KEYS[2], ARGV[4])
  redis.call('PEXPIRE', KEYS[2], math.ceil(ttl * 1000))
end
"""
_ACQUIRE = (
    _NOW
    + """
local key, ttl, limit, lease = KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3]
redis.call('ZREMRANGEBYSCORE', key, '-inf', now)
if redis.call('ZCARD', key) >= limit then return 0 end
redis.call('ZADD', key, now + ttl, lease)
redis.call('PEXPIRE', key, math.ceil(ttl * 1000))
"""
    + _OWNED
    + "return 1\n"
)
_RENEW = (
    _NOW
    + """
local key, ttl, lease = KEYS[1], tonumber(ARGV[1]), ARGV[3]
redis.call('ZADD', key, 'XX', now + ttl, lease)
redis.call('PEXPIRE', key, math.ceil(ttl * 1000))
"""
    + _OWNED
    + "return 1\n"
)
_RELEASE = """
redis.call('ZREM', KEYS[1], ARGV[1])
if KEYS[2] then redis.call('SREM', KEYS[2], ARGV[2]) end
return 1
"""


class RedisSlots:
    """Stream leases shared through Redis. `owner`: this worker's stable name (`worker_name`), under
    which it records its leases; None records nothing (nothing to reclaim)."""

    def __init__(self, client: Any, limit: int, ttl: float, prefix: str, owner: str | None = None) -> None:
        self.client, self.limit, self.ttl, self.prefix = client, limit, ttl, prefix
        self.owned = [prefix + "worker:" + owner] if owner else []
        self._acquire = client.register_script(_ACQUIRE)
        self._renew = client.register_script(_RENEW)
        self._release = client.register_script(_RELEASE)

    async def acquire(self, key: str) -> str | None:
        lease = uuid.uuid4().hex
        args = [self.ttl, self.limit, lease, f"{key} {lease}"]
        ok = await self._acquire(keys=[self.prefix + key, *self.owned], args=args)
        return lease if ok else None

    async def renew(self, key: str, lease: str) -> None:
        await self._renew(keys=[self.prefix + key, *self.owned], args=[self.ttl, "", lease, f"{key} {lease}"])

    async def release(self, key: str, lease: str) -> None:
        await self._release(keys=[self.prefix + key, *self.owned], args=[lease, f"{key} {lease}"])

    async def reclaim(self) -> int:
        """At start: give back every lease an earlier process under this worker's name still holds
        (it was killed without releasing them); returns how many."""
        if not self.owned:
            return 0
        pairs = [member.decode().split(" ", 1) for member in await self.client.smembers(self.owned[0])]
        async with self.client.pipeline(transaction=False) as pipe:
            for key, lease in pairs:
                pipe.zrem(self.prefix + key, lease)
            pipe.delete(self.owned[0])
            freed = await pipe.execute()
        return sum(freed[:-1])


# --- a worker's stable name ---------------------------------------------------------------------

MAX_WORKERS_PER_HOST = 256


@dataclass
class WorkerName:
    """`host:port:n`, n the lowest worker number free on this host, held by an exclusive file lock that
    the kernel drops when the process dies, however it dies: the next worker to start takes the number
    of one that was killed (a restart by uvicorn's supervisor, systemd or the orchestrator), and with
    it the leases recorded under that name."""

    name: str
    lock: IO[str] | None = None

    def close(self) -> None:
        if self.lock is not None:
            self.lock.close()
            self.lock = None


def worker_name(port: int, lock_dir: Path | None = None) -> WorkerName:
    import fcntl

    host = socket.gethostname()
    base = f"{host}:{port}"
    folder = lock_dir or Path(tempfile.gettempdir())
    for number in range(MAX_WORKERS_PER_HOST):
        try:
            handle = open(folder / f"suikou-worker-{port}-{number}.lock", "a")  # noqa: SIM115 - held while serving
        except OSError:  # another user's file, a read-only folder: not ours to take
            continue
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:  # held by a live worker
            handle.close()
            continue
        return WorkerName(f"{base}:{number}", handle)
    return WorkerName(f"{base}:{uuid.uuid4().hex}")  # no number free: a name of its own, nothing to reclaim


def _storage_errors() -> tuple[type[BaseException], ...]:
    from limits.errors import StorageError
    from redis.exceptions import RedisError

    return (StorageError, RedisError, OSError)


@dataclass
class RateLimits:
    """The running limits of one app: built in its lifespan (Redis clients belong to one event loop)."""

    limiter: RateLimiter
    items: dict[str, RateLimitItem]  # REQUESTS / MODEL -> its window; absent = off
    slots: Slots | None
    stream_ttl: float
    client: Any = None  # the Redis client, when shared through Redis
    on_refused: Callable[[str], None] = lambda _kind: None  # the metrics hook, bound to the app
    errors: tuple[type[BaseException], ...] = field(default_factory=_storage_errors)
    paused_until: float = 0.0
    clock: Callable[[], float] = time.monotonic  # renewals and the outage pause (tests pass their own)
    worker: WorkerName | None = None  # held while the app runs (Redis stream slots only)

    async def check(self, kind: str, key: str) -> None:
        """Counts one request of `kind` for `key`; `RateLimited` when over the limit."""
        item = self.items.get(kind)
        if item is None or self._paused():
            return
        try:
            if await self.limiter.hit(item, kind, key):
                return
            stats = await self.limiter.get_window_stats(item, kind, key)
        except self.errors as exc:
            self._outage(exc)
            return
        self.refuse(kind, max(1, math.ceil(stats.reset_time - time.time())))

    async def lease(self, key: str) -> str | None:
        """A stream slot for `key` (None when streams are unlimited or Redis is down); `RateLimited` when full."""
        if self.slots is None or self._paused():
            return None
        try:
            lease = await self.slots.acquire(key)
        except self.errors as exc:
            self._outage(exc)
            return None
        if lease is None:
            self.refuse(STREAMS, STREAM_RETRY_S)
        return lease

    async def leased(self, body: AsyncIterator[str], key: str, lease: str) -> AsyncIterator[str]:
        """`body`, holding the lease: renewed every third of its TTL, released when the stream ends,
        fails or is cancelled (the client left)."""
        assert self.slots is not None
        renew_at = self.clock() + self.stream_ttl / 3
        try:
            async for item in body:
                yield item
                if self.clock() >= renew_at:
                    renew_at = self.clock() + self.stream_ttl / 3
                    await self._quietly(self.slots.renew(key, lease))
        finally:
            # Shielded: a cancelled stream still gives its slot back (within a second; else the TTL does).
            with anyio.move_on_after(1.0, shield=True):
                try:
                    close = getattr(body, "aclose", None)
                    if close is not None:
                        await close()  # the body's own `finally` (it stops its turn) runs now, not at GC
                finally:
                    await self._quietly(self.slots.release(key, lease))

    async def _quietly(self, op: Any) -> None:
        try:
            await op
        except self.errors as exc:
            self._outage(exc)

    def _paused(self) -> bool:
        return self.paused_until > self.clock()

    def _outage(self, exc: BaseException) -> None:
        """Fail open: the request is served unlimited; Redis is left alone for a few seconds."""
        self.paused_until = self.clock() + OUTAGE_PAUSE_S
        log.warning("rate limits unavailable, serving unlimited for %.0f s: %r", OUTAGE_PAUSE_S, exc)

    def refuse(self, kind: str, retry_after: int) -> None:
        self.on_refused(kind)
        raise RateLimited(_MESSAGES[kind].format(s=retry_after), retry_after=retry_after)

    async def reclaim(self) -> None:
        """At start: the leases a killed predecessor under this worker's name left (Redis slots only)."""
        if not isinstance(self.slots, RedisSlots):
            return
        try:
            freed = await self.slots.reclaim()
        except self.errors as exc:
            self._outage(exc)
            return
        if freed:
            log.info("gave back %d stream slots a stopped worker held (%s)", freed, self.worker and self.worker.name)

    async def aclose(self) -> None:
        if self.client is not None:
            await self.client.aclose()
        if self.worker is not None:
            self.worker.close()


# --- configuration --------------------------------------------------------------------------------


def windows(settings: Settings) -> dict[str, str]:
    return {kind: text for kind, text in ((REQUESTS, settings.rate_limit), (MODEL, settings.model_rate_limit)) if text}


def enabled(settings: Settings) -> bool:
    return bool(windows(settings)) or settings.max_streams_per_key > 0


def parse_items(settings: Settings) -> dict[str, RateLimitItem]:
    """The configured windows; a bad limit string stops start-up, naming the setting."""
    from limits import parse

    items = {}
    for kind, text in windows(settings).items():
        try:
            items[kind] = parse(text)
        except ValueError as exc:
            name = "SUIKOU_RATE_LIMIT" if kind == REQUESTS else "SUIKOU_MODEL_RATE_LIMIT"
            raise ValueError(f"{name}={text!r} is not a limit like '120/minute': {exc}") from exc
    return items


def redis_client(url: str) -> Any:
    """Short timeouts and no retries: a request never waits long on a Redis that is down."""
    import redis.asyncio as aredis
    from redis.asyncio.retry import Retry
    from redis.backoff import NoBackoff

    return aredis.Redis.from_url(url, socket_connect_timeout=0.5, socket_timeout=0.5, retry=Retry(NoBackoff(), 0))


def build(settings: Settings) -> RateLimits:
    from limits.aio.strategies import SlidingWindowCounterRateLimiter
    from limits.storage import storage_from_string

    items, ttl, client, worker = parse_items(settings), settings.stream_lease_seconds, None, None
    slots: Slots | None = None
    if settings.redis_url:
        client = redis_client(settings.redis_url)
        storage = storage_from_string(
            "async+" + settings.redis_url,
            implementation="redispy",
            connection_pool=client.connection_pool,
            key_prefix=settings.redis_prefix + "limits",
            wrap_exceptions=True,
        )
        if settings.max_streams_per_key:
            worker = worker_name(settings.port)
            prefix = settings.redis_prefix + "streams:"
            slots = RedisSlots(client, settings.max_streams_per_key, ttl, prefix, owner=worker.name)
    else:
        storage = storage_from_string("async+memory://")
        if settings.max_streams_per_key:
            slots = MemorySlots(settings.max_streams_per_key, ttl)
    return RateLimits(SlidingWindowCounterRateLimiter(storage), items, slots, ttl, client, worker=worker)


@asynccontextmanager
async def serving(app: FastAPI, settings: Settings) -> AsyncIterator[None]:
    """Lifespan part: `app.state.rate_limits` while the app runs (None when every limit is off)."""
    limits = build(settings) if enabled(settings) else None
    if limits is not None:
        limits.on_refused = partial(rate_limited, app)
        await limits.reclaim()
    app.state.rate_limits = limits
    try:
        yield
    finally:
        if limits is not None:
            await limits.aclose()


# --- per request ----------------------------------------------------------------------------------


def model_backed(hub: ModelHub) -> bool:
    """Some node may call a real provider (the rest answer with offline rules and cost nothing)."""
    from core.llm import OFFLINE

    return bool(hub.injected) or hub.default != OFFLINE or any(name != OFFLINE for name in hub.per_node.values())


async def limit_requests(request: Request, user: CurrentUser) -> None:
    """Route dependency: auth resolved the user already (FastAPI caches it for the endpoint)."""
    limits: RateLimits = request.app.state.rate_limits
    await limits.check(REQUESTS, str(user.id))


async def limit_chat(request: Request, user: CurrentUser) -> None:
    limits: RateLimits = request.app.state.rate_limits
    await limits.check(REQUESTS, str(user.id))
    if MODEL in limits.items and request.url.path in CHAT_PATHS and model_backed(request.app.state.suikou.hub):
        await limits.check(MODEL, str(user.id))


def route_options(settings: Settings, *, chat: bool) -> dict[str, Any]:
    """`include_router` options: the dependency and the documented 429, only for limits that are on."""
    counted = windows(settings) if chat else {k: v for k, v in windows(settings).items() if k == REQUESTS}
    options: dict[str, Any] = {}
    if counted:
        parse_items(settings)  # a bad limit string stops create_app, not the first request
        options["dependencies"] = [Depends(limit_chat if chat else limit_requests)]
    if counted or (chat and settings.max_streams_per_key):
        options["responses"] = error_responses(429)
    return options


async def stream_lease(request: Request, user_id: int) -> Callable[[AsyncIterator[str]], AsyncIterator[str]]:
    """Takes a stream slot before the response starts (429 when full); returns the body's wrapper."""
    limits: RateLimits | None = getattr(request.app.state, "rate_limits", None)
    lease = await limits.lease(str(user_id)) if limits is not None else None
    if limits is None or lease is None:
        return _unchanged
    return lambda body: limits.leased(body, str(user_id), lease)


def _unchanged(body: AsyncIterator[str]) -> AsyncIterator[str]:
    return body
