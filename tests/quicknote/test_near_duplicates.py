"""Near-duplicate notes: ask before writing what an open task already says; "要" writes it.

Fixed now: Monday 2026-11-30 10:00 Asia/Shanghai. Runs on the backend `database_url` picks.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any

import pytest
from sqlmodel import col, select

from core.models import Task
from core.turn import HistoryTurn
from quicknote.duplicates import close_deadlines, similar_titles
from quicknote.offline import offline_confirm_signal
from quicknote.pending import is_no, is_yes
from support.harness import Harness, local, make_harness

WARNING = "已有「交电费」（明天 18:00 到期），还要再记一条吗？"
NOTE = "帮我记一下明天交电费"


@pytest.fixture
def wired(database_url: str) -> Iterator[Harness]:
    """A service whose registry reads the confirmation signal, as app/actions.py is to wire it."""
    h = make_harness(database_url)
    registry = h.state.pipeline.registry
    action = registry["quick_note_create"]
    registry._actions["quick_note_create"] = dataclasses.replace(action, offline=offline_confirm_signal)
    yield h
    h.state.engine.dispose()


def open_titles(h: Harness) -> list[str]:
    with h.state.session() as session:
        stmt = select(Task).where(col(Task.user_id) == h.user()).order_by(col(Task.id))
        return [t.title for t in session.exec(stmt)]


# --- what counts as near-identical -------------------------------------------------------------


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        ("交电费", "交电费", True),
        ("交电费", "交电费。", True),  # punctuation
        ("交电费", "去交电费", True),  # a leading 去
        ("交电费", "交下电费", True),  # contained (in order), one character more
        ("交电费", "交一下电费吧", False),  # contained, three characters more
        ("给张总回电话", "给张总回个电话", True),
        ("交报告", "交季度报告", True),  # contained, two characters more
        ("交报告", "交年度述职报告", False),  # contained, too much more
        ("整理季度财务报表", "整理季度财务报告", True),  # bigram overlap 12/14 = 0.86
        ("整理财务报表", "整理财务报告", True),  # 4 of 5 bigrams shared: exactly 0.8
        ("写周报", "写月报", False),
        ("给客户发季度报价单", "给客户发季度报价表", True),  # bigram overlap 0.875
        ("Send the report", "send the report!", True),
        ("buy milk", "buy bread", False),
        ("交电费", "交水费", False),
    ],
)
def test_similar_titles(a: str, b: str, same: bool) -> None:
    assert similar_titles(a, b) is same
    assert similar_titles(b, a) is same


def test_close_deadlines() -> None:
    assert close_deadlines(None, None)
    assert not close_deadlines(None, local("2026-12-01 18:00"))
    assert close_deadlines(local("2026-12-01 18:00"), local("2026-12-02 18:00"))
    assert not close_deadlines(local("2026-12-01 18:00"), local("2026-12-02 18:01"))


@pytest.mark.parametrize("text", ["要", "要的", "再记一条", "是的，再记一条", "好，记吧", "yes, add it", "Yes", "sure"])
def test_yes(text: str) -> None:
    assert is_yes(text)


@pytest.mark.parametrize("text", ["不要", "不用了", "算了", "要不要", "no", "明天交电费", "要交电费"])
def test_not_yes(text: str) -> None:
    assert not is_yes(text)


def test_confirm_signal_needs_the_warning_just_before() -> None:
    warned = [HistoryTurn("user", NOTE), HistoryTurn("assistant", WARNING)]
    assert offline_confirm_signal("要", warned) is not None
    assert offline_confirm_signal("yes, add it", [HistoryTurn("assistant", 'You already have "x". Add it anyway?')])
    declined = offline_confirm_signal("不要", warned)
    assert declined is not None and "不再记" in declined.reason
    assert offline_confirm_signal("不要", [HistoryTurn("assistant", "好，已记下：交电费")]) is None
    assert offline_confirm_signal("要", [HistoryTurn("assistant", "好，已记下：交电费")]) is None
    assert offline_confirm_signal("要", []) is None


@pytest.mark.parametrize("text", ["不要", "不用了", "算了", "算了吧", "先不用", "no", "no thanks", "never mind"])
def test_no(text: str) -> None:
    assert is_no(text) and not is_yes(text)


@pytest.mark.parametrize("text", ["要", "不要交电费", "算了，明天再说交电费的事", "not now, remind me tomorrow"])
def test_not_no(text: str) -> None:
    assert not is_no(text)


# --- end to end --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("no", "said"), [("算了", "没有再记"), ("不用了", "没有再记"), ("no thanks", "nothing was added")]
)
async def test_declining_the_warning_adds_nothing_and_says_so(harness: Harness, no: str, said: str) -> None:
    harness.add("交电费", 2, "2026-12-01 18:00")
    warning = await harness.ask(NOTE)
    declined = await harness.ask(no, history=[("user", NOTE), ("assistant", warning.content)])
    assert declined.action == "quick_note_create"
    assert said in declined.visible
    assert "随口" not in declined.visible  # not the self-introduction
    assert open_titles(harness) == ["交电费"]


async def test_warns_and_writes_nothing(wired: Harness, snapshot: Any) -> None:
    wired.add("交电费", 2, "2026-12-01 18:00")
    answer = await wired.ask(NOTE)
    assert answer.snapshot() == snapshot
    assert answer.visible == WARNING
    assert open_titles(wired) == ["交电费"]
    assert answer.record("n1") == {
        "notes": [{"title": "交电费", "priority_group": 1, "deadline_at": "2026-12-01T23:59:59+08:00"}]
    }
    # A retry of the warned turn warns again and still writes nothing.
    again = await wired.ask(NOTE)
    assert again.visible == WARNING
    assert open_titles(wired) == ["交电费"]


@pytest.mark.parametrize("yes", ["要", "是的，再记一条", "yes, add it"])
async def test_confirming_writes_the_carried_note(wired: Harness, yes: str) -> None:
    wired.add("交电费", 2, "2026-12-01 18:00")
    warning = await wired.ask(NOTE)
    history = [("user", NOTE), ("assistant", warning.content)]
    done = await wired.ask(yes, history=history)
    assert done.action == "quick_note_create"
    assert done.visible.endswith("已记下：交电费（重要且紧急；截止 12月1日 周二 23:59）") or done.visible.startswith(
        "OK, noted: 交电费"
    )
    assert open_titles(wired) == ["交电费", "交电费"]
    assert not any(s.startswith("extract") for s in done.stages)  # no model, no extraction: the record
    assert done.record("w1") is not None
    # The confirming turn is idempotent like any other.
    again = await wired.ask(yes, history=history)
    assert "没有重复创建" in again.visible or "not saved twice" in again.visible
    assert open_titles(wired) == ["交电费", "交电费"]


async def test_confirming_keeps_the_estimate(wired: Harness) -> None:
    """The warning carries the note's estimate too: "要" writes the note with it and says it."""
    wired.add("交电费", 2, "2026-12-01 18:00")
    note = "帮我记一下明天交电费，大概十分钟"
    warning = await wired.ask(note)
    assert warning.record("n1")["estimates"] == ["十分钟"]
    done = await wired.ask("要", history=[("user", note), ("assistant", warning.content)])
    assert done.visible.endswith("；预计10分钟）")
    assert sorted(t.estimate_minutes or 0 for t in wired.tasks()) == [0, 10]
    assert open_titles(wired) == ["交电费", "交电费"]


