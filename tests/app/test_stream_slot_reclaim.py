"""A worker killed with open streams (kill -9, OOM) leaves their leases in Redis until they expire
(`SUIKOU_STREAM_LEASE_SECONDS`, 120 s): the key is short of slots that long. A worker has a stable
name (host, port, a per-host number held by a file lock), records its leases under it, and the
worker that starts under that name gives them back (app/ratelimit.py, docs/fdr/0023)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

import httpx
import pytest

from app import ratelimit
from support.fake_openai import FakeOpenAI, Sleep
from support.live import free_port
from support.redis_keys import REDIS_URL

ROOT = Path(__file__).resolve().parents[2]
SUIKOU = [sys.executable, "-c", "from app.cli import main; main()"]  # the `suikou` script, this tree's code
STREAM = {"model": "suikou", "stream": True, "messages": [{"role": "user", "content": "今天有什么任务"}]}

HOLD_A_NAME = """
import sys, time
from pathlib import Path
from app.ratelimit import worker_name
held = worker_name(int(sys.argv[1]), Path(sys.argv[2]))  # held until this process dies
print(held.name, flush=True)
time.sleep(60)
"""


def test_a_worker_name_is_free_again_once_its_process_is_gone(tmp_path: Path) -> None:
    names: list[ratelimit.WorkerName] = []

    def take() -> str:
        names.append(ratelimit.worker_name(8000, tmp_path))
        return names[-1].name

    try:
        first, second = take(), take()
        assert first.endswith(":8000:0") and second.endswith(":8000:1")  # both alive: two names
        names[0].close()
        assert take() == first
        # Killed with no chance to clean up: the kernel drops the file lock, and the name is free.
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        with subprocess.Popen(
            [sys.executable, "-c", HOLD_A_NAME, "8000", str(tmp_path)], stdout=subprocess.PIPE, env=env, cwd=ROOT
        ) as holder:
            assert holder.stdout is not None
            held = holder.stdout.readline().decode().strip()
            assert held.endswith(":8000:2")
            assert take().endswith(":8000:3")
            holder.kill()
        assert take() == held
    finally:
        for name in names:
            name.close()


def test_without_a_lock_file_a_worker_still_starts_under_a_name_of_its_own(tmp_path: Path) -> None:
    names = [ratelimit.worker_name(8000, tmp_path / "missing") for _ in range(2)]
    assert names[0].name != names[1].name and all(n.lock is None for n in names)  # nothing to reclaim


async def test_the_worker_under_a_name_reclaims_only_that_names_leases(redis_prefix: str) -> None:
    client = ratelimit.redis_client(REDIS_URL)
    dead = ratelimit.RedisSlots(client, limit=1, ttl=60, prefix=redis_prefix, owner="host:8000:0")
    alive = ratelimit.RedisSlots(client, limit=1, ttl=60, prefix=redis_prefix, owner="host:8000:1")
    assert await dead.acquire("7") and await dead.acquire("8")
    kept = await alive.acquire("9")
    assert kept is not None
    successor = ratelimit.RedisSlots(client, limit=1, ttl=60, prefix=redis_prefix, owner="host:8000:0")
    assert await successor.reclaim() == 2
    assert await successor.acquire("7") and await successor.acquire("8")  # free again
    assert await successor.acquire("9") is None  # a live worker's stream keeps its slot
    await alive.release("9", kept)
    assert await successor.acquire("9") is not None
    assert await ratelimit.RedisSlots(client, limit=1, ttl=60, prefix=redis_prefix).reclaim() == 0  # no name
    await client.aclose()


# --- kill -9 and restart, for real ----------------------------------------------------------------------


@pytest.fixture
def provider() -> Iterator[FakeOpenAI]:
    fake = FakeOpenAI()
    fake.on_model("stuck", Sleep(60))  # a turn that keeps its stream open
    fake.start()
    yield fake
    fake.stop()


def start(tmp_path: Path, port: int, env: dict[str, str], log: BinaryIO) -> subprocess.Popen[bytes]:
    proc = subprocess.Popen([*SUIKOU, "serve", "--port", str(port)], cwd=tmp_path, env=env, stdout=log, stderr=log)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                return proc
        except httpx.TransportError:
            assert proc.poll() is None, (tmp_path / "serve.log").read_text()
            time.sleep(0.1)
    proc.kill()
    pytest.fail("suikou serve did not start: " + (tmp_path / "serve.log").read_text())


class Stream:
    """A streaming chat request, kept open: its line iterator is held (dropping it closes the connection)."""

    def __init__(self, client: httpx.Client, port: int) -> None:
        request = client.build_request("POST", f"http://127.0.0.1:{port}/v1/chat/completions", json=STREAM)
        self.response = client.send(request, stream=True)
        self.status_code = self.response.status_code
        self.lines = self.response.iter_lines()
        if self.status_code == 200:
            assert next(self.lines).startswith("data: ")

    def close(self) -> None:
        self.response.close()


def test_a_worker_restarted_after_kill_9_gets_its_stream_slots_back(
    tmp_path: Path, provider: FakeOpenAI, redis_prefix: str
) -> None:
    port = free_port()
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "SUIKOU_DATABASE_URL": f"sqlite:///{tmp_path / 'suikou.db'}",
        "SUIKOU_MODEL": "stuck",
        "SUIKOU_MODEL_BASE_URL": provider.base_url,
        "SUIKOU_MODEL_API_KEY": "test",
        "SUIKOU_MODEL_TIMEOUT_S": "60",
        "SUIKOU_MODEL_REQUEST_BUDGET": "1",
        "SUIKOU_REDIS_URL": REDIS_URL,
        "SUIKOU_REDIS_PREFIX": redis_prefix,
        "SUIKOU_MAX_STREAMS_PER_KEY": "1",
        "SUIKOU_LOG_REQUESTS": "false",
    }
    with open(tmp_path / "serve.log", "wb") as log, httpx.Client(timeout=30) as client:
        first = start(tmp_path, port, env, log)
        try:
            held = Stream(client, port)
            assert held.status_code == 200
            refused = Stream(client, port)
            assert refused.status_code == 429, (tmp_path / "serve.log").read_text()  # the key's one slot is taken
            refused.close()
            first.send_signal(signal.SIGKILL)
            first.wait(timeout=10)
            held.close()
        finally:
            first.kill()
            first.wait(timeout=10)
        second = start(tmp_path, port, env, log)
        try:
            again = Stream(client, port)
            assert again.status_code == 200, again.response.read().decode()  # not a 429 for two minutes
            again.close()
        finally:
            second.kill()
            second.wait(timeout=10)
