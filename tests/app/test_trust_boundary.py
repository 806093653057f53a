"""The model proposes, code decides: a real-provider configuration against a provider that misbehaves.

Every node talks to a scripted OpenAI-compatible server on 127.0.0.1 (tests/support/fake_openai.py)
through pydantic-ai's real `OpenAIChatModel`. One node at a time answers like a plausible but sloppy
model (naive timestamps, invented phrases, counts and groups, wrong actions, cut streams), and each
answer must be what the offline rules give for the user's words, or a clarifying question: never a
5xx, never a wrong write, never a claim of an action not taken. The cases come through the HTTP API
(streaming and not) and through the official `openai` SDK.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pydantic_ai.models
import pytest
from fastapi.testclient import TestClient
from openai import OpenAI
from sqlmodel import select

from app.main import create_app
from core import carry
from core.models import Task
from support.fake_openai import Cut, FakeOpenAI, Malformed, Reply
from support.harness import NOW, Harness, local, make_harness

QUERY = {"action": "task_query", "confidence": 0.9, "reason": "asks about tasks"}
NOTE = {"action": "quick_note_create", "confidence": 0.95, "reason": "wants a task saved"}
CHAT = {"action": "chat", "confidence": 0.9, "reason": "small talk"}
SATISFIED = {"satisfied": True, "need_retry": False, "prefix": ""}
REPORT_DUE = "2026-12-01T15:00:00+08:00"


@pytest.fixture
def scripted(fake: FakeOpenAI, database_url: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[Harness]:
    """A service whose every node uses the scripted provider; by default it behaves well."""
    fake.reset()
    # Requests go to the fake server on 127.0.0.1 only (tests/conftest.py forbids real ones).
    monkeypatch.setattr(pydantic_ai.models, "ALLOW_MODEL_REQUESTS", True)
    h = make_harness(database_url, model="scripted", model_base_url=fake.base_url, model_timeout_s=3.0)
    fake.on_node("reflect", Reply(SATISFIED))
    fake.on_node("chat", Reply(text="你好！我是随口。"))
    seed(h)
    yield h
    h.state.engine.dispose()


@pytest.fixture
def client(scripted: Harness) -> Iterator[TestClient]:
    with TestClient(create_app(scripted.state.settings, state=scripted.state)) as c:
        yield c
        # The provider's pooled connections belong to this client's event loop: close them in it.
        assert c.portal is not None
        c.portal.call(scripted.state.hub.aclose)


def seed(h: Harness) -> None:
    # The keyless service serves one local user: the one these requests come from.
    for title, group, due in [
        ("交周报", 1, "2026-12-01 18:00"),
        ("取快递", 3, "2026-12-01 20:00"),
        ("买猫粮", 3, "2026-12-02 19:00"),
        ("写年终总结", 2, "2026-12-20 18:00"),
        ("整理照片", 4, None),
        ("给绿植浇水", 3, "2026-12-03 09:00"),
        ("续签合同", 2, "2026-12-09 12:00"),
    ]:
        h.add(title, group, due, user="local")


def tasks_of(h: Harness) -> list[Task]:
    with h.state.session() as session:
        return list(session.exec(select(Task)).all())


def ask(client: TestClient, text: str) -> dict[str, Any]:
    r = client.post("/v1/chat/completions", json={"model": "suikou", "messages": [{"role": "user", "content": text}]})
    assert r.status_code == 200, r.text
    return r.json()


def ask_stream(client: TestClient, text: str) -> tuple[str, list[dict[str, Any]]]:
    body = {"model": "suikou", "stream": True, "messages": [{"role": "user", "content": text}]}
    r = client.post("/v1/chat/completions", json=body)
    assert r.status_code == 200, r.text
    payloads = [line[len("data: ") :] for line in r.text.split("\n\n") if line.startswith("data: ")]
    assert payloads[-1] == "[DONE]"
    chunks = [json.loads(p) for p in payloads[:-1]]
    assert all("error" not in c for c in chunks)
    assert [ch["finish_reason"] for c in chunks for ch in c["choices"]][-1] == "stop"
    content = "".join(ch["delta"].get("content") or "" for c in chunks for ch in c["choices"])
    return content, chunks


def content_of(body: dict[str, Any]) -> str:
    """The answer as a person reads it (a write also carries its record for "撤销"; see core/changes.py)."""
    return carry.strip(str(body["choices"][0]["message"]["content"]))


def events_of(body: dict[str, Any], stage: str) -> list[dict[str, Any]]:
    return [e for e in body.get("suikou_events", []) if e["stage"] == stage]


def window_of(body: dict[str, Any]) -> tuple[str | None, str | None]:
    [anchor] = [e for e in events_of(body, "time_anchor") if e["status"] == "end"]
    return anchor["data"]["time_after"], anchor["data"]["time_before"]


# --- times: the window comes from the user's words ---------------------------------------------


def test_naive_plan_timestamps_for_a_phrase_code_reads_are_not_a_500(fake: FakeOpenAI, client: TestClient) -> None:
    fake.on_node("route", Reply(QUERY))
    fake.on_node("plan", Reply({"time_text": "下周三之前", "time_before": "2026-12-09T23:59:59"}))
    body = ask(client, "下周三之前要交什么")
    assert window_of(body) == ("2026-11-30T10:00:00+08:00", "2026-12-09T23:59:59+08:00")
    content, _ = ask_stream(client, "下周三之前要交什么")
    assert carry.strip(content) == content_of(body)


def test_naive_bounds_for_a_phrase_code_cannot_read_get_the_users_timezone(
    fake: FakeOpenAI, client: TestClient
) -> None:
    # "发薪日前后" is no calendar phrase: the model's bounds are the last resort, read in the user's zone.
    fake.on_node("route", Reply(QUERY))
    plan = {"time_text": "发薪日前后", "time_after": "2026-12-01T00:00:00", "time_before": "2026-12-02T23:59:59"}
    fake.on_node("plan", Reply(plan))
    body = ask(client, "发薪日前后有什么要做的")
    assert window_of(body) == ("2026-12-01T00:00:00+08:00", "2026-12-02T23:59:59+08:00")
    assert "采用模型给出的时间" in str(events_of(body, "time_anchor"))
    assert "交周报" in content_of(body) and "写年终总结" not in content_of(body)


def test_absurd_model_bounds_are_refused(fake: FakeOpenAI, client: TestClient) -> None:
    fake.on_node("route", Reply(QUERY))
    plan = {"time_text": "发薪日前后", "time_after": "2100-01-01T00:00:00+08:00", "time_before": "2100-01-02T00:00:00"}
    fake.on_node("plan", Reply(plan))
    body = ask(client, "发薪日前后有什么要做的")
    assert window_of(body) == (None, None)
    [plan_end] = [e for e in events_of(body, "plan") if e["status"] == "end"]
    assert any("不合理" in note for note in plan_end["data"]["overridden"])


@pytest.mark.parametrize(
    "plan",
    [
        pytest.param(
            {"time_after": "2030-01-01T00:00:00+08:00", "time_before": "2030-01-02T00:00:00+08:00"}, id="2030"
        ),
        pytest.param({"time_text": "下周"}, id="wrong-phrase"),
        pytest.param({"time_text": "明天", "time_after": "2026-12-01T00:00:00Z"}, id="utc-bounds"),
    ],
)
def test_the_query_window_is_the_users_tomorrow(fake: FakeOpenAI, client: TestClient, plan: dict[str, Any]) -> None:
    fake.on_node("route", Reply(QUERY))
    fake.on_node("plan", Reply(plan))
    body = ask(client, "明天有什么要做的")
    assert window_of(body) == ("2026-12-01T00:00:00+08:00", "2026-12-01T23:59:59+08:00")
    assert "broaden" not in [e["stage"] for e in body["suikou_events"]]
    assert "交周报" in content_of(body) and "取快递" in content_of(body)
    assert "写年终总结" not in content_of(body)


@pytest.mark.parametrize(
    "draft",
    [
        pytest.param(
            {"title": "交报告", "time_text": "明天下午三点", "deadline_at": "2026-12-01T15:00:00"}, id="naive"
        ),
        pytest.param({"title": "交报告", "time_text": "明天下午三点", "deadline_at": "2026-12-01T15:00:00Z"}, id="utc"),
        pytest.param({"title": "交报告", "deadline_at": "2031-12-01T15:00:00+08:00"}, id="2031-no-phrase"),
        pytest.param(
            {"title": "交报告", "time_text": "下周五", "deadline_at": "2031-12-01T15:00:00"}, id="wrong-phrase"
        ),
    ],
)
def test_the_note_deadline_is_the_users_tomorrow_3pm(
    fake: FakeOpenAI, scripted: Harness, client: TestClient, draft: dict[str, Any]
) -> None:
    fake.on_node("route", Reply(NOTE))
    fake.on_node("extract", Reply({**draft, "priority_group": 1, "priority_reason": "急"}))
    before = len(tasks_of(scripted))
    body = ask(client, "帮我记一下明天下午三点交报告")
    assert content_of(body) == "好，已记下：交报告（重要且紧急；截止 12月1日 周二 15:00）"
    tasks = tasks_of(scripted)
    assert len(tasks) == before + 1
    [task] = [t for t in tasks if t.title == "交报告"]
    assert task.deadline_at is not None
    assert task.deadline_at.astimezone(NOW.tzinfo).isoformat() == REPORT_DUE


def test_a_lead_reminder_counts_back_from_the_deadline(fake: FakeOpenAI, scripted: Harness, client: TestClient) -> None:
    """ "提前一天" is relative to the deadline, not to today: the task is not promoted at once."""
    fake.on_node("route", Reply(NOTE))
    draft = {"title": "开会", "time_text": "后天上午十点", "priority_group": 2, "urgency_threshold_text": "提前一天"}
    fake.on_node("extract", Reply(draft))
    body = ask(client, "提醒我后天上午十点开会，提前一天提醒我")
    assert "开会" in content_of(body)
    [task] = [t for t in tasks_of(scripted) if t.title == "开会"]
    assert task.deadline_at is not None and task.urgency_threshold_at is not None
    assert task.deadline_at.astimezone(NOW.tzinfo) == local("2026-12-02 10:00")
    assert task.urgency_threshold_at.astimezone(NOW.tzinfo) == local("2026-12-01 10:00")
    assert task.urgency_threshold_at.astimezone(NOW.tzinfo) > NOW  # not urgent yet


# --- counts and groups ----------------------------------------------------------------------------


def test_an_invented_limit_for_a_vague_request_is_ignored(fake: FakeOpenAI, client: TestClient) -> None:
    fake.on_node("route", Reply(QUERY))
    fake.on_node("plan", Reply({"limit": 1}))
    body = ask(client, "给我一些任务")
    [anchor] = [e for e in events_of(body, "time_anchor") if e["status"] == "end"]
    assert anchor["data"]["limit"] == 5  # the configured default: the user said no number
    assert len(re.findall(r"^\d+\. ", content_of(body), re.M)) == 5


def test_a_count_the_user_said_beats_the_models(fake: FakeOpenAI, client: TestClient) -> None:
    fake.on_node("route", Reply(QUERY))
    fake.on_node("plan", Reply({"limit": 10, "quadrants": [3]}))
    fake.on_node("reflect", Reply({"satisfied": False, "need_retry": True, "patch": {"limit": 9}, "prefix": ""}))
    body = ask(client, "来一个简单的任务")
    assert len(re.findall(r"^\d+\. ", content_of(body), re.M)) == 1


def test_groups_outside_1_to_4_are_refused_not_read_as_all(fake: FakeOpenAI, client: TestClient) -> None:
    fake.on_node("route", Reply(QUERY))
    fake.on_node("plan", Reply({"quadrants": [7]}))
    body = ask(client, "来一个简单的任务")
    assert events_of(body, "fallback")[0]["data"] == {
        "node": "plan",
        "error": "UnexpectedModelBehavior",
        "kind": "invalid",
    }
    assert "简单不重要" in content_of(body)
    assert "重要且紧急" not in content_of(body)
    assert body["usage"]["model_requests"] == 1 + 2 + 1  # route, plan (invalid + its retry), reflect


def test_groups_the_user_named_win_over_the_models(fake: FakeOpenAI, client: TestClient) -> None:
    fake.on_node("route", Reply(QUERY))
    fake.on_node("plan", Reply({"quadrants": [1]}))
    body = ask(client, "来一个简单的任务")
    assert "1. 取快递（简单不重要" in content_of(body)


def test_a_keyword_the_user_did_not_say_is_dropped(fake: FakeOpenAI, client: TestClient) -> None:
    fake.on_node("route", Reply(QUERY))
    fake.on_node("plan", Reply({"keyword": "发票"}))
    body = ask(client, "明天有什么要做的")
    assert "broaden" not in [e["stage"] for e in body["suikou_events"]]
    assert "交周报" in content_of(body)


# --- writes: the router's word is checked against the rules ---------------------------------------

NOT_NOTES = [
    "你好",
    "今天天气怎么样",
    "讲个笑话",
    "这周有什么要交的",
    "来一个简单的任务",
    "明天有会吗",
    "你是谁",
    "怎么提高效率",
    "前3个重要的任务",
    "有哪些逾期的任务",
    "谢谢你",
    "周报交了没",
    "what's due tomorrow?",
]


def test_a_confident_wrong_router_never_writes(fake: FakeOpenAI, scripted: Harness, client: TestClient) -> None:
    fake.on_node("route", Reply({"action": "quick_note_create", "confidence": 1.0, "reason": "save it"}))
    fake.on_node("extract", Reply({"title": "随便什么", "priority_group": 1}))
    before = len(tasks_of(scripted))
    for text in NOT_NOTES:
        body = ask(client, text)
        answer = content_of(body)
        assert "已记下" not in answer and "noted" not in answer.lower(), text
        [route] = [e for e in events_of(body, "route") if e["status"] == "end"]
        # Answered as what the rules read (a query, chat), or at most asked about: never written.
        assert route["data"]["action"] != "quick_note_create", text
        assert route["data"].get("proposed") in (None, "quick_note_create"), text
    assert len(tasks_of(scripted)) == before
    assert [e["stage"] for e in events_of(body, "extract")] == []


def test_a_router_that_misses_a_clear_note_does_not_veto_it(
    fake: FakeOpenAI, scripted: Harness, client: TestClient
) -> None:
    # The user's own words read clearly as a note: a router model saying "chat" does not stop it
    # (docs/fdr/0027), and chat never gets to claim a write it did not make.
    fake.on_node("route", Reply(CHAT))
    fake.on_node("chat", Reply(text="好的，已经帮你记下了！"))
    fake.on_node("extract", Reply({"title": "交报告", "time_text": "明天下午三点", "priority_group": 1}))
    before = len(tasks_of(scripted))
    body = ask(client, "帮我记一下明天下午三点交报告")
    assert "已记下" in content_of(body) and "好的，已经帮你记下了" not in content_of(body)
    assert len(tasks_of(scripted)) == before + 1


@pytest.mark.parametrize("route", [Malformed(), Reply({"action": "delete_all", "confidence": 2})])
def test_a_broken_router_answer_falls_back_to_the_rules_and_still_saves(
    fake: FakeOpenAI, scripted: Harness, client: TestClient, route: Any
) -> None:
    fake.on_node("route", route)
    fake.on_node("extract", Reply({"title": "交报告", "time_text": "明天下午三点", "priority_group": 1}))
    body = ask(client, "帮我记一下明天下午三点交报告")
    assert events_of(body, "fallback")[0]["data"]["node"] == "route"
    assert content_of(body) == "好，已记下：交报告（重要且紧急；截止 12月1日 周二 15:00）"
    assert [t.title for t in tasks_of(scripted)].count("交报告") == 1


def test_chat_that_claims_a_write_is_corrected(fake: FakeOpenAI, scripted: Harness, client: TestClient) -> None:
    fake.on_node("route", Reply(CHAT))
    fake.on_node("chat", Reply(text="没问题，已经帮你记下了。"))
    before = len(tasks_of(scripted))
    body = ask(client, "你好")
    assert content_of(body).startswith("没问题，已经帮你记下了。")
    assert "更正：这条消息没有保存任何任务" in content_of(body)
    content, chunks = ask_stream(client, "你好")
    assert "更正" in content
    [note] = [c for c in chunks if c.get("suikou_event", {}).get("stage") == "chat"]
    assert note["choices"][0]["delta"]["reasoning_content"] is None  # after the answer began: structured only
    assert len(tasks_of(scripted)) == before


# --- cut streams and the request budget ---------------------------------------------------------


def test_a_cut_chat_stream_still_ends_in_a_whole_answer(fake: FakeOpenAI, client: TestClient) -> None:
    fake.on_node("route", Reply(CHAT))
    fake.on_node("chat", Cut("你好，我是"))
    body = ask(client, "你好")
    assert "你好，我是" not in content_of(body)  # non-streaming: the offline reply, whole
    assert "随口" in content_of(body)
    assert events_of(body, "fallback")[0]["data"]["node"] == "chat"
    content, chunks = ask_stream(client, "你好")
    assert content.startswith("你好，我是\n\n")  # streaming: what was shown stays, then the offline reply
    assert "随口" in content
    fallback = [c for c in chunks if c.get("suikou_event", {}).get("stage") == "fallback"]
    assert len(fallback) == 1 and fallback[0]["choices"][0]["delta"]["reasoning_content"] is None


def test_a_typical_query_costs_three_requests(fake: FakeOpenAI, client: TestClient) -> None:
    fake.on_node("route", Reply(QUERY))
    fake.on_node("plan", Reply({"time_text": "明天"}))
    body = ask(client, "明天有什么要做的")
    assert body["usage"]["model_requests"] == 3
    assert body["usage"]["offline_steps"] == 0


def test_the_worst_query_stays_within_the_budget(fake: FakeOpenAI, client: TestClient) -> None:
    """Route and plan each need a validation retry, reflect never stops asking: once 10 requests."""
    fake.on_node("route", Malformed())
    fake.on_node("plan", Malformed())
    patch = {"satisfied": False, "need_retry": True, "patch": {"sort_by": "priority"}, "prefix": "x"}
    fake.on_node("reflect", Reply(patch))
    fake.reset_requests()
    body = ask(client, "这周有什么要交的")
    assert body["usage"]["model_requests"] == 5
    assert len(fake.requests) == 5
    assert body["usage"]["offline_steps"] >= 2  # the router's and the plan's rules answered
    assert [e["data"]["error"] for e in events_of(body, "fallback")][-1] == "budget"


def test_after_broadening_the_prefix_says_what_was_relaxed(fake: FakeOpenAI, client: TestClient) -> None:
    fake.on_node("route", Reply(QUERY))
    fake.on_node("plan", Reply({"keyword": "发票"}))
    fake.on_node("reflect", Reply({"satisfied": True, "need_retry": False, "prefix": "和发票相关的任务："}))
    body = ask(client, "和发票相关的任务")
    first, second = content_of(body).splitlines()[:2]
    assert (first, second) == ("没有标题含「发票」的任务。", "不限关键词，找到这些（共 7 条匹配）：")


def test_reflect_sees_the_page_it_judges(fake: FakeOpenAI, client: TestClient) -> None:
    fake.on_node("route", Reply(QUERY))
    fake.on_node("plan", Reply({"keyword": "发票"}))
    messages = [
        {"role": "user", "content": "这周有什么要交的"},
        {"role": "assistant", "content": "给你整理了 1 条任务：\n1. 交周报（重要且紧急）"},
        {"role": "user", "content": "和发票相关的任务"},
    ]
    r = client.post("/v1/chat/completions", json={"model": "suikou", "messages": messages})
    assert r.status_code == 200
    [reflect] = [b for b in fake.seen() if "You check whether a task query" in json.dumps(b, ensure_ascii=False)]
    text = "\n".join(str(m["content"]) for m in reflect["messages"])
    assert "Now: 2026-11-30T10:00+08:00 (Monday, Asia/Shanghai)." in text
    assert "code relaxed it: any keyword" in text
    assert '"group": "important & urgent"' in text and '"due": "2026-12-01T18:00+08:00"' in text
    assert 'The user\'s earlier questions (oldest first): ["这周有什么要交的"]' in text
    assert "1. 交周报" not in text  # earlier answers are not repeated


# --- the user's language ----------------------------------------------------------------------------


def test_an_english_question_gets_an_english_list(fake: FakeOpenAI, client: TestClient) -> None:
    fake.on_node("route", Reply(QUERY))
    fake.on_node("plan", Reply({"time_text": "tomorrow"}))
    fake.on_node("reflect", Reply({"satisfied": True, "need_retry": False, "prefix": "明天的任务："}))
    body = ask(client, "what's due tomorrow?")
    lines = content_of(body).splitlines()
    assert lines[0] == 'Tasks for "tomorrow" (2 tasks):'  # the Chinese model prefix was not the user's language
    assert lines[1] == ""
    assert "(important & urgent; due Tue Dec 1, 18:00)" in lines[2]


def test_an_english_note_gets_an_english_confirmation(fake: FakeOpenAI, client: TestClient) -> None:
    fake.on_node("route", Reply(NOTE))
    fake.on_node("extract", Reply({"title": "call mom", "time_text": "tomorrow at 8pm", "priority_group": 2}))
    body = ask(client, "remind me to call mom tomorrow at 8pm")
    # No priority words: the model's group stands; the deadline is the phrase, resolved in code; "remind
    # me" reminds at that time, and the answer says so (and that no channel would carry it yet).
    first, second = content_of(body).split("\n")
    assert first == "OK, noted: call mom (important, not urgent; due Tue Dec 1, 20:00)"
    assert second.startswith("I'll remind you Tue Dec 1, 20:00. (Reminders can't reach you yet")


def test_the_prompts_carry_the_moment_with_its_offset_and_the_language(fake: FakeOpenAI, client: TestClient) -> None:
    fake.on_node("route", Reply(QUERY))
    fake.on_node("plan", Reply({"time_text": "tomorrow"}))
    ask(client, "what's due tomorrow?")
    plan_body = next(b for b in fake.seen() if "You turn a user's casual question" in json.dumps(b))
    system = "\n".join(m["content"] for m in plan_body["messages"] if m["role"] == "system")
    assert "Now: 2026-11-30T10:00+08:00 (Monday, Asia/Shanghai)." in system
    assert "The user writes in English" in system
    schema = json.dumps(plan_body["tools"][0]["function"]["parameters"])
    assert "重要且紧急" not in schema and '"limit"' not in schema  # groups defined once; no count field


# --- the official SDK -------------------------------------------------------------------------------


def sdk(client: TestClient) -> OpenAI:
    return OpenAI(base_url="http://testserver/v1", api_key="unused", http_client=client, max_retries=0)


def test_sdk_sees_whole_answers_from_a_misbehaving_provider(
    fake: FakeOpenAI, scripted: Harness, client: TestClient
) -> None:
    fake.on_node("route", Reply({"action": "quick_note_create", "confidence": 1.0, "reason": "save it"}))
    openai = sdk(client)
    reply = openai.chat.completions.create(model="suikou", messages=[{"role": "user", "content": "讲个笑话"}])
    assert reply.choices[0].finish_reason == "stop"
    # A request to the assistant, not a task: answered as chat, whatever the router model said.
    assert (reply.choices[0].message.content or "").strip() and "已记下" not in (reply.choices[0].message.content or "")

    fake.on_node("route", Reply(CHAT))
    fake.on_node("chat", Cut("哈哈，"))
    pieces = []
    for chunk in openai.chat.completions.create(
        model="suikou", stream=True, messages=[{"role": "user", "content": "讲个笑话"}]
    ):
        if chunk.choices:
            pieces.append(chunk.choices[0].delta.content or "")
    assert "".join(pieces).startswith("哈哈，\n\n")

    fake.on_node("route", Reply(NOTE))
    fake.on_node(
        "extract", Reply({"title": "交报告", "time_text": "明天下午三点", "deadline_at": "2031-01-01T00:00:00"})
    )
    reply = openai.chat.completions.create(
        model="suikou", messages=[{"role": "user", "content": "帮我记一下明天下午三点交报告"}]
    )
    assert "截止 12月1日 周二 15:00" in (reply.choices[0].message.content or "")
    [task] = [t for t in tasks_of(scripted) if t.title == "交报告"]
    assert task.deadline_at is not None and task.deadline_at.astimezone(NOW.tzinfo).isoformat() == REPORT_DUE
