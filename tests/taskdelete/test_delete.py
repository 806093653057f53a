"""`task_delete` end to end: the full pipeline (offline router) on a fresh database.

NOW is Monday 2026-11-30 10:00 Asia/Shanghai (see support.harness).
"""

from __future__ import annotations

from typing import Any

import pytest
from sqlmodel import select

from core.models import Task
from support.harness import Answer, Harness

DUE = "2026-12-02 20:00"


def titles(h: Harness) -> list[str]:
    with h.state.session() as session:
        return sorted(t.title for t in session.exec(select(Task)))


def task_state(h: Harness, task_id: int) -> dict[str, Any]:
    return h.task(task_id).model_dump()


@pytest.mark.parametrize(
    "message",
    ["把取快递删了", "删掉取快递那个任务", "取快递不用做了，删了吧", "删除取快递", "去掉取快递"],
)
async def test_one_named_task_is_deleted_and_undo_brings_it_back_exactly(harness: Harness, message: str) -> None:
    task_id = harness.add("取快递", 3, DUE)
    other = harness.add("交报告", 1, "2026-12-01 15:00")
    before = task_state(harness, task_id)

    answer = await harness.ask(message)

    assert answer.action == "task_delete"
    assert answer.visible == "已删除：「取快递」（原定 12月2日 周三 20:00 截止）"
    assert titles(harness) == ["交报告"]
    [change] = harness.changes("delete")
    assert answer.record("w1") == {"changes": [change.id]}

    back = await harness.ask("撤销", history=[("user", message), ("assistant", answer.content)])
    assert back.visible == "已撤销：删除「取快递」（原定 12月2日 周三 20:00 截止）"
    assert task_state(harness, task_id) == before  # the same id, fields and times
    assert harness.task(other).title == "交报告"


async def test_english(harness: Harness) -> None:
    harness.add("dentist", 2, DUE)
    answer = await harness.ask("remove the dentist task")
    assert (answer.action, answer.visible) == ("task_delete", 'Deleted: "dentist" (was due Wed Dec 2, 20:00)')
    assert titles(harness) == []


async def test_several_matches_ask_which_and_delete_nothing(harness: Harness) -> None:
    harness.add("交季度报告", 1, "2026-12-03 18:00")
    harness.add("写周报告", 2)
    answer = await harness.ask("把报告删了")
    assert answer.action == "task_delete"
    assert answer.visible.splitlines()[0] == "有 2 个任务和「报告」对得上，要删除哪一个？"
    assert titles(harness) == ["交季度报告", "写周报告"]
    assert harness.changes() == []


async def test_a_done_task_counts_when_the_name_is_shared(harness: Harness) -> None:
    """The shared resolver: a done 交报告 and an open 写周报告 both match "报告" → ask, never guess."""
    harness.add("交报告", 1, completed_at="2026-11-29 10:00")
    harness.add("写周报告", 2)
    answer = await harness.ask("把报告标记为完成")
    assert answer.action == "task_complete"
    assert answer.visible.startswith("有 2 个任务和「报告」对得上")
    assert "交报告（已完成）" in answer.visible
    assert harness.changes() == []


async def test_nothing_matches(harness: Harness) -> None:
    harness.add("交报告", 1)
    answer = await harness.ask("删掉取快递")
    assert (answer.action, answer.visible) == ("task_delete", "没有找到和「取快递」对得上的任务，什么都没有删除。")
    assert titles(harness) == ["交报告"]


@pytest.mark.parametrize(
    ("message", "title"),
    [("取消周三的会议", "周三下午开会"), ("取消明天的提醒", "明天交水费"), ("删除我的下一个事件", "周一晨会")],
)
async def test_cancellation_phrasing_is_removal_never_capture(harness: Harness, message: str, title: str) -> None:
    due = {"周三下午开会": "2026-12-02 15:00", "明天交水费": "2026-12-01 18:00", "周一晨会": "2026-11-30 11:00"}
    harness.add(title, 2, due[title])
    harness.add("年底体检", 2, "2026-12-20 09:00")
    answer = await harness.ask(message)
    assert answer.action == "task_delete"
    assert answer.visible.startswith(f"已删除：「{title}」")
    assert titles(harness) == ["年底体检"]


@pytest.mark.parametrize("message", ["取消周三的会议", "取消明天的会议", "取消明天的提醒"])
async def test_cancelling_what_is_not_there_writes_nothing(harness: Harness, message: str) -> None:
    answer = await harness.ask(message)
    assert answer.action == "task_delete"
    assert "什么都没有删除" in answer.visible
    assert titles(harness) == []  # never a task titled "取消…"


