"""The OpenAI wire protocol: JSON Schemas, SSE framing and the stream rules of FDR 0004.

Checklist items (numbers in ../shared/docs/openai-protocol.md) are checked twice: by the project's
own checker (`support.check_stream`, a copy of ../shared/tools/check_stream.py) on each captured
body, and by explicit assertions for the rules Suikou adds on top (stage events, DeepSeek layout).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from core import carry
from support.check_stream import check_body, schema_errors, should_failures

DATA = Path(__file__).resolve().parent.parent / "data"
SCHEMAS = DATA / "openai_schemas"
CHAT = "/v1/chat/completions"
STAGE_STATUSES = {"start", "end", "info", "error"}
SUIKOU_EVENT_KEYS = {"stage", "status", "message", "data", "elapsed_ms"}


def _aux_title_prompt() -> list[dict[str, Any]]:
    """Open WebUI's title request, as recorded in tests/data (a client auxiliary request)."""
    with (DATA / "aux_prompts.jsonl").open(encoding="utf-8") as fh:
        for line in fh:
            case = json.loads(line)
            if case["client"] == "Open WebUI" and case["purpose"] == "title":
                return case["messages"]
    raise AssertionError("no Open WebUI title prompt in aux_prompts.jsonl")


# One request per kind of answer: task query, chat, quick note, client auxiliary request.
CASES: dict[str, list[dict[str, Any]]] = {
    "query": [{"role": "user", "content": "这周有什么要交的"}],
    "chat": [{"role": "user", "content": "你好"}],
    "note": [{"role": "user", "content": "帮我记一下明天下午三点交报告"}],
    "aux": _aux_title_prompt(),
}


@pytest.fixture
def client(harness: Any) -> Iterator[TestClient]:
    """No API keys: the single local user, with a few tasks."""
    harness.add("交周报", 1, "2026-12-01 15:00", user="local")
    harness.add("买猫粮", 3, "2026-12-01 19:00", user="local")
    harness.add("整理书架", 4, "2026-12-05 10:00", user="local")
    harness.state.settings.note_near_duplicates = "allow"  # each case is sent whole and streamed
    with harness.client() as c:
        yield c


def body_for(case: str, *, stream: bool | None, include_usage: bool = False, model: str = "suikou") -> dict:
    body: dict[str, Any] = {"model": model, "messages": CASES[case]}
    if stream is not None:
        body["stream"] = stream
    if include_usage:
        body["stream_options"] = {"include_usage": True}
    return body


def post(client: TestClient, body: dict, *, message_id: str | None = None) -> Any:
    headers = {"X-Client-Message-Id": message_id} if message_id else {}
    return client.post(CHAT, json=body, headers=headers)


def sse_events(raw: str) -> list[str]:
    """The `data:` payloads of a body where every event must be exactly `data: <one line>\\n\\n`."""
    assert raw.endswith("\n\n"), "the last event must end with a blank line"
    events = raw[:-2].split("\n\n")
    for event in events:
        assert "\n" not in event, f"multi-line event: {event[:120]!r}"
        assert event.startswith("data: "), f"not a data line: {event[:120]!r}"
    return [event[len("data: ") :] for event in events]


def chunks_of(raw: str) -> list[dict[str, Any]]:
    payloads = sse_events(raw)
    assert payloads[-1] == "[DONE]"
    assert "[DONE]" not in payloads[:-1]
    return [json.loads(p) for p in payloads[:-1]]


