"""Per-key limits (app/ratelimit.py): request and model budgets, open streams, memory and Redis."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from app import api_chat, ratelimit
from app.errors import RateLimited
from app.main import create_app
from core.llm import ModelHub
from support.harness import Harness, make_harness
from support.live import free_port, serve
from support.redis_keys import REDIS_URL

ROOT = Path(__file__).resolve().parents[2]
CHAT = "/v1/chat/completions"
BAD_CHAT: dict[str, Any] = {"model": "suikou", "messages": []}  # a 400 after the limits ran: no turn, no provider


def bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def clear_of_the_minute_boundary(margin_s: float = 20.0) -> None:
    """Waits (at most ``margin_s``) until a test has that long before the next minute: the sliding
    window weighs the last minute's hits down as a new minute runs, so a slow test that crosses the
    boundary would get one request more than its limit (CI under load did)."""
    left = 60 - time.time() % 60
    if left < margin_s:
        time.sleep(left + 0.1)


@pytest.fixture
def limited(database_url: str) -> Iterator[Harness]:
    h = make_harness(database_url, rate_limit="3/minute")
    clear_of_the_minute_boundary()
    yield h
    h.state.engine.dispose()


def assert_429(r: Any, kind: str = "requests") -> None:  # an httpx or a TestClient response
    assert r.status_code == 429, r.text
    assert r.json()["error"]["type"] == "rate_limit_error"
    assert r.json()["error"]["code"] == "rate_limit_exceeded"
    assert kind in r.json()["error"]["message"]
    assert 1 <= int(r.headers["Retry-After"]) <= 60


def test_a_key_over_its_limit_gets_429_while_another_key_is_served(limited: Harness) -> None:
    alice, bob = limited.api_key("alice"), limited.api_key("bob")
    with TestClient(create_app(limited.state.settings, state=limited.state)) as client:
        assert [client.get("/tasks", headers=bearer(alice)).status_code for _ in range(2)] == [200, 200]
        # Chat shares the request budget with REST: the third request of any kind is the last one.
        assert client.post(CHAT, json=BAD_CHAT, headers=bearer(alice)).status_code == 400
        assert_429(client.get("/tasks", headers=bearer(alice)))
        assert_429(client.post(CHAT, json=BAD_CHAT, headers=bearer(alice)))
        assert client.get("/tasks", headers=bearer(bob)).status_code == 200
        # Auth comes first: an unknown key is a 401, never counted against anyone.
        assert client.get("/tasks", headers=bearer("sk-nope")).status_code == 401


def test_refusals_are_counted_in_the_metrics(database_url: str) -> None:
    h = make_harness(database_url, rate_limit="1/minute", metrics=True)
    clear_of_the_minute_boundary()
    with TestClient(create_app(h.state.settings, state=h.state)) as client:
        assert [client.get("/tasks").status_code for _ in range(3)] == [200, 429, 429]
        exposition = client.get("/metrics").text
    assert 'suikou_rate_limited_total{kind="requests"} 2.0' in exposition
    h.state.engine.dispose()


def test_ops_endpoints_are_never_limited(limited: Harness) -> None:
    with TestClient(create_app(limited.state.settings, state=limited.state)) as client:
        codes = {client.get(path).status_code for path in ("/healthz", "/readyz") * 5}
        assert codes == {200}
        assert [client.get("/tasks").status_code for _ in range(4)] == [200, 200, 200, 429]


def test_the_model_budget_counts_only_when_a_provider_is_configured(database_url: str) -> None:
    provider = ModelHub(default="gpt-4o-mini", base_url="http://127.0.0.1:9/v1")  # never reached: bodies are bad
    for hub, expected in ((None, [400, 400, 400]), (provider, [400, 400, 429])):
        h = make_harness(database_url, hub=hub, model_rate_limit="2/minute")
        clear_of_the_minute_boundary()
        with TestClient(create_app(h.state.settings, state=h.state)) as client:
            codes = [client.post(CHAT, json=BAD_CHAT).status_code for _ in range(3)]
            assert codes == expected
            if hub is not None:
                assert_429(client.post(CHAT, json=BAD_CHAT), "model requests")
                assert client.get("/tasks").status_code == 200  # REST is not a model request
        h.state.engine.dispose()
        database_url = database_url.replace("suikou.db", "second.db")


@pytest.mark.parametrize(
    ("hub", "backed"),
    [
        (ModelHub(), False),
        (ModelHub(per_node={"plan": "offline"}), False),
        (ModelHub(per_node={"plan": "gpt-4o-mini"}), True),
        (ModelHub(default="gpt-4o-mini"), True),
    ],
)
def test_model_backed_follows_the_hub(hub: ModelHub, backed: bool) -> None:
    assert ratelimit.model_backed(hub) is backed


def test_limits_off_install_nothing(harness: Harness) -> None:
    app = create_app(harness.state.settings, state=harness.state)
    assert all(not getattr(route, "dependencies", []) for route in app.routes)
    doc = app.openapi()
    assert not [op for ops in doc["paths"].values() for op in ops.values() if "429" in op["responses"]]
    with TestClient(app) as client:
        assert app.state.rate_limits is None
        assert [client.get("/tasks").status_code for _ in range(3)] == [200] * 3


KEYED = ("/tasks", "/changes", "/webhooks", "/v1/", "/agent/", "/import", "/calendar", "/lists", "/labels")


def test_the_document_lists_429_with_retry_after_where_limits_apply(limited: Harness) -> None:
    doc = create_app(limited.state.settings, state=limited.state).openapi()
    limited_ops = {(path, method) for path, ops in doc["paths"].items() for method, op in ops.items()}
    for path, method in limited_ops:
        responses = doc["paths"][path][method]["responses"]
        keyed = path.startswith(KEYED)
        applies = keyed and path != "/calendar/{token}.ics"  # a subscribe link's feed has no key to count
        assert ("429" in responses) is applies, (path, method)
        if applies:
            assert "Retry-After" in responses["429"]["headers"]
    assert "/readyz" in doc["paths"] and "/healthz" in doc["paths"]


def test_a_bad_limit_string_stops_create_app(harness: Harness) -> None:
    settings = harness.state.settings.model_copy(update={"rate_limit": "lots"})
    with pytest.raises(ValueError, match="SUIKOU_RATE_LIMIT"):
        create_app(settings, state=harness.state)


def test_chat_paths_match_the_chat_router() -> None:
    assert frozenset(api_chat.CHAT_PATHS) == ratelimit.CHAT_PATHS


# --- streams ----------------------------------------------------------------------------------------


async def test_memory_slots_expire_leases_by_their_clock() -> None:
    now = [1000.0]
    slots = ratelimit.MemorySlots(limit=2, ttl=30.0, clock=lambda: now[0])
    first, second = await slots.acquire("7"), await slots.acquire("7")
    assert first and second and await slots.acquire("7") is None
    assert await slots.acquire("8")  # another key has its own slots
    await slots.release("7", first)
    third = await slots.acquire("7")
    assert third is not None
    now[0] += 20
    await slots.renew("7", third)  # renewed: lives to 1050; `second` still ends at 1030
    now[0] += 15  # 1035: a stream cut without its `finally` (shutdown deadline) gave `second` back
    assert await slots.acquire("7") is not None
    assert await slots.acquire("7") is None
    now[0] += 60
    assert await slots.acquire("7") is not None


async def test_a_long_stream_renews_its_lease_and_releases_it_at_the_end() -> None:
    now = [1000.0]
    slots = ratelimit.MemorySlots(limit=1, ttl=30.0, clock=lambda: now[0])
    limits = ratelimit.RateLimits(ratelimit.build(make_settings()).limiter, {}, slots, 30.0, clock=lambda: now[0])
    lease = await limits.lease("7")
    assert lease is not None
    expiries = []

    async def body() -> AsyncIterator[str]:
        for _ in range(4):
            yield "chunk"
            now[0] += 11  # past a third of the TTL: renewed after each chunk
            expiries.append(slots.leases["7"][lease])

    assert [item async for item in limits.leased(body(), "7", lease)] == ["chunk"] * 4
    assert expiries == [1030.0, 1041.0, 1052.0, 1063.0]  # taken at 1000, renewed at 1011, 1022, 1033
    assert slots.leases == {}  # released when the stream ended


async def test_a_refused_stream_counts_in_the_metrics_hook() -> None:
    refused: list[str] = []
    limits = ratelimit.build(make_settings(max_streams_per_key=1))
    limits.on_refused = refused.append
    assert await limits.lease("7") is not None
    with pytest.raises(RateLimited):
        await limits.lease("7")
    assert refused == ["streams"]


def slow_stream(finish: threading.Event) -> Any:
    """Stands in for app.turns.stream: one chunk, then open until `finish` (or the client leaves)."""

    async def fake(_job: Any, _ids: Any, *, include_usage: bool) -> AsyncIterator[str]:
        yield 'data: {"open": true}\n\n'
        while not finish.is_set():  # noqa: ASYNC110 - a threading.Event, set by the test's thread
            await asyncio.sleep(0.01)
        yield "data: [DONE]\n\n"

    return fake


STREAM_BODY = {"model": "suikou", "messages": [{"role": "user", "content": "hi"}], "stream": True}


class Stream:
    """A streamed response kept open: its line iterator is held (dropping it closes the connection)."""

    def __init__(self, client: httpx.Client, url: str) -> None:
        self.response = client.send(client.build_request("POST", url, json=STREAM_BODY), stream=True)
        self.status_code = self.response.status_code
        self.lines = self.response.iter_lines()
        if self.status_code == 200:
            assert next(self.lines) == 'data: {"open": true}'

    def rest(self) -> list[str]:
        """Reads to the end, then closes."""
        rest = [line for line in self.lines if line]
        self.response.close()
        return rest


def until_open(client: httpx.Client, url: str) -> Stream:
    """The server frees a cancelled stream's slot when it sees the disconnect: a moment after."""
    deadline = time.monotonic() + 5
    while (stream := Stream(client, url)).status_code == 429:
        assert time.monotonic() < deadline, "the slot was never freed"
        time.sleep(0.05)
    return stream


