"""Answering the follow-up an empty answer offers: "要看看逾期的吗？" → "要" runs the offered query.

Only when the previous assistant message really made the offer: a bare "要" anywhere else stays
what it was, and "不用了" after an offer is no query and no write. The offers and the questions
they stand for are data (taskquery.offers); the router recognises an offer by core.lexicon's
pattern, which must match every offer text rendering.py can show.

NOW is Monday 2026-11-30 10:00 Asia/Shanghai (support.harness).
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from core.lexicon import OFFER_LINE_RE, accepts_offer
from core.turn import HistoryTurn
from route.offline import offline_route
from support.harness import NOW, TZ
from taskquery.offers import OFFERED_QUESTIONS, accepted_offer
from taskquery.offline import offline_plan
from taskquery.rendering import EMPTY_OFFERS

YES_ZH = [
    "要",
    "好",
    "好的",
    "嗯",
    "行",
    "可以",
    "看看",
    "要的",
    "好啊，看看",
    "嗯嗯",
    "好呀",
    "要看",
    "看一下吧",
    "行啊",
]
YES_EN = ["yes", "sure", "ok", "yes please", "yeah", "Sure!", "okay, show me", "yep"]
NO = ["不用", "不要", "不用了", "不看了", "算了", "no", "no thanks", "nope"]

_LINE = re.compile(r"^(\d+)\. (.+?)\s*[（(]")


def titles(content: str) -> list[str]:
    return [m.group(2) for raw in content.splitlines() if (m := _LINE.match(raw))]


def offered_by(offer: str) -> list[HistoryTurn]:
    return [
        HistoryTurn("user", "这周有什么重要的要交"),
        HistoryTurn("assistant", f"「这周」没有符合条件的任务。\n{offer}"),
    ]


# --- the data: offers, the questions they stand for, the router's pattern ----------------------


@pytest.mark.parametrize("name", list(OFFERED_QUESTIONS))
@pytest.mark.parametrize("locale", ["zh", "en"])
def test_every_offer_text_is_recognised_by_the_router(name: str, locale: str) -> None:
    assert OFFER_LINE_RE.search(EMPTY_OFFERS[locale][name])  # type: ignore[index]


def test_the_no_tasks_hint_is_no_query_offer() -> None:
    for locale in ("zh", "en"):
        assert not OFFER_LINE_RE.search(EMPTY_OFFERS[locale]["no_tasks"])  # type: ignore[index]
    history = offered_by(EMPTY_OFFERS["zh"]["no_tasks"])
    assert accepted_offer("好的", history) is None


@pytest.mark.parametrize("locale", ["zh", "en"])
def test_the_offered_questions_plan_the_offered_filters(locale: str) -> None:
    overdue = offline_plan(OFFERED_QUESTIONS["see_overdue"][locale], NOW, TZ)  # type: ignore[index]
    assert overdue.time_text and overdue.time_before is not None and not overdue.no_deadline
    undated = offline_plan(OFFERED_QUESTIONS["see_undated"][locale], NOW, TZ)  # type: ignore[index]
    assert undated.no_deadline and undated.time_text is None and not undated.include_completed


@pytest.mark.parametrize("text", YES_ZH + YES_EN)
def test_yes_words(text: str) -> None:
    assert accepts_offer(text)


@pytest.mark.parametrize(
    "text", [*NO, "要不要", "好的，帮我记一下买牛奶", "看看明天的", "yes, remind me to call mom", "什么", "嗯？为什么"]
)
def test_not_a_bare_yes(text: str) -> None:
    assert not accepts_offer(text)


@pytest.mark.parametrize("text", YES_ZH + YES_EN)
def test_yes_after_an_offer_routes_to_the_query(text: str) -> None:
    for offer in ("要看看逾期的吗？", "要看看没有截止时间的吗？", "Want to see the overdue ones?"):
        assert offline_route(text, offered_by(offer))[0] == "query"


@pytest.mark.parametrize("text", YES_ZH + YES_EN)
def test_yes_without_an_offer_routes_as_before(text: str) -> None:
    assert offline_route(text, [])[0] != "query"
    after_list = [HistoryTurn("user", "这周有什么任务"), HistoryTurn("assistant", "给你整理了 1 条任务：\n1. 交报告")]
    assert accepted_offer(text, after_list) is None
    # the offer must be the latest assistant message, not an older one
    older = [*offered_by("要看看逾期的吗？"), HistoryTurn("user", "你好"), HistoryTurn("assistant", "你好！")]
    assert accepted_offer(text, older) is None


@pytest.mark.parametrize("text", NO)
def test_no_after_an_offer_is_chat(text: str) -> None:
    assert offline_route(text, offered_by("要看看逾期的吗？"))[0] == "chat"
    assert accepted_offer(text, offered_by("要看看逾期的吗？")) is None


def test_which_offer_was_made_decides_the_question() -> None:
    overdue = accepted_offer("要", offered_by("要看看逾期的吗？"))
    undated = accepted_offer("好的", offered_by("要看看没有截止时间的吗？"))
    english = accepted_offer("yes", offered_by("Want to see the ones without a deadline?"))
    assert overdue is not None and overdue.question == OFFERED_QUESTIONS["see_overdue"]["zh"]
    assert undated is not None and undated.question == OFFERED_QUESTIONS["see_undated"]["zh"]
    assert english is not None and (english.question, english.locale) == ("tasks without a deadline", "en")


# --- whole conversations -------------------------------------------------------------------


def seed_overdue_and_undated(h: Any) -> Any:
    h.add("浇花", 3, "2026-11-27 09:00")  # overdue
    h.add("还图书馆的书", 3, "2026-11-28 18:00")  # overdue
    h.add("整理照片", 3, None)
    h.add("学做面包", 3, None)
    h.add("买新拖鞋", 3, "2026-12-09 20:00")
    h.add("寄明信片", 3, "2026-11-16 12:00", completed_at="2026-11-15 10:00")
    return h


@pytest.mark.parametrize("yes", ["要", "好的", "嗯", "看看", "好啊，看看"])
async def test_yes_after_the_overdue_offer_lists_what_is_overdue(harness: Any, yes: str) -> None:
    h = seed_overdue_and_undated(harness)
    empty, listed = await h.converse("这周有什么重要的要交", yes)
    assert empty.visible.splitlines()[-1] == "要看看逾期的吗？"
    assert listed.action == "task_query"
    assert sorted(titles(listed.visible)) == ["浇花", "还图书馆的书"]
    assert all("已逾期" in line for line in listed.visible.splitlines()[2:])
    assert h.changes() == []


async def test_yes_after_the_undated_offer_lists_the_undated_tasks(harness: Any) -> None:
    h = harness
    h.add("整理照片", 3, None)
    h.add("学做面包", 2, None)
    h.add("洗车", 3, None, completed_at="2026-11-28 11:00")  # finished: not offered
    empty, listed = await h.converse("明天有什么任务", "好的")
    assert empty.visible.splitlines()[-1] == "要看看没有截止时间的吗？"
    assert listed.action == "task_query"
    assert listed.visible.splitlines()[0] == "没有截止时间的任务（共 2 条）："
    assert sorted(titles(listed.visible)) == ["学做面包", "整理照片"]


async def test_yes_without_an_offer_is_unchanged(harness: Any) -> None:
    h = seed_overdue_and_undated(harness)
    (alone,) = await h.converse("要")
    assert alone.action == "chat"
    listed, after_list = await h.converse("这周有什么任务", "要")
    assert titles(listed.visible) and after_list.action == "chat"


@pytest.mark.parametrize("no", ["不用了", "不要", "no"])
async def test_declining_the_offer_runs_no_query_and_writes_nothing(harness: Any, no: str) -> None:
    h = seed_overdue_and_undated(harness)
    _, declined = await h.converse("这周有什么重要的要交", no)
    assert declined.action == "chat"
    assert not [e for e in declined.events if e.stage == "tool_query"]
    assert titles(declined.visible) == []
    assert h.changes() == []


@pytest.mark.parametrize("yes", ["yes", "sure", "ok", "yes please"])
async def test_english_yes_after_the_english_offer(harness: Any, yes: str) -> None:
    h = seed_overdue_and_undated(harness)
    empty, listed = await h.converse("any important tasks due this week?", yes)
    assert empty.visible.splitlines()[-1] == "Want to see the overdue ones?"
    assert listed.action == "task_query"
    assert listed.visible.splitlines()[0].endswith("(2 tasks):")
    assert sorted(titles(listed.visible)) == ["浇花", "还图书馆的书"]


async def test_the_offered_list_can_be_continued(harness: Any) -> None:
    h = harness
    for i in range(7):
        h.add(f"无期限任务{i}", 3, None)
    _, listed, more = await h.converse("明天有什么任务", "要", "再来两个")
    assert len(titles(listed.visible)) == 5 and "还有 2 条没列出" in listed.visible
    assert more.action == "task_query"
    assert [line.split(".")[0] for line in more.visible.splitlines() if line[:1].isdigit()] == ["6", "7"]
    assert set(titles(more.visible)) <= {f"无期限任务{i}" for i in range(7)}
    assert not set(titles(more.visible)) & set(titles(listed.visible))
