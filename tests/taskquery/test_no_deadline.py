"""Tasks without a deadline ("没有截止时间的任务", "undated tasks"): plan, boundary, routing, answer.

The phrasings are varied on purpose (none is special-cased); look-alikes that talk about the
deadline without negating its existence ("截止时间快到的", "没有逾期的吧", "有没有截止时间快到的")
must not set the filter. NOW is Monday 2026-11-30 10:00 Asia/Shanghai.
"""

from __future__ import annotations

from typing import Any

import pytest

from app.explain import explain
from core.countlock import extract_count
from route.offline import offline_route
from support.harness import NOW, TZ
from taskquery.boundary import Grounds, settle_plan
from taskquery.offline import merge_followup, offline_plan
from taskquery.plan import QueryPlan

NO_DEADLINE_ZH = [
    "没有截止时间的任务",
    "哪些任务还没定截止日期",
    "没设deadline的待办",
    "无截止时间的",
    "列出没有设置截止日期的事项",
    "还没填截止时间的有哪些",
    "哪些待办没有期限",
    "没定ddl的任务有几个",
    "不带截止日期的任务给我看看",
    "看看没有设定到期时间的",
    "有哪些事情没写截止日期",
    "尚未设定截止时间的任务",
    "没有到期日的待办有哪些",
    "我有哪些没有deadline的任务",
    "没给截止时间的重要任务",
    "未设置截止日期的待办事项",
]
NO_DEADLINE_EN = [
    "tasks without a deadline",
    "undated tasks",
    "which tasks have no due date?",
    "show me tasks with no deadline",
    "anything without a due date?",
    "list my tasks that don't have a deadline",
    "tasks with no deadline set",
    "my important tasks without deadlines",
]
# Talk about deadlines that does not ask for tasks without one.
NOT_NO_DEADLINE = [
    "截止时间快到的",
    "没有逾期的吧",
    "有没有截止时间快到的任务",
    "截止日期在明天的任务",
    "没有完成的任务",
    "还没到截止时间的任务",
    "没过截止日期的任务有哪些",
    "deadline快到了的",
    "逾期的",
    "没有重要的任务吗",
    "tasks due tomorrow",
    "any overdue tasks?",
    "tasks with a deadline this week",
    "no urgent tasks?",
]


def plan(sentence: str) -> QueryPlan:
    return offline_plan(sentence, NOW, TZ)


@pytest.mark.parametrize("sentence", NO_DEADLINE_ZH + NO_DEADLINE_EN)
def test_no_deadline_phrasings_set_the_filter(sentence: str) -> None:
    got = plan(sentence)
    assert got.no_deadline, sentence
    # no deadline window can hold a task without a deadline, and finished tasks are not asked for
    assert (got.time_text, got.time_after, got.time_before) == (None, None, None)
    assert not got.include_completed and got.time_field == "deadline"


@pytest.mark.parametrize("sentence", NOT_NO_DEADLINE)
def test_deadline_talk_without_the_negation_does_not(sentence: str) -> None:
    assert not plan(sentence).no_deadline, sentence


def test_overdue_stays_the_overdue_filter() -> None:
    got = plan("逾期的")
    assert got.time_text == "逾期" and got.time_before is not None and not got.no_deadline


def test_other_filters_still_apply() -> None:
    assert plan("没给截止时间的重要任务").quadrants == [1, 2]
    assert plan("没有截止时间的任务，给我3个").limit == 3
    created = plan("最近新建的没有截止时间的任务")
    assert created.no_deadline and created.time_field == "created"
    with_done = plan("包括已完成的没有截止时间的任务")
    assert with_done.no_deadline and with_done.include_completed


@pytest.mark.parametrize("sentence", NO_DEADLINE_ZH + NO_DEADLINE_EN)
def test_no_deadline_questions_route_to_the_query(sentence: str) -> None:
    assert offline_route(sentence, [])[0] == "query", sentence


# --- the trust boundary: the user's words settle it, like include_completed ----------------------


def settle(proposed: QueryPlan, sentence: str) -> QueryPlan:
    rules = plan(sentence)
    grounds = Grounds(sentence, rules, extract_count(sentence), NOW, TZ)
    return settle_plan(proposed, grounds).plan


def test_the_model_cannot_add_the_filter_the_words_do_not_ask_for() -> None:
    settled = settle(QueryPlan(no_deadline=True), "这周有什么任务")
    assert not settled.no_deadline and settled.time_text == "这周"


