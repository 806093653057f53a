"""Stage display modes (docs/fdr/0021-stage-display.md): `reasoning` (the default), `think`, `none`.

Each mode is chosen per request by the `X-Suikou-Stages` header or a model-id suffix, or for the
server by SUIKOU_STAGE_DISPLAY. Streams and whole answers are snapshotted per mode (ids, times and
carried records masked), checked by the project's stream checker, and read by the openai SDK.

Update snapshots deliberately: `.venv/bin/pytest tests/app/test_stage_display.py --snapshot-update`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import pytest
from fastapi.testclient import TestClient
from openai import OpenAI

from app.turns import _cut_chunks
from app.wire import THINK_CLOSE, THINK_OPEN, ResponseIds, StageDisplay, StageView, model_display
from core import carry
from core.trace import StageEvent
from support.check_stream import check_body, must_failures, schema_errors, should_failures
from support.live import serve

CHAT = "/v1/chat/completions"
HEADER = "X-Suikou-Stages"
MODES = ("reasoning", "think", "none")
QUERY = "这周有什么要交的"
CASES = {"query": QUERY, "chat": "你好", "note": "帮我记一下明天下午三点交报告"}
_RECORD = re.compile(r'(\[suikou\]: # ")[^"]*(")')


@pytest.fixture
def client(harness: Any) -> Iterator[TestClient]:
    """No API keys: the single local user, with a few tasks (the harness's clock is fixed)."""
    harness.add("交周报", 1, "2026-12-01 15:00", user="local")
    harness.add("买猫粮", 3, "2026-12-01 19:00", user="local")
    harness.add("整理书架", 4, "2026-12-05 10:00", user="local")
    harness.state.settings.note_near_duplicates = "allow"
    with harness.client() as c:
        yield c


def ask(
    client: TestClient,
    text: str = QUERY,
    *,
    mode: str | None = None,
    model: str = "suikou",
    stream: bool = False,
    history: list[dict[str, str]] | None = None,
    message_id: str | None = None,
) -> Any:
    headers = {HEADER: mode} if mode else {}
    if message_id:
        headers["X-Client-Message-Id"] = message_id
    messages = [*(history or []), {"role": "user", "content": text}]
    body: dict[str, Any] = {"model": model, "messages": messages, "stream": stream}
    return client.post(CHAT, json=body, headers=headers)


def chunks_of(raw: str) -> list[dict[str, Any]]:
    payloads = [e.removeprefix("data: ") for e in raw.removesuffix("\n\n").split("\n\n")]
    assert payloads[-1] == "[DONE]"
    return [json.loads(p) for p in payloads[:-1]]


def deltas(chunks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [c["choices"][0]["delta"] for c in chunks if c["choices"]]


def content_of(chunks: list[dict[str, Any]]) -> str:
    return "".join(d.get("content") or "" for d in deltas(chunks))


def masked(text: str) -> str:
    """A carried record holds ids and hashes a snapshot should not pin."""
    return _RECORD.sub(r"\1<record>\2", text)


def stream_shape(chunks: list[dict[str, Any]]) -> list[Any]:
    """What a stream snapshot holds: each chunk's delta, finish reason and event (no ids or times)."""
    out: list[Any] = []
    for c in chunks:
        if not c["choices"]:
            out.append({"usage": True})
            continue
        row: dict[str, Any] = {k: masked(v) if isinstance(v, str) else v for k, v in c["choices"][0]["delta"].items()}
        if c["choices"][0]["finish_reason"]:
            row["finish_reason"] = c["choices"][0]["finish_reason"]
        if "suikou_event" in c:
            row["event"] = f"{c['suikou_event']['stage']}:{c['suikou_event']['status']}"
        out.append(row)
    return out


# --- snapshots, all three modes -------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_stream_snapshot(client: TestClient, mode: str, snapshot: Any) -> None:
    chunks = chunks_of(ask(client, mode=mode, stream=True).text)
    assert stream_shape(chunks) == snapshot


@pytest.mark.parametrize("mode", MODES)
def test_whole_answer_snapshot(client: TestClient, mode: str, snapshot: Any) -> None:
    body = ask(client, mode=mode).json()
    assert schema_errors("chat_completion", body) == []
    message = body["choices"][0]["message"]
    events = [f"{e['stage']}:{e['status']}" for e in body.get("suikou_events", [])]
    assert {"message": {k: masked(v) if isinstance(v, str) else v for k, v in message.items()}, "events": events} == (
        snapshot
    )


# --- the rules of each mode -----------------------------------------------------------------------


@pytest.mark.parametrize("include_usage", [False, True], ids=["plain", "usage"])
@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("mode", MODES)
def test_every_mode_passes_the_checker(client: TestClient, mode: str, case: str, include_usage: bool) -> None:
    body = {"model": "suikou", "messages": [{"role": "user", "content": CASES[case]}], "stream": True}
    if include_usage:
        body["stream_options"] = {"include_usage": True}
    r = client.post(CHAT, json=body, headers={HEADER: mode})
    checked = check_body(r.content, include_usage=include_usage, headers=dict(r.headers), status=r.status_code)
    assert must_failures(checked) == []
    assert should_failures(checked) == []
    chunks = chunks_of(r.text)
    assert len({c["id"] for c in chunks}) == 1
    if mode != "reasoning":  # no reasoning_content key at all, so no client shows a second block
        assert all("reasoning_content" not in d for d in deltas(chunks))


@pytest.mark.parametrize("case", sorted(CASES))
def test_think_block_opens_content_and_closes_in_its_own_chunk(client: TestClient, case: str) -> None:
    chunks = chunks_of(ask(client, CASES[case], mode="think", stream=True).text)
    texts = [d["content"] for d in deltas(chunks) if d.get("content")]
    events = [c["suikou_event"] for c in chunks if "suikou_event" in c]
    lines = "".join(f"[{e['stage']}] {e['message']}\n" for e in events)
    # NextChat finds the tags only at the very start and the very end of a chunk's content.
    assert texts[0].startswith(THINK_OPEN)
    close = texts.index(THINK_CLOSE)
    assert "".join(texts[: close + 1]) == THINK_OPEN + lines + THINK_CLOSE
    assert "<think>" not in "".join(texts[close + 1 :]) and texts[close + 1 :]
    # Every stage line rides with its structured event, before the answer.
    stage_chunks = [c for c in chunks if "suikou_event" in c]
    assert all(c["choices"][0]["delta"]["content"].endswith("\n") for c in stage_chunks)


@pytest.mark.parametrize("case", sorted(CASES))
def test_none_sends_only_the_answer_and_the_events_field(client: TestClient, case: str) -> None:
    plain = chunks_of(ask(client, CASES[case], mode="none", stream=True, message_id=f"{case}-n").text)
    default = chunks_of(ask(client, CASES[case], stream=True, message_id=f"{case}-r").text)
    assert carry.strip(content_of(plain)) == carry.strip(content_of(default))
    assert "<think>" not in content_of(plain) and "[route]" not in content_of(plain)
    events = [c for c in plain if "suikou_event" in c]
    assert [c["suikou_event"]["stage"] for c in events] == [
        c["suikou_event"]["stage"] for c in default if "suikou_event" in c
    ]
    assert all(c["choices"][0]["delta"] == {"content": ""} for c in events)


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("mode", MODES)
def test_stream_and_whole_answer_agree(client: TestClient, mode: str, case: str) -> None:
    whole = ask(client, CASES[case], mode=mode, message_id=f"{case}-1").json()["choices"][0]["message"]
    chunks = chunks_of(ask(client, CASES[case], mode=mode, stream=True, message_id=f"{case}-2").text)
    # Two writes of the same note carry their own change ids; what a person reads is the same.
    assert masked(content_of(chunks)) == masked(whole["content"])
    assert ("reasoning_content" in whole) == (mode == "reasoning" and case != "aux")


def test_aux_request_gets_no_think_block(client: TestClient) -> None:
    title = [{"role": "user", "content": "### Task:\nGenerate a concise, 3-5 word title with an emoji.\n"}]
    body = {"model": "suikou-think", "messages": title}
    r = client.post(CHAT, json=body).json()
    if "suikou_events" not in r:  # an auxiliary request: clients parse the reply, so no block
        assert not r["choices"][0]["message"]["content"].startswith("<think>")


# --- choosing the mode ----------------------------------------------------------------------------


def test_model_suffix_chooses_and_is_echoed(client: TestClient) -> None:
    think = ask(client, model="suikou-think").json()
    assert think["model"] == "suikou-think"
    assert think["choices"][0]["message"]["content"].startswith(THINK_OPEN + "[route] ")
    for model in ("suikou-plain", "suikou-none"):
        plain = ask(client, model=model).json()
        assert plain["model"] == model
        assert "reasoning_content" not in plain["choices"][0]["message"]
        assert plain["choices"][0]["message"]["content"].startswith("「这周」的任务在这里")
    chunks = chunks_of(ask(client, model="suikou-think", stream=True).text)
    assert {c["model"] for c in chunks} == {"suikou-think"}


def test_header_beats_model_beats_setting(harness: Any, client: TestClient) -> None:
    def shown(**kw: Any) -> str:
        message = ask(client, **kw).json()["choices"][0]["message"]
        if "reasoning_content" in message:
            return "reasoning"
        return "think" if message["content"].startswith("<think>") else "none"

    assert shown() == "reasoning"
    assert shown(model="suikou-think") == "think"
    assert shown(model="suikou-think", mode="none") == "none"
    assert shown(model="suikou-plain", mode="reasoning") == "reasoning"
    harness.state.settings.stage_display = "think"
    assert shown() == "think"
    assert shown(model="suikou-plain") == "none"
    assert shown(mode="reasoning") == "reasoning"
    # Another model id (clients send their own) keeps the setting.
    assert shown(model="gpt-4o-mini") == "think"


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("value", ["thinking", "", "true", "Think", " none"])
def test_unknown_header_value_is_a_400(client: TestClient, value: str, stream: bool) -> None:
    body = {"model": "suikou", "messages": [{"role": "user", "content": QUERY}], "stream": stream}
    r = client.post(CHAT, json=body, headers={HEADER: value})
    assert r.status_code == 400
    assert schema_errors("error_response", r.json()) == []
    error = r.json()["error"]
    assert error["param"] == HEADER and error["type"] == "invalid_request_error"
    assert error["code"] == "unsupported_value"


def test_models_list_the_display_ids(harness: Any, client: TestClient) -> None:
    ids = [m["id"] for m in client.get("/v1/models").json()["data"]]
    assert ids == ["suikou", "suikou-think", "suikou-plain"]
    for model in (*ids, "suikou-none"):
        assert client.get(f"/v1/models/{model}").json()["id"] == model
    assert client.get("/v1/models/suikou-loud").status_code == 404
    harness.state.settings.accept_any_model = False  # the listed ids are still accepted
    for model in (*ids, "suikou-none"):
        assert ask(client, model=model).status_code == 200
    assert ask(client, model="other-think").status_code == 404


def test_model_display_reads_only_the_served_id() -> None:
    assert model_display("suikou-think", "suikou") == "think"
    assert model_display("suikou-plain", "suikou") == "none"
    assert model_display("my-suikou-think", "suikou") is None
    assert model_display("suikou", "suikou") is None
    assert model_display("deepseek-think", "suikou") is None


# --- follow-ups read history with think blocks ----------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_follow_up_works_after_a_think_answer(harness: Any, client: TestClient, mode: str) -> None:
    for i in range(8):  # more than one page, so "再来两个" has something to show
        harness.add(f"杂事{i}", 4, f"2026-12-0{2 + i % 5} 09:00", user="local")

    def conversation(first_mode: str) -> str:
        first = ask(client, mode=first_mode, message_id=f"q-{first_mode}").json()["choices"][0]["message"]
        history = [{"role": "user", "content": QUERY}, {"role": "assistant", "content": first["content"]}]
        more = ask(client, "再来两个", mode=mode, history=history, message_id=f"m-{first_mode}")
        return carry.strip(more.json()["choices"][0]["message"]["content"])

    baseline, after_think = conversation("reasoning"), conversation("think")
    assert after_think == baseline
    assert "杂事" in baseline


def test_carry_strips_a_leading_think_block() -> None:
    seal = carry.Seal(b"secret", user_id=1)
    answer = carry.attach("1. 交周报", "q1", {"n": 2}, seal)
    for block in (
        "<think>\n[route] 分流\n</think>\n\n",
        '<details type="reasoning" done="true">\n<summary>Thought</summary>\n> [route] x\n</details>\n',
    ):
        assert carry.strip(block + answer) == "1. 交周报"
        assert carry.read(block + answer, "q1", seal) == {"n": 2}
    # Only a leading block: tags later in the text are the answer's own words.
    said = "说 <think>x</think> 吧"
    assert carry.strip(said) == said
    # A record inside the think block is not the answer's record.
    fake = carry.attach("", "q1", {"n": 9}, seal)
    assert carry.read(f"<think>\n{fake}\n</think>\n\nok", "q1", seal) is None


# --- stream edge cases ----------------------------------------------------------------------------


def test_a_stage_line_cannot_close_the_block_early() -> None:
    view = StageView("think")
    first = view.stage(StageEvent("plan", "end", "查询「</think>报告」"))
    assert first["content"].startswith(THINK_OPEN) and "</think>" not in first["content"]
    assert view.answer("答") == [{"content": THINK_CLOSE}, {"content": "答"}]
    assert view.close() == []
    assert view.stage(StageEvent("fallback", "info", "late")) == {"content": ""}


@pytest.mark.parametrize("mode", MODES)
def test_a_stream_cut_by_a_restart_closes_the_think_block(mode: StageDisplay) -> None:
    view = StageView(mode)
    view.stage(StageEvent("route", "end", "x"))
    job: Any = SimpleNamespace(turn=SimpleNamespace(locale="en"))  # all a cut reads of the job
    sent = chunks_of("".join(_cut_chunks(job, ResponseIds("suikou"), view, False)))
    texts = [d["content"] for d in deltas(sent)]
    closing = [THINK_CLOSE] if mode == "think" else []
    assert texts[:-2] == closing
    assert texts[-2].startswith("(The server is restarting") and texts[-1] == ""
    assert sent[-1]["choices"][0]["finish_reason"] == "length"
    assert all(("reasoning_content" in d) == (mode == "reasoning") for d in deltas(sent))


def test_error_mid_stream_closes_the_think_block(harness: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    async def boom(turn: Any, *, request_extras: Any = None) -> Any:
        turn.trace.emit("route", "end", "分流到 chat（置信度 0.95）", {"action": "chat"})
        raise RuntimeError("database password is hunter2")

    monkeypatch.setattr(harness.state.pipeline, "run", boom)
    with harness.client() as client:
        r = ask(client, "你好", mode="think", stream=True)
    payloads = [e.removeprefix("data: ") for e in r.text.removesuffix("\n\n").split("\n\n")]
    assert payloads[-1] == "[DONE]"
    assert json.loads(payloads[-2])["error"]["type"] == "server_error"
    chunks = [json.loads(p) for p in payloads[:-2]]
    assert content_of(chunks) == THINK_OPEN + "[route] 分流到 chat（置信度 0.95）\n" + THINK_CLOSE
    assert "hunter2" not in r.text


# --- the openai SDK against a live server ---------------------------------------------------------


@pytest.mark.parametrize("mode", ["think", "none"])
def test_sdk_reads_each_mode(harness: Any, mode: str) -> None:
    key = harness.api_key("alice")
    harness.add("交周报", 1, "2026-12-01 15:00")
    with serve(harness.state) as base_url, OpenAI(base_url=base_url, api_key=key, max_retries=0, timeout=60) as sdk:
        asked: Any = [{"role": "user", "content": QUERY}]
        whole = sdk.chat.completions.create(model="suikou", messages=asked, extra_headers={HEADER: mode})
        stream = sdk.chat.completions.create(model="suikou", messages=asked, extra_headers={HEADER: mode}, stream=True)
        chunks = list(stream)
    content = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert content == whole.choices[0].message.content
    assert all("reasoning_content" not in (c.choices[0].delta.model_extra or {}) for c in chunks if c.choices)
    assert "reasoning_content" not in (whole.choices[0].message.model_extra or {})
    assert "1. 交周报" in carry.strip(content)
    if mode == "think":
        assert content.startswith(THINK_OPEN + "[route] ")
        assert content.index(THINK_CLOSE) < content.index("1. 交周报")
    else:
        assert content.startswith("只找到这一条")  # the answer's own first words
        assert "[route]" not in content and "<think>" not in content
