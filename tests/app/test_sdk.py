"""The official `openai` SDK against a real server (uvicorn on 127.0.0.1 in a background thread).

The current SDK runs in-process; `tests/support/sdk_probe.py` repeats the calls from another
interpreter so an openai 1.x release is covered too (env SUIKOU_OPENAI1_PYTHON, required in CI).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import openai
import pytest
from openai import OpenAI

from core import carry
from core.store import TaskFilter, query_tasks
from support.live import serve

PROBE = Path(__file__).resolve().parent.parent / "support" / "sdk_probe.py"


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in ("1", "true", "yes")


@dataclass
class LiveServer:
    base_url: str
    key: str
    harness: Any


@pytest.fixture
def server(harness: Any) -> Iterator[LiveServer]:
    key = harness.api_key("alice")
    harness.add("交周报", 1, "2026-12-01 15:00")
    harness.add("买猫粮", 3, "2026-12-01 19:00")
    harness.add("别人的任务", 2, "2026-12-01 12:00", user="bob")
    harness.state.settings.note_near_duplicates = "allow"  # the same note is sent whole and streamed
    with serve(harness.state) as base_url:
        yield LiveServer(base_url, key, harness)


def sdk(server: LiveServer, key: str | None = None) -> OpenAI:
    return OpenAI(
        base_url=server.base_url,
        api_key=key or server.key,
        max_retries=0,
        timeout=60,
        _strict_response_validation=True,
    )


# --- the current SDK, in-process -------------------------------------------------------------------


def test_sdk_whole_answer(server: LiveServer) -> None:
    with sdk(server) as client:
        r = client.chat.completions.create(model="suikou", messages=[{"role": "user", "content": "这周有什么要交的"}])
    assert r.object == "chat.completion"
    choice = r.choices[0]
    assert choice.finish_reason == "stop"
    assert choice.message.role == "assistant"
    assert "1. 交周报（重要且紧急；截止 12月1日 周二 15:00）" in (choice.message.content or "")
    assert "别人的任务" not in (choice.message.content or "")
    assert choice.message.reasoning_content.startswith("[route] ")  # type: ignore[attr-defined]
    events = r.model_extra["suikou_events"]  # type: ignore[index]
    assert events[0]["stage"] == "route" and events[0]["data"]["action"] == "task_query"
    assert r.usage is not None
    assert r.usage.total_tokens == r.usage.prompt_tokens + r.usage.completion_tokens
    assert r.usage.model_extra["model_requests"] == 0  # type: ignore[index]
    assert r.usage.model_extra["offline_steps"] == 3  # type: ignore[index]


@pytest.mark.parametrize("text", ["这周有什么要交的", "你好", "帮我记一下明天下午三点交报告"])
def test_sdk_stream(server: LiveServer, text: str) -> None:
    with sdk(server) as client:
        whole = client.chat.completions.create(
            model="suikou", messages=[{"role": "user", "content": text}], extra_headers={"X-Client-Message-Id": "a"}
        )
        stream = client.chat.completions.create(
            model="suikou",
            messages=[{"role": "user", "content": text}],
            stream=True,
            stream_options={"include_usage": True},
            extra_headers={"X-Client-Message-Id": "b"},
        )
        chunks = list(stream)
    assert len({c.id for c in chunks}) == 1 and len({c.created for c in chunks}) == 1
    assert chunks[0].choices[0].delta.role == "assistant"
    content, reasoning, order = "", "", ""
    for c in chunks[:-1]:
        delta = c.choices[0].delta
        # DeepSeek's sample loop reads this attribute on every chunk: it must always exist.
        r = delta.reasoning_content  # type: ignore[attr-defined]
        event = (c.model_extra or {}).get("suikou_event")
        if r:
            reasoning += r
            order += "r"
            assert event is not None and r == f"[{event['stage']}] {event['message']}\n"
        else:
            assert event is None
        if delta.content:
            content += delta.content
            order += "c"
    assert order == "r" * order.count("r") + "c" * order.count("c")  # all reasoning first
    assert carry.strip(content) == carry.strip(whole.choices[0].message.content or "")  # a note's ids differ
    assert reasoning == whole.choices[0].message.reasoning_content  # type: ignore[attr-defined]
    assert [c.choices[0].finish_reason for c in chunks[:-1]].count("stop") == 1
    assert chunks[-2].choices[0].finish_reason == "stop"
    assert chunks[-1].choices == [] and chunks[-1].usage is not None
    assert chunks[-1].usage.model_extra["offline_steps"] >= 1  # type: ignore[index]


def test_sdk_stream_helper(server: LiveServer) -> None:
    """`chat.completions.stream()` accumulates the same answer (and keeps the role)."""
    with (
        sdk(server) as client,
        client.chat.completions.stream(model="suikou", messages=[{"role": "user", "content": "全部任务"}]) as s,
    ):
        final = s.get_final_completion()
    assert final.choices[0].message.role == "assistant"
    assert final.choices[0].finish_reason == "stop"
    assert "交周报" in (final.choices[0].message.content or "")


def test_sdk_models(server: LiveServer) -> None:
    with sdk(server) as client:
        assert [m.id for m in client.models.list()] == ["suikou", "suikou-think", "suikou-plain"]
        card = client.models.retrieve("suikou")
        assert card.owned_by == "suikou" and card.object == "model"
        with pytest.raises(openai.NotFoundError) as err:
            client.models.retrieve("gpt-5")
    assert err.value.code == "model_not_found" and err.value.status_code == 404


@pytest.mark.parametrize("stream", [False, True])
def test_sdk_typed_errors(server: LiveServer, stream: bool) -> None:
    with sdk(server, key="sk-suikou-wrong") as client, pytest.raises(openai.AuthenticationError) as auth:
        client.chat.completions.create(model="suikou", messages=[{"role": "user", "content": "hi"}], stream=stream)
    assert auth.value.status_code == 401 and auth.value.code == "invalid_api_key"
    assert auth.value.type == "invalid_request_error"

    with sdk(server) as client:
        with pytest.raises(openai.BadRequestError) as bad:
            client.chat.completions.create(model="suikou", messages=[], stream=stream)
        assert bad.value.status_code == 400 and bad.value.param == "messages"

        parts = [{"type": "image_url", "image_url": {"url": "http://x/a.png"}}]
        with pytest.raises(openai.BadRequestError) as image:
            client.chat.completions.create(
                model="suikou",
                messages=[{"role": "user", "content": parts}],  # type: ignore[list-item]
                stream=stream,
            )
        assert image.value.code == "unsupported_content_type"
        assert image.value.param == "messages.0.content.0.type"

        with pytest.raises(openai.BadRequestError) as long:
            client.chat.completions.create(
                model="suikou", messages=[{"role": "user", "content": "帮我记一下" + "x" * 100_000}], stream=stream
            )
        assert long.value.code == "string_above_max_length"
        assert [m.id for m in client.models.list()] == [
            "suikou",
            "suikou-think",
            "suikou-plain",
        ]  # the server is still fine
    # Nothing was written by any of these (the 100 KB message was a quick note).
    with server.harness.state.session() as session:
        alice = server.harness.user("alice")
        page = query_tasks(session, alice, TaskFilter(include_completed=True), now=server.harness.now)
    assert page.total == 2


def fail_after_a_stage_event(server: LiveServer, monkeypatch: pytest.MonkeyPatch) -> None:
    """The live server's pipeline emits the route event, then raises."""

    async def boom(turn: Any, *, request_extras: Any = None) -> Any:
        turn.trace.emit("route", "end", "分流到 chat", {"action": "chat"})
        raise RuntimeError("internal detail")

    monkeypatch.setattr(server.harness.state.pipeline, "run", boom)


