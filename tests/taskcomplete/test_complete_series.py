"""Completing a repeating task by chat: the answer names the next date, undo takes back both the
completed copy and the move, a retry completes once, and past copies don't make the title ambiguous.

Fixed now: Monday 2026-11-30 10:00 Asia/Shanghai.
"""

from __future__ import annotations

from support.harness import Harness, local


async def test_the_answer_names_the_next_occurrence(harness: Harness) -> None:
    await harness.ask("每周一早上9点交周报")
    answer = await harness.ask("周报交了")
    assert answer.action == "task_complete"
    assert answer.visible.startswith("已完成：「交周报」（原定 12月7日 周一 09:00 截止）")
    assert "下一次：12月14日 周一 09:00（每周一 09:00）。" in answer.visible
    done = [t for t in harness.tasks() if t.is_completed]
    assert [t.deadline_at for t in done] == [local("2026-12-07 09:00")]


async def test_undo_takes_back_the_copy_and_the_move(harness: Harness) -> None:
    await harness.ask("每天晚上九点背单词")
    answers = await harness.converse("背单词做完了", "撤销")
    assert answers[1].action == "undo"
    [task] = harness.tasks()
    assert task.deadline_at == local("2026-11-30 21:00") and not task.is_completed


async def test_next_week_completion_is_not_ambiguous_with_past_copies(harness: Harness) -> None:
    await harness.ask("每周一早上9点交周报")
    await harness.ask("周报交了", client_message_id="c-week-1")
    answer = await harness.ask("周报交了", client_message_id="c-week-2")  # next week's, another message
    assert "下一次：12月21日 周一 09:00" in answer.visible, answer.visible
    assert sorted(t.deadline_at for t in harness.tasks() if t.is_completed) == [
        local("2026-12-07 09:00"),
        local("2026-12-14 09:00"),
    ]


async def test_a_retried_completion_moves_once(harness: Harness) -> None:
    await harness.ask("每周三下午四点浇花")
    first = await harness.ask("浇花完成了", client_message_id="c-rep-1")
    again = await harness.ask("浇花完成了", client_message_id="c-rep-1")
    assert "下一次：12月9日 周三 16:00" in first.visible
    assert "下一次：12月9日 周三 16:00" in again.visible
    series = [t for t in harness.tasks() if not t.is_completed]
    assert [t.deadline_at for t in series] == [local("2026-12-09 16:00")]
    assert len([t for t in harness.tasks() if t.is_completed]) == 1


async def test_english_completion(harness: Harness) -> None:
    await harness.ask("remind me every Friday at 5pm to file the timesheet")
    answer = await harness.ask("mark file the timesheet as done")
    assert answer.action == "task_complete", answer.visible
    assert answer.visible.startswith('Done: "file the timesheet" (was due Fri Dec 4, 17:00)')
    assert "Next: Fri Dec 11, 17:00 (every Friday at 17:00)." in answer.visible, answer.visible
