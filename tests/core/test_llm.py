"""core.llm: the offline model, per-node model choice, and the fallback rules of every model call."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel
from pydantic_ai import Agent, ModelHTTPError
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, ToolCallPart, UserPromptPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.usage import RequestUsage

from core.breaker import Breakers
from core.llm import (
    MAX_TOKENS,
    OFFLINE,
    OFFLINE_AFTER_CUT,
    ModelHub,
    NodeSpec,
    failed_run_usage,
    offline_model,
    run_structured,
    stream_text,
)
from core.trace import Budget, Trace
from support.fake_openai import Ramble, RejectShape, Reply


class City(BaseModel):
    name: str
    country: str


CITY = NodeSpec("city", City)
TEXT = NodeSpec("text", str)


PARIS = City(name="Paris", country="FR")
LONG_TEXT = "这是一段离线模型的回复，足够长，会被切成好几块发出去。"


def fails(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    raise ModelHTTPError(503, "flaky", {"message": "unavailable"})


def fallbacks(trace: Trace) -> list[dict[str, Any]]:
    return [e.data for e in trace.events if e.stage == "fallback"]


# --- offline_model --------------------------------------------------------------------------------


async def test_offline_model_answers_structured_output_through_the_agent() -> None:
    agent = Agent(offline_model(lambda: PARIS), output_type=City)
    result = await agent.run("capital of France?")
    assert result.output == PARIS
    assert result.usage.requests == 1
    assert result.response.model_name == OFFLINE


async def test_offline_model_streams_structured_output() -> None:
    agent = Agent(offline_model(lambda: PARIS), output_type=City)
    async with agent.run_stream("capital of France?") as run:
        assert await run.get_output() == PARIS


async def test_offline_model_answers_and_streams_text() -> None:
    agent = Agent(offline_model(lambda: LONG_TEXT))
    assert (await agent.run("hi")).output == LONG_TEXT
    async with agent.run_stream("hi") as run:
        deltas = [d async for d in run.stream_text(delta=True, debounce_by=None)]
    assert "".join(deltas) == LONG_TEXT
    assert len(deltas) > 1  # streamed in pieces, like a real model


async def test_offline_model_computes_its_answer_per_request() -> None:
    answers = iter(["one", "two"])
    agent = Agent(offline_model(lambda: next(answers)))
    assert [(await agent.run("x")).output for _ in range(2)] == ["one", "two"]


# --- ModelHub -------------------------------------------------------------------------------------


def test_hub_defaults_to_offline_everywhere() -> None:
    hub = ModelHub()
    for node in ("route", "plan", "reflect", "extract", "chat"):
        assert hub.is_offline(node)
        assert hub.name_for(node) == OFFLINE


def test_hub_per_node_overrides_the_default() -> None:
    hub = ModelHub(default="offline", per_node={"plan": "gpt-x"}, base_url="http://127.0.0.1:9/v1")
    assert not hub.is_offline("plan")
    assert hub.name_for("plan") == "gpt-x"
    assert hub.is_offline("route") and hub.is_offline("chat")

    hub = ModelHub(default="gpt-x", per_node={"reflect": "offline"}, base_url="http://127.0.0.1:9/v1")
    assert not hub.is_offline("route")
    assert hub.is_offline("reflect")


def test_hub_builds_chat_completions_models_without_sdk_retries() -> None:
    hub = ModelHub(default="gpt-x", base_url="http://127.0.0.1:9/v1", api_key="sk-x", timeout_s=1.5)
    model = hub.model_for("plan")
    assert isinstance(model, OpenAIChatModel)  # chat completions, not the Responses API
    assert model.model_name == "gpt-x"
    assert model.client.max_retries == 0
    assert model.client.timeout == 1.5
    assert str(model.client.base_url).rstrip("/") == "http://127.0.0.1:9/v1"
    assert hub.model_for("route") is model  # one client per model name


async def test_hub_injected_models_win() -> None:
    injected = FunctionModel(fails, model_name="scripted")
    hub = ModelHub(default="offline", injected={"route": injected})
    assert not hub.is_offline("route")
    assert hub.model_for("route") is injected
    assert hub.name_for("route") == "scripted"
    assert hub.is_offline("plan")
    await hub.aclose()  # nothing built, nothing to close


# --- run_structured -------------------------------------------------------------------------------


async def test_run_structured_uses_the_nodes_model() -> None:
    def answer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return ModelResponse(
            parts=[ToolCallPart(info.output_tools[0].name, {"name": "Lyon", "country": "FR"})],
            usage=RequestUsage(input_tokens=9, output_tokens=4),
        )

    trace = Trace()
    hub = ModelHub(injected={"plan": FunctionModel(answer)})
    out = await run_structured(CITY, "x", node="plan", hub=hub, trace=trace, offline=lambda: PARIS)
    assert out == City(name="Lyon", country="FR")
    assert fallbacks(trace) == []
    assert trace.model_calls == {"plan": 1}
    assert (trace.usage.input_tokens, trace.usage.output_tokens) == (9, 4)


async def test_run_structured_falls_back_to_offline_on_provider_failure() -> None:
    trace = Trace()
    hub = ModelHub(injected={"plan": FunctionModel(fails)})
    out = await run_structured(CITY, "x", node="plan", hub=hub, trace=trace, offline=lambda: PARIS)
    assert out == PARIS
    [fallback] = fallbacks(trace)
    assert fallback["node"] == "plan"
    assert fallback["error"] == "ModelHTTPError"
    assert trace.model_calls == {"plan": 1}  # the failed attempt
    assert trace.offline_steps == {"plan": 1}  # and the offline answer, which is no request


async def test_run_structured_counts_every_failed_request_of_an_output_retry() -> None:
    calls = []

    def invalid(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        calls.append(1)
        return ModelResponse(
            parts=[ToolCallPart(info.output_tools[0].name, {"name": "Paris"})],
            usage=RequestUsage(input_tokens=5, output_tokens=2),
        )

    trace = Trace()
    hub = ModelHub(injected={"extract": FunctionModel(invalid)})
    out = await run_structured(CITY, "x", node="extract", hub=hub, trace=trace, offline=lambda: PARIS)
    assert out == PARIS
    assert len(calls) == 2  # one output retry, as configured
    assert trace.model_calls == {"extract": 2}
    assert trace.usage.offline_steps == 1
    assert (trace.usage.input_tokens, trace.usage.output_tokens) == (10, 4)


async def test_run_structured_past_the_request_budget_answers_offline_without_asking() -> None:
    asked: list[int] = []

    def answer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        asked.append(1)
        return ModelResponse(parts=[ToolCallPart(info.output_tools[0].name, {"name": "Lyon", "country": "FR"})])

    trace = Trace(budget=Budget(max_requests=1))
    hub = ModelHub(injected={"plan": FunctionModel(answer), "reflect": FunctionModel(answer)})
    assert await run_structured(CITY, "x", node="plan", hub=hub, trace=trace, offline=lambda: PARIS) != PARIS
    assert await run_structured(CITY, "x", node="reflect", hub=hub, trace=trace, offline=lambda: PARIS) == PARIS
    assert len(asked) == 1
    [fallback] = fallbacks(trace)
    assert (fallback["node"], fallback["error"]) == ("reflect", "budget")
    assert trace.usage.requests == 1 and trace.usage.offline_steps == 1


async def test_run_structured_caps_output_retries_at_the_budget() -> None:
    calls: list[int] = []

    def invalid(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        calls.append(1)
        return ModelResponse(parts=[ToolCallPart(info.output_tools[0].name, {"name": "Paris"})])

    trace = Trace(budget=Budget(max_requests=1))
    hub = ModelHub(injected={"plan": FunctionModel(invalid)}, output_retries=3)
    out = await run_structured(CITY, "x", node="plan", hub=hub, trace=trace, offline=lambda: PARIS)
    assert out == PARIS
    assert len(calls) == 1  # no retry fits in a budget of one request
    assert trace.usage.requests == 1


async def test_run_structured_past_the_time_budget_answers_offline() -> None:
    async def hang(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        await asyncio.sleep(30)
        raise AssertionError("unreachable")  # pragma: no cover

    trace = Trace(budget=Budget(seconds=0.2))
    hub = ModelHub(injected={"plan": FunctionModel(hang)})
    async with asyncio.timeout(5):  # "did not hang" guard, not a timing assertion
        out = await run_structured(CITY, "x", node="plan", hub=hub, trace=trace, offline=lambda: PARIS)
    assert out == PARIS
    [fallback] = fallbacks(trace)
    assert fallback["error"] in ("ModelRequestTimeout", "TimeoutError")
    out = await run_structured(CITY, "x", node="plan", hub=hub, trace=trace, offline=lambda: PARIS)
    assert out == PARIS
    assert fallbacks(trace)[-1]["error"] == "budget"  # the clock has run out: not even asked


async def test_run_structured_does_not_hide_programming_errors() -> None:
    def bug(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        raise KeyError("oops")

    hub = ModelHub(injected={"plan": FunctionModel(bug)})
    with pytest.raises(KeyError):
        await run_structured(CITY, "x", node="plan", hub=hub, trace=Trace(), offline=lambda: PARIS)


async def test_run_structured_offline_hub_never_touches_a_provider() -> None:
    trace = Trace()
    out = await run_structured(CITY, "x", node="plan", hub=ModelHub(), trace=trace, offline=lambda: PARIS)
    assert out == PARIS
    assert fallbacks(trace) == []
    assert trace.model_calls == {}
    assert trace.offline_steps == {"plan": 1}
    assert (trace.usage.requests, trace.usage.input_tokens, trace.usage.output_tokens) == (0, 0, 0)


def test_failed_run_usage_ignores_history_and_unsent_retries() -> None:
    history: list[ModelMessage] = [
        ModelRequest(parts=[UserPromptPart("old")]),
        ModelResponse(parts=[TextPart("old answer")], usage=RequestUsage(input_tokens=100)),
    ]
    sent_no_answer = [*history, ModelRequest(parts=[UserPromptPart("new")])]
    assert failed_run_usage(sent_no_answer, history) == (1, 0, 0)

    bad = ModelResponse(parts=[TextPart("bad")], usage=RequestUsage(input_tokens=3, output_tokens=1))
    unsent = ModelRequest(parts=[UserPromptPart("retry")], state="interrupted")
    retried = [*history, ModelRequest(parts=[UserPromptPart("new")]), bad, ModelRequest(parts=[]), bad, unsent]
    assert failed_run_usage(retried, history) == (2, 6, 2)


# --- stream_text ----------------------------------------------------------------------------------


async def _fail_before_any_text(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
    raise ModelHTTPError(502, "flaky")
    yield ""  # pragma: no cover - makes this an async generator


async def _fail_mid_stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
    yield "你好，"
    yield "我"
    raise ModelHTTPError(502, "flaky")


async def _stream_ok(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
    for piece in ("Hel", "lo"):
        yield piece


async def _stream(hub: ModelHub, trace: Trace, sent: list[str], *, live: bool = True) -> str:
    return await stream_text(
        TEXT,
        "hi",
        node="chat",
        hub=hub,
        trace=trace,
        offline=lambda: LONG_TEXT,
        on_delta=sent.append,
        live=live,
    )


async def test_stream_text_streams_the_nodes_model() -> None:
    trace, sent = Trace(), []
    hub = ModelHub(injected={"chat": FunctionModel(stream_function=_stream_ok)})
    assert await _stream(hub, trace, sent) == "Hello"
    assert sent == ["Hel", "lo"]
    assert fallbacks(trace) == []
    assert trace.model_calls == {"chat": 1}


async def test_stream_text_offline() -> None:
    trace, sent = Trace(), []
    assert await _stream(ModelHub(), trace, sent) == LONG_TEXT
    assert "".join(sent) == LONG_TEXT and len(sent) > 1
    assert fallbacks(trace) == []


async def test_stream_text_falls_back_when_nothing_was_sent() -> None:
    trace, sent = Trace(), []
    hub = ModelHub(injected={"chat": FunctionModel(stream_function=_fail_before_any_text)})
    assert await _stream(hub, trace, sent) == LONG_TEXT
    assert "".join(sent) == LONG_TEXT
    [fallback] = fallbacks(trace)
    assert fallback["node"] == "chat"
    assert trace.model_calls == {"chat": 1}
    assert trace.offline_steps == {"chat": 1}


async def test_stream_text_completes_a_cut_live_reply_with_the_offline_one() -> None:
    # What was shown stays shown; the offline reply follows it, so the answer still ends.
    trace, sent = Trace(), []
    hub = ModelHub(injected={"chat": FunctionModel(stream_function=_fail_mid_stream)})
    answer = await _stream(hub, trace, sent)
    assert answer == "".join(sent) == "你好，我" + OFFLINE_AFTER_CUT + LONG_TEXT
    [fallback] = fallbacks(trace)
    assert fallback["node"] == "chat"
    assert trace.model_calls == {"chat": 1}


async def test_stream_text_not_live_discards_a_cut_reply() -> None:
    # A non-streaming client never saw the half reply: it gets the offline one, whole, once.
    trace, sent = Trace(), []
    hub = ModelHub(injected={"chat": FunctionModel(stream_function=_fail_mid_stream)})
    assert await _stream(hub, trace, sent, live=False) == LONG_TEXT
    assert sent == [LONG_TEXT]


async def test_stream_text_not_live_delivers_a_good_reply_once() -> None:
    trace, sent = Trace(), []
    hub = ModelHub(injected={"chat": FunctionModel(stream_function=_stream_ok)})
    assert await _stream(hub, trace, sent, live=False) == "Hello"
    assert sent == ["Hello"]


def test_an_offline_service_never_imports_pydantic_ai(tmp_path: Any) -> None:
    """Start-up cost: pydantic-ai (about 0.4 s to import) loads only when a provider is asked."""
    script = f"""
