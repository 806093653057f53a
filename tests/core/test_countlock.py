"""The explicit count lock: exact constructions only, and the traps that must not lock."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.countlock import CountLock, extract_count, parse_cn_number

LOCKED: list[tuple[str, int]] = [
    # brief §3 and the dev set
    ("来一个", 1),
    ("来个", 1),
    ("来一条", 1),
    ("给我两个", 2),
    ("给我3个", 3),
    ("前 3 个", 3),
    ("前三个", 3),
    ("前五条", 5),
    ("top5", 5),
    ("Top 5", 5),
    ("TOP3", 3),
    ("仨", 3),
    ("俩", 2),
    ("三条", 3),
    ("随便挑两个", 2),
    ("挑一个", 1),
    ("再来两个", 2),
    ("来一个我的简单任务", 1),
    ("给我3个优先级低的任务", 3),
    ("前五个简单任务给我看看", 5),
    ("top 2 重要任务", 2),
    ("明天到期的前2个任务", 2),
    # more forms
    ("来俩简单的", 2),
    ("给我仨", 3),
    ("仨简单任务", 3),
    ("给我１０个", 10),
    ("给我３个任务", 3),
    ("前十个任务", 10),
    ("前二十条", 20),
    ("前十", 10),
    ("给我看前5", 5),
    ("三条简单任务", 3),
    ("3个重要的任务", 3),
    ("两三个简单的就行", 3),
    ("推荐一个任务", 1),
    ("挑个简单的", 1),
    ("show me top 10 tasks", 10),
    ("first 3 tasks please", 3),
    ("3 tasks due tomorrow", 3),
    ("列三个明天要交的", 3),
    # several counts: the first strong one wins
    ("我有三个任务要做，挑一个", 1),
    ("前两天的任务里给我两个", 2),
    ("下周3之前的，来两个", 2),
    # an explicit count beats "all"
    ("所有任务里挑3个", 3),
    ("二十个", 20),
    # a said number beats the implicit one of "来个/列个"
    ("列个前五", 5),
    ("来个top3", 3),
    # 前N + 的 ("排名前五的任务")
    ("排名前五的任务", 5),
    ("前十的任务", 10),
    ("派个活给我", 1),
    ("瞅瞅前三个", 3),
    # approximations lock the number said; 几 as a middle digit is 5
    ("十几个", 15),
    ("二十来个", 20),
    ("前一百二十条", 120),
]

NOT_LOCKED: list[str] = [
    "前两天",
    "前两天的任务",
    "3天内",
    "三天内要交的",
    "下周3",
    "下周3有什么",
    "12月5日",
    "12月5日之前的任务",
    "给我一些",
    "给我一些任务",
    "一些",
    "几个",
    "给我几个任务",
    "看一下",
    "帮我看一下明天的任务",
    "一周",
    "一周内的任务",
    "第一个",
    "第一个任务是什么",
    "3月",
    "3月份的任务",
    "5号",
    "5号截止的",
    "2026-12-15",
    "2026-12-15 之前的任务",
    "简单一点的",
    "来点简单一点的",
    "有一个任务叫周报",
    "有一个会议是什么时候",
    "前3天",
    "前三个月",
    "前三个月完成的任务",
    "两个小时内要做的",
    "一个星期内的",
    "3个工作日内的任务",
    "一个多月以后的",
    "这两个任务",
    "我俩的任务",
    "整个项目的任务",
    "下午3点的会",
    "前两天的",
    "一个都没做完的",
    "",
]

ALL: list[str] = [
    "全部",
    "所有任务",
    "全都给我",
    "都列出来",
    "show all tasks",
    "统统列出来",
    "全部的重要任务",
    "一个都不要漏",
    "一条也别落下",
]


@pytest.mark.parametrize(("text", "count"), LOCKED)
def test_locks_explicit_counts(text: str, count: int) -> None:
    lock = extract_count(text)
    assert lock == CountLock(explicit=count, wants_all=False)
    assert lock.phrase


@pytest.mark.parametrize("text", NOT_LOCKED)
def test_numbers_that_are_not_counts_do_not_lock(text: str) -> None:
    assert extract_count(text) == CountLock(explicit=None, wants_all=False)


@pytest.mark.parametrize("text", ALL)
def test_all_means_wants_all(text: str) -> None:
    assert extract_count(text) == CountLock(explicit=None, wants_all=True)


def test_phrase_and_span_point_into_the_text() -> None:
    text = "明天到期的前2个任务"
    lock = extract_count(text)
    assert lock.phrase == "前2个"
    assert lock.span is not None
    a, b = lock.span
    assert text[a:b] == "前2个"


def test_equality_ignores_phrase() -> None:
    assert extract_count("来一个") == CountLock(1, False)


@pytest.mark.parametrize(
    ("token", "value"),
    [
        ("一", 1),
        ("两", 2),
        ("十", 10),
        ("十五", 15),
        ("二十", 20),
        ("二十三", 23),
        ("九十九", 99),
        ("俩", 2),
        ("仨", 3),
        ("12", 12),
        ("两三", 3),
        ("三两", 3),
        ("二三十", 30),
        ("十几", 15),
        ("二十来", 20),
        ("一百", 100),
        ("两百", 200),
        ("一百零五", 105),
        ("一百五", 150),
        ("一千二百三十四", 1234),
        ("一二三", None),
        ("二零二六", None),
        ("几", None),
        ("十十", None),
        ("", None),
    ],
)
def test_parse_cn_number(token: str, value: int | None) -> None:
    assert parse_cn_number(token) == value


def test_deterministic() -> None:
    text = "前两个，再来三个，top5"  # the earliest said count wins
    assert {extract_count(text) for _ in range(20)} == {extract_count(text)}
    assert extract_count(text).explicit == 2


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_never_raises(text: str) -> None:
    lock = extract_count(text)
    assert lock.explicit is None or lock.explicit > 0
    assert not (lock.explicit is not None and lock.wants_all)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="前来给我两三个条天月日周号下一些几十top 0123456789全部所有", max_size=12))
def test_never_raises_on_count_soup(text: str) -> None:
    extract_count(text)
