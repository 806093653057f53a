"""Routing the day plan offline: its own phrases reach `day_plan`, look-alikes stay where they were, and
"换一个" is another plan only right after a plan."""

from __future__ import annotations

import pytest

from app.actions import build_registry
from core.llm import ModelHub
from core.turn import ChatText, HistoryTurn, TurnConfig, new_turn
from dayplan.offline import PLAN_ANSWER_RE, PlanRequest, follows_plan, read_request
from route.router import Router
from support.harness import NOW, TZ

ROUTER = Router(build_registry())

DAY_ZH = [
    ("今天怎么安排", 0),
    ("今天先做什么", 0),
    ("帮我把今天的任务排个时间", 0),
    ("今天的计划", 0),
    ("明天怎么安排", 1),
    ("今天该怎么安排呢？", 0),
    ("今天的任务怎么排比较好", 0),
    ("明天先干啥", 1),
    ("帮我安排一下明天", 1),
    ("帮我制定一个明天的计划", 1),
    ("把今天的事排个顺序", 0),
    ("今日计划", 0),
    ("规划一下今天", 0),
]
DAY_EN = [
    ("what should I do today", 0),
    ("plan my day", 0),
    ("Plan my day please", 0),
    ("what should I do first today?", 0),
    ("plan tomorrow", 1),
    ("can you plan my day tomorrow", 1),
    ("how should I plan my day", 0),
    ("make me a plan for tomorrow", 1),
    ("schedule my day", 0),
]
WEEK = [
    ("这周哪天最闲", 0),
    ("这周哪天比较空", 0),
    ("本周哪天任务最少", 0),
    ("我下周哪天最闲", 7),
    ("which day this week is least busy", 0),
    ("What's my lightest day next week?", 7),
    ("which day is quietest this week", 0),
]
# Where each look-alike went before the day plan existed, and still goes.
LOOK_ALIKES = [
    ("今天有什么任务", "task_query"),
    ("记一下今天安排体检", "quick_note_create"),
    ("今天的任务完成了吗", "task_query"),
    ("今天要做什么", "task_query"),
    ("今天的安排", "task_query"),
    ("明天的日程", "task_query"),
    ("我该先做哪个", "task_query"),
    ("给我排一下今天的优先级", "task_query"),
    ("今天忙不忙", "task_query"),
    ("what do I have today", "task_query"),
    ("what's due today", "task_query"),
    ("what should I do first?", "task_query"),
    ("换一个", "chat"),  # no plan before it
    ("another plan", "chat"),
]
# Not a plan of the day either (where they go is the other rules' business).
NOT_MINE = ["我明天的计划是去爬山", "帮我做一个下周的学习计划", "今天安排了什么", "这个月哪天有空", "明天上午有空吗"]
PLAN_ZH = "今天（11月30日 周一）10:00–18:00 可排 8小时，先逾期的，再今天截止的，再重要的：\n\n- 10:00–11:00 写周报（逾期 1 天；预计1小时）"
PLAN_EN = "Today (Mon Nov 30), 10:00–18:00: 8 h to plan — overdue first, then due today, then important ones:\n\n- 10:00–11:00 Report (overdue 1 day; about 1 h)"
AGAIN = [
    "换一个",
    "再排一个",
    "换个顺序",
    "重新排一下",
    "换一个吧",
    "再换一个",
    "another plan",
    "shuffle it",
    "try again",
    "another one",
]


def _route(text: str, history: list[HistoryTurn] | None = None) -> str:
    turn = new_turn(
        [*(ChatText(h.role, h.text) for h in history or []), ChatText("user", text)],
        user_id=0, now=NOW, tz=TZ, hub=ModelHub(), sessions=_no_database, config=TurnConfig(), turn_key="probe",
    )  # fmt: skip
    return ROUTER.offline_decision(turn).action


def _no_database() -> None:
    raise AssertionError("routing never touches the database")


@pytest.mark.parametrize(("text", "ahead"), DAY_ZH + DAY_EN)
def test_a_days_plan_is_read(text: str, ahead: int) -> None:
    assert read_request(text) == PlanRequest("day", ahead, read_request(text).reason)  # type: ignore[union-attr]
    assert _route(text) == "day_plan", text


@pytest.mark.parametrize(("text", "ahead"), WEEK)
def test_the_weeks_lightest_day_is_read(text: str, ahead: int) -> None:
    found = read_request(text)
    assert found is not None and (found.kind, found.days_ahead) == ("week", ahead), text
    assert _route(text) == "day_plan", text


@pytest.mark.parametrize(("text", "action"), LOOK_ALIKES)
def test_look_alikes_stay_where_they_were(text: str, action: str) -> None:
    assert read_request(text) is None, text
    assert _route(text) == action, text


@pytest.mark.parametrize("text", NOT_MINE)
def test_other_plans_and_free_time_are_not_mine(text: str) -> None:
    assert read_request(text) is None, text


@pytest.mark.parametrize("text", AGAIN)
@pytest.mark.parametrize("plan", [PLAN_ZH, PLAN_EN])
def test_another_plan_only_right_after_a_plan(text: str, plan: str) -> None:
    after_plan = [HistoryTurn("user", "今天怎么安排"), HistoryTurn("assistant", plan)]
    found = read_request(text, after_plan)
    assert found is not None and found.kind == "again", text
    assert _route(text, after_plan) == "day_plan", text
    after_list = [HistoryTurn("user", "今天有什么任务"), HistoryTurn("assistant", "1. 写周报（重要不紧急；截止 …）")]
    assert read_request(text, after_list) is None
    assert _route(text, after_list) != "day_plan", text


def test_a_plan_is_recognised_from_its_words() -> None:
    assert follows_plan([HistoryTurn("assistant", PLAN_ZH)]) and follows_plan([HistoryTurn("assistant", PLAN_EN)])
    assert PLAN_ANSWER_RE.search("今天没有要排的：没有逾期的，没有今天截止的，也没有重要的任务。")
    assert not PLAN_ANSWER_RE.search("1. 写周报（重要不紧急；截止 12月1日 周二 18:00）")
    assert not follows_plan([HistoryTurn("assistant", PLAN_ZH), HistoryTurn("user", "好")])


def test_long_messages_are_not_read() -> None:
    assert read_request("今天怎么安排" + "，" * 60) is None
