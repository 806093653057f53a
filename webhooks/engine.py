"""The delivery engine: claim due deliveries, send them, record what happened (docs/fdr/0038).

**Claim.** A worker takes up to ``batch`` due deliveries in one statement that sets their lease
(``lease_until``, ``lease_token``) and counts the attempt: on PostgreSQL the candidate rows are
read ``FOR UPDATE SKIP LOCKED``, so concurrent workers (processes, replicas) take disjoint sets; on
SQLite the statement holds the database's write lock. A worker killed mid-delivery leaves its lease
to expire; the delivery is then claimed again and sent again under the same delivery id, which is
what receivers dedupe on (at least once, never silently lost). A live worker never sends past its
lease: a whole send (address check, connect, reply) is bounded by ``timeout_s``, and a claimed
delivery whose turn (``concurrency`` at a time) comes too late to finish well inside the lease is
handed back unsent, its attempt uncounted — so no second worker sends it too. The settings keep the
lease longer than the timeout.

**Send.** Each delivery's URL is checked again (:mod:`webhooks.safety`) and the request goes to the
address checked, redirects not followed, with a bounded time and a bounded reply read.

**Record.** Only the holder of the lease records the outcome. Taken: succeeded. Not taken: the
next attempt after :data:`RETRY_DELAYS` (30 s, then doubling-ish up to 8 h, about 23.5 hours in all,
with ±10 % jitter); after the last, failed, and visible in ``GET /webhooks/{id}/deliveries`` until
someone redelivers it.

The same loop fires due reminders first (:func:`core.reminders.fire_due`), so a reminder's delivery
is claimable the moment its transaction commits.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import random
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Protocol

import httpx
import sqlalchemy as sa
from sqlmodel import Session, col, select

from core import reminders
from core.locale import Locale
from core.models import Delivery, Event, Webhook
from webhooks import kinds, safety

__all__ = [
    "MAX_ATTEMPTS",
    "RETRY_DELAYS",
    "Engine",
    "EngineConfig",
    "Observer",
    "Outcome",
    "retry_delay",
]

log = logging.getLogger("suikou.webhooks")

RETRY_DELAYS: tuple[timedelta, ...] = tuple(
    timedelta(seconds=s) for s in (30, 120, 600, 1800, 3600, 7200, 14400, 28800, 28800)
)
MAX_ATTEMPTS = len(RETRY_DELAYS) + 1
MAX_REPLY_BYTES = 64 * 1024


def retry_delay(attempts: int, rng: random.Random | None = None) -> timedelta:
    """How long after the ``attempts``-th failed attempt the next one is (±10 % jitter)."""
    base = RETRY_DELAYS[min(attempts, len(RETRY_DELAYS)) - 1]
    return base * (0.9 + 0.2 * (rng or random).random())


class Observer(Protocol):
    """What the engine reports (the app turns it into metrics; feature code never imports them)."""

    def delivered(self, kind: str, event_type: str, outcome: str, lag_s: float) -> None: ...

    def queue_depth(self, pending: int) -> None: ...


class _Quiet:
    def delivered(self, kind: str, event_type: str, outcome: str, lag_s: float) -> None:
        return None

    def queue_depth(self, pending: int) -> None:
        return None


@dataclass(frozen=True)
class EngineConfig:
    allow_private: bool = False
    timeout_s: float = 10.0
    lease: timedelta = timedelta(seconds=60)
    concurrency: int = 8
    batch: int = 32  # claimed at once; one that would start too late for its lease is handed back unsent
    late_window: timedelta = timedelta(hours=1)
    poll_s: float = 1.0


@dataclass(frozen=True)
class Job:
    delivery_id: str
    token: str
    attempts: int
    kind: str
    url: str
    secret: str | None
    envelope: kinds.Envelope
    due_at: datetime  # when it became due (the event's time, or the retry's)
    send_by: float = float("inf")  # time.monotonic() after which a send could outlast the lease


@dataclass(frozen=True)
class Outcome:
    delivery_id: str
    ok: bool
    status: int | None = None
    error: str | None = None


@dataclass
class Engine:
    """One process's worker: ``run_once`` is one pass, ``run`` loops until stopped."""

    sessions: Callable[[], Session]
    clock: Callable[[], datetime]
    config: EngineConfig = field(default_factory=EngineConfig)
    observer: Observer = field(default_factory=_Quiet)
    transport: httpx.AsyncBaseTransport | None = None  # tests: a mock transport; None: the network
    # Signatures carry the real time, whatever clock schedules: receivers refuse an old timestamp.
    wall: Callable[[], float] = time.time

    # --- the database side (synchronous; run on a thread) -----------------------------------------

    def fire_reminders(self) -> int:
        with self.sessions() as session:
            fired = reminders.fire_due(session, now=self.clock(), late_window=self.config.late_window)
            session.commit()
        return len(fired)

    def claim(self) -> list[Job]:
        """Leases up to ``batch`` due deliveries to this worker."""
        now = self.clock()
        token = uuid.uuid4().hex
        table = Delivery.__table__  # type: ignore[attr-defined]
        due = (
            sa.select(table.c.id)
            .where(
                table.c.status == "pending",
                table.c.next_attempt_at <= now,
                sa.or_(table.c.lease_until.is_(None), table.c.lease_until < now),
            )
            .order_by(table.c.next_attempt_at)
            .limit(self.config.batch)
        )
        started = time.monotonic()
        with self.sessions() as session:
            if session.get_bind().dialect.name == "postgresql":
                due = due.with_for_update(skip_locked=True)
            claim = (
                sa.update(table)
                .where(table.c.id.in_(due.scalar_subquery()))
                .values(lease_until=now + self.config.lease, lease_token=token, attempts=table.c.attempts + 1)
                .returning(table.c.id)
            )
            ids = [str(i) for i in session.execute(claim).scalars().all()]
            session.commit()
            jobs = self._jobs(session, ids, token)
        # A send must start early enough to end (within timeout_s) and be recorded well inside the
        # lease: in the first half of the lease's slack over the timeout.
        send_by = started + (self.config.lease.total_seconds() - self.config.timeout_s) / 2
        return [replace(job, send_by=send_by) for job in jobs]

    def release(self, job: Job) -> None:
        """Hands a claimed delivery back unsent (its attempt uncounted): due again at once."""
        table = Delivery.__table__  # type: ignore[attr-defined]
        with self.sessions() as session:
            session.execute(
                sa.update(table)
                .where(table.c.id == job.delivery_id, table.c.lease_token == job.token)
                .values(lease_until=None, lease_token=None, attempts=table.c.attempts - 1)
            )
            session.commit()

    def _jobs(self, session: Session, ids: Sequence[str], token: str) -> list[Job]:
        if not ids:
            return []
        rows = session.exec(
            select(Delivery, Event, Webhook)
            .join(Event, col(Event.id) == col(Delivery.event_id))
            .join(Webhook, col(Webhook.id) == col(Delivery.webhook_id))
            .where(col(Delivery.id).in_(list(ids)), col(Delivery.lease_token) == token)
        ).all()
        jobs = []
        for delivery, event, hook in rows:
            assert event.id is not None
            locale: Locale = "en" if hook.locale == "en" else "zh"
            envelope = kinds.Envelope(
                delivery.id, event.id, event.type, event.created_at, json.loads(event.payload), locale, hook.timezone
            )
            due = delivery.next_attempt_at or event.created_at
            jobs.append(Job(delivery.id, token, delivery.attempts, hook.kind, hook.url, hook.secret, envelope, due))
        return jobs

    def record(self, job: Job, outcome: Outcome) -> None:
        """The outcome, if this worker still holds the lease (a slower one that lost it writes nothing)."""
        now = self.clock()
        table = Delivery.__table__  # type: ignore[attr-defined]
        values: dict[str, object] = {"lease_until": None, "lease_token": None, "last_status": outcome.status}
        if outcome.ok:
            values.update(status="succeeded", delivered_at=now, last_error=None, next_attempt_at=None)
        elif job.attempts >= MAX_ATTEMPTS:
            values.update(status="failed", last_error=outcome.error, next_attempt_at=None)
        else:
            values.update(last_error=outcome.error, next_attempt_at=now + retry_delay(job.attempts))
        with self.sessions() as session:
            session.execute(
                sa.update(table).where(table.c.id == job.delivery_id, table.c.lease_token == job.token).values(**values)
            )
            session.commit()
        result = "succeeded" if outcome.ok else ("failed" if job.attempts >= MAX_ATTEMPTS else "retry")
        lag = max(0.0, (now - job.due_at).total_seconds())
        self.observer.delivered(job.kind, job.envelope.event_type, result, lag)

    def pending(self) -> int:
        with self.sessions() as session:
            stmt = sa.select(sa.func.count()).select_from(Delivery).where(col(Delivery.status) == "pending")
            return int(session.execute(stmt).scalar_one())

    # --- the network side -------------------------------------------------------------------------

    async def send(self, client: httpx.AsyncClient, job: Job) -> Outcome:
        """One delivery, all of it within ``timeout_s`` (httpx's timeout bounds each read, not a
        receiver that drips its reply a byte at a time)."""
        try:
            async with asyncio.timeout(self.config.timeout_s):
                return await self._send(client, job)
        except TimeoutError:
            return Outcome(job.delivery_id, False, None, f"timed out after {self.config.timeout_s:g} s")

    async def _send(self, client: httpx.AsyncClient, job: Job) -> Outcome:
        try:
            target = await safety.resolve(job.url, allow_private=self.config.allow_private)
        except safety.Refused as exc:
            return Outcome(job.delivery_id, False, None, str(exc))
        try:
            out = kinds.render(job.kind, target.url, job.secret, job.envelope, now=int(self.wall()))
            pinned = safety.Target(out.url, target.scheme, target.host, target.port, target.address)
            headers = {**out.headers, "Host": pinned.host_header}
            request = client.build_request("POST", pinned.pinned_url(), content=out.body, headers=headers)
        except (ValueError, TypeError) as exc:  # a stored value no request can carry
            return Outcome(job.delivery_id, False, None, f"can't build the request: {exc}"[:300])
        if target.scheme == "https":
            request.extensions["sni_hostname"] = target.host  # TLS checks the name, not the address
        try:
            try:
                response = await client.send(request, stream=True)
            except (httpx.ConnectError, httpx.RemoteProtocolError):
                # A refused connection or a kept-alive one the receiver had just closed: once more at once,
                # rather than a retry half a minute later (receivers dedupe on the delivery id anyway).
                await asyncio.sleep(0.2)
                response = await client.send(request, stream=True)
            try:
                reply = await _read_bounded(response)
            finally:
                await response.aclose()
        except httpx.TimeoutException:
            return Outcome(job.delivery_id, False, None, f"timed out after {self.config.timeout_s:g} s")
        except httpx.HTTPError as exc:
            return Outcome(job.delivery_id, False, None, f"{type(exc).__name__}: {exc}"[:300])
        error = kinds.accepted(job.kind, response.status_code, reply)
        if 300 <= response.status_code < 400:
            error = f"HTTP {response.status_code}: redirects are not followed"
        return Outcome(job.delivery_id, error is None, response.status_code, error)

    def client(self) -> httpx.AsyncClient:
        return httpx.AsyncClient(
            timeout=httpx.Timeout(self.config.timeout_s),
            follow_redirects=False,
            transport=self.transport,
            limits=httpx.Limits(max_connections=self.config.concurrency * 2),
            trust_env=False,  # a proxy from the environment would defeat the address check
        )

    # --- passes -------------------------------------------------------------------------------------

    async def deliver(self, job: Job, client: httpx.AsyncClient) -> None:
        """Sends one claimed delivery and records what happened; hands it back unsent when it could
        not finish within its lease."""
        if time.monotonic() > job.send_by:
            await asyncio.to_thread(self.release, job)
            return
        outcome = await self.send(client, job)
        await asyncio.to_thread(self.record, job, outcome)
        if not outcome.ok:
            log.info("delivery %s to a %s webhook not taken: %s", job.delivery_id, job.kind, outcome.error)

    async def run_once(self, client: httpx.AsyncClient | None = None) -> int:
        """Fires due reminders, then claims a batch and sends it, ``concurrency`` at a time; how
        many deliveries it handled."""
        await asyncio.to_thread(self.fire_reminders)
        jobs = await asyncio.to_thread(self.claim)
        if not jobs:
            return 0
        gate = asyncio.Semaphore(self.config.concurrency)

        async def one(job: Job, c: httpx.AsyncClient) -> None:
            try:  # its turn, while there is still time to send it within the lease
                await asyncio.wait_for(gate.acquire(), timeout=max(0.0, job.send_by - time.monotonic()))
            except TimeoutError:
                await asyncio.to_thread(self.release, job)  # at once: another worker may send it now
                return
            try:
                await self.deliver(job, c)
            finally:
                gate.release()

        if client is not None:
            await asyncio.gather(*(one(j, client) for j in jobs))
        else:
            async with self.client() as own:
                await asyncio.gather(*(one(j, own) for j in jobs))
        return len(jobs)

    async def run(self, stop: asyncio.Event) -> None:
        """Passes until ``stop`` is set; an idle pass waits ``poll_s``. A pass that fails (the
        database away) is logged and the next one tries again."""
        last_depth = -self.config.poll_s
        async with self.client() as client:
            while not stop.is_set():
                try:
                    handled = await self.run_once(client)
                    if time.monotonic() - last_depth >= self.config.poll_s:
                        last_depth = time.monotonic()
                        self.observer.queue_depth(await asyncio.to_thread(self.pending))
                except Exception:  # the loop outlives any one pass
                    log.exception("delivery pass failed")
                    handled = 0
                if handled == 0:
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(stop.wait(), timeout=self.config.poll_s)


async def _read_bounded(response: httpx.Response) -> bytes:
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.aiter_bytes():
        chunks.append(chunk)
        size += len(chunk)
        if size >= MAX_REPLY_BYTES:
            break
    return b"".join(chunks)[:MAX_REPLY_BYTES]
