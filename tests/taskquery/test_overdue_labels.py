"""Overdue tasks (not completed, deadline before now) are labelled in every rendered list line.

The label is a fact right after the group label and before the deadline, in both locales; it
needs `now` (no `now`, no label), and a completed task is never overdue.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from core.display import is_overdue
from core.store import TaskPage, TaskRow
from support.harness import Harness, make_harness
from support.rows import task_row
from taskquery.rendering import PREFIXES, render_answer, render_list, task_line

TZ = "Asia/Shanghai"
NOW = datetime(2026, 11, 30, 10, 0, tzinfo=ZoneInfo(TZ))  # Monday
PAST = datetime(2026, 11, 28, 17, 0, tzinfo=ZoneInfo(TZ))  # Saturday, before NOW
FUTURE = datetime(2026, 12, 1, 15, 0, tzinfo=ZoneInfo(TZ))  # Tuesday, after NOW


def row(
    title: str,
    group: int = 2,
    deadline: datetime | None = PAST,
    *,
    effective: int | None = None,
    completed: bool = False,
    task_id: int = 1,
) -> TaskRow:
    due = deadline
    return task_row(title, group, due, effective=effective, completed=completed, task_id=task_id)


# --- the rule ------------------------------------------------------------------------------------


def test_is_overdue_rule() -> None:
    assert is_overdue(PAST, False, NOW)
    assert not is_overdue(FUTURE, False, NOW)
    assert not is_overdue(NOW, False, NOW)  # strictly before now, like the overdue query filter
    assert is_overdue(NOW - timedelta(seconds=1), False, NOW)
    assert not is_overdue(PAST, True, NOW)  # completed tasks are never overdue
    assert not is_overdue(None, False, NOW)  # no deadline, nothing to miss
    assert not is_overdue(PAST, False, None)  # no now, no label


def test_is_overdue_compares_instants_across_zones() -> None:
    # 2026-11-30 01:59 UTC is 09:59 in Shanghai: one minute before NOW.
    assert is_overdue(datetime(2026, 11, 30, 1, 59, tzinfo=ZoneInfo("UTC")), False, NOW)
    assert not is_overdue(datetime(2026, 11, 30, 2, 1, tzinfo=ZoneInfo("UTC")), False, NOW)


# --- lines ---------------------------------------------------------------------------------------


def test_overdue_line_in_chinese() -> None:
    assert task_line(1, row("准备董事会材料", 1), TZ, NOW) == (
        "1. 准备董事会材料（重要且紧急；已逾期；截止 11月28日 周六 17:00）"
    )


def test_overdue_line_in_english() -> None:
    assert task_line(1, row("prepare board papers", 1), TZ, NOW, locale="en") == (
        "1. prepare board papers (important & urgent; overdue; due Sat Nov 28, 17:00)"
    )


def test_overdue_comes_right_after_the_group_even_when_promoted() -> None:
    promoted = row("review the contract", 2, effective=1)
    assert task_line(2, promoted, TZ, NOW) == (
        "2. review the contract（重要且紧急；已逾期；临近截止，由「重要不紧急」提前；截止 11月28日 周六 17:00）"
    )
    assert task_line(2, promoted, TZ, NOW, locale="en") == (
        '2. review the contract (important & urgent; overdue; due soon, moved up from "important, not urgent"; '
        "due Sat Nov 28, 17:00)"
    )


def test_overdue_in_another_year_keeps_the_year() -> None:
    last_year = row("file taxes", 1, datetime(2025, 12, 31, 18, 0, tzinfo=ZoneInfo(TZ)))
    assert task_line(1, last_year, TZ, NOW) == "1. file taxes（重要且紧急；已逾期；截止 2025年12月31日 周三 18:00）"
    assert task_line(1, last_year, TZ, NOW, locale="en") == (
        "1. file taxes (important & urgent; overdue; due Wed Dec 31 2025, 18:00)"
    )


@pytest.mark.parametrize("locale", ["zh", "en"])
def test_completed_task_with_a_past_deadline_is_not_overdue(locale: str) -> None:
    done = row("submit expenses", 1, completed=True)
    line = task_line(1, done, TZ, NOW, locale=locale)  # type: ignore[arg-type]
    assert "逾期" not in line and "overdue" not in line
    expected = {
        "zh": "1. submit expenses（重要且紧急；已完成；截止 11月28日 周六 17:00）",
        "en": "1. submit expenses (important & urgent; done; due Sat Nov 28, 17:00)",
    }
    assert line == expected[locale]


@pytest.mark.parametrize("locale", ["zh", "en"])
def test_future_deadline_and_no_deadline_are_not_overdue(locale: str) -> None:
    for task in (row("later", 2, FUTURE), row("someday", 2, None)):
        line = task_line(1, task, TZ, NOW, locale=locale)  # type: ignore[arg-type]
        assert "逾期" not in line and "overdue" not in line


@pytest.mark.parametrize("locale", ["zh", "en"])
def test_without_now_there_is_no_overdue_label(locale: str) -> None:
    line = task_line(1, row("old", 1), TZ, locale=locale)  # type: ignore[arg-type]
    assert "逾期" not in line and "overdue" not in line


# --- lists and answers ---------------------------------------------------------------------------


def mixed_page() -> TaskPage:
    return TaskPage(
        total=4,
        items=[
            row("准备董事会材料", 1, PAST, task_id=1),
            row("交季度报告", 1, FUTURE, task_id=2),
            row("提交报销单", 1, PAST, completed=True, task_id=3),
            row("取快递", 3, datetime(2026, 11, 29, 18, 0, tzinfo=ZoneInfo(TZ)), task_id=4),
        ],
    )


def test_render_list_labels_only_the_open_past_due_lines_in_chinese() -> None:
    assert render_list(mixed_page(), TZ, now=NOW).splitlines() == [
        "给你整理了 4 条任务：",
        "",
        "1. 准备董事会材料（重要且紧急；已逾期；截止 11月28日 周六 17:00）",
        "2. 交季度报告（重要且紧急；截止 12月1日 周二 15:00）",
        "3. 提交报销单（重要且紧急；已完成；截止 11月28日 周六 17:00）",
        "4. 取快递（简单不重要；已逾期；截止 11月29日 周日 18:00）",
    ]


def test_render_answer_labels_only_the_open_past_due_lines_in_english() -> None:
    answer = render_answer(PREFIXES["en"]["generic"], mixed_page(), TZ, now=NOW, locale="en")
    assert answer.splitlines() == [
        "Here's what I found (4 tasks):",
        "",
        "1. 准备董事会材料 (important & urgent; overdue; due Sat Nov 28, 17:00)",
        "2. 交季度报告 (important & urgent; due Tue Dec 1, 15:00)",
        "3. 提交报销单 (important & urgent; done; due Sat Nov 28, 17:00)",
        "4. 取快递 (easy, not important; overdue; due Sun Nov 29, 18:00)",
    ]


def test_paged_list_labels_overdue_lines_too() -> None:
    page = TaskPage(total=9, items=[row("取快递", 3, PAST, task_id=4)])
    lines = render_list(page, TZ, offset=3, now=NOW).splitlines()
    assert lines[2] == "4. 取快递（简单不重要；已逾期；截止 11月28日 周六 17:00）"


# --- through the whole query pipeline (the graph passes its `now`) ---------------------------------


@pytest.fixture
def seeded(database_url: str) -> Iterator[Harness]:
    h = make_harness(database_url)  # the fixed now: 2026-11-30 10:00 Asia/Shanghai
    assert h.now == NOW
    h.add("准备董事会材料", 1, "2026-11-28 17:00")  # overdue
    h.add("交季度报告", 1, "2026-12-01 15:00")  # due tomorrow
    h.add("提交报销单", 1, "2026-11-25 18:00", completed_at="2026-11-24 16:00")  # past deadline, done
    yield h
    h.state.engine.dispose()


def line_of(content: str, title: str) -> str:
    [line] = [line for line in content.splitlines() if title in line]
    return line


async def test_pipeline_answer_labels_overdue_tasks(seeded: Harness) -> None:
    answer = await seeded.ask("全部任务，包括已完成的")
    assert answer.action == "task_query", answer.content
    assert "已逾期" in line_of(answer.content, "准备董事会材料")
    assert "已逾期" not in line_of(answer.content, "交季度报告")
    assert "已完成" in line_of(answer.content, "提交报销单")
    assert "已逾期" not in line_of(answer.content, "提交报销单")


async def test_pipeline_overdue_question_labels_every_line(seeded: Harness) -> None:
    answer = await seeded.ask("有哪些逾期的任务")
    assert answer.action == "task_query", answer.content
    assert (
        line_of(answer.content, "准备董事会材料") == "1. 准备董事会材料（重要且紧急；已逾期；截止 11月28日 周六 17:00）"
    )
    assert "提交报销单" not in answer.content and "交季度报告" not in answer.content
