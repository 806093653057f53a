"""Several tasks in one message, end to end (router → split → each part → one transaction).

Runs on the backend the `database_url` fixture picks (SQLite, or PostgreSQL with
SUIKOU_TEST_BACKEND=postgresql, as CI does). Fixed now: Monday 2026-11-30 10:00 Asia/Shanghai.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlmodel import col, select

from app.actions import build_registry
from app.explain import explain
from app.turns import make_job
from app.wire import ChatRequest
from core import changes
from core.llm import ModelHub, offline_model
from core.models import Task, TaskChange
from core.turn import ChatText, TurnConfig
from quicknote.draft import NoteDraft
from route.pipeline import Pipeline, TurnOutcome
from support.harness import Harness, local, make_harness

MILK_AND_REPORT = "明天买牛奶，周五交报告"
LISTED = "1. 买牛奶（重要且紧急；截止 12月1日 周二 23:59）\n2. 交报告（重要不紧急；截止 12月4日 周五 23:59）"


async def run_turn(h: Harness, message: str, history: Sequence[tuple[str, str]] = ()) -> TurnOutcome:
    """One turn through the pipeline, keeping the action's structured result (Answer.data)."""
    messages = [ChatText(role, text) for role, text in history] + [ChatText("user", message)]
    request = ChatRequest(model="suikou", messages=[{"role": m.role, "content": m.text} for m in messages])
    job = make_job(h.state, request, messages, user_id=h.user(), tz="Asia/Shanghai", client_message_id=None)
    return await job.run()


def stored(h: Harness) -> list[Task]:
    with h.state.session() as session:
        stmt = select(Task).where(col(Task.user_id) == h.user()).order_by(col(Task.id))
        return list(session.exec(stmt).all())


def summary(tasks: Sequence[Task]) -> list[tuple[str, int, Any, Any]]:
    return [(t.title, t.priority_group, t.deadline_at, t.urgency_threshold_at) for t in tasks]


async def test_two_tasks_with_their_own_times(harness: Harness, snapshot: Any) -> None:
    answer = await harness.ask(MILK_AND_REPORT)
    assert answer.snapshot() == snapshot
    assert answer.action == "quick_note_create"
    assert answer.visible == "好，已记下 2 条：\n" + LISTED
    tasks = stored(harness)
    assert summary(tasks) == [
        ("买牛奶", 1, local("2026-12-01 23:59:59"), None),
        ("交报告", 2, local("2026-12-04 23:59:59"), local("2026-12-03 23:59:59")),
    ]
    # One key per part of this attempt: "<write key>#1", "#2".
    keys = [t.source_key or "" for t in tasks]
    assert keys[0].endswith("#1") and keys[1].endswith("#2")
    assert keys[0][:-2] == keys[1][:-2]


async def test_answer_data_lists_every_task(harness: Harness) -> None:
    outcome = await run_turn(harness, MILK_AND_REPORT)
    assert outcome.data["created"] is True
    assert [t["title"] for t in outcome.data["tasks"]] == ["买牛奶", "交报告"]
    assert [t["id"] for t in outcome.data["tasks"]] == [t.id for t in stored(harness)]


async def test_a_retry_creates_nothing_and_answers_the_same_list(harness: Harness) -> None:
    first = await harness.ask(MILK_AND_REPORT)
    again = await harness.ask(MILK_AND_REPORT)
    assert again.visible == "这条消息刚才已经记下了，没有重复创建（2 条）：\n" + LISTED
    assert len(stored(harness)) == 2
    assert "persist:info" in again.stages
    assert not any(s.startswith(("extract", "persist:end")) for s in again.stages)
    # The retry carries the same write record, so "撤销" after a regenerate still finds the capture.
    assert again.record("w1") == first.record("w1")
    outcome = await run_turn(harness, MILK_AND_REPORT)
    assert outcome.data["created"] is False
    assert len(outcome.data["tasks"]) == 2


