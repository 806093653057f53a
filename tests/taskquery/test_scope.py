"""Questions about a list or a label (issue 27): "购物清单里有什么", "#工作 这周的", "工作上的事有哪些",
"家里的急事", "有哪些清单". Only the user's words select one; a word that names no list or label is a
title search, said as such, never a list of everything. NOW is Monday 2026-11-30 10:00 Asia/Shanghai.
"""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from core.countlock import extract_count
from core.listnames import read_scope
from support.harness import NOW, TZ, Harness
from taskquery.boundary import Grounds, settle_plan
from taskquery.carried import CarriedPlan
from taskquery.offline import offline_plan
from taskquery.overview import overview_kind
from taskquery.plan import QueryPlan

SCOPES = [
    ("购物清单里有什么", "购物清单"),
    ("购物清单里还剩什么没买", "购物清单"),
    ("#工作 这周的", "#工作"),
    ("看看 #家务", "#家务"),
    ("工作上的事有哪些", "工作"),
    ("关于装修的事", "装修"),
    ("家里的急事", "家里"),
    ("what's in my shopping list", "shopping"),
    ("tasks tagged urgent", "#urgent"),
]
NO_SCOPE = ["这周里的任务", "今天的事", "明天有什么任务", "我的任务", "月底前的事有哪些", "有什么工作要做"]


@pytest.mark.parametrize(("text", "scope"), SCOPES)
def test_the_scope_is_read_from_the_words(text: str, scope: str) -> None:
    assert read_scope(text) == scope


@pytest.mark.parametrize("text", NO_SCOPE)
def test_times_and_plain_questions_name_no_list(text: str) -> None:
    assert read_scope(text) is None


@pytest.mark.parametrize(
    ("text", "kind"),
    [("有哪些清单", "lists"), ("我的清单", "lists"), ("我有几个清单？", "lists"), ("有哪些标签", "labels"),
     ("what lists do I have", "lists"), ("show my labels", "labels"), ("购物清单里有什么", None), ("明天的任务", None),
     ("有什么清单软件好用", None), ("推荐一个清单app", None), ("what are the best todo lists apps", None)],
)  # fmt: skip
def test_asking_for_the_lists_themselves(text: str, kind: str | None) -> None:
    assert overview_kind(text) == kind


def _seed(harness: Harness) -> None:
    harness.add("牛奶", 3, list_name="购物清单")
    harness.add("洗衣液", 3, "2026-12-01 18:00", list_name="购物清单")
    harness.add("交方案", 1, "2026-12-02 18:00", labels=["工作"])
    harness.add("写周报", 2, "2026-12-12 18:00", labels=["工作"])
    harness.add("修水龙头", 1, "2026-12-01 09:00", list_name="家里")
    harness.add("擦窗户", 4, list_name="家里")
    harness.add("吃药", 2)
    harness.add("别人的牛奶", 3, list_name="购物清单", user="bob")


async def test_whats_in_a_list(harness: Harness) -> None:
    _seed(harness)
    answer = await harness.ask("购物清单里有什么")
    assert answer.action == "task_query"
    assert answer.content.startswith("「购物清单」清单里的任务")
    assert [i["title"] for i in answer.data["items"]] == ["洗衣液", "牛奶"]
    assert answer.data["filter"]["list_name"] == "购物清单"


async def test_a_label_with_a_window(harness: Harness) -> None:
    _seed(harness)
    answer = await harness.ask("#工作 这周的")
    assert answer.content.startswith("带 #工作 标签的任务")
    assert [i["title"] for i in answer.data["items"]] == ["交方案"]  # 写周报 is due next week


async def test_a_topic_that_is_a_label_and_one_that_is_a_list_with_a_group(harness: Harness) -> None:
    _seed(harness)
    work = await harness.ask("工作上的事有哪些")
    assert sorted(i["title"] for i in work.data["items"]) == ["交方案", "写周报"]
    urgent = await harness.ask("家里的急事")
    assert urgent.content.startswith("「家里」清单里的任务")
    assert [i["title"] for i in urgent.data["items"]] == ["修水龙头"]


async def test_a_word_naming_no_list_or_label_searches_titles_and_says_so(harness: Harness) -> None:
    _seed(harness)
    found = await harness.ask("关于周报的事")
    assert found.content.startswith("没有叫「周报」的清单或标签，按标题里的「周报」找到这些")
    assert [i["title"] for i in found.data["items"]] == ["写周报"]
    none = await harness.ask("装修上的事有哪些")
    assert none.content.startswith("没有叫「装修」的清单或标签，标题里也没有「装修」的任务")
    assert none.data["items"] == []  # never every task instead


async def test_the_lists_with_counts(harness: Harness) -> None:
    _seed(harness)
    answer = await harness.ask("有哪些清单")
    assert answer.content == "你有 2 个清单：\n1. 家里（2 条未完成，共 2 条）\n2. 购物清单（2 条未完成，共 2 条）"
    labels = await harness.ask("有哪些标签")
    assert labels.content == "你用过 1 个标签：\n1. #工作（2 条未完成，共 2 条）"
    empty = await harness.ask("what lists do I have", user="carol")
    assert empty.content.startswith("You have no lists yet")


async def test_another_users_list_is_not_read(harness: Harness) -> None:
    _seed(harness)
    answer = await harness.ask("购物清单里有什么", user="bob")
    assert [i["title"] for i in answer.data["items"]] == ["别人的牛奶"]
    mine = await harness.ask("购物清单里有什么", user="carol")
    assert mine.data.get("items", []) == []


async def test_a_follow_up_keeps_the_list(harness: Harness) -> None:
    _seed(harness)
    first = await harness.ask("购物清单里有什么")
    more = await harness.ask("明天的呢", history=[("user", "购物清单里有什么"), ("assistant", first.content)])
    assert more.action == "task_query"
    assert [i["title"] for i in more.data["items"]] == ["洗衣液"]  # 修水龙头 is due tomorrow too, in 家里
    assert more.content.startswith("「购物清单」清单里的任务")


@pytest.mark.parametrize(
    ("sentence", "proposed", "kept"),
    [
        ("工作和生活的事都看看", "工作", "工作"),  # in the words, a name: taken
        ("明天有什么任务", "秘密项目", None),  # not in the words: refused
        ("工作,生活相关的都列出来", "工作,生活", None),  # in the words but no name a list can have
        ("看看a\x07b的任务", "a\x07b", None),
    ],
)
def test_a_models_scope_is_taken_only_when_grounded_and_a_name(sentence: str, proposed: str, kept: str | None) -> None:
    rules = offline_plan(sentence, NOW, TZ).model_copy(update={"scope": None})
    grounds = Grounds(sentence, rules, extract_count(sentence), NOW, TZ)
    assert settle_plan(QueryPlan(scope=proposed), grounds).plan.scope == kept


@pytest.mark.parametrize("scope", ["工作,家里", "a\x00b", "#", "x" * 42])
def test_a_carried_scope_is_validated_like_input(scope: str) -> None:
    with pytest.raises(ValidationError):
        CarriedPlan.model_validate({"scope": scope})
    assert CarriedPlan.model_validate({"scope": "#工作"}).scope == "#工作"