def deltas(chunks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [c["choices"][0]["delta"] for c in chunks if c["choices"]]


def streamed_content(chunks: list[dict[str, Any]]) -> str:
    return "".join(d.get("content") or "" for d in deltas(chunks))


def streamed_reasoning(chunks: list[dict[str, Any]]) -> str:
    return "".join(d.get("reasoning_content") or "" for d in deltas(chunks))


# --- the checker -------------------------------------------------------------------------------


@pytest.mark.parametrize("include_usage", [False, True], ids=["plain", "usage"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_stream_passes_the_checker(client: TestClient, case: str, include_usage: bool) -> None:
    r = post(client, body_for(case, stream=True, include_usage=include_usage))
    headers = {k.lower(): v for k, v in r.headers.items()}
    checked = check_body(r.content, include_usage=include_usage, headers=headers, status=r.status_code)
    failed = [row for row in checked if not row[2]]
    # Not only no MUST failure: Suikou also meets every SHOULD the checker tests.
    assert failed == [], failed
    assert not should_failures(checked)
    items = {row[0] for row in checked}
    assert {14, 15, 16, 17, 18, 19, 20, 23, 24, 26, 28, 29, 32, 33} <= items
    if case != "aux":
        assert {38, 39, 40} <= items  # stage events were sent as reasoning, so those were checked


# --- FDR 0004 rules, explicitly ------------------------------------------------------------------


@pytest.mark.parametrize("include_usage", [False, True], ids=["plain", "usage"])
@pytest.mark.parametrize("case", ["query", "chat", "note"])
def test_stream_rules(client: TestClient, case: str, include_usage: bool) -> None:
    r = post(client, body_for(case, stream=True, include_usage=include_usage))
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("text/event-stream")
    raw = r.text
    for line in raw.split("\n"):
        assert not line.startswith(("event:", "id:", "retry:")), line
    chunks = chunks_of(raw)

    # Every chunk is a schema-valid chat.completion.chunk with one id, created and model.
    for c in chunks:
        assert schema_errors("chat_completion_chunk", c) == []
        assert c["object"] == "chat.completion.chunk"
        assert "system_fingerprint" not in c
    assert len({c["id"] for c in chunks}) == 1
    assert len({c["created"] for c in chunks}) == 1
    assert {c["model"] for c in chunks} == {"suikou"}
    assert chunks[0]["id"].startswith("chatcmpl-")

    with_choices = [c for c in chunks if c["choices"]]
    for c in with_choices:
        assert len(c["choices"]) == 1
        choice = c["choices"][0]
        assert choice["index"] == 0
        assert choice["logprobs"] is None

    # The first delta opens the assistant message, DeepSeek style; no other delta has a role.
    assert with_choices[0]["choices"][0]["delta"] == {"role": "assistant", "content": "", "reasoning_content": None}
    assert all("role" not in d for d in deltas(chunks)[1:])

    # DeepSeek key layout: every delta has reasoning_content; content is a string whenever
    # reasoning is empty. Reasoning and content never share a delta; all reasoning comes first.
    seen_content = False
    reasoning_chunks = 0
    for c in with_choices:
        d = c["choices"][0]["delta"]
        assert "reasoning_content" in d and "content" in d, d
        reasoning, content = d["reasoning_content"], d["content"]
        assert not (reasoning and content), d
        if not reasoning:
            assert isinstance(content, str), d
        if content:
            seen_content = True
            assert "suikou_event" not in c
        if reasoning:
            assert not seen_content, "reasoning after the first content delta"
            assert content is None
            reasoning_chunks += 1
            # The structured form of the same stage event rides on the same chunk.
            event = c["suikou_event"]
            assert set(event) <= SUIKOU_EVENT_KEYS
            assert {"stage", "status", "message"} <= set(event)
            assert event["status"] in STAGE_STATUSES
            assert reasoning == f"[{event['stage']}] {event['message']}\n"
            assert isinstance(event.get("data", {}), dict)
            assert isinstance(event.get("elapsed_ms", 0.0), int | float)
        else:
            assert "suikou_event" not in c
    assert reasoning_chunks >= 1
    assert seen_content

    # Exactly one finish chunk: empty text, finish_reason stop, after all content.
    finishes = [k for k, c in enumerate(with_choices) if c["choices"][0]["finish_reason"] is not None]
    assert finishes == [len(with_choices) - 1]
    last = with_choices[-1]["choices"][0]
    assert last["finish_reason"] == "stop"
    assert last["delta"] == {"content": "", "reasoning_content": None}

    # Usage: one choices-less chunk right before [DONE] only when asked; others carry usage: null.
    if include_usage:
        assert chunks[-1]["choices"] == []
        usage = chunks[-1]["usage"]
        assert usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"]
        # Offline: no provider request, each node answered by the rules.
        assert usage["model_requests"] == 0 and usage["offline_steps"] >= 1
        assert all(c["usage"] is None for c in chunks[:-1])
    else:
        assert all(c["choices"] for c in chunks)
        assert all("usage" not in c for c in chunks)


@pytest.mark.parametrize("case", ["query", "chat", "note"])
def test_stage_events_come_first_and_route_leads(client: TestClient, case: str) -> None:
    chunks = chunks_of(post(client, body_for(case, stream=True)).text)
    events = [c["suikou_event"] for c in chunks if "suikou_event" in c]
    assert events[0]["stage"] == "route"
    assert events[0]["status"] == "end"
    action = {"query": "task_query", "chat": "chat", "note": "quick_note_create"}[case]
    assert events[0]["data"]["action"] == action


def test_aux_request_has_no_stage_events(client: TestClient) -> None:
    for include_usage in (False, True):
        chunks = chunks_of(post(client, body_for("aux", stream=True, include_usage=include_usage)).text)
        assert not any("suikou_event" in c for c in chunks)
        assert streamed_reasoning(chunks) == ""
        assert streamed_content(chunks).strip()
    body = post(client, body_for("aux", stream=False)).json()
    assert "suikou_events" not in body
    assert "reasoning_content" not in body["choices"][0]["message"]


# --- streaming and non-streaming give the same answer ---------------------------------------------


@pytest.mark.parametrize("case", sorted(CASES))
def test_stream_and_whole_answer_agree(client: TestClient, case: str) -> None:
    # Distinct client message ids: a quick note is a new turn each time, not a replay.
    whole = post(client, body_for(case, stream=False), message_id=f"{case}-1").json()
    chunks = chunks_of(post(client, body_for(case, stream=True), message_id=f"{case}-2").text)
    message = whole["choices"][0]["message"]
    # Two writes of the same note carry their own change ids; what a person reads is the same.
    assert carry.strip(streamed_content(chunks)) == carry.strip(message["content"])
    assert streamed_reasoning(chunks) == message.get("reasoning_content", "")
    streamed_events = [c["suikou_event"] for c in chunks if "suikou_event" in c]
    whole_events = whole.get("suikou_events", [])

    def key(e: dict) -> tuple:
        return (e["stage"], e["status"], e["message"])

    assert [key(e) for e in streamed_events] == [key(e) for e in whole_events]


# --- non-streaming bodies -------------------------------------------------------------------------


@pytest.mark.parametrize("case", sorted(CASES))
def test_whole_answer_is_schema_valid(client: TestClient, case: str) -> None:
    r = post(client, body_for(case, stream=False))
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("application/json")
    body = r.json()
    assert schema_errors("chat_completion", body) == []
    assert body["object"] == "chat.completion"
    assert body["id"].startswith("chatcmpl-")
    assert "system_fingerprint" not in body
    [choice] = body["choices"]
    assert choice["index"] == 0
    assert choice["finish_reason"] == "stop"
    assert choice["logprobs"] is None
    message = choice["message"]
    assert message["role"] == "assistant"
    assert message["refusal"] is None
    assert isinstance(message["content"], str) and message["content"].strip()
    assert "<think>" not in message["content"]
    usage = body["usage"]
    assert usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"]
    assert usage["model_requests"] == 0 and usage["offline_steps"] >= 1
    if case == "aux":
        return
    events = body["suikou_events"]
    assert events and events[0]["stage"] == "route"
    for e in events:
        assert set(e) <= SUIKOU_EVENT_KEYS and e["status"] in STAGE_STATUSES
    assert message["reasoning_content"] == "".join(f"[{e['stage']}] {e['message']}\n" for e in events)


def test_query_answer_lists_the_tasks(client: TestClient) -> None:
    content = post(client, body_for("query", stream=False)).json()["choices"][0]["message"]["content"]
    assert "1. 交周报（重要且紧急；截止 12月1日 周二 15:00）" in content
    assert "买猫粮" in content and "整理书架" in content


@pytest.mark.parametrize("flag", ["absent", False, None, True])
def test_stream_only_when_true(client: TestClient, flag: Any) -> None:
    body = body_for("chat", stream=None)
    if flag != "absent":
        body["stream"] = flag
    r = post(client, body)
    assert r.status_code == 200
    if flag is True:
        assert r.headers["content-type"].startswith("text/event-stream")
        chunks_of(r.text)
    else:
        assert r.headers["content-type"].startswith("application/json")
        assert r.json()["object"] == "chat.completion"


def test_include_usage_false_sends_no_usage_chunk(client: TestClient) -> None:
    body = body_for("chat", stream=True)
    body["stream_options"] = {"include_usage": False}
    chunks = chunks_of(post(client, body).text)
    assert all(c["choices"] for c in chunks)
    assert all("usage" not in c for c in chunks)


def test_model_is_echoed(client: TestClient) -> None:
    # accept_any_model (the default): clients vary in the model name they send.
    whole = post(client, body_for("chat", stream=False, model="gpt-4o-mini")).json()
    assert whole["model"] == "gpt-4o-mini"
    chunks = chunks_of(post(client, body_for("chat", stream=True, include_usage=True, model="deepseek-chat")).text)
    assert {c["model"] for c in chunks} == {"deepseek-chat"}


def test_agent_chat_is_the_same_endpoint(client: TestClient) -> None:
    a = client.post("/agent/chat", json=body_for("query", stream=False)).json()
    b = client.post(CHAT, json=body_for("query", stream=False)).json()
    assert a["choices"][0]["message"]["content"] == b["choices"][0]["message"]["content"]
    r = client.post("/agent/chat", json=body_for("query", stream=True, include_usage=True))
    checked = check_body(r.content, include_usage=True, headers=dict(r.headers), status=r.status_code)
    assert [row for row in checked if not row[2]] == []


# --- requests clients really send ------------------------------------------------------------------


@pytest.mark.parametrize("path", sorted(p.name for p in SCHEMAS.glob("chat_completion_request.valid.*.json")))
def test_valid_request_examples_are_accepted(client: TestClient, path: str) -> None:
    body = json.loads((SCHEMAS / path).read_text())
    assert schema_errors("chat_completion_request", body) == []
    r = post(client, body)
    assert r.status_code == 200, r.text
    if body.get("stream"):
        include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
        checked = check_body(r.content, include_usage=include_usage, headers=dict(r.headers), status=200)
        assert [row for row in checked if not row[2]] == []
    else:
        assert schema_errors("chat_completion", r.json()) == []


@pytest.mark.parametrize("path", sorted(p.name for p in SCHEMAS.glob("chat_completion_request.invalid.*.json")))
def test_invalid_request_examples_are_refused(client: TestClient, path: str) -> None:
    body = json.loads((SCHEMAS / path).read_text())
    assert schema_errors("chat_completion_request", body) != []
    r = post(client, body)
    assert r.status_code == 400
    assert schema_errors("error_response", r.json()) == []


def test_unimplemented_fields_are_ignored(client: TestClient) -> None:
    body = {
        "model": "suikou",
        "messages": [
            {"role": "system", "content": [{"type": "text", "text": "简短回答"}]},
            {"role": "user", "content": "你好"},
            {"role": "assistant", "content": "你好！", "reasoning_content": "想一想"},
            {"role": "user", "content": [{"type": "text", "text": "这周有什么要交的"}]},
        ],
        "logprobs": False,
        "user": "someone",
        "seed": 7,
        "reasoning_effort": "low",
        "parallel_tool_calls": False,
        "thinking": {"type": "enabled"},
        "include_reasoning": True,
        "max_tokens": 256,
        "max_completion_tokens": 256,
        "stop": "\n\n",
        "temperature": 0.3,
        "top_p": 1,
        "frequency_penalty": 0,
        "presence_penalty": 0,
        "metadata": {"k": "v"},
        "stream_options": {"include_usage": True, "include_obfuscation": False},
    }
    assert schema_errors("chat_completion_request", body) == []
    for stream in (False, True):
        r = post(client, {**body, "stream": stream})
        assert r.status_code == 200, r.text
        if stream:
            checked = check_body(r.content, include_usage=True, headers=dict(r.headers), status=200)
            assert [row for row in checked if not row[2]] == []
        else:
            assert "交周报" in r.json()["choices"][0]["message"]["content"]


# --- models ---------------------------------------------------------------------------------------


def test_models_list_and_retrieve(client: TestClient) -> None:
    r = client.get("/v1/models")
    assert r.status_code == 200
    body = r.json()
    assert schema_errors("models_list", body) == []
    # The served id, then its stage-display variants (docs/fdr/0021-stage-display.md).
    assert [m["id"] for m in body["data"]] == ["suikou", "suikou-think", "suikou-plain"]
    one = client.get("/v1/models/suikou").json()
    assert one == body["data"][0]
    assert set(one) == {"id", "object", "created", "owned_by"} and one["object"] == "model"
    # Every listed id is accepted as the chat model.
    for model in body["data"]:
        assert post(client, body_for("chat", stream=False, model=model["id"])).status_code == 200


def test_unknown_model_retrieve_is_404(client: TestClient) -> None:
    r = client.get("/v1/models/gpt-5")
    assert r.status_code == 404
    assert schema_errors("error_response", r.json()) == []
    assert r.json()["error"]["code"] == "model_not_found"


def test_healthz(client: TestClient) -> None:
    assert client.get("/healthz").json() == {"status": "ok"}
