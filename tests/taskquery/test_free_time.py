"""Free time with an amount ("我下午有两个小时空，做点什么", "I have 30 minutes free"): the tasks that fit,
most pressing first; the time said is when the user is free, never a deadline window (issue 27: the
afternoon was read as one and nothing was found). NOW is Monday 2026-11-30 10:00 Asia/Shanghai.
"""

from __future__ import annotations

import re

import pytest

from app.explain import explain
from core.countlock import extract_count
from route.offline import offline_route
from support.harness import NOW, TZ, Harness
from taskquery.boundary import Grounds, settle_plan
from taskquery.offline import offline_plan
from taskquery.plan import QueryPlan

FREE = [
    ("我下午有两个小时空，做点什么", 120),
    ("有半小时，干点啥", 30),
    ("我有20分钟空闲，做点什么好", 20),
    ("今晚有一个半小时的空，处理点什么", 90),
    ("刚好空出四十分钟，能做点啥", 40),
    ("明天上午有3小时空档", 180),
    ("还剩十五分钟，干点什么", 15),
    ("I have 2 hours free, what should I do", 120),
    ("got 30 minutes to kill", 30),
    ("I've got about an hour free this afternoon", 60),
    ("45 min free — anything quick?", 45),
]
NOT_FREE = [
    "还有两个小时就截止的任务",
    "2小时内要交的",
    "下午有空吗",  # a question about the schedule, no amount
    "明天下午有什么任务",
    "tasks due in 2 hours",
    "anything due in the next 30 minutes?",
]


def plan(sentence: str) -> QueryPlan:
    return offline_plan(sentence, NOW, TZ)


@pytest.mark.parametrize(("sentence", "minutes"), FREE)
def test_free_time_with_an_amount_fits_tasks_and_sets_no_window(sentence: str, minutes: int) -> None:
    got = plan(sentence)
    assert got.fits_minutes == minutes, sentence
    assert (got.time_text, got.time_after, got.time_before) == (None, None, None)
    assert got.sort_by == "priority" and not got.include_completed


@pytest.mark.parametrize("sentence", NOT_FREE)
def test_deadline_talk_with_an_amount_is_no_free_time(sentence: str) -> None:
    assert plan(sentence).fits_minutes is None, sentence


@pytest.mark.parametrize(("sentence", "_minutes"), FREE)
def test_free_time_routes_to_the_query(sentence: str, _minutes: int) -> None:
    assert offline_route(sentence, [])[0] == "query", sentence


def test_words_that_ask_for_a_group_still_do() -> None:
    assert plan("有半小时，做点重要的").quadrants == [1, 2]
    assert plan("有半小时，干点啥").quadrants is None  # not the "I'm free → something easy" lean


def test_the_model_cannot_set_free_time_the_words_do_not_say() -> None:
    sentence = "这周有什么任务"
    grounds = Grounds(sentence, plan(sentence), extract_count(sentence), NOW, TZ)
    assert settle_plan(QueryPlan(fits_minutes=30), grounds).plan.fits_minutes is None


def _seed(h: Harness) -> None:
    h.add("修复线上故障", 1, "2026-12-01 18:00", estimate=90)  # fits 2 h, not 30 min
    h.add("回复客户邮件", 1, "2026-12-02 12:00", estimate=20)
    h.add("写季度总结", 2, "2026-12-04 18:00", estimate=240)  # fits neither
    h.add("整理照片", 4)  # no estimate: a group-4 task counts as an hour
    h.add("取快递", 3, "2026-11-30 20:00")  # no estimate: an easy one counts as 15 minutes
    h.add("交电费", 1, "2026-11-29 18:00", estimate=10)  # overdue, most pressing
    h.add("已完成的小事", 3, completed_at="2026-11-29 09:00")
    h.add("bob 的小事", 3, user="bob")


def titles(visible: str) -> list[str]:
    return [m.group(1) for m in re.finditer(r"^\d+\. ([^（\n]+)", visible, flags=re.M)]


async def test_what_fits_is_listed_most_pressing_first(harness: Harness) -> None:
    _seed(harness)
    two_hours = await harness.ask("我下午有两个小时空，给我5个做做")
    assert two_hours.action == "task_query"
    assert two_hours.visible.startswith("2小时里做得完的，先急后缓；没写预计用时的，简单的按15分钟、其他按1小时算")
    assert titles(two_hours.visible) == ["交电费", "修复线上故障", "回复客户邮件", "取快递", "整理照片"]
    half = await harness.ask("有半小时，干点啥")
    assert titles(half.visible) == ["交电费", "回复客户邮件", "取快递"]
    assert "预计20分钟" in half.visible  # the estimate is shown where there is one


async def test_nothing_fits_says_so(harness: Harness) -> None:
    harness.add("写季度总结", 2, "2026-12-04 18:00", estimate=240)
    answer = await harness.ask("我有10分钟空闲，做点什么")
    assert answer.visible.startswith("没有10分钟里做得完的未完成任务")
    assert "写季度总结" not in answer.visible.split("\n")[0]


async def test_explain_shows_the_free_time(harness: Harness) -> None:
    state = harness.state
    out = await explain(
        state.pipeline, state.hub, "我下午有两个小时空，做点什么", now=NOW, tz=TZ, config=state.turn_config()
    )
    assert out["action"] == "task_query" and out["plan"]["fits_minutes"] == 120
    assert out["plan"]["time_after"] is None and out["plan"]["time_before"] is None
