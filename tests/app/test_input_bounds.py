"""Inputs that never reach a 500: each is a 4xx in OpenAI's error shape and writes nothing, on
SQLite and on PostgreSQL (`SUIKOU_TEST_BACKEND=postgresql`); and the one boundary that turns
unexpected errors into a logged 500.

- content parts: non-text parts in earlier messages are ignored, the last user message needs text;
- dates: RFC 3339 with an offset, years 1970..2200 as written, never a bare number;
- text: NUL characters and unpaired surrogates are refused everywhere a client sends text;
- shape: JSON nested too deep, non-JSON constants, over-long or unknown `X-Suikou-Timezone`;
- size: bodies over the configured limits are 413s, non-JSON bodies 415s.
"""

from __future__ import annotations

import json
import logging
import re
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import sqlalchemy as sa
import uvicorn
from fastapi import Request
from fastapi.testclient import TestClient

from app.main import create_app
from app.wire import ChatRequest, message_texts
from core.models import DATETIME_TEXT, SPACE, VISIBLE_TEXT, YEAR_MAX, YEAR_MIN, Task, User, text_fits
from support.check_stream import schema_errors

CHAT = "/v1/chat/completions"
NOTE = "帮我记一下明天下午三点交报告"  # a quick note: creates a task when it is acted on
IMAGE = {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}
AUDIO = {"type": "input_audio", "input_audio": {"data": "AAAA", "format": "wav"}}
FILE = {"type": "file", "file": {"file_id": "file-1"}}


def counts(harness: Any) -> tuple[int, int]:
    with harness.state.session() as session:
        tasks = session.execute(sa.select(sa.func.count()).select_from(Task)).scalar_one()
        users = session.execute(sa.select(sa.func.count()).select_from(User)).scalar_one()
    return tasks, users


def rows(harness: Any) -> list[tuple[Any, ...]]:
    with harness.state.session() as session:
        found = session.execute(sa.select(Task).order_by(Task.id)).scalars().all()  # type: ignore[arg-type]
        return [(t.id, t.title, t.priority_group, t.deadline_at, t.is_completed, t.updated_at) for t in found]


def assert_error(r: Any, status: int, code: str | None = None, param: str | None = None) -> dict[str, Any]:
    assert r.status_code == status, r.text
    assert r.headers["content-type"].startswith("application/json")
    body = r.json()
    assert schema_errors("error_response", body) == [], body
    assert set(body) == {"error"} and set(body["error"]) == {"message", "type", "param", "code"}
    assert body["error"]["message"]
    if code is not None:
        assert body["error"]["code"] == code
    if param is not None:
        assert body["error"]["param"] == param
    return dict(body["error"])


@pytest.fixture
def key(harness: Any) -> str:
    harness.add("已有任务", 2, "2026-12-02 10:00")
    return str(harness.api_key("alice"))


