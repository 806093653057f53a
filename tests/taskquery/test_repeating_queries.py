"""Queries see series: "我有哪些重复的任务" lists them with their rules, and a window after a series'
open occurrence lists the series at its first occurrence there.

Fixed now: Monday 2026-11-30 10:00 Asia/Shanghai.
"""

from __future__ import annotations

from support.harness import Harness


async def _three(harness: Harness) -> None:
    for note in ("每周四晚上八点去上陶艺课", "每个工作日早上八点半查看邮件", "后天下午取护照"):
        answer = await harness.ask(note)
        assert answer.action == "quick_note_create", answer.visible


async def test_repeating_tasks_are_listed_with_their_rules(harness: Harness) -> None:
    await _three(harness)
    for question in ("我有哪些重复的任务", "列出我的周期性任务", "show my recurring tasks", "我每周要做的事有哪些"):
        answer = await harness.ask(question)
        assert answer.action == "task_query", question
        assert "取护照" not in answer.visible, question
        assert "共 2 条" in answer.visible or "2 tasks" in answer.visible, answer.visible
    zh = await harness.ask("我有哪些重复的任务")
    assert "1. 查看邮件（重要且紧急；截止 12月1日 周二 08:30；每个工作日 08:30）" in zh.visible, zh.visible
    assert "2. 去上陶艺课（重要不紧急；截止 12月3日 周四 20:00；每周四 20:00）" in zh.visible, zh.visible


async def test_next_week_lists_a_weekly_series_while_this_weeks_is_open(harness: Harness) -> None:
    await _three(harness)
    answer = await harness.ask("下周要做什么")
    assert "去上陶艺课（" in answer.visible and "截止 12月10日 周四 20:00" in answer.visible, answer.visible
    assert "查看邮件（" in answer.visible and "截止 12月7日 周一 08:30" in answer.visible, answer.visible
    assert "取护照" not in answer.visible
