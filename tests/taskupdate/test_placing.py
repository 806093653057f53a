"""Moving a task to a list and labelling it by chat (issue 27): "把给猫剪指甲放到家务清单", "给交方案加个#紧急
标签", "去掉交方案的工作标签", "move the report to my work list"; undoable, logged, a near miss of a list
asks, a time is still a deadline. NOW is Monday 2026-11-30 10:00 Asia/Shanghai.
"""

from __future__ import annotations

import pytest

from core import listnames
from support.harness import Harness
from taskupdate.offline import offline_signal, read_correction
from taskupdate.placing import read_placing

READS = [
    ("把给猫剪指甲放到家务清单", "list", "家务清单", "给猫剪指甲"),
    ("把交方案移到工作里", "list", "工作", "交方案"),
    ("将发票归到报销清单里去", "list", "报销清单", "发票"),
    ("把交方案从工作清单里移出来", "unlist", None, "交方案"),
    ("给交方案加个#紧急标签", "label", "紧急", "交方案"),
    ("给交方案打上紧急的标签", "label", "紧急", "交方案"),
    ("给交方案加标签：客户A", "label", "客户A", "交方案"),
    ("去掉交方案的工作标签", "unlabel", "工作", "交方案"),
    ("把交方案的#工作标签去掉", "unlabel", "工作", "交方案"),
    ("交方案不要工作标签了", "unlabel", "工作", "交方案"),
    ("去掉工作标签", "unlabel", "工作", None),
    ("move the quarterly report to my work list", "list", "work", "the quarterly report"),
    ("take the report out of the work list", "unlist", None, "the report"),
    ("tag the report urgent", "label", "urgent", "the report"),
    ("add the urgent tag to the report", "label", "urgent", "the report"),
    ("remove the urgent label from the report", "unlabel", "urgent", "the report"),
]
NOT_PLACING = ["把交报告挪到周五", "把交报告放到明天", "把会议移到下午三点", "记到购物清单：牛奶", "给交报告加个提醒"]


@pytest.mark.parametrize(("text", "kind", "name", "words"), READS)
def test_the_move_or_label_is_read(text: str, kind: str, name: str | None, words: str | None) -> None:
    placing = read_placing(text)
    assert placing is not None and (placing.kind, placing.name, placing.words) == (kind, name, words)
    correction = read_correction(text)
    assert correction is not None and correction.field in ("list", "labels")


@pytest.mark.parametrize("text", NOT_PLACING)
def test_a_time_a_note_or_a_reminder_is_no_move(text: str) -> None:
    assert read_placing(text) is None


def test_a_named_move_is_sure_enough_to_route_alone() -> None:
    signal = offline_signal("把给猫剪指甲放到家务清单", [])
    assert signal is not None and signal.confidence >= 0.9


async def test_moving_to_a_list_is_logged_and_undone(harness: Harness) -> None:
    harness.add("擦窗户", list_name="家务清单")
    harness.add("给猫剪指甲")
    answer = await harness.ask("把给猫剪指甲放到家务清单")
    assert answer.action == "task_update"
    assert "清单 无 → 家务清单" in answer.content
    moved = next(t for t in harness.tasks("alice") if t.title == "给猫剪指甲")
    assert moved.list_name == "家务清单"
    undo = await harness.ask("撤销", history=[("user", "把给猫剪指甲放到家务清单"), ("assistant", answer.content)])
    assert undo.action == "undo"
    assert next(t for t in harness.tasks("alice") if t.title == "给猫剪指甲").list_name is None


async def test_a_variant_of_a_list_name_finds_the_list(harness: Harness) -> None:
    harness.add("擦窗户", list_name="家务")
    harness.add("给猫剪指甲")
    await harness.ask("把给猫剪指甲放到家务清单")  # the list is called 家务: no second list
    assert {t.list_name for t in harness.tasks("alice")} == {"家务"}


async def test_a_near_miss_of_a_list_asks_and_moves_nothing(harness: Harness) -> None:
    harness.add("牛奶", list_name="购物清单")
    harness.add("交方案")
    answer = await harness.ask("把交方案放到购物单")
    assert "你是说「购物清单」吗" in answer.content
    assert next(t for t in harness.tasks("alice") if t.title == "交方案").list_name is None


async def test_labels_are_added_and_taken_off(harness: Harness) -> None:
    harness.add("交方案", labels=["工作"])
    added = await harness.ask("给交方案加个#紧急标签")
    assert "标签 #工作 → #工作 #紧急" in added.content
    [task] = harness.tasks("alice")
    assert listnames.label_list(task.labels) == ["工作", "紧急"]
    removed = await harness.ask("去掉交方案的工作标签")
    assert listnames.label_list(harness.tasks("alice")[0].labels) == ["紧急"]
    assert "标签 #工作 #紧急 → #紧急" in removed.content
    missing = await harness.ask("去掉交方案的家里标签")
    assert missing.content.startswith("「交方案」没有 #家里 标签，没有改动")
    again = await harness.ask("给交方案打上紧急的标签")
    assert "本来就是这样" in again.content


async def test_english_moves_and_labels(harness: Harness) -> None:
    harness.add("quarterly report")
    await harness.ask("move the quarterly report to my work list")
    await harness.ask("tag the quarterly report urgent")
    [task] = harness.tasks("alice")
    assert task.list_name == "work" and listnames.label_list(task.labels) == ["urgent"]


async def test_a_time_is_still_a_deadline(harness: Harness) -> None:
    harness.add("交报告", deadline="2026-12-01 18:00")
    answer = await harness.ask("把交报告挪到周五")
    assert answer.action == "task_update"
    [task] = harness.tasks("alice")
    assert task.list_name is None and task.deadline_at is not None and "截止" in answer.content


async def test_another_users_task_is_never_moved(harness: Harness) -> None:
    harness.add("交方案", user="bob")
    answer = await harness.ask("把交方案放到工作清单")
    assert "没有找到" in answer.content
    assert harness.tasks("bob")[0].list_name is None