import asyncio, sys
sys.path.insert(0, {str(Path(__file__).resolve().parents[1])!r})
from support.harness import make_harness
h = make_harness("sqlite:///{tmp_path / "x.db"}")
h.add("交周报", 1, "2026-12-01 18:00")
for text in ("这周有什么要交的", "帮我记一下明天下午三点交报告", "你好"):
    asyncio.run(h.ask(text))
print(sorted(m for m in sys.modules if m.split(".")[0] == "pydantic_ai"))
"""
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=True)
    assert out.stdout.strip() == "[]", out.stderr[-2000:]


# --- max_tokens, rambling providers and the breaker (docs/fdr/0028) ------------------------------

ROUTER_LIKE = NodeSpec("router", City, "Answer with a city.")


@pytest.fixture
def served(fake: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    """The fake chat-completions server on 127.0.0.1, model requests allowed (to it only)."""
    import pydantic_ai.models

    fake.reset()
    monkeypatch.setattr(pydantic_ai.models, "ALLOW_MODEL_REQUESTS", True)
    return fake


class Ticks:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def fake_hub(fake: Any, model: str, clock: Ticks | None = None, **kwargs: Any) -> ModelHub:
    breakers = Breakers(clock=clock or Ticks())
    return ModelHub(default=model, base_url=fake.base_url, api_key="sk", timeout_s=3.0, breakers=breakers, **kwargs)


def sent_max_tokens(body: dict[str, Any]) -> int | None:
    return body.get("max_completion_tokens") or body.get("max_tokens")


async def structured(hub: ModelHub, trace: Trace, spec: NodeSpec[Any] = ROUTER_LIKE, node: str = "route") -> Any:
    return await run_structured(spec, "where?", node=node, hub=hub, trace=trace, offline=lambda: PARIS)


async def test_every_request_carries_its_nodes_max_tokens(served: Any) -> None:
    served.on_model("m", Reply({"name": "Rome", "country": "IT"}))
    hub = fake_hub(served, "m")
    try:
        assert await structured(hub, Trace()) == City(name="Rome", country="IT")
        await stream_text(TEXT, "hi", node="chat", hub=hub, trace=Trace(), offline=lambda: "x", on_delta=lambda _: None)
        hub.max_tokens_scale = 2
        await structured(hub, Trace(), NodeSpec("plan", City))
        hub.max_tokens_scale = 0  # not sent at all
        await structured(hub, Trace())
    finally:
        await hub.aclose()
    assert [sent_max_tokens(b) for b in served.requests] == [MAX_TOKENS["router"], 1024, 2 * MAX_TOKENS["plan"], None]


async def test_a_ramble_cut_at_max_tokens_is_not_retried(served: Any) -> None:
    served.on_model("m", Ramble())
    hub, trace = fake_hub(served, "m"), Trace()
    try:
        assert await structured(hub, trace) == PARIS  # the rules answered
    finally:
        await hub.aclose()
    [body] = served.requests  # no "please call the tool" retry for another ramble
    assert body["tool_choice"] == "required" and sent_max_tokens(body) == 512
    assert (trace.usage.requests, trace.usage.output_tokens) == (1, 512)
    [fallback] = [e for e in trace.events if e.stage == "fallback"]
    assert fallback.data["kind"] == "cut"
    assert fallback.message == "模型的回答太长被截断，这次由规则回答"


async def test_a_ramble_that_ignores_max_tokens_costs_one_request_not_two(served: Any) -> None:
    served.on_model("m", Ramble(honours_max_tokens=False, context=4096, prompt_tokens=300))
    hub, trace = fake_hub(served, "m"), Trace()
    try:
        assert await structured(hub, trace) == PARIS
    finally:
        await hub.aclose()
    assert len(served.requests) == 1
    assert (trace.usage.requests, trace.usage.output_tokens) == (1, 3796)


async def test_the_breaker_opens_after_repeated_failures_and_skips_the_provider(served: Any) -> None:
    served.on_model("m", Ramble())
    clock = Ticks()
    hub = fake_hub(served, "m", clock)
    traces = [Trace() for _ in range(5)]
    try:
        for trace in traces[:3]:
            assert await structured(hub, trace) == PARIS
        assert len(served.requests) == 3  # three failures: open
        for trace in traces[3:]:
            assert await structured(hub, trace) == PARIS
            assert await structured(hub, trace, node="plan") == PARIS  # same endpoint, same breaker
        assert len(served.requests) == 3  # nothing sent while open
        skipped = [e for e in traces[3].events if e.stage == "fallback"]
        assert [e.message for e in skipped] == ["模型暂时跳过（连续失败），这次由规则回答"]  # once per turn
        assert traces[3].notes["provider_skips"] == {"route": 1, "plan": 1}
        assert traces[3].usage.requests == 0 and traces[3].usage.offline_steps == 2

        clock.now += 30  # the cool-down is over: one trial, which answers, and the breaker closes
        served.on_model("m", Reply({"name": "Rome", "country": "IT"}))
        assert await structured(hub, Trace()) == City(name="Rome", country="IT")
        assert hub.breakers.open_count() == 0
    finally:
        await hub.aclose()
    assert len(served.requests) == 4


async def test_a_rejected_output_mode_is_not_a_provider_failure(served: Any) -> None:
    from core import llm

    served.on_model("picky", RejectShape("tools", then=Reply({"name": "Rome", "country": "IT"})))
    hub = fake_hub(served, "picky")
    hub.breakers.failures = 1  # one real failure would open it
    saved = set(llm.REJECTED_MODES)
    try:
        assert await structured(hub, Trace()) == City(name="Rome", country="IT")
    finally:
        llm.REJECTED_MODES.clear()
        llm.REJECTED_MODES.update(saved)
        await hub.aclose()
    assert hub.breakers.open_count() == 0 and len(served.requests) == 2


async def test_a_timeout_says_so_in_suikous_words() -> None:
    async def never(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        await asyncio.sleep(5)
        raise AssertionError("unreachable")

    hub = ModelHub(injected={"route": FunctionModel(never, model_name="sleepy")}, timeout_s=0.05)
    trace = Trace()
    assert await structured(hub, trace) == PARIS
    [fallback] = [e for e in trace.events if e.stage == "fallback"]
    assert fallback.message == "模型没有回应（超时），这次由规则回答"
    assert "离线" not in fallback.message
