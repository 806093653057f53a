"""A question about a day its month does not have is answered so, not with the date dropped."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic_ai.messages import ModelMessage, ModelResponse, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from core.llm import ModelHub
from core.timeanchor.missing import missing_day
from support.harness import Harness, make_harness


@pytest.mark.parametrize(
    ("question", "says"),
    [
        ("2019年2月29日完成了什么", "2019年2月只有 28 天"),
        ("4月31日有什么要做的", "4月最多 30 天"),
        ("二零二七年六月三十一号要交什么", "2027年6月只有 30 天"),
    ],
)
async def test_a_missing_day_is_said_and_nothing_is_listed(harness: Harness, question: str, says: str) -> None:
    harness.add("交报告", 1, "2026-12-01 15:00")
    answer = await harness.ask(question)
    assert answer.action == "task_query"
    assert says in answer.content and "交报告" not in answer.content


async def test_a_real_leap_day_is_read(harness: Harness) -> None:
    harness.add("交报告", 1, "2028-02-29 15:00")
    answer = await harness.ask("2028年2月29日有什么要做的")
    assert "交报告" in answer.content


@pytest.mark.parametrize(
    ("text", "found"),
    [("2019年2月29日完成了什么", "2019年2月29日"), ("4月31号", "4月31号"), ("2月28日", None), ("13月5日", None)],
)
def test_missing_day(text: str, found: str | None) -> None:
    got = missing_day(text)
    assert (got.phrase if got else None) == found


def _plan_says(plan: dict[str, Any]) -> FunctionModel:
    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return ModelResponse(parts=[ToolCallPart(info.output_tools[0].name, plan)])

    return FunctionModel(respond, model_name="plan-fake")


WRONG_PLANS = {
    "another-day": {"time_text": "下个月"},
    "own-bounds": {"time_after": "2019-03-01T00:00:00+08:00", "time_before": "2019-03-01T23:59:59+08:00"},
    "no-time": {"keyword": "报告"},
}


@pytest.mark.parametrize("plan", WRONG_PLANS.values(), ids=WRONG_PLANS.keys())
async def test_a_model_cannot_turn_a_missing_day_into_another(database_url: str, plan: dict[str, Any]) -> None:
    h = make_harness(database_url, hub=ModelHub(injected={"plan": _plan_says(plan)}))
    try:
        h.add("交报告", 1, "2019-03-01 15:00", completed_at="2019-03-01 16:00")
        answer = await h.ask("2019年2月29日完成了什么")
        assert answer.requests >= 1  # the model was asked
        assert "2019年2月只有 28 天" in answer.content and "交报告" not in answer.content
    finally:
        h.state.engine.dispose()


async def test_a_missing_day_the_model_invents_is_ignored(database_url: str) -> None:
    h = make_harness(database_url, hub=ModelHub(injected={"plan": _plan_says({"time_text": "2019年2月29日"})}))
    try:
        h.add("交报告", 1, "2026-12-01 15:00")
        answer = await h.ask("有什么要做的")
        assert "交报告" in answer.content and "只有 28 天" not in answer.content
    finally:
        h.state.engine.dispose()
