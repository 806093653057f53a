"""`task_update` end to end: the full pipeline (offline router) on a fresh database.

NOW is Monday 2026-11-30 10:00 Asia/Shanghai (see support.harness).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlmodel import select

from app.explain import explain
from core.llm import ModelHub
from core.models import Task
from core.store import get_task
from core.turn import TurnConfig
from support.harness import Answer, Harness, local, make_harness


@pytest.fixture
def h(database_url: str) -> Iterator[Harness]:
    harness = make_harness(database_url)  # task_update is registered in app/actions.py
    yield harness
    harness.state.engine.dispose()


async def note(h: Harness, message: str, user: str = "alice") -> tuple[list[tuple[str, str]], Answer]:
    answer = await h.ask(message, user=user)
    assert answer.action == "quick_note_create", answer.content
    return [("user", message), ("assistant", answer.content)], answer


def created_id(answer: Answer, h: Harness) -> int:
    ids = answer.record("w1")
    assert ids is not None
    [row] = [r for r in h.changes() if r.id == ids["changes"][0]]
    return int(row.task_id)


async def test_a_new_deadline_moves_the_threshold_too(h: Harness) -> None:
    history, noted = await note(h, "帮我记一下周三下午6点交报告")
    report = created_id(noted, h)
    assert h.task(report).urgency_threshold_at == local("2026-12-01 18:00")

    answer = await h.ask("不对，是下周三", history=history)

    assert answer.action == "task_update"
    assert answer.visible == "已改好：「交报告」截止 12月2日 周三 18:00 → 12月9日 周三 18:00"
    updated = h.task(report)
    assert updated.deadline_at == local("2026-12-09 18:00")
    assert updated.urgency_threshold_at == local("2026-12-08 18:00")
    [row] = h.changes("update")
    assert row.task_id == report
    assert answer.record("w1") == {"changes": [row.id]}
    assert "update:end" in answer.stages


@pytest.mark.parametrize("message", ["不对，改成下周三", "时间改成下周三下午六点"])
async def test_other_deadline_phrasings(h: Harness, message: str) -> None:
    history, noted = await note(h, "帮我记一下周三下午6点交报告")
    answer = await h.ask(message, history=history)
    assert answer.action == "task_update"
    assert h.task(created_id(noted, h)).deadline_at == local("2026-12-09 18:00")


async def test_priority_up(h: Harness) -> None:
    history, noted = await note(h, "帮我记一下周五交报告")
    report = created_id(noted, h)
    assert h.task(report).priority_group == 2

    answer = await h.ask("优先级调高", history=history)

    assert answer.action == "task_update"
    assert answer.visible == "已改好：「交报告」优先级 重要不紧急 → 重要且紧急"
    assert h.task(report).priority_group == 1


async def test_title(h: Harness) -> None:
    history, noted = await note(h, "帮我记一下周五交报告")
    answer = await h.ask("标题改成交季度报告", history=history)
    assert answer.action == "task_update"
    assert answer.visible == "已改好：「交报告」标题 →「交季度报告」"
    assert h.task(created_id(noted, h)).title == "交季度报告"


async def test_english(h: Harness) -> None:
    history, noted = await note(h, "remind me to send the report on Wednesday at 6pm")
    report = created_id(noted, h)

    answer = await h.ask("no, make it next Wednesday", history=history)

    assert answer.action == "task_update"
    assert answer.visible.startswith('Updated: "send the report" due Wed Dec 2, 18:00 → Wed Dec 9, 18:00')
    assert h.task(report).deadline_at == local("2026-12-09 18:00")


async def test_a_named_task_without_a_record(h: Harness) -> None:
    report = h.add("交报告", 2, "2026-12-01 18:00")
    milk = h.add("买牛奶", 3)

    answer = await h.ask("把交报告改到周五")

    assert answer.action == "task_update"
    assert h.task(report).deadline_at == local("2026-12-04 18:00")
    assert h.task(milk).deadline_at is None


async def test_nothing_to_correct_writes_nothing(h: Harness) -> None:
    # The answer reads like a write, but carries no record (a client that strips it).
    h.add("交报告", 2, "2026-12-01 18:00")
    history = [("user", "帮我记一下交报告"), ("assistant", "好，已记下：交报告")]

    answer = await h.ask("不对，是下周三", history=history)

    assert answer.action == "task_update"
    assert "没有可改的" in answer.visible
    assert h.changes("update") == []


async def test_no_such_named_task(h: Harness) -> None:
    answer = await h.ask("把交报告改到周五")
    assert (answer.action, answer.visible) == ("task_update", "没有找到标题含「交报告」的未完成任务，什么都没有改动。")


async def test_a_multi_capture_asks_which(h: Harness) -> None:
    history, noted = await note(h, "明天买牛奶，周五交报告")
    assert len(noted.record("w1")["changes"]) == 2  # type: ignore[index]

    answer = await h.ask("不对，改成下周三", history=history)

    assert answer.action == "task_update"
    assert answer.visible.startswith("要改哪一条？")
    assert "买牛奶" in answer.visible and "交报告" in answer.visible
    assert h.changes("update") == []

    named = await h.ask("把交报告改到下周三", history=history)  # naming one of them picks it
    assert named.action == "task_update"
    [row] = h.changes("update")
    assert h.task(row.task_id).title == "交报告"


async def test_the_task_is_gone(h: Harness) -> None:
    history, noted = await note(h, "帮我记一下周五交报告")
    with h.state.session() as s:
        s.delete(get_task(s, h.user(), created_id(noted, h)))
        s.commit()
    answer = await h.ask("不对，是下周三", history=history)
    assert answer.action == "task_update"
    assert "已经不在了" in answer.visible


async def test_a_retry_does_not_apply_twice(h: Harness) -> None:
    history, noted = await note(h, "帮我记一下周五交报告")
    report = created_id(noted, h)

    first = await h.ask("优先级调高", history=history)
    again = await h.ask("优先级调高", history=history)  # the same request again

    assert again.content == first.content
    assert h.task(report).priority_group == 1  # 2 → 1 once, not 1 → 1 and a second change
    assert len(h.changes("update")) == 1


async def test_undo_after_an_update_restores(h: Harness) -> None:
    history, noted = await note(h, "帮我记一下周三下午6点交报告")
    report = created_id(noted, h)
    changed = await h.ask("不对，是下周三", history=history)
    history = [*history, ("user", "不对，是下周三"), ("assistant", changed.content)]

    undone = await h.ask("撤销", history=history)

    assert undone.action == "undo"
    restored = h.task(report)  # the task itself stays: only the update is undone
    assert restored.deadline_at == local("2026-12-02 18:00")
    assert restored.urgency_threshold_at == local("2026-12-01 18:00")


async def test_another_users_task_is_untouched(h: Harness) -> None:
    history, noted = await note(h, "帮我记一下周五交报告")
    report = created_id(noted, h)
    bobs = h.add("交报告", 2, "2026-12-04 18:00", user="bob")
    before = h.task(report).deadline_at

    forged = await h.ask("不对，是下周三", history=history, user="mallory")  # alice's record, sent by mallory
    named = await h.ask("把交报告改到下周三", user="mallory")

    assert forged.action == named.action == "task_update"
    assert h.task(report).deadline_at == before
    assert h.task(bobs, user="bob").deadline_at == local("2026-12-04 18:00")
    assert h.changes("update") == []


async def test_explain_proposes_without_a_database(h: Harness) -> None:
    out = await explain(
        h.state.pipeline, ModelHub(), "把交报告的标题改成交季度报告", now=h.now, tz="Asia/Shanghai", config=TurnConfig()
    )
    assert out == {"action": "task_update", "update": {"fields": {"title": "交季度报告"}, "words": "交报告"}}
    out = await explain(
        h.state.pipeline, ModelHub(), "把交报告改到周五", now=h.now, tz="Asia/Shanghai", config=TurnConfig()
    )
    assert out["update"]["fields"]["time_text"] == "周五"


@pytest.mark.parametrize("message", ["改成明天下午", "不对，是下周三"])
async def test_a_correction_with_nothing_before_writes_nothing(h: Harness, message: str) -> None:
    """Once "改成明天下午" became a note titled "改成"; now it is a correction with nothing to correct."""
    answer = await h.ask(message)
    assert answer.action == "task_update"
    assert "没有可改的" in answer.visible
    assert h.changes() == []
    with h.state.session() as session:
        assert session.exec(select(Task)).all() == []