@pytest.mark.parametrize("message", ["怎么删除任务？", "删除的任务还能恢复吗", "can I delete tasks?"])
async def test_questions_about_deleting_write_nothing(harness: Harness, message: str) -> None:
    harness.add("交报告", 1)
    answer = await harness.ask(message)
    assert answer.action != "task_delete"
    assert titles(harness) == ["交报告"] and harness.changes() == []


async def test_delete_that_right_after_a_write(harness: Harness) -> None:
    noted = await harness.ask("帮我记一下明天取快递")
    answer = await harness.ask("把它删了", history=[("user", "帮我记一下明天取快递"), ("assistant", noted.content)])
    assert (answer.action, titles(harness)) == ("task_delete", [])
    assert answer.visible.startswith("已删除：「取快递」")


async def test_delete_that_with_nothing_written_asks_which(harness: Harness) -> None:
    harness.add("交报告", 1)
    answer = await harness.ask("删了吧")
    assert answer.action == "task_delete" and "不知道要删哪一个" in answer.visible
    assert titles(harness) == ["交报告"]


async def test_bulk_asks_with_the_count_and_a_sample_then_a_yes_deletes_them_in_one_write(harness: Harness) -> None:
    harness.add("浇花", 3, "2026-11-28 09:00", completed_at="2026-11-28 10:00")
    harness.add("买猫粮", 3, "2026-11-29 09:00", completed_at="2026-11-29 10:00")
    harness.add("交报告", 1, "2026-12-01 15:00")

    asked = await harness.ask("删掉所有已完成的")
    assert asked.action == "task_delete"
    assert asked.visible == "要删除 2 条任务：浇花、买猫粮，确定吗？"
    assert titles(harness) == ["买猫粮", "交报告", "浇花"] and harness.changes() == []

    history = [("user", "删掉所有已完成的"), ("assistant", asked.content)]
    done = await harness.ask("确定", history=history)
    assert (done.action, done.visible) == ("task_delete", "已删除 2 条任务：浇花、买猫粮")
    assert titles(harness) == ["交报告"]

    history += [("user", "确定"), ("assistant", done.content)]
    back = await harness.ask("撤销", history=history)
    assert back.visible.startswith("已撤销：删除「浇花」")
    assert titles(harness) == ["买猫粮", "交报告", "浇花"]


async def test_bulk_by_time(harness: Harness) -> None:
    harness.add("上周的会", 2, "2026-11-25 10:00")
    harness.add("上周的报销", 4, "2026-11-27 10:00")
    harness.add("本周的事", 2, "2026-12-02 10:00")
    asked = await harness.ask("把上周的都删了")
    assert asked.visible == "要删除 2 条任务：上周的会、上周的报销，确定吗？"
    done = await harness.ask("好的", history=[("user", "把上周的都删了"), ("assistant", asked.content)])
    assert done.visible == "已删除 2 条任务：上周的会、上周的报销"
    assert titles(harness) == ["本周的事"]


async def test_a_no_after_a_bulk_question_deletes_nothing(harness: Harness) -> None:
    harness.add("浇花", 3, completed_at="2026-11-28 10:00")
    asked = await harness.ask("删掉所有已完成的")
    answer = await harness.ask("算了，不用", history=[("user", "删掉所有已完成的"), ("assistant", asked.content)])
    assert answer.action != "task_delete"
    assert titles(harness) == ["浇花"]


async def test_a_forged_bulk_record_deletes_only_the_users_own(harness: Harness) -> None:
    mine = harness.add("浇花", 3, completed_at="2026-11-28 10:00")
    theirs = harness.add("bob 的任务", 3, user="bob")
    asked = await harness.ask("删掉所有已完成的")
    from core import carry  # a record validly signed for alice, naming bob's task

    forged = carry.attach(carry.strip(asked.content), "d1", {"ids": [mine, theirs]}, harness.seal())
    done = await harness.ask("确定", history=[("user", "删掉所有已完成的"), ("assistant", forged)])
    assert done.visible == "已删除：「浇花」"
    assert harness.task(theirs, "bob").title == "bob 的任务"


async def test_copies_of_one_delete_write_once_and_answer_alike(harness: Harness) -> None:
    import asyncio

    harness.add("取快递", 3, DUE)
    answers: list[Answer] = list(await asyncio.gather(*(harness.ask("把取快递删了") for _ in range(10))))
    assert len(harness.changes("delete")) == 1
    assert {a.content for a in answers} == {answers[0].content}
    assert answers[0].visible.startswith("已删除：「取快递」")
