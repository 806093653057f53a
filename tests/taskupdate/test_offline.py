"""`task_update`'s offline rule: corrections of the task just written, or of a named task."""

from __future__ import annotations

import pytest

from core.turn import HistoryTurn
from taskupdate.offline import offline_signal, read_correction, wrote_something

AFTER_NOTE = [
    HistoryTurn("user", "帮我记一下周三交报告"),
    HistoryTurn("assistant", "好，已记下：交报告（截止 12月2日 周三 18:00）"),
]
AFTER_EN = [HistoryTurn("user", "remind me to send the report"), HistoryTurn("assistant", "OK, noted: send the report")]
AFTER_CHAT = [HistoryTurn("user", "你好"), HistoryTurn("assistant", "你好！有什么可以帮你？")]


@pytest.mark.parametrize(
    ("message", "field", "value"),
    [
        ("不对，是下周三", "deadline", "下周三"),
        ("不对，改成下周三", "deadline", "下周三"),
        ("改成明天下午", "deadline", "明天下午"),
        ("时间改成周五下午三点", "deadline", "周五下午三点"),
        ("能改成周五吗？", "deadline", "周五"),
        ("优先级调高", "priority", "调高"),
        ("改成重要", "priority", "重要"),
        ("不急", "priority", "不急"),
        ("标题改成交季度报告", "title", "交季度报告"),
        ("名字改成买菜", "title", "买菜"),
    ],
)
def test_zh_corrections_after_a_write(message: str, field: str, value: str) -> None:
    found = read_correction(message)
    assert found is not None and (found.field, found.value) == (field, value)
    signal = offline_signal(message, AFTER_NOTE)
    assert signal is not None and signal.confidence >= 0.75


@pytest.mark.parametrize(
    ("message", "field", "value"),
    [
        ("no, make it next Wednesday", "deadline", "next Wednesday"),
        ("change it to Friday 3pm", "deadline", "Friday 3pm"),
        ("rename it to send the Q4 report", "title", "send the Q4 report"),
        ("raise the priority", "priority", "raise"),
    ],
)
def test_en_corrections_after_a_write(message: str, field: str, value: str) -> None:
    found = read_correction(message)
    assert found is not None and (found.field, found.value) == (field, value)
    signal = offline_signal(message, AFTER_EN)
    assert signal is not None and signal.confidence >= 0.75


@pytest.mark.parametrize(
    ("message", "words"),
    [("把交报告改到周五", "交报告"), ("把交报告的优先级调低", "交报告"), ("rename the report to Q4 report", "report")],
)
def test_a_named_task_fires_without_a_write(message: str, words: str) -> None:
    found = read_correction(message)
    assert found is not None and found.words == words
    signal = offline_signal(message, AFTER_CHAT)
    assert signal is not None and signal.confidence >= 0.75


@pytest.mark.parametrize("message", ["不对，是下周三", "改成明天下午", "优先级调高", "no, make it next Wednesday"])
def test_no_write_before_is_still_a_correction_but_less_sure(message: str) -> None:
    """Never a note titled "改成" or a chat reply: the action says there is nothing to correct."""
    for history in (AFTER_CHAT, []):
        signal = offline_signal(message, history)
        assert signal is not None and 0.6 <= signal.confidence < 0.75


@pytest.mark.parametrize(
    "message",
    ["怎么改优先级", "如何改标题？", "how do I change the deadline", "明天买牛奶", "交报告做完了", "撤销", "undo"],
)
def test_not_corrections(message: str) -> None:
    assert offline_signal(message, AFTER_NOTE) is None


def test_a_write_answer_is_read_by_its_wording() -> None:
    assert wrote_something(AFTER_NOTE) and wrote_something(AFTER_EN)
    assert wrote_something([HistoryTurn("assistant", "已完成：「交报告」")])
    assert wrote_something([HistoryTurn("assistant", "已改好：「交报告」截止 …")])
    assert not wrote_something(AFTER_CHAT) and not wrote_something([])


@pytest.mark.parametrize(
    "text",
    [
        "改成明天下午",
        "不对，是下周三",
        "change it to Friday 3pm",
        "优先级调低",
        "时间改成周五下午三点",
        "标题改成交季度报告",
    ],
)
def test_a_plain_correction_is_one_even_with_nothing_written_before(text: str) -> None:
    """Never a new note titled "改成": the action answers that there is nothing to correct."""
    signal = offline_signal(text, [])
    assert signal is not None and signal.confidence >= 0.6


@pytest.mark.parametrize(
    "text", ["闹钟改到七点半", "把倒计时改成十分钟", "change my 7am alarm to 7:30", "set the timer to 5 minutes"]
)
def test_alarms_and_timers_are_not_task_corrections(text: str) -> None:
    assert read_correction(text) is None
