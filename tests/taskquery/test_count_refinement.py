"""Count-only refinements: after a task list, "三个就行" / "最多两条就够了" / "一个都别落下" keep the
previous question's filters and change only the count; without a list before they are a request for
tasks of their own."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.turn import HistoryTurn
from route.offline import offline_route
from support.harness import Harness
from taskquery.followup import find_followup, is_count_refinement, looks_like_followup
from taskquery.offline import merge_followup, offline_plan, offline_plan_followup

NOW = datetime(2026, 11, 30, 10, 0, tzinfo=ZoneInfo("Asia/Shanghai"))
PREVIOUS = "这周重要的任务"
LIST_REPLY = "给你整理了 5 条任务（共 9 条匹配）：\n" + "\n".join(f"{i}. 任务{i}" for i in range(1, 6))
HISTORY = [HistoryTurn("user", PREVIOUS), HistoryTurn("assistant", LIST_REPLY)]

REFINEMENTS: list[tuple[str, int]] = [
    ("三个就行", 3),
    ("两个就够了", 2),
    ("只要一个", 1),
    ("最多两条就够了", 2),
    ("顶多四个", 4),
    ("不要超过三个", 3),
    ("别超过两条", 2),
    ("先给我整两个", 2),
    ("来俩", 2),
    ("给我仨", 3),
]


@pytest.mark.parametrize(("message", "count"), REFINEMENTS)
def test_refinement_keeps_the_filters_and_changes_the_count(message: str, count: int) -> None:
    assert offline_route(message, HISTORY)[0] == "query"
    followup = find_followup(message, HISTORY)
    assert followup is not None and followup.previous_question == PREVIOUS
    assert not followup.wants_more  # the same list, cut to size: not the next page
    before = offline_plan(PREVIOUS, NOW)
    merged = offline_plan_followup(message, followup.previous_question, NOW)
    assert merged.limit == count
    assert merged.quadrants == before.quadrants == [1, 2]
    assert (merged.time_after, merged.time_before) == (before.time_after, before.time_before)
    assert merged.time_after is not None


@pytest.mark.parametrize(("message", "count"), REFINEMENTS)
def test_refinement_without_a_list_is_a_request_for_tasks(message: str, count: int) -> None:
    assert offline_route(message, [])[0] == "query"
    assert offline_plan(message, NOW).limit == count


def test_wanting_them_all_drops_the_count() -> None:
    previous = offline_plan("这周重要的前三个任务", NOW)
    assert previous.limit == 3
    merged = merge_followup(previous, "一个都别落下", NOW)
    assert merged.limit is None
    assert merged.quadrants == [1, 2]
    assert merged.time_after == previous.time_after


@pytest.mark.parametrize(
    "message",
    ["这周有什么任务", "三个人去吃饭", "我有两个孩子", "来一个笑话", "top 3", "三个就行了，谢谢你帮我整理这么多"],
)
def test_other_messages_are_no_count_refinements(message: str) -> None:
    assert not is_count_refinement(message)


def test_english_counts_stay_questions_of_their_own() -> None:
    assert not looks_like_followup("top 3")


@settings(max_examples=60, deadline=None)
@given(
    st.integers(min_value=1, max_value=20),
    st.sampled_from(["{n}个就行", "最多{n}条", "不要超过{n}个", "{n}条就够了", "只要{n}个", "先来{n}个"]),
)
def test_any_count_refines_the_previous_list(n: int, template: str) -> None:
    message = template.format(n=n)
    assert is_count_refinement(message)
    merged = merge_followup(offline_plan(PREVIOUS, NOW), message, NOW)
    assert merged.limit == n
    assert merged.quadrants == [1, 2]


async def test_refinement_in_a_conversation(harness: Harness) -> None:
    for title, group, due in [
        ("周报", 1, "2026-12-01 10:00"),
        ("合同", 2, "2026-12-02 10:00"),
        ("预算", 1, "2026-12-03 10:00"),
        ("取快递", 3, "2026-12-01 12:00"),
    ]:
        harness.add(title, group, due)
    first = await harness.ask(PREVIOUS)
    refined = await harness.ask("两个就够了", history=[("user", PREVIOUS), ("assistant", first.content)])
    listed = [line for line in refined.visible.splitlines() if line[:1].isdigit()]
    assert len(listed) == 2
    assert "取快递" not in refined.visible  # the importance filter survived
