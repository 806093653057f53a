"""Concurrent copies of one attempt write once and answer alike, for every write action.

A copy is the same request sent again before the first has answered: a client's retry, a double
click, the same request reaching two replicas. The copies here run at once through the whole
pipeline (each write on its own worker thread and connection), on SQLite and, in CI, PostgreSQL.
"""

from __future__ import annotations

import asyncio
import itertools
from datetime import timedelta

from sqlmodel import select

from core.models import Task
from support.harness import NOW, Answer, Harness

COPIES = 20


async def copies(harness: Harness, message: str, history: list[tuple[str, str]], n: int = COPIES) -> list[Answer]:
    return list(await asyncio.gather(*(harness.ask(message, history=history) for _ in range(n))))


def tasks(harness: Harness) -> list[Task]:
    with harness.state.session() as session:
        return list(session.exec(select(Task)).all())


async def test_a_completion_sent_twenty_times_at_once_completes_once(harness: Harness) -> None:
    report = harness.add("交报告", 1, "2026-12-01 15:00")
    answers = await copies(harness, "交报告做完了", [])
    assert len(harness.changes("complete")) == 1
    assert {a.content for a in answers} == {answers[0].content}  # every copy: the same answer, record included
    assert answers[0].record("w1") == {"changes": [harness.changes("complete")[0].id]}
    assert harness.task(report).is_completed


async def test_a_correction_sent_twenty_times_at_once_applies_once(harness: Harness) -> None:
    noted = await harness.ask("帮我记一下下周三交季度报告")
    [task] = tasks(harness)
    assert task.priority_group == 2
    history = [("user", "帮我记一下下周三交季度报告"), ("assistant", noted.content)]
    answers = await copies(harness, "优先级调低", history)
    # One step lower (2 → 4), never two; the write log has one correction.
    assert harness.task(task.id or 0).priority_group == 4
    assert len(harness.changes("update")) == 1
    assert {a.content for a in answers} == {answers[0].content}
    assert answers[0].record("w1") == {"changes": [harness.changes("update")[0].id]}


async def test_two_copies_of_a_correction_a_double_click(harness: Harness) -> None:
    noted = await harness.ask("帮我记一下下周三交季度报告")
    history = [("user", "帮我记一下下周三交季度报告"), ("assistant", noted.content)]
    for _ in range(5):  # the race is narrow: a few rounds, each must apply once
        group_before = tasks(harness)[0].priority_group
        first, second = await copies(harness, "优先级调高", history, n=2)
        assert first.content == second.content
        history += [("user", "优先级调高"), ("assistant", first.content)]
        assert tasks(harness)[0].priority_group == {1: 1, 2: 1, 3: 1, 4: 2}[group_before]


async def test_an_undo_sent_twice_at_once_answers_the_same(harness: Harness) -> None:
    noted = await harness.ask("帮我记一下明天买牛奶")
    history = [("user", "帮我记一下明天买牛奶"), ("assistant", noted.content)]
    first, second = await copies(harness, "撤销", history, n=2)
    assert first.content == second.content == "已撤销：新建「买牛奶」（12月1日 周二 23:59 截止）"
    assert tasks(harness) == []


async def test_copies_of_a_note_either_side_of_a_window_boundary_write_one_task(harness: Harness) -> None:
    """10:00 starts a retry window of the old, clock-numbered keys: one copy just before, one just after."""
    moments = itertools.cycle([NOW - timedelta(milliseconds=5), NOW + timedelta(milliseconds=5)])
    harness.state.clock = lambda: next(moments)
    answers = await copies(harness, "帮我记一下明天下午三点交报告", [], n=2)
    assert len(tasks(harness)) == 1
    assert len(harness.changes("create")) == 1
    assert answers[0].record("w1") == answers[1].record("w1") is not None


async def test_a_retry_of_a_note_carries_its_record(harness: Harness) -> None:
    """The copy that lost the race must still carry the change ids, or "撤销" after it finds nothing."""
    answers = await copies(harness, "帮我记一下明天下午三点交报告", [], n=5)
    records = [a.record("w1") for a in answers]
    assert records[0] is not None and records.count(records[0]) == 5
