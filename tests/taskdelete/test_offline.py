"""taskdelete.offline: what reads as a delete request, and what the words are. Sentences written for
this table (not the issue's): everyday phrasings, cancellations, bulk, English, and what is not mine."""

from __future__ import annotations

import pytest

from core.turn import HistoryTurn
from taskdelete.offline import read_delete

ONE: list[tuple[str, str]] = [
    ("把买菜删了", "买菜"),
    ("把“交房租”删掉吧", "交房租"),
    ("删掉遛狗", "遛狗"),
    ("帮我删除整理衣柜这个任务", "整理衣柜"),
    ("去掉周末大扫除", "周末大扫除"),
    ("移除续签合同", "续签合同"),
    ("把预约理发去掉", "预约理发"),
    ("健身卡不用办了，删了吧", "健身卡"),
    ("洗车不做了，删掉", "洗车"),
    ("取消下周二的牙医", "下周二的牙医"),
    ("取消今晚的聚餐", "今晚的聚餐"),
    ("买菜不要了", "买菜"),
    ("delete buy groceries", "buy groceries"),
    ("please remove the gym task", "gym"),
    ("cancel my haircut appointment", "haircut appointment"),
    ("get rid of the laundry task", "laundry"),
    ("drop renew passport", "renew passport"),
    # A reminder that is not wanted any more is removal, never a new reminder (issue 21).
    ("以后别再提醒我喂鱼了", "喂鱼"),
    ("不用再提醒我缴停车费了", "缴停车费"),
    ("甭提醒我晨跑了", "晨跑"),
    ("stop reminding me to stretch", "stretch"),
    ("no more reminders about the car wash", "car wash"),
    ("don't remind me about the book club anymore", "book club"),
    ("no need to remind me to stretch again", "stretch"),
]


@pytest.mark.parametrize(("text", "words"), ONE)
def test_one_task_by_name(text: str, words: str) -> None:
    read = read_delete(text)
    assert read is not None and not read.bulk
    assert read.words == words


@pytest.mark.parametrize(
    "text", ["把它删了", "这个删掉", "删了吧", "删掉它", "delete it", "remove that", "delete this task"]
)
def test_the_task_just_written(text: str) -> None:
    read = read_delete(text)
    assert read is not None and read.words is None and not read.bulk


@pytest.mark.parametrize(
    ("text", "completed", "time_text"),
    [
        ("把做完的都删了", True, None),
        ("清空已完成的", True, None),
        ("删除全部已完成任务", True, None),
        ("把昨天的都删掉", False, "昨天"),
        ("取消明天所有的安排", False, "明天"),
        ("delete all finished tasks", True, None),
        ("remove everything for tomorrow", False, "for tomorrow"),
    ],
)
def test_several_at_once(text: str, completed: bool, time_text: str | None) -> None:
    read = read_delete(text)
    assert read is not None and read.bulk
    assert (read.completed, read.time_text) == (completed, time_text)


@pytest.mark.parametrize(
    "text",
    [
        "怎么删除一个任务？",
        "删掉的任务能找回吗",
        "能不能删除任务",
        "撤销",
        "刚才那条删掉",
        "刚刚记的不要了",
        "他把报告删了",
        "how do I delete a task?",
        "can you remove tasks?",
        "undo",
        "delete the last one",
        "cancel my previous edit",  # the last change is undo's
        "取消上一次修改",
        "明天下午三点交报告",
        "帮我记一下取消会员续费",
        "这周有什么要做的",
        "",
    ],
)
def test_not_a_delete_request(text: str) -> None:
    assert read_delete(text) is None


def test_a_yes_is_a_delete_only_after_the_question() -> None:
    asked = [HistoryTurn("assistant", "要删除 3 条任务：浇花、买猫粮、倒垃圾，确定吗？")]
    assert read_delete("确定", asked) is not None
    assert read_delete("好的，删吧", asked) is not None
    assert read_delete("yes", [HistoryTurn("assistant", "This deletes 2 tasks: a, b. Delete them?")]) is not None
    assert read_delete("确定") is None
    assert read_delete("不用了", asked) is None
    assert read_delete("确定", [HistoryTurn("assistant", "已记下：交报告")]) is None


@pytest.mark.parametrize("text", ["取消明早六点的闹钟", "把计时器删了", "cancel my 6am alarm", "delete the timer"])
def test_alarms_and_timers_are_not_tasks(text: str) -> None:
    assert read_delete(text) is None
