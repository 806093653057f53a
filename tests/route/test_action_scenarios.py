"""Write-action scenarios through the full pipeline: completing, reopening, correcting, undoing and
the near-duplicate question, as whole conversations, snapshot-tested.

Fixed now: Monday 2026-11-30 10:00 Asia/Shanghai (tomorrow is Tue 12-01, 下周三 is 12-09). Every
turn after the first gets the conversation so far as history, with each assistant answer's full
``content`` (it carries the invisible write record that corrections and undo read). Each scenario
snapshots every turn (``Answer.snapshot()``: the visible answer, the carried record, the stage
stream) and checks explicitly what the database holds afterwards.

Update snapshots deliberately: `.venv/bin/pytest tests/route/test_action_scenarios.py
--snapshot-update`, then read every changed answer against the conversation and the fixed now.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sqlmodel import col, select

from core.models import Task
from support.harness import Answer, Harness, local


@dataclass
class Conversation:
    """One chat: each turn is asked with everything said before it as history."""

    h: Harness
    history: list[tuple[str, str]] = field(default_factory=list)
    turns: dict[str, dict[str, Any]] = field(default_factory=dict)

    async def say(self, message: str) -> Answer:
        answer = await self.h.ask(message, history=list(self.history))
        self.history += [("user", message), ("assistant", answer.content)]
        self.turns[f"{len(self.turns) + 1}. {message}"] = answer.snapshot()
        return answer


def tasks(h: Harness) -> list[Task]:
    with h.state.session() as session:
        stmt = select(Task).where(col(Task.user_id) == h.user()).order_by(col(Task.id))
        return list(session.exec(stmt).all())


def task(h: Harness, task_id: int) -> Task:
    [found] = [t for t in tasks(h) if t.id == task_id]
    return found


def open_titles(h: Harness) -> list[str]:
    return [t.title for t in tasks(h) if not t.is_completed]


def wrote(answer: Answer) -> bool:
    """Whether the answer carries a write record (every answer that wrote does)."""
    return answer.record("w1") is not None


# --- task_complete -------------------------------------------------------------------------------


async def test_complete_one_match(harness: Harness, snapshot: Any) -> None:
    report = harness.add("交报告", 1, "2026-12-01 15:00")
    milk = harness.add("买牛奶", 3)
    chat = Conversation(harness)
    answer = await chat.say("交报告做完了")
    assert chat.turns == snapshot

    assert answer.action == "task_complete"
    assert task(harness, report).is_completed is True
    assert task(harness, milk).is_completed is False
    assert "交报告" in answer.visible
    assert wrote(answer)


async def test_complete_ambiguous_asks_which(harness: Harness, snapshot: Any) -> None:
    harness.add("交季度报告", 1, "2026-12-01 15:00")
    harness.add("写周报告", 2, "2026-12-04 18:00")
    chat = Conversation(harness)
    answer = await chat.say("报告做完了")
    assert chat.turns == snapshot

    assert answer.action == "task_complete"
    assert open_titles(harness) == ["交季度报告", "写周报告"]  # nothing written
    assert "？" in answer.visible
    assert "交季度报告" in answer.visible and "写周报告" in answer.visible
    assert not wrote(answer)


async def test_complete_no_match(harness: Harness, snapshot: Any) -> None:
    harness.add("买牛奶", 3)
    chat = Conversation(harness)
    answer = await chat.say("交报告做完了")
    assert chat.turns == snapshot

    assert answer.action == "task_complete"
    assert open_titles(harness) == ["买牛奶"]
    assert [t.is_completed for t in tasks(harness)] == [False]
    assert not wrote(answer)


async def test_reopen(harness: Harness, snapshot: Any) -> None:
    report = harness.add("交报告", 1, "2026-12-01 15:00", completed_at="2026-11-30 09:00")
    chat = Conversation(harness)
    answer = await chat.say("交报告还没做完")
    assert chat.turns == snapshot

    assert answer.action == "task_complete"
    assert task(harness, report).is_completed is False
    assert task(harness, report).completed_at is None


async def test_done_question_does_not_write(harness: Harness, snapshot: Any) -> None:
    report = harness.add("交报告", 1, "2026-12-01 15:00")
    chat = Conversation(harness)
    answer = await chat.say("交报告做完了吗")
    assert chat.turns == snapshot

    assert answer.action == "task_query"
    assert task(harness, report).is_completed is False
    assert not wrote(answer)
    assert answer.visible == "还没有，「交报告」12月1日 周二 15:00 截止。"


async def test_done_question_about_a_finished_task(harness: Harness, snapshot: Any) -> None:
    report = harness.add("交报告", 1, "2026-12-01 15:00", completed_at="2026-11-30 09:00")
    chat = Conversation(harness)
    answer = await chat.say("交报告做完了吗")
    assert chat.turns == snapshot

    assert answer.action == "task_query"
    assert task(harness, report).completed_at == local("2026-11-30 09:00")  # untouched
    assert not wrote(answer)
    assert answer.visible == "做完了：「交报告」11月30日 周一 09:00 完成。"


# --- undo after each kind of write ---------------------------------------------------------------


async def test_undo_single_note(harness: Harness, snapshot: Any) -> None:
    chat = Conversation(harness)
    await chat.say("帮我记一下明天下午三点交报告")
    assert open_titles(harness) == ["交报告"]
    undone = await chat.say("撤销")
    assert chat.turns == snapshot

    assert undone.action == "undo"
    assert tasks(harness) == []


async def test_undo_multi_capture(harness: Harness, snapshot: Any) -> None:
    chat = Conversation(harness)
    await chat.say("明天买牛奶，周五交报告")
    assert sorted(open_titles(harness)) == sorted(["买牛奶", "交报告"])
    undone = await chat.say("撤销")
    assert chat.turns == snapshot

    assert undone.action == "undo"
    assert tasks(harness) == []  # all of the note's tasks


async def test_undo_completion(harness: Harness, snapshot: Any) -> None:
    report = harness.add("交报告", 1, "2026-12-01 15:00")
    chat = Conversation(harness)
    await chat.say("交报告做完了")
    assert task(harness, report).is_completed is True
    undone = await chat.say("撤销")
    assert chat.turns == snapshot

    assert undone.action == "undo"
    assert task(harness, report).is_completed is False
    assert task(harness, report).completed_at is None


async def test_undo_reopen(harness: Harness, snapshot: Any) -> None:
    report = harness.add("交报告", 1, "2026-12-01 15:00", completed_at="2026-11-30 09:00")
    chat = Conversation(harness)
    await chat.say("交报告还没做完")
    assert task(harness, report).is_completed is False
    undone = await chat.say("撤销")
    assert chat.turns == snapshot

    assert undone.action == "undo"
    assert task(harness, report).is_completed is True
    assert task(harness, report).completed_at == local("2026-11-30 09:00")


async def test_undo_correction(harness: Harness, snapshot: Any) -> None:
    chat = Conversation(harness)
    await chat.say("帮我记一下周三下午六点交报告")
    [report] = tasks(harness)
    assert report.deadline_at == local("2026-12-02 18:00")
    await chat.say("不对，是下周三")
    assert tasks(harness)[0].deadline_at == local("2026-12-09 18:00")
    undone = await chat.say("撤销")
    assert chat.turns == snapshot

    assert undone.action == "undo"
    [after] = tasks(harness)
    assert after.id == report.id  # the correction is reverted, the note stays
    assert after.deadline_at == local("2026-12-02 18:00")
    assert after.priority_group == report.priority_group
    assert after.urgency_threshold_at == report.urgency_threshold_at


async def test_undo_nothing(harness: Harness, snapshot: Any) -> None:
    harness.add("交报告", 1, "2026-12-01 15:00")
    chat = Conversation(harness)
    answer = await chat.say("撤销")
    assert chat.turns == snapshot

    assert answer.action == "undo"
    assert open_titles(harness) == ["交报告"]


async def test_undo_twice(harness: Harness, snapshot: Any) -> None:
    chat = Conversation(harness)
    await chat.say("帮我记一下明天下午三点交报告")
    await chat.say("撤销")
    assert tasks(harness) == []
    harness.add("买牛奶", 3)  # written outside this conversation: the second undo must not touch it
    again = await chat.say("撤销")
    assert chat.turns == snapshot

    assert again.action == "undo"
    assert open_titles(harness) == ["买牛奶"]


# --- task_update ---------------------------------------------------------------------------------


async def test_update_deadline_after_note(harness: Harness, snapshot: Any) -> None:
    chat = Conversation(harness)
    await chat.say("帮我记一下周三下午六点交报告")
    answer = await chat.say("不对，是下周三")
    assert chat.turns == snapshot

    assert answer.action == "task_update"
    [report] = tasks(harness)
    assert report.title == "交报告"
    assert report.deadline_at == local("2026-12-09 18:00")
    assert report.urgency_threshold_at == local("2026-12-08 18:00")  # group 2: moved along, 24 h before
    assert "12月2日 周三 18:00 → 12月9日 周三 18:00" in answer.visible
    assert wrote(answer)


async def test_update_priority_up(harness: Harness, snapshot: Any) -> None:
    chat = Conversation(harness)
    await chat.say("帮我记一下下周三交报告")
    [before] = tasks(harness)
    assert before.priority_group == 2
    answer = await chat.say("优先级调高")
    assert chat.turns == snapshot

    assert answer.action == "task_update"
    [after] = tasks(harness)
    assert after.priority_group == 1
    assert after.deadline_at == before.deadline_at
    assert wrote(answer)


async def test_update_title(harness: Harness, snapshot: Any) -> None:
    chat = Conversation(harness)
    await chat.say("帮我记一下明天下午三点交报告")
    answer = await chat.say("标题改成交季度报告")
    assert chat.turns == snapshot

    assert answer.action == "task_update"
    [after] = tasks(harness)
    assert after.title == "交季度报告"
    assert after.deadline_at == local("2026-12-01 15:00")
    assert wrote(answer)


async def test_update_after_multi_capture_asks_which(harness: Harness, snapshot: Any) -> None:
    chat = Conversation(harness)
    await chat.say("明天买牛奶，周五交报告")
    before = [(t.title, t.deadline_at, t.priority_group) for t in tasks(harness)]
    assert len(before) == 2
    answer = await chat.say("不对，是下周三")
    assert chat.turns == snapshot

    assert answer.action == "task_update"
    assert [(t.title, t.deadline_at, t.priority_group) for t in tasks(harness)] == before
    assert "？" in answer.visible
    assert not wrote(answer)


async def test_update_nothing_to_correct(harness: Harness, snapshot: Any) -> None:
    harness.add("交报告", 2, "2026-12-02 18:00")
    # The last answer reads like a write but carries no record (a client that strips it).
    chat = Conversation(harness, [("user", "帮我记一下交报告"), ("assistant", "好，已记下：交报告")])
    answer = await chat.say("不对，是下周三")
    assert chat.turns == snapshot

    assert answer.action == "task_update"
    [report] = tasks(harness)
    assert report.deadline_at == local("2026-12-02 18:00")
    assert not wrote(answer)
    assert "没有可改的" in answer.visible


# --- near-duplicate ------------------------------------------------------------------------------


async def test_near_duplicate_warning_then_yes(harness: Harness, snapshot: Any) -> None:
    harness.add("交电费", 1, "2026-12-01 18:00")
    chat = Conversation(harness)
    warning = await chat.say("帮我记一下明天交电费")
    assert len(tasks(harness)) == 1  # nothing written until the user says so
    confirmed = await chat.say("要")
    assert chat.turns == snapshot

    assert warning.action == "quick_note_create"
    assert "已有「交电费」（明天 18:00 到期），还要再记一条吗？" in warning.visible
    assert not wrote(warning)
    assert confirmed.action == "quick_note_create"
    assert wrote(confirmed)
    assert open_titles(harness) == ["交电费", "交电费"]
    assert [t.deadline_at for t in tasks(harness)] == [local("2026-12-01 18:00"), local("2026-12-01 23:59:59")]