def test_sdk_error_after_the_stream_started(server: LiveServer, monkeypatch: pytest.MonkeyPatch) -> None:
    fail_after_a_stage_event(server, monkeypatch)
    seen = []
    with sdk(server) as client:
        stream = client.chat.completions.create(
            model="suikou", messages=[{"role": "user", "content": "你好"}], stream=True
        )
        with pytest.raises(openai.APIError) as err:
            for chunk in stream:
                seen.append(chunk)
    assert len(seen) == 2  # the role chunk and the stage event arrived before the error
    assert err.value.type == "server_error"
    assert "internal detail" not in err.value.message


# --- the probe script: the current SDK and openai 1.x -------------------------------------------------


def run_probe(python: str, server: LiveServer, *args: str) -> dict[str, Any]:
    done = subprocess.run(
        [python, str(PROBE), "--base-url", server.base_url, "--api-key", server.key, *args],
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    out: dict[str, Any] = json.loads(done.stdout)
    return out


def check_probe(out: dict[str, Any]) -> None:
    assert out["unexpected"] == [], json.dumps(out["unexpected"], ensure_ascii=False, indent=1)
    assert out["models"] == ["suikou", "suikou-think", "suikou-plain"]
    assert out["model_card"]["owned_by"] == "suikou"
    for name in ("query", "chat"):
        whole, stream = out["whole"][name], out["stream"][name]
        assert whole["object"] == "chat.completion" and whole["finish_reason"] == "stop"
        assert whole["content"] and whole["reasoning_content"].startswith("[route] ")
        assert whole["suikou_events"][0]["stage"] == "route"
        assert len(stream["ids"]) == 1 and len(stream["created"]) == 1 and stream["models"] == ["suikou"]
        assert stream["roles"] == ["assistant"]
        assert stream["content"] == whole["content"]
        assert stream["reasoning"] == whole["reasoning_content"]
        assert [e["stage"] for e in stream["suikou_events"]] == [e["stage"] for e in whole["suikou_events"]]
        assert stream["missing_reasoning_attr"] == 0
        assert stream["order"] == "r" * stream["order"].count("r") + "c" * stream["order"].count("c")
        assert stream["finish_reasons"] == ["stop"]
        assert stream["usage_chunk_choices"] == 0 and stream["usage"]["offline_steps"] >= 1
    assert "交周报" in out["whole"]["query"]["content"]
    assert "别人的任务" not in out["whole"]["query"]["content"]

    errors = out["errors"]
    for name in ("empty_messages", "image_part", "too_long"):
        for mode in ("whole", "stream"):
            e = errors[f"{name}:{mode}"]
            assert e["class"] == "BadRequestError" and e["where"] == "create" and e["status_code"] == 400, e
    assert errors["image_part:stream"]["code"] == "unsupported_content_type"
    assert errors["too_long:whole"]["code"] == "string_above_max_length"
    assert errors["empty_messages:whole"]["param"] == "messages"
    assert errors["unknown_model"]["class"] == "NotFoundError" and errors["unknown_model"]["code"] == "model_not_found"
    for name in ("wrong_key", "wrong_key_stream"):
        assert errors[name]["class"] == "AuthenticationError" and errors[name]["code"] == "invalid_api_key"


def check_midstream(out: dict[str, Any]) -> None:
    e = out["midstream"]
    assert e["where"] == "iteration" and e["is_api_error"] and e["type"] == "server_error", e
    assert e["chunks_before_error"] == 2


def test_probe_with_the_current_sdk(server: LiveServer, monkeypatch: pytest.MonkeyPatch) -> None:
    out = run_probe(sys.executable, server)
    assert out["openai_version"] == openai.__version__
    check_probe(out)
    fail_after_a_stage_event(server, monkeypatch)
    check_midstream(run_probe(sys.executable, server, "--only", "midstream"))


def openai1_python() -> str:
    python = os.environ.get("SUIKOU_OPENAI1_PYTHON", "").strip()
    if not python:
        if in_ci():
            pytest.fail(
                "SUIKOU_OPENAI1_PYTHON is not set under CI=true (.ci/run creates the openai 1.x venv; "
                "tests/conftest.py must not strip it with the other SUIKOU_* variables)"
            )
        pytest.skip("SUIKOU_OPENAI1_PYTHON not set: no openai 1.x interpreter to test with")
    return python


def test_probe_with_openai_1x(server: LiveServer, monkeypatch: pytest.MonkeyPatch) -> None:
    python = openai1_python()
    out = run_probe(python, server)
    assert out["openai_version"].startswith("1."), out["openai_version"]
    check_probe(out)
    fail_after_a_stage_event(server, monkeypatch)
    check_midstream(run_probe(python, server, "--only", "midstream"))
