"""What a note may hold is what REST accepts: no deadline outside the years, no invisible title,
and the urgency threshold one wall-clock day before the deadline, across daylight-saving changes."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest
from sqlmodel import select

from core.models import Task, TaskCreate
from core.store import create_task
from support.harness import Harness, make_harness

NEW_YORK = "America/New_York"


def stored(harness: Harness) -> list[Task]:
    with harness.state.session() as session:
        return list(session.exec(select(Task)).all())


@pytest.mark.parametrize("message", ["帮我记一下1900年1月1日交报告", "帮我记一下2300年5月1日交报告"])
async def test_a_deadline_no_task_may_hold_is_asked_about(harness: Harness, message: str) -> None:
    answer = await harness.ask(message)
    assert answer.action == "quick_note_create"
    assert stored(harness) == []
    assert "已记下" not in answer.visible


@pytest.mark.parametrize("title", ["\u200b", "\u200b\u200d\ufeff"])
async def test_an_invisible_title_is_asked_about(harness: Harness, title: str) -> None:
    answer = await harness.ask(f"帮我记一下：{title}")
    assert stored(harness) == []
    assert "已记下" not in answer.visible


async def test_the_urgency_threshold_is_a_wall_clock_day_before_across_dst(database_url: str) -> None:
    """US daylight saving starts on Sunday 2026-03-08: the day before 09:00 that Monday is Sunday 09:00."""
    now = datetime(2026, 3, 2, 10, 0, tzinfo=ZoneInfo(NEW_YORK))
    harness = make_harness(database_url, now=now)
    try:
        await harness.ask("remind me to file the taxes on March 8 at 9am, important but not urgent", tz=NEW_YORK)
        [task] = stored(harness)
        zone = ZoneInfo(NEW_YORK)
        assert task.deadline_at is not None and task.urgency_threshold_at is not None
        assert task.deadline_at.astimezone(zone).replace(tzinfo=None) == datetime(2026, 3, 8, 9, 0)
        assert task.urgency_threshold_at.astimezone(zone).replace(tzinfo=None) == datetime(2026, 3, 7, 9, 0)
    finally:
        harness.state.engine.dispose()


async def test_a_correction_sets_the_threshold_a_wall_clock_day_before_across_dst(database_url: str) -> None:
    """The deadline comes back from the database in UTC: 24 hours before it is 08:00 the day before."""
    zone = ZoneInfo(NEW_YORK)
    now = datetime(2026, 3, 2, 10, 0, tzinfo=zone)
    harness = make_harness(database_url, now=now)
    try:
        with harness.state.session() as session:
            data = TaskCreate(title="交税", priority_group=1, deadline_at=datetime(2026, 3, 8, 9, 0, tzinfo=zone))
            create_task(session, harness.user(), data, now=now)
            session.commit()
        answer = await harness.ask("把交税改成不急", tz=NEW_YORK)
        assert answer.action == "task_update", answer.visible
        [task] = stored(harness)
        assert task.priority_group == 2 and task.urgency_threshold_at is not None
        assert task.urgency_threshold_at.astimezone(zone).replace(tzinfo=None) == datetime(2026, 3, 7, 9, 0)
    finally:
        harness.state.engine.dispose()