@pytest.fixture
def auth(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


@pytest.fixture
def client(harness: Any, key: str) -> Iterator[TestClient]:
    with harness.client() as c:
        yield c


def msg(content: Any, role: str = "user") -> dict[str, Any]:
    return {"role": role, "content": content}


def chat(messages: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return {"model": "suikou", "messages": messages, **extra}


def raw_json(text: str) -> dict[str, Any]:
    """A body sent byte for byte (for escapes such as a lone \\ud800, which `json=` cannot send)."""
    return {"content": text.encode(), "headers": {"Content-Type": "application/json"}}


def nested(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = [value]
    return value


def send(client: TestClient, method: str, path: str, auth: dict[str, str], request: dict[str, Any]) -> Any:
    headers = {**auth, **request.get("headers", {})}
    kwargs = {k: v for k, v in request.items() if k != "headers"}
    return client.request(method, path, headers=headers, **kwargs)


# --- content parts: history is ignored, the last user message must be text ---------------------------


def test_history_parts_are_ignored_and_text_kept() -> None:
    request = ChatRequest.model_validate(
        chat(
            [
                msg(
                    [{"type": "text", "text": "看看这张图"}, IMAGE, {"type": "input_text", "text": "和这段录音"}, AUDIO]
                ),
                msg([{"type": "refusal", "refusal": "不行"}, {"type": "text", "text": "看不到图片"}], role="assistant"),
                msg([IMAGE]),
                msg([FILE, {"type": "text", "text": "文件"}], role="system"),
                msg("那明天呢"),
            ]
        )
    )
    texts = [(m.role, m.text) for m in message_texts(request, max_chars=1000)]
    assert texts == [
        ("user", "看看这张图\n和这段录音"),
        ("assistant", "看不到图片"),
        ("user", ""),
        ("system", "文件"),
        ("user", "那明天呢"),
    ]


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
def test_an_image_in_history_does_not_block_later_turns(
    harness: Any, client: TestClient, auth: dict[str, str], stream: bool
) -> None:
    history = [
        msg([{"type": "text", "text": "这是什么"}, IMAGE]),
        msg("我只能读文字。", role="assistant"),
        msg([IMAGE, AUDIO, FILE]),
        msg([{"type": "text", "text": "好的"}], role="assistant"),
    ]
    tasks, users = counts(harness)
    r = client.post(CHAT, json=chat([*history, msg(NOTE)], stream=stream), headers=auth)
    assert r.status_code == 200, r.text
    assert counts(harness) == (tasks + 1, users)  # the note in the last message is acted on, once


# name -> (chat body, status, code, param)
BAD_CHATS: dict[str, tuple[dict[str, Any], int, str | None, str | None]] = {
    "last_user_only_an_image": (
        {"json": chat([msg("你好"), msg([IMAGE])])},
        400,
        "unsupported_content_type",
        "messages.1.content.0.type",
    ),
    "last_user_text_and_audio": (
        {"json": chat([msg([{"type": "text", "text": NOTE}, AUDIO])])},
        400,
        "unsupported_content_type",
        "messages.0.content.1.type",
    ),
    "last_user_blank_before_an_assistant_message": (
        {"json": chat([msg(NOTE), msg(" \u3000"), msg("好的", role="assistant")])},
        400,
        None,
        "messages.1.content",
    ),
    "history_text_part_without_text": (
        {"json": chat([msg([{"type": "text"}]), msg(NOTE)])},
        400,
        None,
        "messages.0.content.0.text",
    ),
    "history_part_without_type": (
        {"json": chat([msg([{"text": "x"}]), msg(NOTE)])},
        400,
        None,
        "messages.0.content.0.type",
    ),
    "too_many_parts": (
        {"json": chat([msg([{"type": "text", "text": "x"}] * 65), msg(NOTE)])},
        400,
        "array_above_max_length",
        "messages.0.content",
    ),
    # text
    "nul_in_content": ({"json": chat([msg(NOTE + "\x00")])}, 400, None, "messages.0.content"),
    "nul_in_a_text_part": (
        {"json": chat([msg([{"type": "text", "text": "\x00" + NOTE}])])},
        400,
        None,
        "messages.0.content.0.text",
    ),
    "nul_in_history": ({"json": chat([msg("a\x00b", role="system"), msg(NOTE)])}, 400, None, "messages.0.content"),
    "nul_in_model": ({"json": {"model": "suikou\x00", "messages": [msg(NOTE)]}}, 400, None, "model"),
    "lone_surrogate_in_content": (
        raw_json('{"model": "suikou", "messages": [{"role": "user", "content": "\\ud800' + NOTE + '"}]}'),
        400,
        None,
        "messages.0.content",
    ),
    "lone_surrogate_in_history": (
        raw_json(
            '{"model": "suikou", "messages": [{"role": "assistant", "content": "x\\udfff"}, '
            '{"role": "user", "content": "' + NOTE + '"}]}'
        ),
        400,
        None,
        "messages.0.content",
    ),
    "lone_surrogate_in_model": (
        raw_json('{"model": "\\udc00", "messages": [{"role": "user", "content": "' + NOTE + '"}]}'),
        400,
        None,
        "model",
    ),
    "model_too_long": ({"json": {"model": "m" * 257, "messages": [msg(NOTE)]}}, 400, None, "model"),
    # shape
    "nested_100000": (
        raw_json('{"model": "suikou", "x": ' + "[" * 100_000 + "]" * 100_000 + "}"),
        400,
        "invalid_json",
        None,
    ),
    "nested_65_in_an_extra": ({"json": chat([msg(NOTE)], metadata=nested(64))}, 400, "invalid_json", None),
    "nan": (raw_json('{"model": "suikou", "temperature": NaN, "messages": []}'), 400, "invalid_json", None),
    "n_as_a_string": ({"json": chat([msg(NOTE)], n="1")}, 400, None, "n"),
    "n_true": ({"json": chat([msg(NOTE)], n=True)}, 400, None, "n"),
}


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
@pytest.mark.parametrize("case", list(BAD_CHATS))
def test_bad_chat(harness: Any, client: TestClient, auth: dict[str, str], case: str, stream: bool) -> None:
    request, status, code, param = BAD_CHATS[case]
    if stream and "json" in request:
        request = {"json": {**request["json"], "stream": True}}
    before = counts(harness)
    assert_error(send(client, "POST", CHAT, auth, request), status, code, param)
    assert counts(harness) == before


def test_json_nested_64_deep_is_fine(harness: Any, client: TestClient, auth: dict[str, str]) -> None:
    r = client.post(CHAT, json=chat([msg("你好")], metadata=nested(63)), headers=auth)
    assert r.status_code == 200, r.text


def test_n_may_be_written_as_1_0(client: TestClient, auth: dict[str, str]) -> None:
    # JSON Schema's integer 1 includes 1.0; the document says n is 1.
    assert client.post(CHAT, json=chat([msg("你好")], n=1.0), headers=auth).status_code == 200


# --- the timezone header --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "zone", ["A" * 5000, "Asia/" + "x" * 300, "Mars/Olympus_Mons", "", "../../etc/passwd", "/etc/localtime", "UTC "]
)
def test_bad_timezone_header(harness: Any, client: TestClient, auth: dict[str, str], zone: str) -> None:
    before = counts(harness)
    r = client.post(CHAT, json=chat([msg(NOTE)]), headers={**auth, "X-Suikou-Timezone": zone})
    error = assert_error(r, 400, param="X-Suikou-Timezone")
    assert len(error["message"]) < 200  # an over-long name is not echoed whole
    assert counts(harness) == before


@pytest.mark.parametrize("zone", ["UTC", "Asia/Shanghai", "America/Argentina/ComodRivadavia"])
def test_known_timezones(client: TestClient, auth: dict[str, str], zone: str) -> None:
    r = client.post(CHAT, json=chat([msg("你好")]), headers={**auth, "X-Suikou-Timezone": zone})
    assert r.status_code == 200, r.text


# --- REST: dates, text, types ------------------------------------------------------------------------

# name -> (body for POST /tasks, param)
BAD_CREATES: dict[str, tuple[dict[str, Any], str | None]] = {
    "title_nul": ({"json": {"title": "交\x00报告"}}, "title"),
    "title_lone_surrogate": (raw_json('{"title": "\\ud83d"}'), "title"),
    "title_ideographic_space": ({"json": {"title": "\u3000"}}, "title"),
    "title_isspace_control": ({"json": {"title": "\x1c\x1f"}}, "title"),
    "title_with_nul_and_text": ({"json": {"title": "ok\x00"}}, "title"),
    "year_1969": ({"json": {"title": "x", "deadline_at": "1969-12-31T23:59:59Z"}}, "deadline_at"),
    "year_2201": ({"json": {"title": "x", "deadline_at": "2201-01-01T00:00:00+08:00"}}, "deadline_at"),
    "year_1": ({"json": {"title": "x", "deadline_at": "0001-01-01T00:00:00+01:00"}}, "deadline_at"),
    "year_9999": ({"json": {"title": "x", "deadline_at": "9999-12-31T23:59:59-05:00"}}, "deadline_at"),
    "a_number": ({"json": {"title": "x", "deadline_at": 0.5}}, "deadline_at"),
    "a_number_as_text": ({"json": {"title": "x", "deadline_at": "0.5"}}, "deadline_at"),
    "unix_seconds": ({"json": {"title": "x", "urgency_threshold_at": 1764460800}}, "urgency_threshold_at"),
    "date_only": ({"json": {"title": "x", "deadline_at": "2026-12-01"}}, "deadline_at"),
    "naive": ({"json": {"title": "x", "deadline_at": "2026-12-01T15:00:00"}}, "deadline_at"),
    "february_30": ({"json": {"title": "x", "deadline_at": "2026-02-30T10:00:00+08:00"}}, "deadline_at"),
    "space_for_t": ({"json": {"title": "x", "deadline_at": "2026-12-01 15:00:00+08:00"}}, "deadline_at"),
    "group_as_text": ({"json": {"title": "x", "priority_group": "2"}}, "priority_group"),
    "group_true": ({"json": {"title": "x", "priority_group": True}}, "priority_group"),
    "group_2_5": ({"json": {"title": "x", "priority_group": 2.5}}, "priority_group"),
    "nested_100000": (raw_json('{"title": "x", "y": ' + "[" * 100_000 + "]" * 100_000 + "}"), None),
}


@pytest.mark.parametrize("case", list(BAD_CREATES))
def test_bad_create(harness: Any, client: TestClient, auth: dict[str, str], case: str) -> None:
    request, param = BAD_CREATES[case]
    before = rows(harness)
    assert_error(send(client, "POST", "/tasks", auth, request), 400, param=param)
    assert rows(harness) == before


@pytest.mark.parametrize(
    ("written", "stored"),
    [
        # The written year bounds the value; its instant may fall just outside (stored as UTC).
        ("1970-01-01T00:00:00+14:00", "1969-12-31T10:00:00+00:00"),
        ("2200-12-31T23:59:59.999999-12:00", "2201-01-01T11:59:59.999999+00:00"),
        ("2026-12-01T15:00:00Z", "2026-12-01T15:00:00+00:00"),
    ],
)
def test_dates_at_the_bounds_are_stored(client: TestClient, auth: dict[str, str], written: str, stored: str) -> None:
    r = client.post("/tasks", json={"title": "边界", "deadline_at": written, "priority_group": 2.0}, headers=auth)
    assert r.status_code == 201, r.text
    got = client.get(f"/tasks/{r.json()['id']}", headers=auth).json()
    assert got["deadline_at"].replace("Z", "+00:00") == stored
    assert got["priority_group"] == 2


@pytest.mark.parametrize(
    "body",
    [
        {"title": "\x00"},
        {"title": " "},
        {"deadline_at": "1900-01-01T00:00:00Z"},
        {"deadline_at": 1.5},
        {"urgency_threshold_at": "2300-01-01T00:00:00+08:00"},
        {"is_completed": "true"},
        {"is_completed": 1},
        {"priority_group": "1"},
    ],
)
def test_bad_update_changes_nothing(
    harness: Any, client: TestClient, auth: dict[str, str], body: dict[str, Any]
) -> None:
    task_id = rows(harness)[0][0]
    before = rows(harness)
    assert_error(client.patch(f"/tasks/{task_id}", json=body, headers=auth), 400, param=next(iter(body)))
    assert rows(harness) == before


def test_lone_surrogate_update_changes_nothing(harness: Any, client: TestClient, auth: dict[str, str]) -> None:
    task_id = rows(harness)[0][0]
    before = rows(harness)
    r = send(client, "PATCH", f"/tasks/{task_id}", auth, raw_json('{"title": "ok\\udc00"}'))
    assert_error(r, 400, param="title")
    assert rows(harness) == before


@pytest.mark.parametrize("completed", ["true", 1, None])
def test_complete_takes_a_json_boolean(harness: Any, client: TestClient, auth: dict[str, str], completed: Any) -> None:
    task_id = rows(harness)[0][0]
    before = rows(harness)
    r = client.post(f"/tasks/{task_id}/complete", json={"completed": completed}, headers=auth)
    assert_error(r, 400, param="completed")
    assert rows(harness) == before


@pytest.mark.parametrize(
    ("params", "param"),
    [
        ({"time_before": "0.5"}, "time_before"),
        ({"time_after": "1764460800"}, "time_after"),
        ({"time_after": "1969-12-31T23:59:59Z"}, "time_after"),
        ({"time_before": "2201-01-01T00:00:00Z"}, "time_before"),
        ({"time_before": "2026-12-01"}, "time_before"),
        ({"keyword": "报\x00告"}, "keyword"),
        ({"keyword": "x" * 501}, "keyword"),
        ({"offset": 2**31}, "offset"),
        ({"limit": 201}, "limit"),
        ({"quadrants": [1, 5]}, "quadrants"),
    ],
)
def test_bad_list_filters(client: TestClient, auth: dict[str, str], params: dict[str, Any], param: str) -> None:
    assert_error(client.get("/tasks", params=params, headers=auth), 400, param=param)


def test_lone_surrogate_keyword_in_the_query_string(client: TestClient, auth: dict[str, str]) -> None:
    # %ED%A0%80 is a surrogate's UTF-8-like bytes: not UTF-8, read as replacement characters, not a 500.
    r = client.get("/tasks?keyword=%ED%A0%80", headers=auth)
    assert r.status_code == 200 and r.json()["total"] == 0


def test_good_list_filters(client: TestClient, auth: dict[str, str]) -> None:
    params = {"time_after": "2026-12-01T00:00:00+08:00", "time_before": "2026-12-03T00:00:00Z", "keyword": "任务"}
    r = client.get("/tasks", params=params, headers=auth)
    assert r.status_code == 200 and [t["title"] for t in r.json()["items"]] == ["已有任务"]


# --- size and media type --------------------------------------------------------------------------


@pytest.fixture
def small(harness: Any, key: str) -> Iterator[TestClient]:
    """Limits small enough to cross cheaply: 4 KiB for REST, 16 KiB for chat."""
    settings = harness.state.settings.model_copy(update={"max_body_bytes": 4096, "max_chat_body_bytes": 16384})
    with TestClient(create_app(settings, state=harness.state)) as c:
        yield c


def test_rest_body_over_the_limit(harness: Any, small: TestClient, auth: dict[str, str]) -> None:
    before = rows(harness)
    r = small.post("/tasks", json={"title": "x", "padding": "x" * 5000}, headers=auth)
    assert_error(r, 413, "request_too_large")
    task_id = before[0][0]
    assert_error(small.patch(f"/tasks/{task_id}", json={"title": "y" * 4096}, headers=auth), 413, "request_too_large")
    assert rows(harness) == before
    assert small.post("/tasks", json={"title": "x", "padding": "x" * 3000}, headers=auth).status_code == 201


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
def test_chat_body_over_the_limit(harness: Any, small: TestClient, auth: dict[str, str], stream: bool) -> None:
    before = counts(harness)
    r = small.post(CHAT, json=chat([msg(NOTE)], stream=stream, padding="x" * 17000), headers=auth)
    assert_error(r, 413, "request_too_large")
    assert counts(harness) == before
    # Chat has its own, larger limit: histories carry images.
    ok = small.post(CHAT, json=chat([msg([IMAGE] * 10), msg(NOTE)], padding="x" * 8000), headers=auth)
    assert ok.status_code == 200, ok.text


def test_a_chunked_body_over_the_limit(harness: Any, small: TestClient, auth: dict[str, str]) -> None:
    # No Content-Length: the limit holds while reading.
    before = rows(harness)
    chunks = iter([b'{"title": "x", "padding": "', b"x" * 3000, b"x" * 3000, b'"}'])
    r = small.post("/tasks", content=chunks, headers={**auth, "Content-Type": "application/json"})
    assert_error(r, 413, "request_too_large")
    assert rows(harness) == before


def test_default_limits(harness: Any) -> None:
    settings = harness.state.settings
    assert settings.max_body_bytes == 1024 * 1024
    assert settings.max_chat_body_bytes == 16 * 1024 * 1024


@pytest.mark.parametrize("content_type", ["text/plain", "application/x-www-form-urlencoded", "text/json"])
def test_rest_body_that_is_not_json(harness: Any, client: TestClient, auth: dict[str, str], content_type: str) -> None:
    before = rows(harness)
    r = client.post("/tasks", content=b'{"title": "x"}', headers={**auth, "Content-Type": content_type})
    assert_error(r, 415, "unsupported_media_type")
    assert rows(harness) == before


def test_json_with_a_suffix_is_json(client: TestClient, auth: dict[str, str]) -> None:
    r = client.post("/tasks", content=b'{"title": "x"}', headers={**auth, "Content-Type": "application/merge+json"})
    assert r.status_code == 201, r.text


@pytest.mark.parametrize("title", ["\u200b", "\u200b\u200c\u200d", " \ufeff ", "\u2060\u00ad"])
def test_a_title_of_only_invisible_characters_is_blank(
    harness: Any, client: TestClient, auth: dict[str, str], title: str
) -> None:
    before = rows(harness)
    assert_error(client.post("/tasks", json={"title": title}, headers=auth), 400, param="title")
    created = client.post("/tasks", json={"title": "交报告"}, headers=auth).json()
    assert_error(client.patch(f"/tasks/{created['id']}", json={"title": title}, headers=auth), 400, param="title")
    assert [r[1] for r in rows(harness)] == [*(r[1] for r in before), "交报告"]


# --- the rules themselves --------------------------------------------------------------------------


def test_the_year_pattern_is_exactly_the_bounds() -> None:
    accepted = [y for y in range(10000) if text_fits(DATETIME_TEXT, f"{y:04d}-06-15T12:00:00Z")]
    assert accepted == list(range(YEAR_MIN, YEAR_MAX + 1))


def test_blank_is_what_strip_removes() -> None:
    spaces = "".join(chr(c) for c in range(0x110000) if chr(c).isspace())
    assert "".join(chr(c) for c in range(0x110000) if re.fullmatch(f"[{SPACE}]", chr(c))) == spaces
    for ch in spaces:
        assert not text_fits(VISIBLE_TEXT, ch * 3)
    assert text_fits(VISIBLE_TEXT, " \u200bx ")  # a zero-width space is not whitespace to strip()


# --- the error boundary -------------------------------------------------------------------------


def _failing_app(harness: Any, seen: list[Any]) -> Any:
    app = create_app(harness.state.settings, state=harness.state)

    async def boom(request: Request) -> None:
        seen.append(request.client)
        raise RuntimeError("database password is hunter2")

    app.add_api_route("/boom", boom, methods=["GET"])
    return app


def test_an_unexpected_error_is_one_log_line_and_a_500(harness: Any, caplog: pytest.LogCaptureFixture) -> None:
    seen: list[Any] = []
    with caplog.at_level(logging.INFO), TestClient(_failing_app(harness, seen)) as client:
        # TestClient re-raises what reaches the server; nothing does: the boundary answered.
        r = client.get("/boom")
    error = assert_error(r, 500)
    assert error["type"] == "server_error" and "hunter2" not in r.text
    errors = [rec for rec in caplog.records if rec.levelno >= logging.ERROR]
    assert len(errors) == 1 and errors[0].name == "suikou" and errors[0].exc_info is not None
    assert "GET /boom" in errors[0].getMessage()


def test_the_connection_survives_a_500(harness: Any, caplog: pytest.LogCaptureFixture) -> None:
    """Under uvicorn: the 500 is sent and the keep-alive connection is reused; uvicorn logs nothing."""
    seen: list[Any] = []
    app = _failing_app(harness, seen)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    config = uvicorn.Config(app, log_config=None, log_level="info", ws="none", lifespan="on", access_log=False)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    with caplog.at_level(logging.INFO):
        thread.start()
        try:
            deadline = time.monotonic() + 20
            while not server.started:
                assert thread.is_alive() and time.monotonic() < deadline, "uvicorn did not start"
                time.sleep(0.02)
            with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=10) as http:
                statuses = [http.get("/boom").status_code for _ in range(3)]
        finally:
            server.should_exit = True
            thread.join(timeout=20)
            sock.close()
    assert statuses == [500, 500, 500]
    assert len({client.port for client in seen}) == 1  # one connection for all three
    errors = [rec for rec in caplog.records if rec.levelno >= logging.ERROR]
    assert [rec.name for rec in errors] == ["suikou"] * 3  # nothing from uvicorn.error


async def test_a_client_leaving_mid_body_is_an_info_line(harness: Any, caplog: pytest.LogCaptureFixture) -> None:
    app = create_app(harness.state.settings, state=harness.state)
    messages = iter(
        [
            {"type": "http.request", "body": b'{"title": "half', "more_body": True},
            {"type": "http.disconnect"},
        ]
    )
    sent: list[Any] = []

    async def receive() -> Any:
        return next(messages)

    async def send(message: Any) -> None:
        sent.append(message)

    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": "/tasks",
        "raw_path": b"/tasks",
        "query_string": b"",
        "root_path": "",
        "headers": [(b"host", b"127.0.0.1:8000"), (b"content-type", b"application/json"), (b"content-length", b"100")],
        "client": ("127.0.0.1", 5000),
        "server": ("127.0.0.1", 8000),
    }
    before = rows(harness)
    with caplog.at_level(logging.INFO):
        await app(scope, receive, send)
    assert sent == []  # nobody is left to answer
    assert [(rec.levelno, rec.name) for rec in caplog.records] == [(logging.INFO, "suikou")]
    assert "disconnected" in caplog.records[0].getMessage()
    assert rows(harness) == before


def test_validation_errors_name_the_parameter_without_its_location(client: TestClient, auth: dict[str, str]) -> None:
    error = assert_error(client.get("/tasks", params={"limit": "many"}, headers=auth), 400)
    assert error["param"] == "limit" and "'limit'" in error["message"]
    assert json.dumps(error).count("query") == 0