def test_open_streams_per_key(database_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    finish = threading.Event()
    monkeypatch.setattr(api_chat, "stream", slow_stream(finish))
    h = make_harness(database_url, max_streams_per_key=2)
    alice, bob = h.api_key("alice"), h.api_key("bob")
    with serve(h.state) as base, httpx.Client(timeout=10) as a, httpx.Client(timeout=10) as b:
        url = base + "/chat/completions"
        a.headers.update(bearer(alice))
        b.headers.update(bearer(bob))
        first, second = Stream(a, url), Stream(a, url)
        refused = Stream(a, url)
        refused.response.read()
        assert_429(refused.response, "streams")
        assert refused.response.headers["Retry-After"] == str(ratelimit.STREAM_RETRY_S)
        other = Stream(b, url)
        assert other.status_code == 200  # bob has slots of his own
        first.response.close()  # the client leaves mid-stream: its slot comes back
        third = until_open(a, url)
        finish.set()  # the open streams end normally: their slots come back
        assert [s.rest()[-1] for s in (second, third, other)] == ["data: [DONE]"] * 3
        finish.clear()
        again = [Stream(a, url) for _ in range(3)]
        assert [s.status_code for s in again] == [200, 200, 429]
        finish.set()
        for s in again:
            s.rest()
    h.state.engine.dispose()


# --- Redis ------------------------------------------------------------------------------------------


def test_redis_limits_429_per_key(database_url: str, redis_prefix: str) -> None:
    h = make_harness(database_url, rate_limit="2/minute", redis_url=REDIS_URL, redis_prefix=redis_prefix)
    clear_of_the_minute_boundary()
    alice, bob = h.api_key("alice"), h.api_key("bob")
    with TestClient(create_app(h.state.settings, state=h.state)) as client:
        assert [client.get("/tasks", headers=bearer(alice)).status_code for _ in range(2)] == [200, 200]
        assert_429(client.get("/tasks", headers=bearer(alice)))
        assert client.get("/tasks", headers=bearer(bob)).status_code == 200
    h.state.engine.dispose()


HITTER = """
import asyncio, json, sys
from app.errors import RateLimited
from app.ratelimit import REQUESTS, build
from app.settings import Settings

async def main(url: str, prefix: str) -> None:
    limits = build(Settings(_env_file=None, redis_url=url, redis_prefix=prefix, rate_limit="5/minute",
                            max_streams_per_key=4))
    hits = leases = 0
    for _ in range(5):
        try:
            await limits.check(REQUESTS, "7")
            hits += 1
        except RateLimited:
            pass
    for _ in range(3):
        try:
            leases += await limits.lease("7") is not None  # never released: they expire
        except RateLimited:
            pass
    await limits.aclose()
    print(json.dumps({"hits": hits, "leases": leases}))

asyncio.run(main(sys.argv[1], sys.argv[2]))
"""


def test_two_processes_sharing_redis_enforce_one_limit(redis_prefix: str) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    clear_of_the_minute_boundary(margin_s=40)  # two interpreters start first
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", HITTER, REDIS_URL, redis_prefix], cwd=ROOT, env=env, stdout=subprocess.PIPE
        )
        for _ in range(2)
    ]
    results = [json.loads(p.communicate(timeout=60)[0]) for p in procs]
    assert all(p.returncode == 0 for p in procs)
    assert sum(r["hits"] for r in results) == 5
    assert sum(r["leases"] for r in results) == 4


