"""随口记 idempotency end to end: the official `openai` SDK against a real uvicorn server.

A chat turn creates its task once: client retries, five copies at once, a regenerate and copies
spread over two server processes sharing PostgreSQL all leave one task; a new turn with the same
words creates a second. Auxiliary prompts a client sends on its own write nothing.

Every wait is bounded and every server started here is stopped in a `finally`.
Fixed now: Monday 2026-11-30 10:00 Asia/Shanghai.
"""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest
import sqlalchemy as sa
import uvicorn
from fastapi import FastAPI
from openai.types.chat import (
    ChatCompletionAssistantMessageParam,
    ChatCompletionMessageParam,
    ChatCompletionUserMessageParam,
)

from app.main import create_app
from core import carry
from core.db import make_engine
from support.harness import NOW, Harness, pg_schema

NOTE = "帮我记一下明天下午三点交报告"
CONFIRMATION = "好，已记下：交报告（重要且紧急；截止 12月1日 周二 15:00）"
# The honest answer to a copy of an attempt that was already saved.
ALREADY = "这条消息刚才已经记下了，没有重复创建：交报告（重要且紧急；截止 12月1日 周二 15:00）"
DEADLINE_UTC = datetime(2026, 12, 1, 7, 0, tzinfo=UTC)  # 15:00 in Shanghai
REPO_ROOT = Path(__file__).resolve().parents[2]
AUX_PROMPTS = REPO_ROOT / "tests" / "data" / "aux_prompts.jsonl"
START_TIMEOUT_S = 30.0
PROCESS_START_TIMEOUT_S = 90.0  # a fresh interpreter imports the whole stack; CI machines can be busy
REQUEST_TIMEOUT_S = 30.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def serve_in_thread(app: FastAPI) -> Iterator[str]:
    """Runs `app` with uvicorn on a free loopback port in a background thread; yields the base URL."""
    port = free_port()
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", ws="none", lifespan="on")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, name=f"uvicorn-{port}", daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while not server.started:
            if not thread.is_alive():
                raise RuntimeError("uvicorn exited during startup")
            if time.monotonic() > deadline:
                raise TimeoutError(f"uvicorn did not start within {START_TIMEOUT_S} s")
            time.sleep(0.02)
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=15)
        assert not thread.is_alive(), "uvicorn thread did not stop"


@dataclass
class Live:
    """A running Suikou server, an API key for alice and the clients that talk to it."""

    harness: Harness
    base_url: str
    key: str

    def sdk(self) -> openai.OpenAI:
        return openai.OpenAI(base_url=f"{self.base_url}/v1", api_key=self.key, max_retries=0, timeout=REQUEST_TIMEOUT_S)

    def async_sdk(self) -> openai.AsyncOpenAI:
        return openai.AsyncOpenAI(
            base_url=f"{self.base_url}/v1", api_key=self.key, max_retries=0, timeout=REQUEST_TIMEOUT_S
        )

    def tasks(self) -> dict[str, Any]:
        """GET /tasks over HTTP, as an app would read them."""
        response = httpx.get(
            f"{self.base_url}/tasks",
            headers={"Authorization": f"Bearer {self.key}"},
            timeout=REQUEST_TIMEOUT_S,
        )
        assert response.status_code == 200, response.text
        body: dict[str, Any] = response.json()
        return body


@pytest.fixture
def live(harness: Harness) -> Iterator[Live]:
    key = harness.api_key("alice")  # with a key configured, every request must authenticate
    with serve_in_thread(create_app(harness.state.settings, state=harness.state)) as url:
        yield Live(harness, url, key)


def shown(completion: Any) -> str:
    """A completion's text as a person sees it: without the records it carries (the write log's w1)."""
    return carry.strip(completion.choices[0].message.content or "")


def user(text: str) -> ChatCompletionUserMessageParam:
    return {"role": "user", "content": text}


def assistant(text: str) -> ChatCompletionAssistantMessageParam:
    return {"role": "assistant", "content": text}


def assert_one_report_task(body: dict[str, Any], total: int = 1) -> None:
    assert body["total"] == total
    for item in body["items"]:
        assert item["title"] == "交报告"
        assert item["priority_group"] == 1
        assert item["effective_group"] == 1
        assert datetime.fromisoformat(item["deadline_at"]) == DEADLINE_UTC
        assert item["is_completed"] is False


