"""SIGTERM while chat streams are open: `suikou serve` in a subprocess (temp SQLite), a slow fake
provider keeping 20 streams (half captures, half queries) open, then SIGTERM.

- the provider answers within the grace period: every stream finishes its turn (finish_reason
  "stop", then [DONE]) and every capture is in the database exactly once;
- the provider hangs past it: every stream still ends well at the drain deadline (finish_reason
  "length", then [DONE]), no note is half-written or doubled, and the process exits within the
  grace period instead of waiting on the provider.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

import httpx
import pytest

from support.fake_openai import FakeOpenAI, Sleep
from support.live import free_port

STREAMS = 20
ROOT = Path(__file__).resolve().parents[2]
SUIKOU = [sys.executable, "-c", "from app.cli import main; main()"]  # the `suikou` script, this tree's code


@dataclass
class Streamed:
    lines: list[str] = field(default_factory=list)
    error: str | None = None

    @property
    def finish(self) -> str | None:
        reasons = [c["choices"][0]["finish_reason"] for c in self.chunks() if c.get("choices")]
        return next((r for r in reasons if r), None)

    @property
    def content(self) -> str:
        return "".join(c["choices"][0]["delta"].get("content") or "" for c in self.chunks() if c.get("choices"))

    def chunks(self) -> list[dict]:
        return [json.loads(line[6:]) for line in self.lines if line.startswith("data: {")]


@pytest.fixture
def provider() -> Iterator[FakeOpenAI]:
    fake = FakeOpenAI()
    fake.start()
    yield fake
    fake.stop()


@pytest.fixture
def serve_log(tmp_path: Path) -> Iterator[BinaryIO]:
    with open(tmp_path / "serve.log", "wb") as log:
        yield log


_STARTED: list[subprocess.Popen[bytes]] = []


@pytest.fixture(autouse=True)
def _reaped() -> Iterator[None]:
    """A test that fails before its SIGTERM leaves no server running."""
    yield
    while _STARTED:
        proc = _STARTED.pop()
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=10)


def start_server(
    tmp_path: Path,
    log: BinaryIO,
    provider: FakeOpenAI,
    model: str,
    grace_s: int,
    workers: int = 1,
    **settings: str,
) -> tuple[subprocess.Popen[bytes], str]:
    """`suikou serve` on a free port; `settings` are more SUIKOU_* variables (`shutdown_delay_s="2"`)."""
    port = free_port()
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "SUIKOU_DATABASE_URL": f"sqlite:///{tmp_path / 'suikou.db'}",
        "SUIKOU_MODEL": model,
        "SUIKOU_MODEL_BASE_URL": provider.base_url,
        "SUIKOU_MODEL_API_KEY": "test",
        "SUIKOU_MODEL_TIMEOUT_S": "60",
        "SUIKOU_MODEL_REQUEST_BUDGET": "1",  # one slow provider call per turn, then the offline rules
        "SUIKOU_SHUTDOWN_GRACE_S": str(grace_s),
        "SUIKOU_LOG_REQUESTS": "false",
        **{f"SUIKOU_{name.upper()}": value for name, value in settings.items()},
    }
    proc = subprocess.Popen(
        [*SUIKOU, "serve", "--port", str(port), "--workers", str(workers)],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=log,
    )
    _STARTED.append(proc)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{base}/healthz", timeout=1).status_code == 200:
                return proc, base
        except httpx.TransportError:
            time.sleep(0.1)
    proc.kill()
    pytest.fail("suikou serve did not start: " + (tmp_path / "serve.log").read_text())


# One unlike title per note stream: titles that differ only in a number ("交第2份报告", "交第12份报告")
# are near-duplicates, and whichever stream wrote second would ask instead of writing.
TITLES = ("交合同", "买牛奶", "取快递", "修自行车", "订机票", "遛狗", "浇花", "还图书", "洗车", "理发")


def message(i: int) -> str:
    return f"提醒我明天下午三点{TITLES[i // 2]}" if i % 2 == 0 else "今天有什么任务"


async def one_stream(client: httpx.AsyncClient, base: str, i: int, opened: asyncio.Event, count: list[int]) -> Streamed:
    body = {"model": "suikou", "stream": True, "messages": [{"role": "user", "content": message(i)}]}
    out = Streamed()
    try:
        async with client.stream("POST", f"{base}/v1/chat/completions", json=body) as response:
            async for line in response.aiter_lines():
                if line:
                    out.lines.append(line)
                    if len(out.lines) == 1:
                        count[0] += 1
                        if count[0] == STREAMS:
                            opened.set()
    except httpx.HTTPError as exc:
        out.error = type(exc).__name__
    return out


async def streams_through_sigterm(proc: subprocess.Popen[bytes], base: str) -> tuple[list[Streamed], float]:
    """Opens the streams, sends SIGTERM once every one has its first chunk; returns the streams and
    how long the process took to exit after the signal."""
    opened, count = asyncio.Event(), [0]
    limits = httpx.Limits(max_connections=STREAMS + 5)
    async with httpx.AsyncClient(timeout=60, limits=limits) as client:
        tasks = [asyncio.create_task(one_stream(client, base, i, opened, count)) for i in range(STREAMS)]
        await asyncio.wait_for(opened.wait(), 20)
        await asyncio.sleep(0.3)  # the turns are now waiting on the provider
        assert all(not t.done() for t in tasks), "a stream ended before the signal: the provider is not slow"
        proc.send_signal(signal.SIGTERM)
        signalled = time.monotonic()
        results = await asyncio.gather(*tasks)
    exited = await asyncio.to_thread(proc.wait, 30)
    assert exited is not None
    return results, time.monotonic() - signalled


def notes_in(tmp_path: Path, i: int) -> int:
    with sqlite3.connect(tmp_path / "suikou.db") as conn:
        return int(conn.execute("SELECT count(*) FROM tasks WHERE title = ?", (TITLES[i // 2],)).fetchone()[0])


def test_open_streams_finish_within_the_grace_period(tmp_path: Path, serve_log: BinaryIO, provider: FakeOpenAI) -> None:
    provider.on_model("unhurried", Sleep(1.5))
    proc, base = start_server(tmp_path, serve_log, provider, "unhurried", grace_s=10)
    results, took = asyncio.run(streams_through_sigterm(proc, base))
    log = (tmp_path / "serve.log").read_text()
    for i, streamed in enumerate(results):
        assert streamed.error is None, (i, streamed.error, log[-2000:])
        assert streamed.lines[-1] == "data: [DONE]", i
        assert streamed.finish == "stop", i
    for i in range(0, STREAMS, 2):
        assert notes_in(tmp_path, i) == 1, (i, results[i].content)
    assert took < 10


@pytest.mark.parametrize("workers", [1, 2])  # with 2, uvicorn's supervisor forwards SIGTERM to each worker
def test_streams_past_the_drain_deadline_end_well(
    tmp_path: Path, serve_log: BinaryIO, provider: FakeOpenAI, workers: int
) -> None:
    provider.on_model("stuck", Sleep(120))
    proc, base = start_server(tmp_path, serve_log, provider, "stuck", grace_s=3, workers=workers)
    results, took = asyncio.run(streams_through_sigterm(proc, base))
    for i, streamed in enumerate(results):
        assert streamed.error is None, (i, streamed.error)
        assert streamed.lines[-1] == "data: [DONE]", i
        assert streamed.finish == "length", i
        assert "重启" in streamed.content
    for i in range(0, STREAMS, 2):
        assert notes_in(tmp_path, i) <= 1  # never doubled; whole or absent (one transaction)
    assert took < 3 + 1  # the grace period, plus the interpreter's exit


def test_drain_reaches_open_streams_and_streams_opened_later() -> None:
    from app import shutdown

    async def scenario() -> tuple[list[object], list[object]]:
        before: asyncio.Queue[object] = asyncio.Queue()
        unwatch = shutdown.watch(before.put_nowait)
        shutdown.begin_drain()
        got_before = [await asyncio.wait_for(before.get(), 1)]
        unwatch()
        later: asyncio.Queue[object] = asyncio.Queue()
        shutdown.watch(later.put_nowait)()
        return got_before, [later.get_nowait()]

    try:
        assert asyncio.run(scenario()) == ([shutdown.DRAINING], [shutdown.DRAINING])
        assert shutdown.draining()
    finally:
        shutdown.reset()
    assert not shutdown.draining()
    assert shutdown.drain_budget(20) == 19
    assert shutdown.drain_budget(0.5) == 0


# --- non-streaming requests and readiness (docs/fdr/0023) --------------------------------------------

ASKED = 12
LATE = 5


async def one_answer(client: httpx.AsyncClient, base: str, i: int) -> httpx.Response | str:
    body = {"model": "suikou", "messages": [{"role": "user", "content": message(i)}]}
    try:
        return await client.post(f"{base}/v1/chat/completions", json=body)
    except httpx.HTTPError as exc:
        return type(exc).__name__


async def readiness_after_the_signal(base: str, limit_s: float) -> list[int | str]:
    """What /readyz answers, polled on fresh connections, until the listener closes (bounded)."""
    seen: list[int | str] = []
    deadline = time.monotonic() + limit_s
    async with httpx.AsyncClient(timeout=2, limits=httpx.Limits(max_keepalive_connections=0)) as client:
        while time.monotonic() < deadline:
            try:
                r = await client.get(f"{base}/readyz")
            except httpx.ConnectError:
                seen.append("closed")
                break
            except httpx.HTTPError as exc:
                seen.append(type(exc).__name__)
                continue
            seen.append(r.status_code)
            if r.status_code == 503:
                assert r.json()["error"] == {
                    "message": "Not ready: shutting down",
                    "type": "server_error",
                    "param": None,
                    "code": "not_ready",
                }
            await asyncio.sleep(0.05)
    return seen


async def answers_through_sigterm(
    proc: subprocess.Popen[bytes], base: str, *, settle_s: float, late: int = 0
) -> tuple[list[httpx.Response | str], list[int | str], float]:
    """Sends the questions, SIGTERM `settle_s` later, `late` more questions 0.2 s after it; returns the
    answers, what /readyz said meanwhile, and the time from the signal to the exit."""
    limits = httpx.Limits(max_connections=ASKED + 5)
    async with httpx.AsyncClient(timeout=60, limits=limits) as client:
        if late:  # a server that has served before: the first turns' imports block its loop a second or two
            for i in range(2):
                assert not isinstance(await one_answer(client, base, i), str)
        tasks = [asyncio.create_task(one_answer(client, base, i)) for i in range(ASKED)]
        await asyncio.sleep(settle_s)
        proc.send_signal(signal.SIGTERM)
        signalled = time.monotonic()
        polled = asyncio.create_task(readiness_after_the_signal(base, limit_s=10))
        await asyncio.sleep(0.2)
        # What a balancer still sends before it has noticed: new connections, after the signal.
        async with httpx.AsyncClient(timeout=60, limits=httpx.Limits(max_keepalive_connections=0)) as late_client:
            tasks += [asyncio.create_task(one_answer(late_client, base, i)) for i in range(late)]
            answers = await asyncio.gather(*tasks)
        readiness = await polled
    exited = await asyncio.to_thread(proc.wait, 30)
    assert exited is not None
    return answers, readiness, time.monotonic() - signalled


def test_requests_sent_as_sigterm_arrives_are_answered_while_readyz_says_shutting_down(
    tmp_path: Path, serve_log: BinaryIO, provider: FakeOpenAI
) -> None:
    """Requests still on their way when SIGTERM comes (sent, not yet read) and those a balancer sends in
    the next moments are answered, and the balancer can see the instance leave: /readyz answers 503
    before the listener closes."""
    provider.on_model("unhurried", Sleep(1.5))
    proc, base = start_server(tmp_path, serve_log, provider, "unhurried", grace_s=10, shutdown_delay_s="4")
    answers, readiness, took = asyncio.run(answers_through_sigterm(proc, base, settle_s=0.02, late=LATE))
    log = (tmp_path / "serve.log").read_text()
    statuses = [a if isinstance(a, str) else a.status_code for a in answers]
    assert statuses == [200] * (ASKED + LATE), f"{statuses} {readiness} {log[-3000:]}"
    assert 503 in readiness, readiness
    assert readiness[-1] == "closed"  # then the listener closed, within the grace period
    assert took < 10 + 1


def test_a_turn_still_running_at_the_drain_deadline_answers_503_to_retry(
    tmp_path: Path, serve_log: BinaryIO, provider: FakeOpenAI
) -> None:
    """A non-streaming turn the grace period cannot wait for gets a 503 with Retry-After (OpenAI's SDKs
    retry it, through the balancer, at another instance), not a connection closed without an answer."""
    provider.on_model("stuck", Sleep(120))
    proc, base = start_server(tmp_path, serve_log, provider, "stuck", grace_s=3)
    answers, _, took = asyncio.run(answers_through_sigterm(proc, base, settle_s=0.5))
    for answer in answers:
        assert not isinstance(answer, str), answer
        assert answer.status_code == 503, answer.text
        assert answer.json()["error"]["code"] == "shutting_down"
        assert answer.json()["error"]["type"] == "server_error"
        assert int(answer.headers["Retry-After"]) >= 1
    assert took < 3 + 1  # the grace period, plus the interpreter's exit
