"""Bad input gets a 4xx in OpenAI's error shape, never a 500, and changes nothing; failures after a
stream started end it with an error event and `[DONE]`."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient
from pydantic_ai.messages import ModelMessage
from pydantic_ai.models.function import AgentInfo, FunctionModel

from app.main import create_app
from core.llm import ModelHub
from core.models import Task, User
from route.chat import offline_chat_reply
from support.check_stream import check_body, must_failures, schema_errors

PATHS = ["/v1/chat/completions", "/agent/chat"]
NOTE = "帮我记一下明天下午三点交报告"  # would create a task if it were ever acted on


def counts(harness: Any) -> tuple[int, int]:
    with harness.state.session() as session:
        tasks = session.execute(sa.select(sa.func.count()).select_from(Task)).scalar_one()
        users = session.execute(sa.select(sa.func.count()).select_from(User)).scalar_one()
    return tasks, users


def assert_error(r: Any, status: int, code: str | None = None, param: str | None = None) -> dict:
    assert r.status_code == status, r.text
    assert r.headers["content-type"].startswith("application/json")
    body = r.json()
    assert schema_errors("error_response", body) == [], body
    assert set(body) == {"error"}
    assert set(body["error"]) == {"message", "type", "param", "code"}
    assert body["error"]["message"]
    if code is not None:
        assert body["error"]["code"] == code
    if param is not None:
        assert body["error"]["param"] == param
    return body["error"]


@pytest.fixture
def key(harness: Any) -> str:
    harness.add("已有任务", 2, "2026-12-02 10:00")
    return harness.api_key("alice")


@pytest.fixture
def client(harness: Any, key: str) -> Iterator[TestClient]:
    with harness.client() as c:
        yield c


def msg(content: Any, role: str = "user") -> dict[str, Any]:
    return {"role": role, "content": content}


def chat_body(messages: Any, **extra: Any) -> dict[str, Any]:
    return {"model": "suikou", "messages": messages, **extra}


def _raw(text: str) -> dict[str, Any]:
    return {"content": text.encode(), "content_type": "application/json"}


# name -> (request, expected status, expected code or None, expected param or None)
# A request is {"json": obj} or {"content": bytes, "content_type": str | None}.
BAD_BODIES: dict[str, tuple[dict[str, Any], int, str | None, str | None]] = {
    "malformed_json": (
        _raw('{"model": "suikou", "stream": true, "messages": [{"role": "user"'),
        400,
        "invalid_json",
        None,
    ),
    "json_array": ({"json": [chat_body([msg(NOTE)])]}, 400, "invalid_json", None),
    "json_string": ({"json": NOTE}, 400, "invalid_json", None),
    "invalid_utf8": ({"content": b'{"model": "\xff\xfe"}', "content_type": "application/json"}, 400, None, None),
    "empty_body": ({"content": b"", "content_type": "application/json"}, 400, "invalid_json", None),
    "no_messages": ({"json": {"model": "suikou"}}, 400, None, "messages"),
    "no_model": ({"json": {"messages": [msg(NOTE)]}}, 400, None, "model"),
    "empty_messages": ({"json": chat_body([])}, 400, None, "messages"),
    "messages_not_a_list": ({"json": chat_body(NOTE)}, 400, None, "messages"),
    "message_not_an_object": ({"json": chat_body([NOTE])}, 400, None, None),
    "unknown_role": ({"json": chat_body([msg(NOTE, role="wizard")])}, 400, None, "messages.0.role"),
    "no_role": ({"json": chat_body([{"content": NOTE}])}, 400, None, "messages.0.role"),
    "image_part": (
        {
            "json": chat_body(
                [msg([{"type": "text", "text": NOTE}, {"type": "image_url", "image_url": {"url": "http://x/a.png"}}])]
            )
        },
        400,
        "unsupported_content_type",
        "messages.0.content.1.type",
    ),
    "audio_part": (
        {"json": chat_body([msg([{"type": "input_audio", "input_audio": {"data": "AAAA", "format": "wav"}}])])},
        400,
        "unsupported_content_type",
        None,
    ),
    "file_part": (
        {"json": chat_body([msg([{"type": "file", "file": {"file_id": "file-1"}}])])},
        400,
        "unsupported_content_type",
        None,
    ),
    "text_part_without_text": ({"json": chat_body([msg([{"type": "text"}])])}, 400, None, "messages.0.content.0.text"),
    "content_a_number": ({"json": chat_body([msg(42)])}, 400, None, None),
    "message_100kb": (
        {"json": chat_body([msg(NOTE + "报" * 100_000)])},
        400,
        "string_above_max_length",
        "messages.0.content",
    ),
    "part_100kb": (
        {"json": chat_body([msg([{"type": "text", "text": NOTE + "x" * 100_000}])])},
        400,
        "string_above_max_length",
        "messages.0.content.0.text",
    ),
    "early_message_100kb": (
        {"json": chat_body([msg("x" * 100_000, role="system"), msg(NOTE)])},
        400,
        "string_above_max_length",
        "messages.0.content",
    ),
    # Body size limits (413) are tested in test_input_bounds.py, with small configured limits.
    "too_many_messages": ({"json": chat_body([msg("嗯")] * 300 + [msg(NOTE)])}, 400, None, "messages"),
    "empty_last_user_message": ({"json": chat_body([msg("")])}, 400, None, "messages.0.content"),
    "blank_last_user_message": ({"json": chat_body([msg(NOTE, role="system"), msg("  \n ")])}, 400, None, None),
    "null_last_user_message": ({"json": chat_body([msg(None)])}, 400, None, None),
    "n_2": ({"json": chat_body([msg(NOTE)], n=2)}, 400, "unsupported_value", "n"),
    "stream_not_bool": ({"json": chat_body([msg(NOTE)], stream="yes")}, 400, None, "stream"),
    "stream_options_not_object": ({"json": chat_body([msg(NOTE)], stream_options="usage")}, 400, None, None),
    "empty_model": ({"json": {"model": "", "messages": [msg(NOTE)]}}, 400, None, "model"),
    "text_plain": (
        {"content": json.dumps(chat_body([msg(NOTE)])).encode(), "content_type": "text/plain"},
        415,
        "unsupported_media_type",
        None,
    ),
    "form_encoded": (
        {"content": b"model=suikou&messages=hi", "content_type": "application/x-www-form-urlencoded"},
        415,
        None,
        None,
    ),
    "no_content_type": (
        {"content": json.dumps(chat_body([msg(NOTE)])).encode(), "content_type": None},
        415,
        None,
        None,
    ),
}


def send(client: TestClient, path: str, request: dict[str, Any], headers: dict[str, str], *, stream: bool) -> Any:
    if "json" in request:
        obj = request["json"]
        if stream and isinstance(obj, dict):
            # The case's own stream fields win (some cases are about them).
            obj = {"stream": True, "stream_options": {"include_usage": True}, **obj}
        return client.post(path, json=obj, headers=headers)
    hdrs = dict(headers)
    if request["content_type"] is not None:
        hdrs["Content-Type"] = request["content_type"]
    return client.post(path, content=request["content"], headers=hdrs)


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("case", list(BAD_BODIES))
def test_bad_body(harness: Any, client: TestClient, key: str, case: str, path: str, stream: bool) -> None:
    request, status, code, param = BAD_BODIES[case]
    before = counts(harness)
    r = send(client, path, request, {"Authorization": f"Bearer {key}"}, stream=stream)
    # Refused before any stream byte: a plain JSON error, even for stream: true (item 43).
    error = assert_error(r, status, code, param)
    assert error["type"] == "invalid_request_error"
    assert counts(harness) == before


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
@pytest.mark.parametrize(
    "auth", [None, "Bearer", "Bearer ", "Bearer sk-wrong", "Basic YWxpY2U6eA==", "sk-no-scheme", "Token x"]
)
def test_missing_or_wrong_key(harness: Any, client: TestClient, auth: str | None, stream: bool) -> None:
    before = counts(harness)
    headers = {"Authorization": auth} if auth is not None else {}
    r = client.post(PATHS[0], json=chat_body([msg(NOTE)], stream=stream), headers=headers)
    error = assert_error(r, 401, "invalid_api_key")
    assert r.headers["www-authenticate"] == "Bearer"
    assert "sk-wrong" not in error["message"]
    assert counts(harness) == before


def test_auth_is_checked_before_the_body(harness: Any, client: TestClient) -> None:
    # A bad body without a key is a 401, not a 400 that would tell strangers about the API.
    r = client.post(PATHS[0], content=b"{nope", headers={"Content-Type": "application/json"})
    assert_error(r, 401, "invalid_api_key")


def test_bad_timezone_header(harness: Any, client: TestClient, key: str) -> None:
    before = counts(harness)
    headers = {"Authorization": f"Bearer {key}", "X-Suikou-Timezone": "Mars/Olympus_Mons"}
    r = client.post(PATHS[0], json=chat_body([msg(NOTE)], stream=True), headers=headers)
    assert_error(r, 400, param="X-Suikou-Timezone")
    assert counts(harness) == before


def test_unknown_model_when_models_are_checked(harness: Any, key: str) -> None:
    harness.state.settings = harness.state.settings.model_copy(update={"accept_any_model": False})
    headers = {"Authorization": f"Bearer {key}"}
    before = counts(harness)
    with harness.client() as client:
        for stream in (False, True):
            body = {"model": "gpt-4o", "messages": [msg(NOTE)], "stream": stream}
            error = assert_error(client.post(PATHS[0], json=body, headers=headers), 404, "model_not_found", "model")
            assert "gpt-4o" in error["message"]
        assert counts(harness) == before
        ok = client.post(PATHS[0], json={"model": "suikou", "messages": [msg(NOTE)]}, headers=headers)
        assert ok.status_code == 200


@pytest.mark.parametrize(
    ("method", "path", "status", "code"),
    [
        ("get", "/nowhere", 404, "not_found"),
        ("get", "/v1/chat/completions", 405, "method_not_allowed"),
        ("put", "/tasks", 405, "method_not_allowed"),
        ("get", "/v1/models/not-a-model", 404, "model_not_found"),
    ],
)
def test_routing_errors_use_the_envelope(
    client: TestClient, key: str, method: str, path: str, status: int, code: str
) -> None:
    r = client.request(method, path, headers={"Authorization": f"Bearer {key}"})
    assert_error(r, status, code)


def test_a_good_request_does_write(harness: Any, client: TestClient, key: str) -> None:
    """Control for the tests above: the same note, well-formed, does create a task."""
    tasks, users = counts(harness)
    r = client.post(PATHS[0], json=chat_body([msg(NOTE)]), headers={"Authorization": f"Bearer {key}"})
    assert r.status_code == 200
    assert counts(harness) == (tasks + 1, users)


# --- failures after the stream started --------------------------------------------------------------


def sse_payloads(raw: str) -> list[str]:
    assert raw.endswith("\n\n")
    events = raw[:-2].split("\n\n")
    assert all(e.startswith("data: ") and "\n" not in e for e in events)
    return [e[len("data: ") :] for e in events]


def assert_stream_ends_with_error(raw: bytes, *, leaked: str) -> list[dict[str, Any]]:
    """The stream: chunks, then one `data: {"error": ...}`, then `data: [DONE]`, nothing else."""
    text = raw.decode()
    payloads = sse_payloads(text)
    assert payloads[-1] == "[DONE]"
    error = json.loads(payloads[-2])
    assert schema_errors("error_response", error) == []
    assert error["error"]["type"] == "server_error"
    assert error["error"]["param"] is None
    assert leaked not in text  # internal details stay in the log
    chunks = [json.loads(p) for p in payloads[:-2]]
    for c in chunks:
        assert schema_errors("chat_completion_chunk", c) == []
        assert "error" not in c
        # No finish chunk: the answer did not finish. The error is not smuggled into content.
        assert all(ch["finish_reason"] is None for ch in c["choices"])
        assert "server_error" not in json.dumps(c)
    assert chunks[0]["choices"][0]["delta"]["role"] == "assistant"
    assert len({c["id"] for c in chunks}) == 1
    # The checker's only MUST complaints are the error payload itself (item 23), the missing finish
    # chunk (item 28) and usage chunk (item 33): by design, an unfinished answer ends with the
    # error (item 45) instead.
    failures = must_failures(check_body(raw, include_usage=True))
    assert 23 in {f[0] for f in failures}
    assert {f[0] for f in failures} <= {23, 28, 33}, failures
    return chunks


def test_pipeline_failure_after_a_stage_event(harness: Any, key: str, monkeypatch: pytest.MonkeyPatch) -> None:
    async def boom(turn: Any, *, request_extras: Any = None) -> Any:
        turn.trace.emit("route", "end", "分流到 chat（置信度 0.95）", {"action": "chat"})
        raise RuntimeError("database password is hunter2")

    monkeypatch.setattr(harness.state.pipeline, "run", boom)
    headers = {"Authorization": f"Bearer {key}"}
    before = counts(harness)
    with harness.client() as client:
        body = chat_body([msg("你好")], stream=True, stream_options={"include_usage": True})
        r = client.post(PATHS[0], json=body, headers=headers)
    assert r.status_code == 200
    chunks = assert_stream_ends_with_error(r.content, leaked="hunter2")
    assert [c["suikou_event"]["stage"] for c in chunks if "suikou_event" in c] == ["route"]
    assert not any(ch["delta"].get("content") for c in chunks for ch in c["choices"])
    assert not any(c["choices"] == [] for c in chunks)  # no usage chunk for a failed answer
    assert counts(harness) == before


def test_pipeline_failure_without_streaming_is_a_500_envelope(
    harness: Any, key: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def boom(turn: Any, *, request_extras: Any = None) -> Any:
        raise RuntimeError("database password is hunter2")

    monkeypatch.setattr(harness.state.pipeline, "run", boom)
    app = create_app(harness.state.settings, state=harness.state)
    with TestClient(app, raise_server_exceptions=False) as client:
        r = client.post(PATHS[0], json=chat_body([msg("你好")]), headers={"Authorization": f"Bearer {key}"})
    error = assert_error(r, 500)
    assert error["type"] == "server_error"
    assert "hunter2" not in r.text


def _failing_chat_model(exc: Exception, sent: list[str]) -> FunctionModel:
    """A chat model that streams `sent` and then fails with `exc`."""

    async def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
        for piece in sent:
            yield piece
        raise exc

    return FunctionModel(stream_function=stream, model_name="flaky-chat")


def test_a_programming_error_after_some_text_ends_the_stream_with_an_error(harness: Any, key: str) -> None:
    """A bug (not a provider failure) is not papered over: the stream ends with an error event."""
    exc = RuntimeError("provider said hunter2")
    harness.state.hub = ModelHub(injected={"chat": _failing_chat_model(exc, ["你好，", "我在"])})
    with harness.client() as client:
        body = chat_body([msg("你好")], stream=True, stream_options={"include_usage": True})
        r = client.post(PATHS[0], json=body, headers={"Authorization": f"Bearer {key}"})
    assert r.status_code == 200
    chunks = assert_stream_ends_with_error(r.content, leaked="hunter2")
    content = "".join(ch["delta"].get("content") or "" for c in chunks for ch in c["choices"])
    assert content == "你好，我在"
    # Reasoning (the route event) still came before the first content.
    kinds = ["r" if c["choices"][0]["delta"].get("reasoning_content") else "c" for c in chunks[1:]]
    assert kinds == sorted(kinds, key=lambda k: k == "c")


def test_provider_cut_after_some_text_is_completed_offline(harness: Any, key: str) -> None:
    """A provider that drops mid-reply: what was shown stays, the offline reply completes the answer."""
    cut = OSError("connection reset (hunter2)")
    harness.state.hub = ModelHub(injected={"chat": _failing_chat_model(cut, ["你好，", "我在"])})
    with harness.client() as client:
        body = chat_body([msg("你好")], stream=True, stream_options={"include_usage": True})
        r = client.post(PATHS[0], json=body, headers={"Authorization": f"Bearer {key}"})
    checked = check_body(r.content, include_usage=True, headers=dict(r.headers), status=r.status_code)
    assert [row for row in checked if not row[2]] == []
    assert "hunter2" not in r.text  # the provider's words stay in the server log
    chunks = [json.loads(p) for p in sse_payloads(r.text)[:-1]]
    stages = [c["suikou_event"]["stage"] for c in chunks if "suikou_event" in c]
    assert stages == ["route", "fallback"]
    content = "".join(ch["delta"].get("content") or "" for c in chunks for ch in c["choices"])
    assert content == "你好，我在\n\n" + offline_chat_reply("你好", "failed")
    assert chunks[-1]["usage"]["model_requests"] == 1  # the cut chat reply; the router ran offline


def test_provider_cut_without_streaming_answers_offline_whole(harness: Any, key: str) -> None:
    """A non-streaming client never sees half a provider reply: the offline reply is the answer."""
    cut = OSError("connection reset")
    harness.state.hub = ModelHub(injected={"chat": _failing_chat_model(cut, ["你好，", "我在"])})
    with harness.client() as client:
        r = client.post(PATHS[0], json=chat_body([msg("你好")]), headers={"Authorization": f"Bearer {key}"})
    assert r.status_code == 200
    body = r.json()
    assert body["choices"][0]["message"]["content"] == offline_chat_reply("你好", "failed")
    assert [e["stage"] for e in body["suikou_events"]] == ["route", "fallback"]


def test_model_failure_before_any_text_falls_back(harness: Any, key: str) -> None:
    """Nothing was sent yet: the offline reply answers and the stream is complete and conforming."""
    harness.state.hub = ModelHub(injected={"chat": _failing_chat_model(OSError("connection refused"), [])})
    with harness.client() as client:
        body = chat_body([msg("你好")], stream=True, stream_options={"include_usage": True})
        r = client.post(PATHS[0], json=body, headers={"Authorization": f"Bearer {key}"})
    checked = check_body(r.content, include_usage=True, headers=dict(r.headers), status=r.status_code)
    assert [row for row in checked if not row[2]] == []
    payloads = sse_payloads(r.text)
    chunks = [json.loads(p) for p in payloads[:-1]]
    stages = [c["suikou_event"]["stage"] for c in chunks if "suikou_event" in c]
    assert stages == ["route", "fallback"]
    assert chunks[-1]["usage"]["model_requests"] == 1  # the failed attempt is counted
    assert chunks[-1]["usage"]["offline_steps"] == 2  # the router's rules and the offline reply
    content = "".join(ch["delta"].get("content") or "" for c in chunks for ch in c["choices"])
    assert content.startswith("你好！")
