"""MCP results carry a repeating task's rule: `recurrence` ({"rule", "text"} | null) on every task of
find_tasks, update_task, complete_task and capture_note, and its words in the text line.

The harness clock is fixed (Monday 2026-11-30 10:00 Shanghai, the harness's zone).
"""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

from core import recurrence
from core.models import TaskCreate
from core.store import create_task
from core.tools import TaskItem
from support.harness import Harness
from tests.app.test_mcp import call, in_process
from tests.app.test_mcp_results import raw

WEEKLY = {"rule": "FREQ=WEEKLY;BYDAY=MO", "text": "每周一 09:00"}


def add_weekly(h: Harness) -> int:
    start = datetime(2026, 12, 7, 9, tzinfo=ZoneInfo("Asia/Shanghai"))
    rule = recurrence.make("FREQ=WEEKLY;BYDAY=MO", start=start, tz="Asia/Shanghai").to_ical()
    with h.state.session() as session:
        task, _ = create_task(
            session, h.user("alice"), TaskCreate(title="周会", deadline_at=start, recurrence=rule), now=h.now
        )
        session.commit()
        assert task.id is not None
        return task.id


def test_task_item_declares_recurrence() -> None:
    schema = TaskItem.model_json_schema()
    assert "recurrence" in schema["properties"]
    assert TaskItem.model_validate({**_item(), "recurrence": WEEKLY}).recurrence is not None
    assert TaskItem.model_validate(_item()).recurrence is None  # a record without it: a one-off


def _item() -> dict[str, object]:
    return {
        "id": 1,
        "title": "x",
        "priority_group": 2,
        "effective_group": 2,
        "promoted": False,
        "deadline_at": None,
        "overdue": False,
        "is_completed": False,
    }


async def test_find_and_update_results_carry_the_rule(harness: Harness) -> None:
    weekly = add_weekly(harness)
    once = harness.add("交电费", 1, "2026-11-30 18:00")
    async with in_process(harness, "alice") as client:
        found = await call(client, "find_tasks")
        text, _ = await raw(client, "find_tasks")
        updated = await call(client, "update_task", task_id=weekly, title="周会（线上）")
    rules = {t["id"]: t["recurrence"] for t in found["items"]}
    assert rules == {weekly: WEEKLY, once: None}
    assert "repeats 每周一 09:00 (FREQ=WEEKLY;BYDAY=MO)" in next(ln for ln in text.splitlines() if "周会" in ln)
    assert updated["task"]["recurrence"] == WEEKLY


async def test_complete_moves_the_series_and_says_its_rule(harness: Harness) -> None:
    weekly = add_weekly(harness)
    async with in_process(harness, "alice") as client:
        done = await call(client, "complete_task", task_id=weekly)
    assert done["task"]["recurrence"] == WEEKLY and not done["task"]["is_completed"]
    assert done["task"]["deadline_at"].startswith("2026-12-14T09:00:00")


async def test_ask_tasks_items_carry_the_rule(harness: Harness) -> None:
    weekly = add_weekly(harness)
    async with in_process(harness, "alice") as client:
        asked = await call(client, "ask_tasks", question="下周有什么事")
    assert [t["recurrence"] for t in asked["items"] if t["id"] == weekly] == [WEEKLY]


async def test_a_captured_repeating_note_carries_its_rule(harness: Harness) -> None:
    async with in_process(harness, "alice") as client:
        captured = await call(client, "capture_note", text="每周一上午9点开周会")
    [task] = captured["tasks"]
    assert task["recurrence"] is not None and task["recurrence"]["rule"].startswith("FREQ=WEEKLY")
    assert "周一" in task["recurrence"]["text"]