@dataclass
class Reply:
    content: str
    reasoning: str  # the stage lines (`reasoning_content`)


async def streamed_reply(client: openai.AsyncOpenAI, messages: list[ChatCompletionMessageParam]) -> Reply:
    stream = await client.chat.completions.create(model="suikou", messages=messages, stream=True)
    content: list[str] = []
    reasoning: list[str] = []
    async for chunk in stream:
        if chunk.choices:
            delta = chunk.choices[0].delta
            content.append(delta.content or "")
            reasoning.append((delta.model_extra or {}).get("reasoning_content") or "")
    return Reply(carry.strip("".join(content)), "".join(reasoning))


async def complete_reply(client: openai.AsyncOpenAI, messages: list[ChatCompletionMessageParam]) -> Reply:
    completion = await client.chat.completions.create(model="suikou", messages=messages)
    message = completion.choices[0].message
    return Reply(carry.strip(message.content or ""), (message.model_extra or {}).get("reasoning_content") or "")


async def streamed(client: openai.AsyncOpenAI, messages: list[ChatCompletionMessageParam]) -> str:
    return (await streamed_reply(client, messages)).content


# --- one server process ------------------------------------------------------------------------


def test_sdk_quick_note_creates_exactly_that_task(live: Live) -> None:
    with live.sdk() as client:
        completion = client.chat.completions.create(model="suikou", messages=[user(NOTE)])
    choice = completion.choices[0]
    assert carry.strip(choice.message.content or "") == CONFIRMATION
    assert (
        carry.read(choice.message.content or "", "w1", live.harness.seal()) is not None
    )  # the write log's record, for 撤销
    assert choice.finish_reason == "stop"
    assert completion.object == "chat.completion"

    body = live.tasks()
    assert_one_report_task(body)
    (item,) = body["items"]
    assert item["deadline_at"] in ("2026-12-01T07:00:00Z", "2026-12-01T07:00:00+00:00")
    assert item["urgency_threshold_at"] is None  # group 1 has nothing to be promoted to


