"""task_repeat through the full pipeline: skip, end and change a series; undo and retries.

Fixed now: Monday 2026-11-30 10:00 Asia/Shanghai.
"""

from __future__ import annotations

from typing import Any

from core import series
from support.harness import Harness, local


async def _series(harness: Harness, note: str = "每周一早上9点交周报") -> Any:
    [answer] = await harness.converse(note)
    assert answer.action == "quick_note_create"
    [task] = harness.tasks()
    assert task.recurrence is not None
    return answer


async def test_skip_moves_to_the_next_occurrence_without_a_completed_copy(harness: Harness) -> None:
    note = await _series(harness)
    answer = await harness.ask(
        "这周的周报不用交了", history=[("user", "每周一早上9点交周报"), ("assistant", note.content)]
    )
    assert answer.action == "task_repeat"
    assert "12月7日 周一 09:00 这次跳过；下一次：12月14日 周一 09:00" in answer.visible
    [task] = harness.tasks()  # no completed copy: a skipped occurrence was never done
    assert task.deadline_at == local("2026-12-14 09:00") and not task.is_completed
    assert task.recurrence is not None


async def test_end_keeps_the_open_occurrence_as_a_one_off(harness: Harness) -> None:
    await _series(harness)
    answer = await harness.ask("周报以后不用交了")
    assert answer.action == "task_repeat"
    assert "不再重复（原来每周一 09:00）" in answer.visible and "删掉交周报" in answer.visible
    [task] = harness.tasks()
    assert task.recurrence is None and task.deadline_at == local("2026-12-07 09:00")


async def test_change_keeps_the_task_and_its_time_of_day(harness: Harness) -> None:
    await _series(harness, "每个工作日早上九点打卡")
    answer = await harness.ask("打卡改成每周一三五")
    assert answer.action == "task_repeat"
    assert "改成了每周一三五 09:00，接下来：12月2日、12月4日、12月7日" in answer.visible
    [task] = harness.tasks()
    rule = series.rule_of(task)
    assert rule is not None and rule.parts()["BYDAY"] == "MO,WE,FR"
    assert task.deadline_at == local("2026-12-02 09:00")


async def test_every_other_week_keeps_the_weekday(harness: Harness) -> None:
    await _series(harness)
    answer = await harness.ask("周报改成每两周")
    assert "接下来：12月7日、12月21日" in answer.visible


async def test_a_change_that_says_a_time_moves_the_time(harness: Harness) -> None:
    await _series(harness, "每天早上7点半喝一杯温水")
    answer = await harness.ask("喝温水改成每天晚上9点")
    assert "改成了每天 21:00" in answer.visible, answer.visible
    [task] = harness.tasks()
    assert task.deadline_at == local("2026-11-30 21:00")  # today's is still ahead


async def test_a_period_said_without_every_is_a_change(harness: Harness) -> None:
    await _series(harness)
    answer = await harness.ask("周报改成两周一次")
    assert answer.action == "task_repeat"
    assert "改成了每两周 09:00，接下来：12月7日、12月21日" in answer.visible, answer.visible


async def test_a_one_off_becomes_a_series(harness: Harness) -> None:
    await harness.converse("周五下午三点给绿萝浇水")
    answer = await harness.ask("给绿萝浇水改成每周五")
    assert answer.action == "task_repeat"
    [task] = harness.tasks()
    assert task.recurrence is not None and task.deadline_at == local("2026-12-04 15:00")


async def test_each_control_is_undone(harness: Harness) -> None:
    await _series(harness)
    before = harness.tasks()[0]
    for control in ("跳过这次的交周报", "周报不再重复", "周报改成每月1号"):
        history: list[tuple[str, str]] = []
        answer = await harness.ask(control)
        assert answer.action == "task_repeat", control
        history = [("user", control), ("assistant", answer.content)]
        undone = await harness.ask("撤销", history=history)
        assert undone.action == "undo"
        [task] = harness.tasks()
        assert (task.deadline_at, task.recurrence) == (before.deadline_at, before.recurrence), control


async def test_a_retried_skip_moves_once(harness: Harness) -> None:
    await _series(harness)
    first = await harness.ask("跳过这次的交周报", client_message_id="m-skip-1")
    again = await harness.ask("跳过这次的交周报", client_message_id="m-skip-1")
    assert first.visible == again.visible
    [task] = harness.tasks()
    assert task.deadline_at == local("2026-12-14 09:00")


async def test_not_a_series_changes_nothing(harness: Harness) -> None:
    await harness.converse("明天交电费")
    answer = await harness.ask("电费以后不用交了")
    assert "不是重复的任务，没有改动" in answer.visible
    [task] = harness.tasks()
    assert task.recurrence is None and task.deadline_at == local("2026-12-01 23:59:59")


async def test_an_unreadable_new_rule_is_said(harness: Harness) -> None:
    await _series(harness)
    answer = await harness.ask("周报改成每逢双数日")
    assert "「每逢双数日」我还不会按规律重复" in answer.visible
    [task] = harness.tasks()
    assert task.deadline_at == local("2026-12-07 09:00")


async def test_english(harness: Harness) -> None:
    await _series(harness, "remind me every Monday at 9am to send the weekly report")
    answer = await harness.ask("skip this week's weekly report")
    assert answer.action == "task_repeat"
    assert "next: Mon Dec 14, 09:00" in answer.visible, answer.visible
