"""The replicas recipe, run: `suikou migrate` once, then two `suikou serve` processes on one
PostgreSQL schema, requests alternating between them as a load balancer would send them.

A capture on one replica is what a query on the other sees; a capture retried on the other
replica (same X-Client-Message-Id, as a client retrying through the balancer) writes once; the
second replica would not have started on an unmigrated schema.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from support.harness import pg_schema
from support.live import free_port

SUIKOU = str(Path(sys.executable).with_name("suikou"))
NOTE = "提醒我明天下午三点交季度报告给财务"


@pytest.fixture
def pg_env(tmp_path: Path) -> Iterator[dict[str, str]]:
    with pg_schema() as url:
        yield {**os.environ, "SUIKOU_DATABASE_URL": url, "SUIKOU_MODEL": "offline", "SUIKOU_LOG_REQUESTS": "false"}


def suikou(env: dict[str, str], cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([SUIKOU, *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=60)


@pytest.fixture
def replicas(pg_env: dict[str, str], tmp_path: Path) -> Iterator[list[str]]:
    refused = suikou(pg_env, tmp_path, "serve", "--port", str(free_port()))
    assert refused.returncode == 2
    assert "suikou migrate" in refused.stderr
    migrated = suikou(pg_env, tmp_path, "migrate")
    assert migrated.returncode == 0, migrated.stderr
    assert "Migrated" in migrated.stdout
    ports = [free_port(), free_port()]
    procs = [
        subprocess.Popen(
            [SUIKOU, "serve", "--port", str(port)],
            env=pg_env,
            cwd=tmp_path,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for port in ports
    ]
    bases = [f"http://127.0.0.1:{port}" for port in ports]
    try:
        for base in bases:
            wait_healthy(base)
        yield bases
    finally:
        for proc in procs:
            proc.send_signal(signal.SIGTERM)
        for proc in procs:
            proc.wait(timeout=30)


def wait_healthy(base: str) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{base}/healthz", timeout=1).status_code == 200:
                return
        except httpx.TransportError:
            time.sleep(0.1)
    pytest.fail(f"{base} did not start")


def chat(base: str, text: str, message_id: str | None = None) -> str:
    headers = {"X-Client-Message-Id": message_id} if message_id else {}
    body: dict[str, Any] = {"model": "suikou", "messages": [{"role": "user", "content": text}]}
    response = httpx.post(f"{base}/v1/chat/completions", json=body, headers=headers, timeout=30)
    assert response.status_code == 200, response.text
    return str(response.json()["choices"][0]["message"]["content"])


def titles(base: str) -> list[str]:
    response = httpx.get(f"{base}/tasks", params={"limit": 100}, timeout=10)
    assert response.status_code == 200, response.text
    return [task["title"] for task in response.json()["items"]]


def test_two_replicas_share_one_database(replicas: list[str]) -> None:
    one, other = replicas
    first = chat(one, NOTE, message_id="attempt-1")
    assert "季度报告" in first
    retried = chat(other, NOTE, message_id="attempt-1")  # the client's retry lands on the other replica
    assert "没有重复创建" in retried
    assert sum("季度报告" in title for title in titles(one)) == 1
    assert titles(one) == titles(other)
    assert "季度报告" in chat(other, "明天有什么任务")
