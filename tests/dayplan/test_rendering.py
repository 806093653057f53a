"""The plan's words (dayplan/rendering.py) for cases the scenarios don't reach: spans, many tasks turned,
plurals. NOW is Monday 2026-11-30 10:00 Asia/Shanghai."""

from __future__ import annotations

from datetime import timedelta

import pytest

from core.locale import Locale
from core.store import TaskRow
from core.turn import HistoryTurn
from dayplan.offline import follows_plan
from dayplan.plan import Candidate, build_plan, plan_window
from dayplan.rendering import render_plan, span
from support.harness import NOW, TZ


def task(task_id: int, title: str, minutes: int) -> Candidate:
    row = TaskRow(task_id, title, 1, 1, None, None, False, None, NOW - timedelta(days=1), False, None, minutes)
    return Candidate(row, "urgent", minutes, True)


@pytest.mark.parametrize(
    ("minutes", "zh", "en"),
    [(480, "8小时", "8 h"), (65, "1小时5分", "1 h 5 min"), (45, "45分钟", "45 min"), (0, "0分钟", "0 min")],
)
def test_a_span_is_said_in_hours_never_in_working_days(minutes: int, zh: str, en: str) -> None:
    assert (span(minutes, "zh"), span(minutes, "en")) == (zh, en)


@pytest.mark.parametrize(
    ("locale", "head"),
    [
        ("zh", "换个排法：把「T1」、「T2」、「T3」等 5 件挪到最后。"),
        ("en", 'Another order: "T1", "T2", "T3" … (5 in all) moved to the end.'),
    ],
)
def test_many_tasks_turned_are_counted(locale: Locale, head: str) -> None:
    queue = [task(i, f"T{i}", 30) for i in range(1, 8)]
    plan = build_plan(plan_window(NOW, TZ, NOW.date()), queue, shift=5)
    text = render_plan(plan, now=NOW, tz=TZ, locale=locale)
    assert text.splitlines()[0] == head
    assert follows_plan([HistoryTurn("assistant", text)])  # still read as a plan


def test_english_plurals() -> None:
    window = plan_window(NOW, TZ, NOW.date())
    one = render_plan(build_plan(window, [task(1, "Big", 600)]), now=NOW, tz=TZ, locale="en")
    assert (
        "1 more doesn't fit: Big (important & urgent; about 1 working day 2 h)" not in one
    )  # days said as estimates are
    assert one.endswith("1 more doesn't fit: Big (important & urgent; about 10 h).")
    two = render_plan(build_plan(window, [task(1, "Big", 600), task(2, "Bigger", 700)]), now=NOW, tz=TZ, locale="en")
    assert "2 more don't fit: Big" in two
