"""The router and the model-backed nodes through pydantic-ai's real OpenAI chat provider.

Every test here talks HTTP to a fake chat-completions server on 127.0.0.1 (tests/support), so the
real `OpenAIChatModel` + `openai` SDK path is exercised: structured output as a required tool
call, HTTP errors, timeouts (with the SDK's own retries off) and invalid output, and the per-node
degradations — the router to chat, plan/reflect/extract to their offline rules.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import Any

import pydantic_ai.models
import pytest
from sqlmodel import select

from core.llm import ModelHub
from core.models import Task
from support.fake_openai import FakeOpenAI, Malformed, Reply
from support.harness import NOW, Answer, Harness, make_harness

# "Did not hang" guard for one turn; a sanity bound, not a timing assertion.
TURN_GUARD_S = 5.0

ROUTE_MODEL = "router-model"


@pytest.fixture
async def provider(
    fake: FakeOpenAI, database_url: str, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[Callable[..., Harness]]:
    """Makes harnesses whose non-offline nodes use the fake server through OpenAIChatModel."""
    fake.reset()
    assert fake.base_url.startswith("http://127.0.0.1:")
    # The suite forbids real model requests (tests/conftest.py). These tests must send them — to
    # the fake server on 127.0.0.1 above, never off this machine — to exercise the real provider.
    monkeypatch.setattr(pydantic_ai.models, "ALLOW_MODEL_REQUESTS", True)
    made: list[tuple[Harness, ModelHub]] = []

    def make(*, timeout_s: float = 3.0, **per_node: str) -> Harness:
        hub = ModelHub(
            default="offline", base_url=fake.base_url, api_key="sk-fake", timeout_s=timeout_s, per_node=per_node
        )
        harness = make_harness(database_url, hub=hub)
        made.append((harness, hub))
        return harness

    yield make
    for harness, hub in made:
        await hub.aclose()  # the SDK's pooled connections belong to this test's event loop
        harness.state.engine.dispose()


async def ask(harness: Harness, message: str, **kwargs: Any) -> Answer:
    async with asyncio.timeout(TURN_GUARD_S):
        return await harness.ask(message, **kwargs)


def tasks_of(harness: Harness) -> list[Task]:
    with harness.state.session() as session:
        return list(session.exec(select(Task)).all())


def events(answer: Answer, stage: str, status: str) -> list[dict[str, Any]]:
    return [e.data for e in answer.events if e.stage == stage and e.status == status]


def seed(harness: Harness) -> None:
    harness.add("修电脑", 1, "2026-12-01 09:00")
    harness.add("交周报", 2, "2026-12-02 18:00")
    harness.add("买牛奶", 3, "2026-12-03 12:00")
    harness.add("写年终总结", 2, "2026-12-20 18:00")  # next month: outside "这周"


# --- the router's request and structured output over HTTP ----------------------------------------


async def test_router_decides_through_real_provider(fake: FakeOpenAI, provider: Callable[..., Harness]) -> None:
    h = provider(route=ROUTE_MODEL)
    seed(h)
    fake.on_model(ROUTE_MODEL, Reply({"action": "task_query", "confidence": 0.9, "reason": "asks about tasks"}))
    history = [("user" if i % 2 == 0 else "assistant", f"历史第{i:02d}轮") for i in range(20)]
    history[-1] = ("assistant", "长" * 1000)  # a long recent turn is cut, not sent whole

    answer = await ask(h, "这周有什么要交的", history=history)

    assert answer.action == "task_query"
    # Agreed with the rules: their reading runs, and the stage speaks Suikou's words, not the model's.
    [route] = events(answer, "route", "end")
    assert (route["action"], route["confidence"]) == ("task_query", 0.9)
    assert not any("asks about tasks" in str(e.data) + e.message for e in answer.events)
    assert "plan:end" in answer.stages and "reflect:end" in answer.stages
    assert "交周报" in answer.content and "写年终总结" not in answer.content

    [body] = fake.seen(ROUTE_MODEL)
    # Structured output: one required output tool whose `action` enum is the registry's names.
    assert body["tool_choice"] == "required"
    [tool] = body["tools"]
    assert tool["function"]["name"] == "final_result"
    schema = tool["function"]["parameters"]
    registry = h.state.pipeline.registry
    assert schema["properties"]["action"]["enum"] == registry.names()
    assert set(schema["required"]) == {"action", "confidence", "reason"}
    assert schema["properties"]["confidence"]["minimum"] == 0
    assert schema["properties"]["confidence"]["maximum"] == 1

    # The prompt: instructions generated from the registry, the latest message, bounded history.
    system = "\n".join(m["content"] for m in body["messages"] if m["role"] == "system")
    for action in registry:
        assert f"- {action.name}: {action.description}" in system
    [user] = [m["content"] for m in body["messages"] if m["role"] == "user"]
    assert "这周有什么要交的" in user
    for i in range(14):
        assert f"历史第{i:02d}轮" not in user, f"turn {i} is older than the last 6 and must not be sent"
    for i in range(14, 19):
        assert f"历史第{i:02d}轮" in user
    assert "长" * 600 in user and "长" * 601 not in user
    # Router usage comes from the provider: one request; plan and reflect ran offline.
    assert (answer.requests, answer.offline_steps) == (1, 2)


async def test_router_low_confidence_note_asks_instead_of_writing(
    fake: FakeOpenAI, provider: Callable[..., Harness]
) -> None:
    h = provider(route=ROUTE_MODEL)
    fake.on_model(ROUTE_MODEL, Reply({"action": "quick_note_create", "confidence": 0.3, "reason": "maybe"}))

    # Words the rules read as no task at all: an unsure model's write is not done, nor asked about.
    answer = await ask(h, "周末的事再说吧")
    assert answer.action == "chat"
    assert not any(s.startswith(("extract:", "persist:")) for s in answer.stages)
    assert tasks_of(h) == []

    # Words the rules read as a clear note: the model's doubt does not veto them.
    written = await ask(h, "帮我记一下明天下午三点交报告")
    assert written.action == "quick_note_create"
    assert [t.title for t in tasks_of(h)] == ["交报告"]


async def test_router_output_retry_recovers(fake: FakeOpenAI, provider: Callable[..., Harness]) -> None:
    h = provider(route=ROUTE_MODEL)
    fake.queue(
        Reply({"action": "delete_everything", "confidence": 7, "reason": "?"}),
        Reply({"action": "task_query", "confidence": 0.8, "reason": "asks about tasks"}),
    )

    answer = await ask(h, "这周有什么要交的")

    assert answer.action == "task_query"
    assert "route:error" not in answer.stages
    first, second = fake.seen(ROUTE_MODEL)
    # pydantic-ai sent the validation errors back as the output tool's result.
    [feedback] = [m for m in second["messages"] if m["role"] == "tool"]
    assert "delete_everything" in feedback["content"] and "confidence" in feedback["content"]
    assert len(second["messages"]) == len(first["messages"]) + 2
    assert (answer.requests, answer.offline_steps) == (2, 2)  # router: invalid + retry; offline plan and reflect


# --- router failures degrade to the offline router, visibly ----------------------------------------


def assert_offline_note_written(h: Harness, answer: Answer) -> None:
    """What the offline rules do with "帮我记一下明天下午三点交报告": one task, confirmed by code."""
    assert answer.action == "quick_note_create"
    assert answer.visible == "好，已记下：交报告（重要且紧急；截止 12月1日 周二 15:00）"
    [task] = tasks_of(h)
    assert task.title == "交报告"


async def test_router_http_error_falls_back_to_the_offline_router(
    fake: FakeOpenAI, provider: Callable[..., Harness]
) -> None:
    h = provider(route="boom")

    answer = await ask(h, "帮我记一下明天下午三点交报告")

    assert answer.stages[:2] == ["fallback:info", "route:end"]
    [fallback] = events(answer, "fallback", "info")
    assert (fallback["node"], fallback["error"]) == ("route", "ModelServerError")
    assert "kaboom" not in str(answer.events)  # the provider's words stay in the log
    assert events(answer, "route", "end")[0]["action"] == "quick_note_create"
    assert_offline_note_written(h, answer)
    assert len(fake.requests) == 1
    assert answer.requests == 1  # the failed router attempt; the rest ran offline


async def test_router_error_then_chat_streams_from_provider(fake: FakeOpenAI, provider: Callable[..., Harness]) -> None:
    h = provider(route="boom", chat="chatty")
    fake.on_model("chatty", Reply(text="你好，我在。有什么可以帮你？"))

    answer = await ask(h, "你好呀")

    assert answer.action == "chat"
    assert "fallback:info" in answer.stages
    assert answer.content == "你好，我在。有什么可以帮你？"
    [chat] = fake.seen("chatty")
    assert chat["stream"] is True
    assert "tools" not in chat
    assert chat["messages"][-1] == {"role": "user", "content": "你好呀"}
    system = "\n".join(m["content"] for m in chat["messages"] if m["role"] == "system")
    assert "Now: 2026-11-30T10:00+08:00 (Monday, Asia/Shanghai)." in system  # chat knows the date
    assert "never say that you saved" in system
    assert tasks_of(h) == []


async def test_router_timeout_falls_back_without_hidden_retries(
    fake: FakeOpenAI, provider: Callable[..., Harness]
) -> None:
    h = provider(route="slow", timeout_s=0.3)  # the fake sleeps 2 s

    answer = await ask(h, "帮我记一下明天下午三点交报告")

    [fallback] = events(answer, "fallback", "info")
    assert fallback["error"] in ("ModelRequestTimeout", "ModelTimeoutError", "TimeoutError")
    assert_offline_note_written(h, answer)
    # One attempt only: the SDK's own retries are off, so the timeout is the real bound.
    assert len(fake.requests) == 1
    assert answer.requests == 1


@pytest.mark.parametrize(
    "script",
    [
        pytest.param([Reply({"action": "delete_everything", "confidence": 7, "reason": "?"})] * 2, id="bad-values"),
        pytest.param([Malformed()] * 2, id="malformed-json"),
    ],
)
async def test_router_invalid_output_falls_back_after_retry(
    fake: FakeOpenAI, provider: Callable[..., Harness], script: list[Reply | Malformed]
) -> None:
    h = provider(route=ROUTE_MODEL)
    fake.queue(*script)

    answer = await ask(h, "帮我记一下明天下午三点交报告")

    [fallback] = events(answer, "fallback", "info")
    assert fallback["error"] == "UnexpectedModelBehavior"
    assert_offline_note_written(h, answer)
    assert len(fake.seen(ROUTE_MODEL)) == 2  # the output retry, and no more
    assert h.state.hub.output_retries == 1
    assert answer.requests == 2  # both failed router requests; the rest ran offline


# --- per-node fallback to the offline rules --------------------------------------------------------

NODE_FAILURES = [
    pytest.param("boom", "ModelServerError", 1, id="http-500"),
    pytest.param("slow", "ModelRequestTimeout", 1, id="timeout"),
    pytest.param("garbled", "UnexpectedModelBehavior", 2, id="invalid-output"),
]


@pytest.mark.parametrize(("model", "error", "attempts"), NODE_FAILURES)
async def test_plan_provider_failure_falls_back_to_offline_plan(
    fake: FakeOpenAI, provider: Callable[..., Harness], model: str, error: str, attempts: int
) -> None:
    h = provider(plan=model, timeout_s=0.3)
    seed(h)

    answer = await ask(h, "这周有什么要交的")

    assert answer.action == "task_query"
    [fallback] = events(answer, "fallback", "info")
    assert fallback["node"] == "plan"
    assert fallback["error"] in (
        error,
        "ModelTimeoutError",
        "TimeoutError",
    )  # as the router test: the name varies by where the clock ran out
    assert answer.stages.index("fallback:info") < answer.stages.index("plan:end")
    assert len(fake.requests) == attempts
    for title in ("修电脑", "交周报", "买牛奶"):
        assert title in answer.content
    assert "写年终总结" not in answer.content
    assert "共" not in answer.content.splitlines()[1]  # all matches shown

    # The same question fully offline gives the same answer; usage differs by the failed attempts.
    h.state.hub = ModelHub()
    offline = await ask(h, "这周有什么要交的")
    assert answer.content == offline.content
    assert answer.requests == offline.requests + attempts


async def test_reflect_provider_failure_falls_back_to_offline_reflection(
    fake: FakeOpenAI, provider: Callable[..., Harness]
) -> None:
    h = provider(reflect="boom")
    seed(h)

    answer = await ask(h, "这周有什么要交的")

    assert answer.action == "task_query"
    [fallback] = events(answer, "fallback", "info")
    assert fallback["node"] == "reflect"
    assert fallback["error"] == "ModelServerError"
    assert "reflect:end" in answer.stages
    assert answer.content.splitlines()[0].startswith("「这周」的任务在这里（共 ")
    assert "交周报" in answer.content and "写年终总结" not in answer.content
    assert len(fake.requests) == 1

    h.state.hub = ModelHub()
    offline = await ask(h, "这周有什么要交的")
    assert answer.content == offline.content
    assert answer.requests == offline.requests + 1


async def test_extract_provider_failure_falls_back_and_writes_once(
    fake: FakeOpenAI, provider: Callable[..., Harness]
) -> None:
    h = provider(extract="boom")

    answer = await ask(h, "帮我记一下明天下午三点交报告", client_message_id="m-1")

    assert answer.action == "quick_note_create"
    [fallback] = events(answer, "fallback", "info")
    assert fallback["node"] == "extract"
    assert answer.visible == "好，已记下：交报告（重要且紧急；截止 12月1日 周二 15:00）"
    [task] = tasks_of(h)
    assert task.title == "交报告"
    assert task.deadline_at is not None
    assert task.deadline_at.astimezone(NOW.tzinfo).isoformat() == "2026-12-01T15:00:00+08:00"

    assert len(fake.requests) == 1
    assert (answer.requests, answer.offline_steps) == (1, 2)  # failed extract; offline router and extract

    # A retry of the same turn finds the task it already wrote: nothing new, no model call.
    again = await ask(h, "帮我记一下明天下午三点交报告", client_message_id="m-1")
    assert again.action == "quick_note_create"
    assert "交报告" in again.content
    assert [t.id for t in tasks_of(h)] == [task.id]
    assert len(fake.requests) == 1
