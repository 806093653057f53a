"""Notes put in a list or labelled (issue 27): "记到购物清单：牛奶、鸡蛋、洗衣液" is three tasks in 购物清单,
"#工作 明天交方案" is labelled 工作 with the hashtag out of the title, a topic goes to the list of that
name or becomes a label, a near miss of a list asks and writes nothing. NOW is Monday 2026-11-30 10:00
Asia/Shanghai.
"""

from __future__ import annotations

import pytest

from core import listnames
from quicknote.offline import offline_signal
from quicknote.placement import read_placement, split_items
from route.offline import offline_route
from support.harness import Harness

READS = [
    ("记到购物清单：牛奶、鸡蛋、洗衣液", "购物清单", (), None, "牛奶、鸡蛋、洗衣液"),
    ("帮我加到旅行清单里：订酒店", "旅行清单", (), None, "订酒店"),
    ("放到家务里：擦窗户", "家务", (), None, "擦窗户"),
    ("旅行清单：订酒店、买机票", "旅行清单", (), None, "订酒店、买机票"),
    ("#工作 明天交方案", None, ("工作",), None, "明天交方案"),
    ("周五前回复客户 #工作 #急", None, ("工作", "急"), None, "周五前回复客户"),
    ("工作上的：周五前回复客户", None, (), "工作", "周五前回复客户"),
    ("add milk to my shopping list", "shopping", (), None, "milk"),
    ("groceries list: eggs, bread", "groceries", (), None, "eggs, bread"),
]
NOT_PLACED = ["记到明天：交报告", "记在备忘录里：交报告", "记一下：明天交报告", "学C#编程", "买菜：西红柿"]


@pytest.mark.parametrize(("text", "list_name", "labels", "topic", "rest"), READS)
def test_the_place_is_read_and_taken_out_of_the_words(
    text: str, list_name: str | None, labels: tuple[str, ...], topic: str | None, rest: str
) -> None:
    placement = read_placement(text)
    assert (placement.list_name, placement.labels, placement.topic, placement.rest) == (list_name, labels, topic, rest)
    assert offline_signal(text, []) is not None


@pytest.mark.parametrize("text", NOT_PLACED)
def test_a_time_a_notebook_or_a_colon_is_no_list(text: str) -> None:
    assert not read_placement(text).placed


@pytest.mark.parametrize("text", ["#工作 这周的", "#工作 有哪些", "我的 #工作 任务", "#work what's due"])
def test_a_hashtag_question_is_not_a_note(text: str) -> None:
    assert offline_signal(text, []) is None


def test_a_lists_short_items_are_one_task_each() -> None:
    assert split_items("牛奶、鸡蛋、洗衣液") == ["牛奶", "鸡蛋", "洗衣液"]
    assert split_items("milk, eggs and bread") == ["milk", "eggs", "bread"]
    assert split_items("给客户打电话，顺便确认一下下周的会议安排") == ["给客户打电话，顺便确认一下下周的会议安排"]


@pytest.mark.parametrize(
    "text",
    [
        "记到购物清单：牛奶、鸡蛋",
        "#工作 明天交方案",
        "放到家务里：擦窗户",
        "工作上的：回复客户",
        "add milk to my shopping list",
    ],
)
async def test_placed_notes_are_routed_to_the_note(harness: Harness, text: str) -> None:
    assert (await harness.ask(text)).action == "quick_note_create"
    assert harness.tasks("alice")


@pytest.mark.parametrize("text", ["#工作 这周的", "购物清单里有什么", "有哪些清单", "工作上的事有哪些"])
def test_questions_about_a_list_are_routed_to_the_query(text: str) -> None:
    assert offline_route(text, [])[0] == "query"


async def test_a_list_capture_writes_each_item_in_the_list(harness: Harness) -> None:
    answer = await harness.ask("记到购物清单：牛奶、鸡蛋、洗衣液")
    assert answer.action == "quick_note_create"
    tasks = harness.tasks("alice")
    assert sorted(t.title for t in tasks) == ["洗衣液", "牛奶", "鸡蛋"]
    assert {t.list_name for t in tasks} == {"购物清单"}
    assert "清单：购物清单" in answer.content
    undo = await harness.ask(
        "撤销", history=[("user", "记到购物清单：牛奶、鸡蛋、洗衣液"), ("assistant", answer.content)]
    )
    assert undo.action == "undo" and harness.tasks("alice") == []


async def test_a_hashtag_is_a_label_never_in_the_title(harness: Harness) -> None:
    answer = await harness.ask("#工作 明天交方案 #急")
    [task] = harness.tasks("alice")
    assert task.title == "交方案" and listnames.label_list(task.labels) == ["工作", "急"]
    assert task.deadline_at is not None
    assert "#工作 #急" in answer.content


async def test_a_topic_goes_to_the_list_of_that_name_else_becomes_a_label(harness: Harness) -> None:
    harness.add("写周报", list_name="工作")
    await harness.ask("工作上的：周五前回复客户")
    await harness.ask("生活上的：修水龙头", user="bob")
    reply = next(t for t in harness.tasks("alice") if t.title == "回复客户")
    assert reply.list_name == "工作" and reply.labels is None
    [fix] = harness.tasks("bob")
    assert fix.list_name is None and listnames.label_list(fix.labels) == ["生活"]


async def test_a_near_miss_of_a_list_asks_and_writes_nothing(harness: Harness) -> None:
    harness.add("牛奶", list_name="购物清单")
    answer = await harness.ask("记到购物单：面包")
    assert "你是说「购物清单」吗？还没记" in answer.content
    assert [t.title for t in harness.tasks("alice")] == ["牛奶"]
    # Said again with the list's own name, or with the new name quoted, it is written.
    await harness.ask("记到购物清单：面包")
    await harness.ask("记到「购物单」：黄油")
    lists = {t.title: t.list_name for t in harness.tasks("alice")}
    assert lists == {"牛奶": "购物清单", "面包": "购物清单", "黄油": "购物单"}


async def test_another_users_list_is_never_matched(harness: Harness) -> None:
    harness.add("牛奶", list_name="购物清单", user="bob")
    answer = await harness.ask("记到购物单：面包")  # alice has no 购物清单: a new list of hers
    assert "还没记" not in answer.content
    [task] = harness.tasks("alice")
    assert task.list_name == "购物单"
