"""taskrepeat.offline: which sentences control a repeating task, and how they are read."""

from __future__ import annotations

import pytest

from taskrepeat.offline import RepeatControl, offline_signal, read_control


@pytest.mark.parametrize(
    ("text", "op", "words", "repeat"),
    [
        ("这周的组会不用开了", "skip", "组会", None),
        ("今天的跑步跳过", "skip", "跑步", None),
        ("跳过这一次", "skip", None, None),
        ("本周的例行检查先跳过", "skip", "例行检查", None),
        ("skip today's standup", "skip", "standup", None),
        ("本周的例会取消一次", "skip", "例会", None),
        ("今天的跑步没来得及，先跳过", "skip", "跑步", None),
        ("stop the yoga reminder from repeating", "end", "yoga", None),
        ("I no longer need to water the ferns", "end", "water the ferns", None),
        ("skip the yoga class this week", "skip", "yoga class", None),
        ("交水费以后不用交了", "end", "交水费", None),
        ("浇花不再重复", "end", "浇花", None),
        ("停止重复喂猫", "end", "喂猫", None),
        ("取消健身的重复", "end", "健身", None),
        ("不再重复了", "end", None, None),
        ("stop repeating the standup", "end", "standup", None),
        ("stop repeating it", "end", None, None),
        ("跑步改成每周二四", "change", "跑步", "每周二四"),
        ("把喂猫改为每两天", "change", "喂猫", "每两天"),
        ("开例会换成每个工作日", "change", "开例会", "每个工作日"),
        ("change the standup to every weekday", "change", "standup", "every weekday"),
        # the repetition named as a thing to switch off; a period said without 每; "的时间"
        ("晨跑那个重复取消掉", "end", "晨跑", None),
        ("喂鱼的重复关掉吧", "end", "喂鱼", None),
        ("记账不要重复了", "end", "记账", None),
        ("组会改成两周一次", "change", "组会", "每两周一次"),
        ("把背单词的时间改成每天晚上8点", "change", "背单词", "每天晚上8点"),
    ],
)
def test_controls_are_read(text: str, op: str, words: str | None, repeat: str | None) -> None:
    assert read_control(text) == RepeatControl(op, words, repeat)  # type: ignore[arg-type]
    signal = offline_signal(text)
    assert signal is not None and signal.confidence == 0.92


@pytest.mark.parametrize(
    "text",
    [
        "取消周五的牙医预约",  # a cancellation: task_delete's
        "把交电费改到周五",  # a new time: task_update's
        "以后不用提醒我了",  # a reminder to drop: task_delete's
        "这周的周报交了吗",  # a question
        "怎么跳过一次重复任务？",  # a how-to question
        "周报交了",  # a completion
        "每周一交周报",  # a new repeating note
        "明天的会不开了",
    ],
)
def test_other_sentences_are_not_mine(text: str) -> None:
    assert read_control(text) is None
    assert offline_signal(text) is None
