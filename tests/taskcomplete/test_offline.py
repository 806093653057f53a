"""The offline rules of `task_complete`: statements fire, questions and notes do not."""

from __future__ import annotations

import pytest

from taskcomplete.offline import is_reopen, offline_signal, target_words

WRITE_THRESHOLD = 0.6

# (message, task words)
DONE = [
    ("把交报告标记为完成", "交报告"),
    ("将交报告标为已完成", "交报告"),
    ("交报告做完了", "交报告"),
    ("买牛奶搞定了", "买牛奶"),
    ("报告已经交了", "报告"),
    ("周报写好了", "周报"),
    ("我已经把周报写好了", "周报"),
    ("好的，交报告做完了", "交报告"),
    ("交报告已经完成", "交报告"),
    ("已完成：交报告", "交报告"),
    ("好，「交报告」已标记完成", "交报告"),
    ("mark the report as done", "report"),
    ("I finished the report", "report"),
    ("I'm done with the report", "report"),
    ("done with groceries", "groceries"),
    ("the report is done", "report"),
    ("check off groceries", "groceries"),
    # which occurrence is not the task's words; 过 as a done verb's complement
    ("这周的周报交过了", "周报"),
]
REOPEN = [
    ("交报告还没做完", "交报告"),
    ("把交报告改回未完成", "交报告"),
    ("把交报告标记为未完成", "交报告"),
    ("reopen the report task", "report"),
    ("mark groceries as not done", "groceries"),
    ("the report isn't done yet", "report"),
]
NOT_MINE = [
    # questions stay task queries
    "交报告做完了吗",
    "周报交了没",
    "报告做完了没有",
    "周报写完了没",
    "合同签了没有",
    "交没交",
    "PPT做完了吗",
    "还有哪些没做完的",
    "is the report done?",
    "did I finish the report",
    # not a finished task
    "我做完了一个梦",
    "搞定了",
    "我们做完了",
    "好的我改了",
    "他做完了",
    "I finished",
    # notes and imperatives
    "提醒我把报告交了",
    "明天下午三点前把报告写完",
    "把报告写完",
    "这周内把PPT做完，挺重要的",
    "顺手把快递拿了",
    "我要买牛奶",
    "得交房租了",
    "帮我记一下明天下午三点交报告",
    "周五前把合同签了",
    "先把交季度报告做了",
    "把报告交了",
    # undo's words, and list lines pasted back
    "撤销把交报告标记为完成",
    "2. 洗车（简单不重要；已完成）",
    "2. wash the car is done",
    "你好",
    "药吃了没",
    "花浇了吗",
    "他药吃了",
    "先把药吃了",
]


@pytest.mark.parametrize(("text", "words"), DONE)
def test_done_statements_fire(text: str, words: str) -> None:
    signal = offline_signal(text, [])
    assert signal is not None and signal.confidence >= 0.75 > WRITE_THRESHOLD
    assert target_words(text) == words
    assert not is_reopen(text)


@pytest.mark.parametrize(("text", "words"), REOPEN)
def test_reopen_statements_fire(text: str, words: str) -> None:
    signal = offline_signal(text, [])
    assert signal is not None and signal.confidence >= 0.75
    assert target_words(text) == words
    assert is_reopen(text)


@pytest.mark.parametrize("text", NOT_MINE)
def test_questions_notes_and_chat_do_not_fire(text: str) -> None:
    assert offline_signal(text, []) is None
    assert target_words(text) is None


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("药吃了", "吃药"),
        ("鱼已经喂过了", "喂鱼"),
        ("今天的花浇过了", "浇花"),
        ("垃圾倒掉了", "倒垃圾"),
        ("水喝完了", "喝水"),
    ],
)
def test_a_daily_habit_said_object_first_names_verb_and_object(text: str, words: str) -> None:
    signal = offline_signal(text)
    assert signal is not None and WRITE_THRESHOLD <= signal.confidence < 0.75  # "饭吃了" can be chat
    assert target_words(text) == words


def test_a_bare_verb_statement_is_weaker_but_still_a_write() -> None:
    signal = offline_signal("房租交了", [])
    assert signal is not None and WRITE_THRESHOLD < signal.confidence < 0.75
    assert target_words("房租交了") == "房租"