def test_the_model_cannot_drop_the_filter_the_words_ask_for() -> None:
    settled = settle(QueryPlan(no_deadline=False, time_text="这周"), "没有截止时间的任务")
    assert settled.no_deadline and settled.time_text is None


def test_a_model_time_phrase_does_not_narrow_tasks_without_a_deadline() -> None:
    # "截止时间" is in the words but says which tasks, not when
    settled = settle(QueryPlan(time_text="截止时间"), "没有截止时间的任务")
    assert settled.no_deadline and (settled.time_text, settled.time_after, settled.time_before) == (None, None, None)


# --- follow-ups ---------------------------------------------------------------------------------


def test_follow_ups_keep_or_replace_it() -> None:
    undated = plan("没有截止时间的任务")
    assert merge_followup(undated, "重要的呢", NOW, TZ).no_deadline
    assert merge_followup(undated, "再来两个", NOW, TZ).no_deadline
    # a deadline window asks for dated tasks again
    next_week = merge_followup(undated, "那下周的呢", NOW, TZ)
    assert not next_week.no_deadline and next_week.time_text == "下周"
    later = merge_followup(plan("这周的任务"), "没有截止时间的呢", NOW, TZ)
    assert later.no_deadline and later.time_text is None


# --- whole answers ------------------------------------------------------------------------------


def seed(h: Any) -> Any:
    h.add("整理照片", 3, None)
    h.add("规划明年目标", 2, None)
    h.add("交季度报告", 1, "2026-12-01 15:00")
    h.add("取快递", 3, "2026-11-29 18:00")  # overdue
    h.add("洗车", 3, None, completed_at="2026-11-28 11:00")  # finished
    return h


def listed(content: str) -> list[str]:
    return [line.split(". ", 1)[1].split("（")[0].split(" (")[0] for line in content.splitlines() if line[:1].isdigit()]


async def test_lists_only_open_tasks_without_a_deadline(harness: Any) -> None:
    answer = await seed(harness).ask("哪些任务还没定截止日期")
    assert answer.action == "task_query"
    lines = answer.visible.splitlines()
    assert lines[0] == "没有截止时间的任务（共 2 条）："
    assert listed(answer.visible) == ["规划明年目标", "整理照片"]  # by group, then id
    assert "截止" not in "".join(lines[2:])
    anchor = [e for e in answer.events if e.stage == "time_anchor" and e.status == "end"][-1]
    assert anchor.message == "只看没有截止时间的任务" and anchor.data["no_deadline"] is True


async def test_english_answer(harness: Any) -> None:
    answer = await seed(harness).ask("undated tasks")
    assert answer.visible.splitlines()[0] == "Tasks without a deadline (2 tasks):"
    assert listed(answer.visible) == ["规划明年目标", "整理照片"]


async def test_every_task_has_a_deadline(harness: Any) -> None:
    harness.add("交季度报告", 1, "2026-12-01 15:00")
    harness.add("取快递", 3, "2026-11-29 18:00")  # overdue
    answer = await harness.ask("没有截止时间的任务")
    assert listed(answer.visible) == []
    first, offer = answer.visible.splitlines()
    assert first.startswith("没有未完成且没设截止时间的任务") and "1 条逾期" in first
    assert offer == "要看看逾期的吗？"


async def test_explain_dumps_the_filter(harness: Any) -> None:
    state = harness.state
    out = await explain(state.pipeline, state.hub, "没设deadline的待办", now=NOW, tz=TZ, config=state.turn_config())
    assert out["action"] == "task_query"
    assert out["plan"]["no_deadline"] is True
    assert (out["plan"]["time_after"], out["plan"]["time_before"]) == (None, None)
    plain = await explain(state.pipeline, state.hub, "明天的任务", now=NOW, tz=TZ, config=state.turn_config())
    assert plain["plan"]["no_deadline"] is False


async def test_a_single_undated_task_is_still_introduced_as_such(harness: Any) -> None:
    harness.add("学吉他", 2, None)
    harness.add("看牙医", 2, "2026-12-20 10:00")
    answer = await harness.ask("没有截止时间的任务")
    assert answer.visible.splitlines()[:3] == [
        "没有截止时间的任务：",
        "",
        "1. 学吉他（重要不紧急）",
    ]
