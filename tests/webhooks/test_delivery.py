"""Webhook deliveries end to end, against local fakes of each receiver: every kind's format and
signature as its service checks it, retries after 500s and timeouts, the retry schedule, failure
after the last attempt, redelivery with the same id, and another user's webhooks never seeing
anything. Runs on the backend `database_url` picks (CI runs it on both)."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlmodel import col, select

from core import writes
from core.models import Delivery, TaskCreate
from support.fake_receivers import Receiver, receiver, title_of
from support.harness import NOW, Harness, local
from webhooks import engine, kinds, service


class Clock:
    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock(NOW)


def _engine(harness: Harness, clock: Clock, **config: Any) -> engine.Engine:
    settings = {"allow_private": True, "poll_s": 0.05, "timeout_s": 2.0, **config}
    return engine.Engine(harness.state.session, clock, engine.EngineConfig(**settings))


def _hook(harness: Harness, fake: Receiver, *, user: str = "alice", events: list[str] | None = None, **kw: Any) -> int:
    async def make() -> service.Created:
        with harness.state.session() as session:
            return await service.create(
                session,
                harness.user(user),
                url=fake.url,
                events=events or ["*"],
                kind=fake.kind,
                secret=fake.secret,
                timezone="Asia/Shanghai",
                now=NOW,
                allow_private=True,
                **kw,
            )

    created = asyncio.run(make())
    assert created.webhook.id is not None
    if fake.kind == "generic" and fake.secret is None:
        fake.secret = created.secret  # made by Suikou, shown once: the receiver keeps it
    return created.webhook.id


def _write(harness: Harness, title: str = "交报告", user: str = "alice", deadline: str = "2026-12-01 15:00") -> int:
    with writes.writing(harness.state.session, writes.author(harness.user(user), NOW, "rest")) as w:
        task = w.create(TaskCreate(title=title, deadline_at=local(deadline)))
    assert task.id is not None
    return task.id


def _deliveries(harness: Harness) -> list[Delivery]:
    with harness.state.session() as session:
        return list(session.exec(select(Delivery).order_by(col(Delivery.created_at))))


@pytest.fixture
def run(harness: Harness, clock: Clock) -> Iterator[Any]:
    def once(**config: Any) -> int:
        return asyncio.run(_engine(harness, clock, **config).run_once())

    yield once


@pytest.mark.parametrize("kind", ["generic", "feishu", "wecom", "dingtalk", "ntfy"])
@pytest.mark.parametrize("signed", [True, False])
def test_each_kind_is_spoken_to_as_its_service_expects(harness: Harness, run: Any, kind: str, signed: bool) -> None:
    if kind == "wecom" and signed:
        pytest.skip("a WeCom group bot has no signing secret: its key is in the URL")
    secret = ("tk_AbC123" if kind == "ntfy" else "s3cret-汉字") if signed else None
    with receiver(kind, secret) as fake:
        _hook(harness, fake)
        _write(harness, "交季度报告")
        assert run() == 1
        [got] = fake.wait(1)
    [delivery] = _deliveries(harness)
    assert (delivery.status, delivery.attempts, delivery.last_error) == ("succeeded", 1, None)
    if kind == "generic":
        body = got.json()
        assert body["type"] == "task.created" and body["data"]["task"]["title"] == "交季度报告"
        assert body["data"]["change_id"] > 0 and body["id"].startswith("evt_")
        assert got.headers["x-suikou-delivery"] == delivery.id and got.headers["x-suikou-event"] == "task.created"
        assert got.headers["x-suikou-signature"].startswith("t=")  # always signed: a secret is made if none is given
        assert (fake.secret or "").startswith("s3cret" if signed else "whsec_")
    elif kind == "ntfy":
        assert got.body.decode() == "新任务：交季度报告（12月1日 周二 15:00 截止）"
        assert title_of(got) == "新任务：交季度报告" and got.headers["priority"] == "default"
    else:
        text = got.json()["content"]["text"] if kind == "feishu" else got.json()["text"]["content"]
        assert text == "新任务：交季度报告（12月1日 周二 15:00 截止）"


def test_a_wrong_secret_is_the_services_own_refusal_and_is_retried(harness: Harness, run: Any, clock: Clock) -> None:
    with receiver("feishu", "the-right-one") as fake:
        hook = _hook(harness, fake)
        with harness.state.session() as session:  # the bot's secret was rotated; ours is stale
            row = service.get(session, harness.user(), hook)
            assert row is not None
            row.secret = "an-old-one"
            session.add(row)
            session.commit()
        _write(harness)
        run()
        assert fake.received and not fake.accepted
    [delivery] = _deliveries(harness)
    assert delivery.status == "pending" and delivery.attempts == 1
    assert delivery.last_error == "feishu error 19021: sign match fail"
    assert delivery.next_attempt_at is not None and delivery.next_attempt_at >= NOW + timedelta(seconds=27)


def test_a_500_and_a_timeout_are_retried_on_the_schedule_with_the_same_delivery_id(
    harness: Harness, run: Any, clock: Clock
) -> None:
    with receiver("generic", "k") as fake:
        fake.script = [500, "hang"]
        fake.hang_s = 2.0
        _hook(harness, fake)
        _write(harness)
        run(timeout_s=0.5)  # 500
        [first] = _deliveries(harness)
        assert (first.status, first.attempts, first.last_status) == ("pending", 1, 500)
        assert run() == 0  # not due yet: the first retry is about 30 s later
        clock.now = NOW + timedelta(seconds=40)
        run(timeout_s=0.5)  # hangs past the timeout
        [second] = _deliveries(harness)
        assert (second.attempts, second.last_error) == (2, "timed out after 0.5 s")
        assert second.next_attempt_at is not None
        assert timedelta(seconds=100) <= second.next_attempt_at - clock.now <= timedelta(seconds=140)
        clock.now = second.next_attempt_at + timedelta(seconds=1)
        run()
        got = fake.wait(1)
    ids = {r.headers["x-suikou-delivery"] for r in fake.received}
    assert ids == {first.id}  # three tries, one delivery id: receivers dedupe on it
    assert len(got) == 1 and _deliveries(harness)[0].status == "succeeded"


def test_a_reply_dripped_a_byte_at_a_time_is_cut_off_at_the_timeout(harness: Harness, run: Any) -> None:
    """httpx's timeout bounds each read; the engine bounds the whole send, so a lease set for one
    timeout is never outlived by a receiver that keeps the connection busy."""
    with receiver("generic") as fake:
        _hook(harness, fake)
        fake.script = ["drip"]  # ~10 s of reply, never 0.2 s without a byte
        _write(harness)
        started = time.monotonic()
        assert run(timeout_s=1.0) == 1
        took = time.monotonic() - started
    [delivery] = _deliveries(harness)
    assert delivery.status == "pending" and delivery.last_error == "timed out after 1 s"
    assert took < 5, took


def test_two_workers_with_a_slow_receiver_send_each_delivery_once(harness: Harness) -> None:
    """Two engines on one database, a receiver that takes 0.4 s a reply, and a lease of 2.5 s: a
    worker claims only what it sends at once, so nothing it claimed waits past its lease for
    another worker to take too (claiming 16 and sending them two at a time would take 3.2 s)."""
    real = lambda: datetime.now(UTC)  # noqa: E731 - leases must run out in real time here
    config = engine.EngineConfig(allow_private=True, timeout_s=1.0, lease=timedelta(seconds=2.5), concurrency=2)
    with receiver("generic") as fake:
        _hook(harness, fake)
        for i in range(16):
            _write(harness, title=f"任务{i}")
        fake.delay_s = 0.4

        async def drain(worker: engine.Engine) -> None:
            deadline = time.monotonic() + 30
            while len(fake.accepted) < 16 and time.monotonic() < deadline:
                if await worker.run_once() == 0:
                    await asyncio.sleep(0.05)

        async def both() -> None:
            workers = [engine.Engine(harness.state.session, real, config) for _ in range(2)]
            await asyncio.gather(*(drain(w) for w in workers))

        asyncio.run(both())
        time.sleep(0.5)  # a second copy would be on its way by now
        ids = [r.headers["x-suikou-delivery"] for r in fake.received]
    assert len(ids) == len(set(ids)) == 16
    assert [d.status for d in _deliveries(harness)] == ["succeeded"] * 16


def test_a_claim_that_would_outlive_its_lease_is_handed_back_unsent(harness: Harness, clock: Clock) -> None:
    """A send may take timeout_s; one that can't start with that much of its lease left is not
    started (here every one: a lease shorter than the timeout, which the settings refuse)."""
    with receiver("generic") as fake:
        _hook(harness, fake)
        _write(harness)
        short = _engine(harness, clock, timeout_s=2.0, lease=timedelta(seconds=1))
        assert asyncio.run(short.run_once()) == 1
        [delivery] = _deliveries(harness)
        assert fake.received == [] and (delivery.lease_token, delivery.attempts) == (None, 0)  # no attempt spent
        assert asyncio.run(_engine(harness, clock).run_once()) == 1
        assert len(fake.received) == 1 and _deliveries(harness)[0].status == "succeeded"


def test_after_the_last_attempt_it_is_failed_and_redelivery_starts_again(
    harness: Harness, run: Any, clock: Clock
) -> None:
    with receiver("wecom") as fake:
        fake.script = [503] * engine.MAX_ATTEMPTS
        hook = _hook(harness, fake)
        _write(harness)
        for _ in range(engine.MAX_ATTEMPTS):
            run()
            clock.now += timedelta(hours=9)  # past any delay of the schedule
        [delivery] = _deliveries(harness)
        assert (delivery.status, delivery.attempts) == ("failed", engine.MAX_ATTEMPTS)
        assert sum(engine.RETRY_DELAYS, timedelta()) > timedelta(hours=20)  # about a day of retries
        with harness.state.session() as session:
            again = service.redeliver(session, harness.user(), hook, delivery.id, now=clock.now)
            assert again is not None and again.status == "pending"
            assert service.redeliver(session, harness.user("bob"), hook, delivery.id, now=clock.now) is None
        run()
        fake.wait(1)
    assert _deliveries(harness)[0].status == "succeeded"


def test_only_the_events_a_webhook_takes_and_only_its_owners(harness: Harness, run: Any) -> None:
    with receiver("generic", "k") as mine, receiver("generic", "k") as bobs:
        _hook(harness, mine, events=["task.completed"])
        _hook(harness, bobs, user="bob")
        task_id = _write(harness)
        with writes.writing(harness.state.session, writes.author(harness.user(), NOW, "rest")) as w:
            task = w.lock(task_id)
            assert task is not None
            w.complete(task, True)
        run()
        [got] = mine.wait(1)
        assert bobs.received == []
    assert got.json()["type"] == "task.completed"


def test_a_write_that_rolls_back_sends_nothing(harness: Harness, run: Any) -> None:
    with receiver("generic", "k") as fake:
        _hook(harness, fake)
        with (
            pytest.raises(RuntimeError),
            writes.writing(harness.state.session, writes.author(harness.user(), NOW, "rest")) as w,
        ):
            w.create(TaskCreate(title="不会留下"))
            raise RuntimeError("the transaction fails after the write")
        assert run() == 0
    assert _deliveries(harness) == []


def test_the_retry_schedule_is_documented_and_jittered() -> None:
    import random

    rng = random.Random(1)
    delays = [engine.retry_delay(n, rng) for n in range(1, engine.MAX_ATTEMPTS)]
    assert delays[0] < timedelta(minutes=1)  # the first retry within a minute
    for got, base in zip(delays, engine.RETRY_DELAYS, strict=True):
        assert base * 0.9 <= got <= base * 1.1


def test_bot_messages_in_english_and_for_late_reminders() -> None:
    env = kinds.Envelope(
        "dlv_1", 1, "reminder.due", local("2026-12-03 14:35"),
        {"task": {"title": "Send report", "deadline_at": "2026-12-03T07:00:00+00:00"},
         "reminder": {"at": "2026-12-03T06:30:00+00:00"}, "late": True},
        "en", "Asia/Shanghai",
    )  # fmt: skip
    assert kinds.message(env) == (
        "⏰ Reminder: Send report",
        "⏰ Reminder: Send report (due Thu Dec 3, 15:00) (a late reminder, meant for Thu Dec 3, 14:30)",
    )
    assert json.loads(kinds.render("wecom", "https://x/y", None, env, now=0).body)["msgtype"] == "text"


def test_a_lease_shorter_than_a_send_is_refused_at_start() -> None:
    from app.settings import Settings

    with pytest.raises(ValueError, match="delivery_lease_s"):
        Settings(_env_file=None, webhook_timeout_s=30, delivery_lease_s=20)  # type: ignore[call-arg]
    assert Settings(_env_file=None, webhook_timeout_s=30, delivery_lease_s=35).delivery_lease_s == 35  # type: ignore[call-arg]
