"""quicknote.offline.repeat_signal: a repetition with something to do is a note; a question, a
cancellation or a change of a series is not; a bare English plural weekday is left to the model."""

from __future__ import annotations

import pytest

from quicknote.offline import REPEAT_CONFIDENCE, UNREAD_CONFIDENCE, offline_signal, repeat_signal


@pytest.mark.parametrize(
    "text",
    [
        "每周二晚上练琴",
        "提醒我每天中午喝水",
        "每个工作日九点开站会",
        "每月5号交物业费",
        "every Sunday call grandpa",
    ],
)
def test_a_repetition_with_a_task_is_a_note(text: str) -> None:
    signal = repeat_signal(text)
    assert signal is not None and signal.confidence == REPEAT_CONFIDENCE
    assert offline_signal(text, ()) == signal


def test_an_unreadable_repetition_is_a_weaker_shape() -> None:
    # "每逢双数日" may be a schedule Suikou can't read yet, or no schedule at all ("每分钟走60米"):
    # below the bar a write stands on alone, so the intent model decides or it asks.
    for text in ("每逢双数日晒被子", "小明每分钟走60米，一共走了多远"):
        signal = repeat_signal(text)
        assert signal is not None and signal.confidence == UNREAD_CONFIDENCE < REPEAT_CONFIDENCE


@pytest.mark.parametrize(
    "text",
    [
        "每周二都要做什么？",
        "你能设置重复提醒吗，比如每周四浇花",  # a how-to question
        "每周五交电费的提醒停掉",  # a reminder dropped
        "I want to see my daily tasks",  # "daily" names a thing
        "finished the weekly report",
        "quit nagging me to stretch every week",  # a question
        "我每天有哪些任务",
        "取消每周的例会",  # a cancellation
        "把跑步改成每周三",  # a change of a series
        "delete the daily standup reminder",
        "ugh mondays",  # a sigh, not a schedule
        "每天",  # nothing to do
        "买牛奶",
    ],
)
def test_other_sentences_are_not(text: str) -> None:
    assert repeat_signal(text) is None
