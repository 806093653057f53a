"""A yes/no question about a task is answered yes or no first ("还没有，「交季度报告」…截止。").

Fixed now: Monday 2026-11-30 10:00 Asia/Shanghai. Runs on the backend `database_url` picks.
"""

from __future__ import annotations

from typing import Any

import pytest
from pydantic_ai.messages import ModelMessage, ModelResponse, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from core.lexicon import english_done_subject
from core.llm import ModelHub
from support.harness import Harness, make_harness
from taskquery.verdict import asks_if_done


@pytest.mark.parametrize(
    ("sentence", "subject"),
    [
        ("did I pay rent?", "rent"),
        ("have I renewed my passport yet?", "passport"),
        ("is the invoice sent?", "invoice"),
        ("has the visa form been submitted yet?", "visa form"),
        ("Did we book the hotel", "hotel"),
    ],
)
def test_english_done_questions_name_what_they_ask_about(sentence: str, subject: str) -> None:
    assert english_done_subject(sentence) == subject
    assert asks_if_done(sentence)


@pytest.mark.parametrize(
    "sentence",
    ["what did I finish this week?", "pay rent", "is it raining?", "have you done anything?", "周报要交什么"],
)
def test_other_sentences_are_not_done_questions(sentence: str) -> None:
    assert not asks_if_done(sentence)


async def test_an_open_task_gets_not_yet_with_its_deadline(harness: Harness) -> None:
    harness.add("续签护照", 1, "2026-12-03 18:00")
    answer = await harness.ask("续签护照办了没")
    assert answer.action == "task_query"
    assert answer.visible == "还没有，「续签护照」12月3日 周四 18:00 截止。"


async def test_an_overdue_task_says_so(harness: Harness) -> None:
    harness.add("交水费", 2, "2026-11-28 18:00")
    answer = await harness.ask("交水费交了吗")
    assert answer.visible == "还没有，「交水费」已逾期（11月28日 周六 18:00 截止）。"


async def test_a_finished_task_gets_yes_with_when(harness: Harness) -> None:
    harness.add("订机票", 1, "2026-12-02 12:00", completed_at="2026-11-29 20:30")
    answer = await harness.ask("订机票订好了吗")
    assert answer.visible == "做完了：「订机票」11月29日 周日 20:30 完成。"


async def test_several_matches_are_counted_then_listed(harness: Harness) -> None:
    harness.add("写月度总结", 2, "2026-12-04 18:00")
    harness.add("写年度总结", 2, "2026-12-20 18:00", completed_at="2026-11-29 10:00")
    answer = await harness.ask("总结写完了没")
    first, *rest = answer.visible.splitlines()
    assert first == "有 2 条相关的任务：1 条做完了，1 条还没有。"
    assert sum(line.startswith(("1. ", "2. ")) for line in rest) == 2


async def test_no_such_task_is_said_without_listing_others(harness: Harness) -> None:
    harness.add("交水费", 2, "2026-12-01 18:00")
    answer = await harness.ask("买猫粮买了没")
    assert answer.visible == "没有标题含「买猫粮」的任务。"


async def test_english_question_in_english(harness: Harness) -> None:
    harness.add("Pay rent", 1, "2026-12-01 15:00")
    answer = await harness.ask("did I pay rent yet?")
    assert answer.action == "task_query"
    assert answer.visible == 'Not yet: "Pay rent" is due Tue Dec 1, 15:00.'
    assert not harness.changes()  # a question never writes


# --- a model that misreads the question -------------------------------------------------------


def plan_says(plan: dict[str, Any]) -> FunctionModel:
    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return ModelResponse(parts=[ToolCallPart(info.output_tools[0].name, plan)])

    return FunctionModel(respond, model_name="plan-fake")


def reflect_says(prefix: str) -> FunctionModel:
    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        answer = {"satisfied": True, "need_retry": False, "prefix": prefix}
        return ModelResponse(parts=[ToolCallPart(info.output_tools[0].name, answer)])

    return FunctionModel(respond, model_name="reflect-fake")


MISREAD_PLANS = {
    "other-keyword": {"keyword": "周报"},
    "open-only": {"include_completed": False},
    "wrong-window": {"time_text": "下个月"},
    "latest-first": {"sort_by": "created", "order": "desc", "limit": 10},
}


@pytest.mark.parametrize("plan", MISREAD_PLANS.values(), ids=MISREAD_PLANS.keys())
async def test_the_verdict_stands_whatever_the_plan_model_says(database_url: str, plan: dict[str, Any]) -> None:
    h = make_harness(
        database_url, hub=ModelHub(injected={"plan": plan_says(plan), "reflect": reflect_says("都做完啦！")})
    )
    h.add("订机票", 1, "2026-12-02 12:00", completed_at="2026-11-29 20:30")
    h.add("写周报", 2, "2026-12-04 18:00")
    answer = await h.ask("订机票订好了吗")
    h.state.engine.dispose()
    assert answer.action == "task_query" and answer.requests >= 2  # both models were asked
    assert answer.visible == "做完了：「订机票」11月29日 周日 20:30 完成。"


async def test_a_series_is_one_task_done_last_time_with_its_next(harness: Harness) -> None:
    await harness.ask("每天晚上浇花")
    assert (await harness.ask("花浇了吗")).visible == "还没有，「浇花」11月30日 周一 23:59 截止。"
    done = await harness.ask("花浇过了")
    assert done.action == "task_complete", done.visible
    answer = await harness.ask("花浇了吗")
    assert answer.visible == "做完了：「浇花」上一次 11月30日 周一 10:00 完成；下一次 12月1日 周二 23:59 截止。"


async def test_a_time_said_with_a_named_task_asks_after_that_task(harness: Harness) -> None:
    harness.add("吃药", 1, "2026-12-01 08:00")
    # Nothing of it due today: the answer is still about 吃药, not "no such task".
    answer = await harness.ask("今天药吃了没")
    assert answer.action == "task_query"
    assert answer.visible == "还没有，「吃药」12月1日 周二 08:00 截止。"


@pytest.mark.parametrize("sentence", ["药吃了没", "今天的花浇了吗", "周报交过了吗", "这周周报交了没"])
def test_habit_verbs_and_occurrence_words_ask_if_done(sentence: str) -> None:
    assert asks_if_done(sentence)


@pytest.mark.parametrize("sentence", ["饭吃了吗", "今天吃了吗", "你吃了吗"])
def test_a_greeting_about_meals_is_not_a_done_question(sentence: str) -> None:
    assert not asks_if_done(sentence)
