"""Probe table for the explicit count lock, second pass: one family of phrasings per table.

The sentences are written fresh (not the dev set's wording) so that the rules, not the examples,
are what pass. Each row is (sentence, expected explicit count, expected wants_all).
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.countlock import ALL_IDIOMS, NEUTRAL_IDIOMS, extract_count

Row = tuple[str, int | None, bool]

# Idioms with a numeral that mean "every one of them".
ALL_IDIOM_ROWS: list[Row] = [
    ("一件不落地给我看", None, True),
    ("一项不落，统一展示一下", None, True),
    ("本周的待办一样不少地列一下", None, True),
    ("一个不剩地告诉我", None, True),
    ("明天的活一件也别落下", None, True),
    ("一条都别漏掉", None, True),
    ("下周要交的一个也不能少", None, True),
    ("一项都不许漏，列给我", None, True),
    ("把待办一个不漏列出来", None, True),
    ("一条不漏地报给我", None, True),
    ("无一遗漏地列出这周的", None, True),
    ("重要的一网打尽", None, True),
    ("今天的任务一个不差地念一遍", None, True),
    ("一个都不能落下", None, True),
    ("全给我列出来", None, True),
]

# Idioms and set phrases with a numeral that say nothing about how many.
NEUTRAL_ROWS: list[Row] = [
    ("一起看看明天要干嘛", None, False),
    ("帮我查一下周五的安排", None, False),
    ("简单一点的活儿有哪些", None, False),
    ("一直拖着没做的有哪些", None, False),
    ("一定要今天搞定的是什么", None, False),
    ("一般重要的待办", None, False),
    ("跟昨天一样重要的任务", None, False),
    ("一样急的有哪些", None, False),
    ("一边通勤一边能做的事", None, False),
    ("过一会儿要做什么", None, False),
    ("一五一十地说说我这周的安排", None, False),
    ("把今天的事讲得一清二楚", None, False),
    ("三番五次推迟的任务", None, False),
    ("心里七上八下的，今天该干嘛", None, False),
    ("乱七八糟的待办有哪些", None, False),
    ("有没有一举两得的任务", None, False),
    ("两全其美的安排有吗", None, False),
    ("十全十美的计划", None, False),
    ("三天两头要做的事有哪些", None, False),
    ("需要一心一意做的任务", None, False),
    ("说一不二的截止日期有哪些", None, False),
    ("独一无二的任务", None, False),
    ("一一列出来", None, False),
    ("逐一过一遍我的待办", None, False),
    ("把逾期的一并显示", None, False),
    ("万一明天忘了，有哪些要交的", None, False),
    ("一下子来了好多任务，先看看", None, False),
    ("一个一个地列", None, False),
    ("一条一条念给我", None, False),
    ("一项项过一遍", None, False),
    ("一个个看吧", None, False),
    ("一口气说说本周要交的", None, False),
    ("一块儿看看下周的", None, False),
    ("一切都还顺利吗", None, False),
    ("完全看不懂这些任务", None, False),
]

# An idiom next to a real count: the count wins.
IDIOM_WITH_COUNT_ROWS: list[Row] = [
    ("一五一十地告诉我前三个", 3, False),
    ("三番五次拖的那些里挑两个", 2, False),
    ("一起看看，给我四个", 4, False),
    ("一样重要的任务来两个", 2, False),
    ("帮我看一下前五条", 5, False),
    ("一件不落不现实，先给我三个", 3, False),
    ("一直没做的里选一个", 1, False),
    ("乱七八糟的太多了，列六条", 6, False),
]

# Approximate counts lock the number said; ranges lock their upper bound.
APPROX_ROWS: list[Row] = [
    ("三十来条待办", 30, False),
    ("给我十来个", 10, False),
    ("列个二十来条", 20, False),
    ("10来个就行", 10, False),
    ("十几个简单的", 15, False),
    ("二十几条任务", 25, False),
    ("二十多个任务", 20, False),
    ("十个左右", 10, False),
    ("八条上下吧", 8, False),
    ("大约四个", 4, False),
    ("大概七条待办", 7, False),
    ("差不多六个就行", 6, False),
    ("约莫五件", 5, False),
    ("一两个简单的", 2, False),
    ("三两条就够", 3, False),
    ("来两三个", 3, False),
    ("三五个重要的", 5, False),
    ("五六条", 6, False),
    ("七八个紧急的", 8, False),
    ("给我四五个", 5, False),
    ("3到5个任务", 5, False),
    ("三到五条", 5, False),
    ("2-4个", 4, False),
    ("三四十个", 40, False),
    ("给我来五十来个", 50, False),
    ("二三十个", 30, False),
]

# Large numbers: the number said, unclamped.
LARGE_ROWS: list[Row] = [
    ("前三十个待办", 30, False),
    ("列一百条", 100, False),
    ("前200条", 200, False),
    ("给我2000个", 2000, False),
    ("三百个任务", 300, False),
    ("前两百个", 200, False),
    ("一百二十个待办", 120, False),
    ("一百零五条", 105, False),
    ("一千个", 1000, False),
    ("前一百", 100, False),
    ("top 100", 100, False),
    ("show me 250 tasks", 250, False),
    ("一万个任务", 10000, False),
]

# Count-only requests and refinements of the previous answer.
REFINE_ROWS: list[Row] = [
    ("最多三条", 3, False),
    ("最多给四个就行", 4, False),
    ("顶多两条", 2, False),
    ("至多五个", 5, False),
    ("不超过六条", 6, False),
    ("别超过两个", 2, False),
    ("不要多于四条", 4, False),
    ("不能超过10个", 10, False),
    ("五条以内", 5, False),
    ("控制在三个以内", 3, False),
    ("四个就行", 4, False),
    ("两条就够了", 2, False),
    ("一个就好", 1, False),
    ("整俩简单的", 2, False),
    ("先整三个", 3, False),
    ("弄两条看看", 2, False),
    ("搞三个来", 3, False),
    ("只要一条", 1, False),
    ("就要两个", 2, False),
    ("只看三个", 3, False),
    ("at most five", 5, False),
    ("no more than 3", 3, False),
    ("max 4 please", 4, False),
    ("just two please", 2, False),
    ("only three", 3, False),
    ("3 is enough", 3, False),
    ("max of 6", 6, False),
    ("5 max", 5, False),
    ("three at most", 3, False),
    ("limit it to 4", 4, False),
    ("I only need two", 2, False),
    ("let me see 4", 4, False),
    ("再多给两个", 2, False),
    ("给个三条", 3, False),
    ("只显示两条", 2, False),
    ("别给太多，两三条就行", 3, False),
]

# Implicit singulars: "which one is the most …", "pick one".
SINGULAR_ROWS: list[Row] = [
    ("下一个任务是什么", 1, False),
    ("下一件该做什么", 1, False),
    ("下一个要做的呢", 1, False),
    ("哪个最急", 1, False),
    ("哪个任务最难", 1, False),
    ("哪件事最该先做", 1, False),
    ("哪一条最紧急", 1, False),
    ("哪一项最优先", 1, False),
    ("最紧迫的是哪一个", 1, False),
    ("最要命的那个是什么", 1, False),
    ("最难的那一个", 1, False),
    ("最该先处理的是哪件", 1, False),
    ("先做哪个", 1, False),
    ("随便找个活", 1, False),
    ("选个任务给我", 1, False),
    ("弄个简单的来", 1, False),
    ("挑个容易的做做", 1, False),
    ("give me one", 1, False),
    ("just one please", 1, False),
    ("pick a task", 1, False),
    ("give me a task", 1, False),
    ("suggest an easy one", 1, False),
    ("one task please", 1, False),
    ("choose one for me", 1, False),
    ("which one is most urgent", 1, False),
    ("哪个比较急", 1, False),
    ("哪一个更要紧", 1, False),
]

# Plural questions and neighbours of the singular forms that must not lock.
NOT_SINGULAR_ROWS: list[Row] = [
    ("下一个工作日有什么任务", None, False),
    ("下一个节日前要做完的", None, False),
    ("下一个月的待办", None, False),
    ("哪些最急", None, False),
    ("哪几个最重要", None, False),
    ("最急的任务有哪些", None, False),
    ("那个任务什么时候截止", None, False),
    ("哪个项目的任务", None, False),
    ("整个项目的待办", None, False),
    ("整个星期的任务", None, False),
    ("which ones are urgent", None, False),
    ("give me a few", None, False),
    ("a few easy tasks", None, False),
    ("give me a break", None, False),
    ("pick a time", None, False),
]

# Ordinals name an item, not a count.
ORDINAL_ROWS: list[Row] = [
    ("第三个待办是啥", None, False),
    ("倒数第二个", None, False),
    ("倒数第一条什么时候截止", None, False),
    ("第四条", None, False),
    ("第10个任务", None, False),
    ("最后一个任务是什么", None, False),
    ("最后一条", None, False),
    ("the second one", None, False),
    ("what is the last one", None, False),
    ("the third task", None, False),
    ("the first one", None, False),
    ("头一个", None, False),
    ("最后那个", None, False),
    ("上一个任务", None, False),
    ("the second to last task", None, False),
]

ENGLISH_ROWS: list[Row] = [
    ("top twelve tasks", 12, False),
    ("top fifteen", 15, False),
    ("a couple of tasks", 2, False),
    ("give me a couple", 2, False),
    ("a couple more", 2, False),
    ("a dozen tasks", 12, False),
    ("give me a dozen", 12, False),
    ("half a dozen tasks", 6, False),
    ("a couple of days", None, False),
    ("give me everything", None, True),
    ("one please", 1, False),
    ("couple of tasks", 2, False),
    ("three urgent tasks", 3, False),
    ("pick me two easy ones", 2, False),
    ("1 or 2 tasks", 2, False),
    ("one of my tasks is called report", None, False),
    ("I have 3 overdue tasks", None, False),
    ("I need to finish 2 reports", None, False),
    ("I want 2 days off", None, False),
    ("limit to 2 hours", None, False),
    ("多来几个", None, False),
]

# A number naming the set looked into ("among some twenty tasks") is not a count asked for.
AMONG_ROWS: list[Row] = [
    ("三十来个待办里哪些最难", None, False),
    ("二十几个任务当中哪些要先做", None, False),
    ("十来条里面有没有逾期的", None, False),
    ("这五个里哪个最急", 1, False),
    ("五个任务中挑两个", 2, False),
    ("三个任务中午前要交", 3, False),
    ("前十个里挑一个", 1, False),
    ("前五条中来两个", 2, False),
    ("前十个里哪些最急", 10, False),  # nothing picked from the set: the set said is the count
    ("哪三个最急", 3, False),
    ("哪两件最重要", 2, False),
    ("哪几个最急", None, False),
]

TABLES: dict[str, list[Row]] = {
    "all_idiom": ALL_IDIOM_ROWS,
    "neutral": NEUTRAL_ROWS,
    "idiom_with_count": IDIOM_WITH_COUNT_ROWS,
    "approx": APPROX_ROWS,
    "large": LARGE_ROWS,
    "refine": REFINE_ROWS,
    "singular": SINGULAR_ROWS,
    "not_singular": NOT_SINGULAR_ROWS,
    "ordinal": ORDINAL_ROWS,
    "english": ENGLISH_ROWS,
    "among": AMONG_ROWS,
}
PROBES: list[tuple[str, str, int | None, bool]] = [
    (family, text, count, wants_all) for family, rows in TABLES.items() for text, count, wants_all in rows
]


@pytest.mark.parametrize(("family", "text", "count", "wants_all"), PROBES, ids=[p[1] for p in PROBES])
def test_probe(family: str, text: str, count: int | None, wants_all: bool) -> None:
    lock = extract_count(text)
    assert (lock.explicit, lock.wants_all) == (count, wants_all), family
    if count is not None:
        assert lock.phrase and lock.span is not None


def test_probe_table_is_large_and_unique() -> None:
    texts = [p[1] for p in PROBES]
    assert len(texts) >= 120
    assert len(set(texts)) == len(texts)


@pytest.mark.parametrize(
    ("text", "ordinal"),
    [
        ("第三个待办是啥", 3),
        ("倒数第二个", -2),
        ("倒数第一条什么时候截止", -1),
        ("第10个任务", 10),
        ("最后一个任务是什么", -1),
        ("the second one", 2),
        ("what is the last one", -1),
        ("the first one", 1),
        ("头一个", 1),
        ("最后那个", -1),
        ("the second to last task", -2),
        ("前三个里的第二个", 2),
        ("来两个", None),
    ],
)
def test_ordinal(text: str, ordinal: int | None) -> None:
    assert extract_count(text).ordinal == ordinal


@pytest.mark.parametrize(
    ("text", "approximate"),
    [
        ("二十来个", True),
        ("五个左右", True),
        ("大概三个", True),
        ("十几条", True),
        ("三个", False),
        ("前5条", False),
        ("3到5个", True),
    ],
)
def test_approximate_flag(text: str, approximate: bool) -> None:
    assert extract_count(text).approximate is approximate


# --- property: no idiom in the tables ever produces a count ----------------------------------------

_TEMPLATES_NO_COUNT = (
    "{idiom}",
    "{idiom}，明天有什么任务",
    "明天的任务{idiom}",
    "帮我{idiom}看看这周的待办",
    "{idiom}的任务有哪些",
    "这周要交的，{idiom}",
)
_TEMPLATES_WITH_COUNT = (
    "{idiom}，给我{n}个",
    "前{n}条，{idiom}",
    "{idiom}的任务里挑{n}个",
    "来{n}个，{idiom}",
    "top {n}，{idiom}",
    "{idiom}。列{n}条明天要交的",
)
_CN = ("一", "两", "三", "四", "五", "六", "七", "八", "九", "十")


@settings(max_examples=300, deadline=None)
@given(
    idiom=st.sampled_from(sorted(ALL_IDIOMS + NEUTRAL_IDIOMS)),
    template=st.sampled_from(_TEMPLATES_NO_COUNT),
)
def test_idiom_alone_never_locks(idiom: str, template: str) -> None:
    lock = extract_count(template.format(idiom=idiom))
    assert lock.explicit is None
    assert lock.wants_all is (idiom in ALL_IDIOMS)


@settings(max_examples=400, deadline=None)
@given(
    idiom=st.sampled_from(sorted(ALL_IDIOMS + NEUTRAL_IDIOMS)),
    template=st.sampled_from(_TEMPLATES_WITH_COUNT),
    n=st.integers(min_value=1, max_value=10),
    chinese=st.booleans(),
)
def test_real_count_beats_the_idiom(idiom: str, template: str, n: int, chinese: bool) -> None:
    said = _CN[n - 1] if chinese and not template.startswith("top") else str(n)
    lock = extract_count(template.format(idiom=idiom, n=said))
    assert lock.explicit == n
    assert not lock.wants_all