async def test_redis_slots_are_shared_and_expire(redis_prefix: str) -> None:
    client = ratelimit.redis_client(REDIS_URL)
    one = ratelimit.RedisSlots(client, limit=1, ttl=0.3, prefix=redis_prefix)
    other = ratelimit.RedisSlots(client, limit=1, ttl=0.3, prefix=redis_prefix)
    lease = await one.acquire("7")
    assert lease and await other.acquire("7") is None
    await one.release("7", lease)
    kept = await other.acquire("7")
    assert kept is not None
    await asyncio.sleep(0.2)
    await other.renew("7", kept)  # renewed at 0.2 s: held until 0.5 s
    await asyncio.sleep(0.2)
    assert await one.acquire("7") is None
    await asyncio.sleep(0.25)  # never released: the Redis TTL frees it
    assert await one.acquire("7") is not None
    await client.aclose()


def test_redis_down_fails_open_with_a_log_line(
    database_url: str, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    down = f"redis://127.0.0.1:{free_port()}/0"
    finish = threading.Event()
    finish.set()
    monkeypatch.setattr(api_chat, "stream", slow_stream(finish))
    h = make_harness(database_url, rate_limit="1/minute", max_streams_per_key=1, redis_url=down)
    clear_of_the_minute_boundary()
    with (
        caplog.at_level(logging.WARNING, "suikou.ratelimit"),
        TestClient(create_app(h.state.settings, state=h.state)) as client,
    ):
        assert [client.get("/tasks").status_code for _ in range(3)] == [200] * 3
        assert client.post(CHAT, json=STREAM_BODY).status_code == 200
        assert client.post(CHAT, json=STREAM_BODY).status_code == 200  # unlimited while Redis is down
    warnings = [r for r in caplog.records if r.name == "suikou.ratelimit"]
    assert len(warnings) == 1  # then Redis is left alone for a few seconds: one line, not one per request
    assert "serving unlimited" in warnings[0].getMessage()
    assert down not in warnings[0].getMessage()
    h.state.engine.dispose()


async def test_a_storage_error_after_the_pause_is_tried_again() -> None:
    now = [500.0]
    down = f"redis://127.0.0.1:{free_port()}/0"
    limits = ratelimit.build(make_settings(rate_limit="1/minute", redis_url=down, redis_prefix="x:"))
    clear_of_the_minute_boundary()
    limits.clock = lambda: now[0]
    await limits.check(ratelimit.REQUESTS, "7")
    assert limits.paused_until == 500.0 + ratelimit.OUTAGE_PAUSE_S
    now[0] += ratelimit.OUTAGE_PAUSE_S - 1  # paused: Redis is not asked
    await limits.check(ratelimit.REQUESTS, "7")
    assert limits.paused_until == 500.0 + ratelimit.OUTAGE_PAUSE_S
    now[0] += 2  # the pause is over: asked again, still down, paused again
    await limits.check(ratelimit.REQUESTS, "7")
    assert limits.paused_until == now[0] + ratelimit.OUTAGE_PAUSE_S
    await limits.aclose()


async def test_memory_limits_refuse_with_retry_after() -> None:
    limits = ratelimit.build(make_settings(rate_limit="2/minute"))
    clear_of_the_minute_boundary()
    await limits.check(ratelimit.REQUESTS, "7")
    await limits.check(ratelimit.REQUESTS, "7")
    with pytest.raises(RateLimited) as refused:
        await limits.check(ratelimit.REQUESTS, "7")
    assert 1 <= refused.value.retry_after <= 60
    await limits.check(ratelimit.REQUESTS, "8")


def make_settings(**values: Any) -> Any:
    from app.settings import Settings

    return Settings(_env_file=None, **values)  # type: ignore[call-arg]