async def test_confirming_without_the_record_reads_the_message_again(wired: Harness) -> None:
    wired.add("交电费", 2, "2026-12-01 18:00")
    warning = await wired.ask(NOTE)
    done = await wired.ask("要", history=[("user", NOTE), ("assistant", warning.visible)])  # record dropped
    assert done.visible == "好，已记下：交电费（重要且紧急；截止 12月1日 周二 23:59）"
    assert open_titles(wired) == ["交电费", "交电费"]


async def test_far_deadline_is_written_directly(harness: Harness) -> None:
    harness.add("交电费", 2, "2026-12-10 18:00")
    answer = await harness.ask(NOTE)
    assert answer.visible == "好，已记下：交电费（重要且紧急；截止 12月1日 周二 23:59）"
    assert open_titles(harness) == ["交电费", "交电费"]


async def test_a_finished_task_is_not_a_duplicate(harness: Harness) -> None:
    harness.add("交电费", 2, "2026-12-01 18:00", completed_at="2026-11-29 12:00")
    answer = await harness.ask(NOTE)
    assert answer.visible.startswith("好，已记下：交电费")


async def test_no_deadlines_on_either_side(harness: Harness) -> None:
    harness.add("洗车", 2)
    answer = await harness.ask("添加待办：洗车")
    assert answer.visible == "已有「洗车」，还要再记一条吗？"
    assert open_titles(harness) == ["洗车"]


async def test_policy_allow_writes_without_asking(harness: Harness) -> None:
    harness.state.settings.note_near_duplicates = "allow"  # SUIKOU_NOTE_NEAR_DUPLICATES=allow
    harness.add("交电费", 2, "2026-12-01 18:00")
    answer = await harness.ask(NOTE)
    assert answer.visible.startswith("好，已记下：交电费")


async def test_multi_capture_with_a_duplicate_asks_about_all(wired: Harness, snapshot: Any) -> None:
    wired.add("交电费", 2, "2026-12-01 18:00")
    message = "明天交电费，周五交报告"
    warning = await wired.ask(message)
    assert warning.snapshot() == snapshot
    assert warning.visible == "已有「交电费」（明天 18:00 到期），还要把这 2 条都再记下吗？"
    assert open_titles(wired) == ["交电费"]
    done = await wired.ask("要", history=[("user", message), ("assistant", warning.content)])
    assert done.visible.startswith("好，已记下 2 条：\n1. 交电费")
    assert open_titles(wired) == ["交电费", "交电费", "交报告"]


async def test_english_warning(harness: Harness) -> None:
    harness.add("pay the power bill", 2, "2026-12-01 18:00")
    answer = await harness.ask("remind me to pay the power bill tomorrow")
    assert answer.visible == 'You already have "pay the power bill" (due tomorrow 18:00). Add it anyway?'
