"""Questions in the Chinese calendar, through the whole pipeline: the stage names the calendar rule
used, and a window that rests on a holiday schedule not yet published says so in the answer."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from support.harness import TZ, Answer, Harness, make_harness


def harness_at(database_url: str, now: str) -> Harness:
    return make_harness(database_url, now=datetime.fromisoformat(now).replace(tzinfo=ZoneInfo(TZ)))


@pytest.fixture
def before_makeup_saturday(database_url: str) -> Iterator[Harness]:
    h = harness_at(database_url, "2026-10-09 10:00")  # a Friday; Saturday 10-10 is a makeup workday
    yield h
    h.state.engine.dispose()


@pytest.fixture
def on_new_years_eve(database_url: str) -> Iterator[Harness]:
    h = harness_at(database_url, "2026-12-31 10:00")  # 2027's schedule is not in the data
    yield h
    h.state.engine.dispose()


def time_stage(answer: Answer) -> str:
    [line] = [e.message for e in answer.events if e.stage == "time_anchor" and e.status == "end"]
    return line


async def test_next_workday_is_a_makeup_saturday_and_the_stage_says_why(before_makeup_saturday: Harness) -> None:
    h = before_makeup_saturday
    h.add("交国庆值班表", 1, "2026-10-10 17:00")
    h.add("周一例会", 2, "2026-10-12 09:00")
    answer = await h.ask("下个工作日要做的事")
    assert "下个工作日 → 10月10日 周六（调休上班）" in time_stage(answer)
    assert "交国庆值班表" in answer.visible and "周一例会" not in answer.visible
    assert "尚未公布" not in answer.visible  # 2026's schedule is published


async def test_a_guessed_schedule_is_said_in_the_answer(on_new_years_eve: Harness) -> None:
    h = on_new_years_eve
    h.add("开年复盘", 1, "2027-01-04 10:00")
    answer = await h.ask("下个工作日要交什么")
    assert "2027年1月4日 周一" in time_stage(answer)
    first_line = answer.visible.splitlines()[0]
    assert first_line == "2027年的放假安排尚未公布，按周一至周五和固定节日推算。"
    assert "开年复盘" in answer.visible


async def test_a_festival_question_names_the_lunar_date(harness: Harness) -> None:
    harness.add("买重阳糕", 3, "2027-10-08 12:00")
    answer = await harness.ask("重阳节那天有什么")
    assert "重阳节 → 2027年10月8日（农历九月初九）" in time_stage(answer)
    assert "买重阳糕" in answer.visible
    assert "尚未公布" not in answer.visible  # a lunar date needs no holiday schedule
