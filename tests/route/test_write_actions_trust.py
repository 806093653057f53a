"""The model proposes, code decides, for the write actions too: a router model that names a write
the words do not ask for (or misses one they do) makes the turn ask, and nothing changes."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from pydantic_ai.messages import ModelMessage, ModelResponse, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from core.llm import ModelHub
from support.harness import Harness, make_harness


def router_says(action: str) -> FunctionModel:
    def route(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        [tool] = info.output_tools
        return ModelResponse(parts=[ToolCallPart(tool.name, {"action": action, "confidence": 0.97, "reason": "sure"})])

    return FunctionModel(route)


@pytest.fixture
def made(database_url: str) -> Iterator[list[Harness]]:
    harnesses: list[Harness] = []
    yield harnesses
    for h in harnesses:
        h.state.engine.dispose()


def harness_with(made: list[Harness], database_url: str, action: str) -> Harness:
    h = make_harness(database_url, hub=ModelHub(injected={"route": router_says(action)}))
    made.append(h)
    return h


@pytest.mark.parametrize(
    ("model_action", "message"),
    [
        ("task_complete", "交报告做完了吗"),  # a question
        ("task_update", "明天有什么任务"),  # a query
        ("undo", "你好"),  # chat
        ("chat", "交报告做完了"),  # the words complete a task; the model missed it
    ],
)
async def test_a_router_model_that_disagrees_about_a_write_changes_nothing(
    made: list[Harness], database_url: str, model_action: str, message: str
) -> None:
    h = harness_with(made, database_url, model_action)
    report = h.add("交报告", 1, "2026-12-01 15:00")
    answer = await h.ask(message)
    assert answer.action == "chat"
    assert [e.data.get("contradicted_by_rules") for e in answer.events if e.stage == "route"] == [True]
    assert not h.task(report).is_completed and h.changes() == []


async def test_a_router_model_that_agrees_about_a_write_gets_it(made: list[Harness], database_url: str) -> None:
    h = harness_with(made, database_url, "task_complete")
    report = h.add("交报告", 1, "2026-12-01 15:00")
    answer = await h.ask("交报告做完了")
    assert answer.action == "task_complete"
    assert h.task(report).is_completed and [c.kind for c in h.changes()] == ["complete"]
