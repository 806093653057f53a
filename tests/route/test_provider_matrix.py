"""The whole pipeline on real provider profiles (issue 14): the router on DeepSeek and the planner on
Ollama, each its own fake server with its own key, give the same answers as the offline rules when
the providers answer what the rules would.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pydantic_ai.models
import pytest

from core import llm
from core.llm import ModelHub
from core.providers import ProviderConfig
from support.fake_openai import FakeOpenAI, Reply
from support.harness import Answer, Harness, make_harness

TURN_GUARD_S = 5.0  # "did not hang" guard, not a timing assertion

SENTENCES = ["这周有什么要交的", "明天下午三点交报告", "你好"]


@pytest.fixture(scope="module")
def servers() -> Iterator[tuple[FakeOpenAI, FakeOpenAI]]:
    deepseek, ollama = FakeOpenAI(), FakeOpenAI()
    deepseek.start()
    ollama.start()
    yield deepseek, ollama
    deepseek.stop()
    ollama.stop()


@pytest.fixture
async def two_providers(
    servers: tuple[FakeOpenAI, FakeOpenAI], database_url: str, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[Harness]:
    deepseek, ollama = servers
    deepseek.reset()
    ollama.reset()
    monkeypatch.setattr(pydantic_ai.models, "ALLOW_MODEL_REQUESTS", True)  # to 127.0.0.1 only
    monkeypatch.setattr(llm, "REJECTED_MODES", set())
    hub = ModelHub(
        default="offline",
        timeout_s=3.0,
        per_node={"route": "deepseek:deepseek-chat", "plan": "ollama:qwen3:8b"},
        providers={
            "deepseek": ProviderConfig(base_url=deepseek.base_url, api_key="sk-ds"),
            "ollama": ProviderConfig(base_url=ollama.base_url),
        },
    )
    harness = make_harness(database_url, hub=hub)
    yield harness
    await hub.aclose()
    harness.state.engine.dispose()


def seed(harness: Harness) -> None:
    harness.add("交周报", 2, "2026-12-02 18:00")
    harness.add("修电脑", 1, "2026-12-01 09:00")


def end_data(answer: Answer, stage: str) -> dict[str, object]:
    [data] = [e.data for e in answer.events if e.stage == stage and e.status == "end"]
    return data


@pytest.mark.parametrize("sentence", SENTENCES)
async def test_router_on_deepseek_and_plan_on_ollama_match_offline(
    sentence: str, two_providers: Harness, servers: tuple[FakeOpenAI, FakeOpenAI], tmp_path: Path
) -> None:
    deepseek, ollama = servers
    offline = make_harness(f"sqlite:///{tmp_path / 'offline.db'}")  # the same fixed clock (harness NOW)
    seed(offline)
    seed(two_providers)
    expected = await offline.ask(sentence)
    offline.state.engine.dispose()

    # Each provider answers, in its own style, what the rules answered.
    deepseek.on_node("route", Reply(end_data(expected, "route"), reasoning="用户在问任务"))
    if expected.action == "task_query":
        ollama.on_node("plan", Reply(end_data(expected, "plan")["plan"], reasoning="thinking"))  # type: ignore[arg-type]
    async with asyncio.timeout(TURN_GUARD_S):
        answer = await two_providers.ask(sentence)

    # Each service signs its records with its own secret: compare what they say.
    assert (answer.action, answer.visible) == (expected.action, expected.visible)
    assert [answer.record(k) for k in ("q1", "w1")] == [expected.record(k) for k in ("q1", "w1")]
    assert not [e for e in answer.events if e.stage in ("fallback", "output_mode")]
    assert [b["model"] for b in deepseek.requests] == ["deepseek-chat"]
    assert deepseek.auths == ["Bearer sk-ds"]
    planned = expected.action == "task_query"
    assert [b["model"] for b in ollama.requests] == (["qwen3:8b"] if planned else [])
    assert all("strict" not in b["tools"][0]["function"] for b in ollama.requests)  # Ollama's profile
    assert answer.requests == 1 + planned