async def test_the_capture_is_logged_as_one_write(harness: Harness) -> None:
    answer = await harness.ask("帮我记：明天上午开会；下午三点给张总回电话")
    record = answer.record(changes.CARRY_KIND)
    assert record is not None
    tasks = stored(harness)
    with harness.state.session() as session:
        logged = session.exec(select(TaskChange).order_by(col(TaskChange.id))).all()
    assert record["changes"] == [c.id for c in logged]
    assert [(c.kind, c.task_id) for c in logged] == [("create", t.id) for t in tasks]
    assert summary(tasks) == [
        ("开会", 1, local("2026-12-01 11:59:59"), None),
        ("给张总回电话", 1, local("2026-12-01 15:00"), None),  # the day of the part before it
    ]


async def test_three_parts_from_a_list(harness: Harness) -> None:
    answer = await harness.ask("记一下：买菜、取快递和交水费")
    assert [t.title for t in stored(harness)] == ["买菜", "取快递", "交水费"]
    assert answer.visible.startswith("好，已记下 3 条：\n1. 买菜（重要不紧急）\n2. 取快递（重要不紧急）\n3. 交水费")


async def test_english(harness: Harness, snapshot: Any) -> None:
    answer = await harness.ask("remind me to buy milk tomorrow and send the report on Friday")
    assert answer.snapshot() == snapshot
    assert answer.visible.startswith("OK, noted 2 tasks:\n1. buy milk (")
    assert summary(stored(harness)) == [
        ("buy milk", 1, local("2026-12-01 23:59:59"), None),
        ("send the report", 2, local("2026-12-04 23:59:59"), local("2026-12-03 23:59:59")),
    ]


async def test_one_task_with_two_objects_stays_one(harness: Harness) -> None:
    answer = await harness.ask("帮我记一下明天买牛奶和面包")
    assert answer.visible == "好，已记下：买牛奶和面包（重要且紧急；截止 12月1日 周二 23:59）"
    assert len(stored(harness)) == 1


async def test_a_part_that_needs_a_question_writes_nothing(harness: Harness) -> None:
    answer = await harness.ask("帮我记一下明天买牛奶，2月30日交报告")
    assert "「2月30日」具体是什么时候？" in answer.visible
    assert "clarify:info" in answer.stages
    assert stored(harness) == []


async def test_undo_takes_back_the_whole_capture(harness: Harness) -> None:
    """The capture's w1 record names every task: undoing it removes them all."""
    answer = await harness.ask(MILK_AND_REPORT)
    ids = answer.record(changes.CARRY_KIND)
    assert ids is not None
    with harness.state.session() as session:
        undone = changes.undo(session, user_id=harness.user(), change_ids=ids["changes"], now=harness.now)
        session.commit()
    assert [c.effect for c in undone.changes] == ["deleted", "deleted"]
    assert stored(harness) == []


async def test_explain_lists_every_part() -> None:
    now = datetime.fromisoformat("2026-11-30T10:00:00+08:00")
    out = await explain(
        Pipeline(build_registry()), ModelHub(), MILK_AND_REPORT, now=now, tz="Asia/Shanghai", config=TurnConfig()
    )
    assert out["action"] == "quick_note_create"
    assert [n["title"] for n in out["notes"]] == ["买牛奶", "交报告"]
    assert out["note"] == out["notes"][0]
    assert out["notes"][1]["deadline_at"] == "2026-12-04T23:59:59+08:00"


async def test_a_model_title_must_come_from_its_own_part(database_url: str) -> None:
    """The model reads every part as "买牛奶 明天": the second part's words say otherwise, and win."""
    draft = NoteDraft(title="买牛奶", time_text="明天", priority_group=2, priority_reason="模型")
    h = make_harness(database_url, hub=ModelHub(injected={"extract": offline_model(lambda: draft, name="same")}))
    try:
        answer = await h.ask(MILK_AND_REPORT)
        assert [(t.title, t.deadline_at) for t in stored(h)] == [
            ("买牛奶", local("2026-12-01 23:59:59")),
            ("交报告", local("2026-12-04 23:59:59")),
        ]
        assert answer.requests == 2  # one extraction per part
    finally:
        h.state.engine.dispose()


async def test_saying_undo_takes_back_the_whole_capture(harness: Harness) -> None:
    answer = await harness.ask(MILK_AND_REPORT)
    undone = await harness.ask("撤销", history=[("user", MILK_AND_REPORT), ("assistant", answer.content)])
    assert undone.action == "undo"
    assert stored(harness) == []