@pytest.fixture
def allow_duplicates(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests say the same words again on purpose: no near-duplicate question in between."""
    monkeypatch.setenv("SUIKOU_NOTE_NEAR_DUPLICATES", "allow")  # read when the harness is built


@pytest.mark.usefixtures("allow_duplicates")
async def test_sdk_concurrent_copies_regenerate_and_new_turn(live: Live) -> None:
    first_turn: list[ChatCompletionMessageParam] = [user(NOTE)]
    async with live.async_sdk() as client:
        # Five identical copies at once (a double-clicking user, a retrying proxy): one task.
        replies = await asyncio.wait_for(
            asyncio.gather(
                *[complete_reply(client, first_turn) for _ in range(3)],
                *[streamed_reply(client, first_turn) for _ in range(2)],
            ),
            timeout=60,
        )
        assert sorted(r.content for r in replies) == sorted([CONFIRMATION] + [ALREADY] * 4)
        assert_one_report_task(live.tasks())
        # However the copies interleaved, exactly one of them wrote; the others found its task.
        assert sum("[persist] 已保存" in r.reasoning for r in replies) == 1

        # Regenerate: the client sends the same conversation again → no new task, and it says so.
        assert await streamed(client, first_turn) == ALREADY
        regenerated = await client.chat.completions.create(model="suikou", messages=first_turn)
        assert shown(regenerated) == ALREADY
        assert_one_report_task(live.tasks())

        # A new turn with the same words (the first exchange is now history) → a second task.
        second_turn: list[ChatCompletionMessageParam] = [user(NOTE), assistant(CONFIRMATION), user(NOTE)]
        again = await client.chat.completions.create(model="suikou", messages=second_turn)
        assert shown(again) == CONFIRMATION
        assert_one_report_task(live.tasks(), total=2)

        # ... and that second turn is idempotent too.
        assert await streamed(client, second_turn) == ALREADY
        assert_one_report_task(live.tasks(), total=2)


@pytest.mark.usefixtures("allow_duplicates")
def test_sdk_client_message_id_dedupes_different_looking_retries(live: Live) -> None:
    with live.sdk() as client:
        first = client.chat.completions.create(
            model="suikou",
            messages=[user(NOTE)],
            extra_headers={"X-Client-Message-Id": "owui-msg-7f3a"},
        )
        # The retry carries extra context (a system prompt, an earlier exchange) but the same id.
        retry = client.chat.completions.create(
            model="suikou",
            messages=[
                {"role": "system", "content": "You are a helpful assistant."},
                user("你好"),
                assistant("你好！"),
                user(NOTE),
            ],
            extra_headers={"X-Client-Message-Id": "owui-msg-7f3a"},
        )
        assert shown(first) == CONFIRMATION
        assert shown(retry) == ALREADY
        assert_one_report_task(live.tasks())

        # A different message id is a different turn, even with identical messages.
        other = client.chat.completions.create(
            model="suikou",
            messages=[user(NOTE)],
            extra_headers={"X-Client-Message-Id": "owui-msg-9c01"},
        )
        assert shown(other) == CONFIRMATION
        assert_one_report_task(live.tasks(), total=2)


def test_sdk_clarifying_question_writes_nothing(live: Live) -> None:
    with live.sdk() as client:
        completion = client.chat.completions.create(model="suikou", messages=[user("帮我记一下")])
    assert (
        completion.choices[0].message.content == "要记什么呢？告诉我事情和时间，比如「帮我记一下明天下午三点交报告」。"
    )
    assert live.tasks()["total"] == 0


# --- auxiliary prompts that quote a quick note ------------------------------------------------


def _owui_note_prompts() -> list[Any]:
    """Open WebUI `### Task:` requests whose quoted chat contains a quick-note sentence."""
    params = []
    for line in AUX_PROMPTS.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        users = [m["content"] for m in record["messages"] if m["role"] == "user"]
        quotes_note = any("记" in s for s in record.get("embedded_sentences", []))
        if users and str(users[-1]).startswith("### Task:") and quotes_note:
            params.append(pytest.param(record, id=record["id"]))
    assert len(params) >= 3
    return params


@pytest.mark.parametrize("record", _owui_note_prompts())
async def test_aux_task_prompt_quoting_a_note_writes_nothing(live: Live, record: dict[str, Any]) -> None:
    extras = {k: v for k, v in record["request_extras"].items() if k not in ("model", "stream")}
    messages = record["messages"]
    async with live.async_sdk() as client:
        completion = await client.chat.completions.create(model="suikou", messages=messages, **extras)
        content = completion.choices[0].message.content or ""
        assert content.strip()
        assert (completion.model_extra or {}).get("suikou_events") in (None, [])
        assert not (completion.choices[0].message.model_extra or {}).get("reasoning_content")

        stream = await client.chat.completions.create(model="suikou", messages=messages, stream=True, **extras)
        reasoning: list[str] = []
        events: list[Any] = []
        streamed_text: list[str] = []
        async for chunk in stream:
            extra = chunk.model_extra or {}
            if extra.get("suikou_event"):
                events.append(extra["suikou_event"])
            if chunk.choices:
                delta = chunk.choices[0].delta
                if (delta.model_extra or {}).get("reasoning_content"):
                    reasoning.append(delta.model_extra["reasoning_content"])
                if delta.content:
                    streamed_text.append(delta.content)

    assert events == [] and reasoning == [], "auxiliary prompts are answered without stage events"
    assert "".join(streamed_text).strip()
    if "JSON format:" in messages[-1]["content"]:
        # The template asks for a raw JSON object (e.g. {"title": ...}, {"tags": [...]}).
        answer = json.loads(content)
        assert isinstance(answer, dict) and answer
        assert json.loads("".join(streamed_text)).keys() == answer.keys()
    assert "已记下" not in content
    assert live.tasks()["total"] == 0


def test_aux_title_prompt_answers_in_kind(live: Live) -> None:
    (record,) = [r.values[0] for r in _owui_note_prompts() if r.id == "ow-title-v06-note"]
    with live.sdk() as client:
        completion = client.chat.completions.create(model="suikou", messages=record["messages"], max_tokens=1000)
    answer = json.loads(completion.choices[0].message.content or "")
    assert isinstance(answer.get("title"), str) and answer["title"].strip()
    assert live.tasks()["total"] == 0


# --- two server processes sharing one PostgreSQL schema -----------------------------------------

SERVER_SCRIPT = textwrap.dedent(
    """
    import sys
    from datetime import datetime
    from zoneinfo import ZoneInfo

    import uvicorn

    from app.main import create_app
    from app.settings import Settings

    NOW = datetime.fromisoformat(sys.argv[3])
    settings = Settings(_env_file=None, database_url=sys.argv[1])
    app = create_app(settings, clock=lambda: NOW)
    uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[2]), log_level="warning", ws="none")
    """
)


def wait_healthy(url: str, proc: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + PROCESS_START_TIMEOUT_S
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited with {proc.returncode}:\n{log.read_text(errors='replace')}")
        try:
            if httpx.get(f"{url}/healthz", timeout=1).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.1)
    raise TimeoutError(
        f"server at {url} not healthy within {PROCESS_START_TIMEOUT_S} s:\n{log.read_text(errors='replace')}"
    )


def stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


def send_copies(urls: list[str], messages: list[ChatCompletionMessageParam], copies: int) -> list[Reply]:
    """`copies` identical requests, spread over `urls`, released together from their own threads."""
    clients = [
        openai.OpenAI(base_url=f"{url}/v1", api_key="unused", max_retries=0, timeout=REQUEST_TIMEOUT_S) for url in urls
    ]
    start = threading.Barrier(copies, timeout=REQUEST_TIMEOUT_S)

    def send(i: int) -> Reply:
        start.wait()
        completion = clients[i % len(clients)].chat.completions.create(model="suikou", messages=messages)
        message = completion.choices[0].message
        return Reply(carry.strip(message.content or ""), (message.model_extra or {}).get("reasoning_content") or "")

    try:
        with ThreadPoolExecutor(max_workers=copies) as pool:
            return list(pool.map(send, range(copies), timeout=2 * REQUEST_TIMEOUT_S))
    finally:
        for client in clients:
            client.close()


@pytest.mark.postgres
def test_two_server_processes_sharing_postgresql_create_one_task(tmp_path: Path) -> None:
    with pg_schema() as database_url:
        script = tmp_path / "serve_fixed_clock.py"
        script.write_text(SERVER_SCRIPT, encoding="utf-8")
        procs: list[subprocess.Popen[bytes]] = []
        urls: list[str] = []
        try:
            # Both start at once on the empty schema: migrations serialise themselves.
            for i in range(2):
                port = free_port()
                with (tmp_path / f"server{i}.log").open("wb") as out:
                    procs.append(
                        subprocess.Popen(
                            [sys.executable, str(script), database_url, str(port), NOW.isoformat()],
                            stdout=out,
                            stderr=subprocess.STDOUT,
                            cwd=REPO_ROOT,
                        )
                    )
                urls.append(f"http://127.0.0.1:{port}")
            for i, (url, proc) in enumerate(zip(urls, procs, strict=True)):
                wait_healthy(url, proc, tmp_path / f"server{i}.log")

            # No API keys: both serve the single local user, created concurrently on first use.
            turn: list[ChatCompletionMessageParam] = [user(NOTE)]
            replies = send_copies(urls, turn, copies=8)
            assert sorted(r.content for r in replies) == sorted([CONFIRMATION] + [ALREADY] * 7)
            assert sum("[persist] 已保存" in r.reasoning for r in replies) == 1

            # A regenerate to either process finds the one task.
            assert [r.content for r in send_copies(urls, turn, copies=2)] == [ALREADY] * 2

            for url in urls:
                body = httpx.get(f"{url}/tasks", timeout=REQUEST_TIMEOUT_S).json()
                assert_one_report_task(body)
            engine = make_engine(database_url)
            try:
                with engine.connect() as conn:
                    rows = conn.execute(sa.text("SELECT title, source_key FROM tasks")).all()
            finally:
                engine.dispose()
            assert len(rows) == 1 and rows[0][0] == "交报告" and rows[0][1]
        finally:
            for proc in procs:
                stop(proc)
