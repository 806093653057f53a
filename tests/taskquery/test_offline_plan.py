"""The offline planner: quadrants, time phrase, time field, completion, keyword, sort and count."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from taskquery.offline import offline_plan, offline_plan_followup, quadrants_from_text
from taskquery.plan import QueryPlan

NOW = datetime.fromisoformat("2026-11-30T10:00:00+08:00")  # a Monday
TZ = "Asia/Shanghai"
TOL = timedelta(minutes=2)


def _same(got: datetime | None, want: str | None) -> bool:
    if got is None or want is None:
        return got is None and want is None
    return abs(got - datetime.fromisoformat(want)) <= TOL


def _same_start(got: datetime | None, want: str | None) -> bool:
    # the scorer accepts a window that starts now instead of at today's midnight
    if _same(got, want):
        return True
    return want is not None and got is not None and _same(got, NOW.isoformat()) and want.endswith("T00:00:00+08:00")


def plan(sentence: str) -> QueryPlan:
    return offline_plan(sentence, NOW, TZ)


# --- dev-set cases (copied from the eval dev set; the tests never read it) --------------------

DEV_LIMIT_QUADRANTS: list[tuple[str, int | None, list[list[int] | None] | None]] = [
    ("来一个我的简单任务", 1, [[3]]),
    ("给我3个优先级低的任务", 3, [[3, 4], [4]]),
    ("前五个简单任务给我看看", 5, [[3]]),
    ("top 2 重要任务", 2, [[1, 2], [1]]),
    ("给我一些任务", None, None),
    ("前两天的任务", None, None),
    ("所有任务", None, None),
    ("明天到期的前2个任务", 2, None),
    ("重要不紧急的有哪些", None, [[2]]),
]


@pytest.mark.parametrize(("sentence", "limit", "quadrants_any"), DEV_LIMIT_QUADRANTS)
def test_dev_limit_and_quadrants(
    sentence: str, limit: int | None, quadrants_any: list[list[int] | None] | None
) -> None:
    p = plan(sentence)
    assert p.limit == limit
    if quadrants_any is not None:
        assert p.quadrants in quadrants_any


DEV_WINDOWS: list[tuple[str, list[str | None], list[str]]] = [
    (
        "后天截止的有哪些",
        ["2026-12-02T00:00:00+08:00"],
        ["2026-12-03T00:00:00+08:00", "2026-12-02T23:59:00+08:00"],
    ),
    (
        "这周要交什么",
        ["2026-11-30T00:00:00+08:00", "2026-11-30T10:00:00+08:00"],
        ["2026-12-07T00:00:00+08:00", "2026-12-06T23:59:00+08:00"],
    ),
    (
        "下周一有什么任务",
        ["2026-12-07T00:00:00+08:00"],
        ["2026-12-08T00:00:00+08:00", "2026-12-07T23:59:00+08:00"],
    ),
    ("过期没做的任务", [None], ["2026-11-30T10:00:00+08:00", "2026-11-30T00:00:00+08:00"]),
    (
        "明天到期的前2个任务",
        ["2026-12-01T00:00:00+08:00"],
        ["2026-12-02T00:00:00+08:00", "2026-12-01T23:59:00+08:00"],
    ),
]


@pytest.mark.parametrize(("sentence", "after_any", "before_any"), DEV_WINDOWS)
def test_dev_time_windows(sentence: str, after_any: list[str | None], before_any: list[str]) -> None:
    p = plan(sentence)
    assert p.time_text and p.time_text in sentence
    assert any(_same_start(p.time_after, a) if a else p.time_after is None for a in after_any)
    assert any(_same(p.time_before, b) for b in before_any)


def test_dev_overdue_excludes_completed() -> None:
    p = plan("过期没做的任务")
    assert p.include_completed is False
    assert p.time_text is not None and "过期" in p.time_text


def test_dev_completed() -> None:
    assert plan("完成了的任务").include_completed is True


def test_dev_keyword() -> None:
    assert plan("和合同相关的任务").keyword == "合同"


def test_time_only_question_keeps_all_quadrants() -> None:
    assert plan("这周要交什么").quadrants is None


# --- quadrants --------------------------------------------------------------------------------

QUADRANTS: list[tuple[str, list[int] | None]] = [
    ("简单的任务", [3]),
    ("来个轻松点的", [3]),
    ("有没有容易的", [3]),
    ("我很闲，给我点事做", [3, 4]),
    ("有空，有什么可以做的", [3, 4]),
    ("优先级低的", [3, 4]),
    ("低优先级任务", [3, 4]),
    ("不重要的任务", [3, 4]),
    ("不太重要的", [3, 4]),
    ("重要的任务", [1, 2]),
    ("关键任务有哪些", [1, 2]),
    ("重要不紧急的有哪些", [2]),
    ("重要但不紧急", [2]),
    ("重要且紧急的", [1]),
    ("又重要又紧急的任务", [1]),
    ("紧急的任务", [1]),
    ("有什么急事", [1]),
    ("不简单不重要的", [4]),
    ("简单不重要的", [3]),
    ("不重要但紧急的", [3]),
    ("不重要不紧急的", [4]),
    ("不紧急的任务", [2, 4]),
    ("不着急的", [2, 4]),
    ("第二象限的任务", [2]),
    ("最重要的任务", [1, 2]),
    ("这周要交什么", None),
    ("明天有什么任务", None),
    ("所有任务", None),
    ("不简单的任务", [4]),
    ("急诊挂号的事", None),
    ("有啥不那么急的", [2, 4]),
    ("有没有容易的", [3]),
    ("有什么紧要的", [1, 2]),
    ("比较要紧的任务", [1, 2]),
    ("无关紧要的", [3, 4]),
    ("手头上有什么急事", [1]),
    ("最不重要的", [3, 4]),
    ("有没有啥不费劲的", [3]),
    # more spoken priority words
    ("不费脑的任务", [3]),
    ("不用动脑的", [3]),
    ("没啥难度的", [3]),
    ("五分钟能搞定的", [3]),
    ("鸡毛蒜皮的事", [3]),
    ("零碎的任务", [3]),
    ("可做可不做的任务", [3, 4]),
    ("做不做都行的", [3, 4]),
    ("麻烦又没用的任务", [4]),
    ("没意义的任务", [3, 4]),
    ("难但不重要的", [4]),
    ("没那么难又不重要的", [3, 4]),
    ("难度不大的", [3]),
    ("最要命的任务", [1, 2]),
    ("累得要命", None),
    ("重中之重", [1, 2]),
    ("需要优先处理的", [1, 2]),
    ("可以缓缓的", [2, 4]),
    ("能往后推的", [2, 4]),
    ("不紧不慢的", [2, 4]),
    ("难道没有任务吗", None),
]


@pytest.mark.parametrize(("sentence", "expected"), QUADRANTS)
def test_quadrants(sentence: str, expected: list[int] | None) -> None:
    assert quadrants_from_text(sentence) == expected
    assert plan(sentence).quadrants == expected


# --- time field / completion ------------------------------------------------------------------

FIELDS: list[tuple[str, str, bool]] = [
    ("上周搞定了啥", "completed", True),
    ("今天的事做完了吗", "deadline", True),
    ("月底前得搞定哪些", "deadline", False),
    ("上周完成了哪些", "completed", True),
    ("昨天做完的任务", "completed", True),
    ("完成了的任务", "deadline", True),
    ("已完成的任务", "deadline", True),
    ("明天要完成的任务", "deadline", False),
    ("还没完成的任务", "deadline", False),
    ("最近新建的任务", "created", False),
    ("今天添加的任务", "created", False),
    ("昨天新加了哪些任务", "created", False),
    ("这周的任务，包括已完成的", "deadline", True),
    ("下周三之前的任务", "deadline", False),
    ("what did I finish yesterday", "completed", True),
    ("what did we get done last week", "completed", True),
    ("what did I do yesterday", "completed", True),
    ("what do I have to do tomorrow", "deadline", False),
    ("what do I need to finish by Friday", "deadline", False),
]


@pytest.mark.parametrize(("sentence", "field", "include_completed"), FIELDS)
def test_time_field_and_completion(sentence: str, field: str, include_completed: bool) -> None:
    p = plan(sentence)
    assert p.time_field == field
    assert p.include_completed is include_completed


def test_completed_last_week_is_a_past_window() -> None:
    p = plan("上周完成了哪些")
    assert p.time_text == "上周"
    assert p.time_before is not None and p.time_before <= NOW


# --- keyword ----------------------------------------------------------------------------------

KEYWORDS: list[tuple[str, str | None]] = [
    ("和合同相关的任务", "合同"),
    ("跟报销有关的", "报销"),
    ("关于报告的任务", "报告"),
    ("包含'周报'的任务", "周报"),
    ("包含“周报”的任务", "周报"),
    ("标题里有发票的任务", "发票"),
    ("叫周报的任务", "周报"),
    ("合同相关的任务有哪些", "合同"),
    ("明天有什么任务", None),
    ("简单的任务", None),
    ("给我3个优先级低的任务", None),
    ("包括已完成的任务", None),
    ("下周相关的任务", None),
    ("和客户A相关的前三个任务", "客户A"),
    ("名字里带报告的", "报告"),
    ("明天要交的报告", "报告"),
    ("明天要交的东西", None),
    ("跟王经理有关的任务", "王经理"),
    # a topic is searched for even where the word alone means "tasks" (issue 27: never all tasks unfiltered)
    ("和工作有关的任务", "工作"),
    ("关于工作的事", "工作"),
    ("工作方面的事情有哪些", "工作"),
    ("有什么工作要做", None),
    ("今天的工作", None),
]


@pytest.mark.parametrize(("sentence", "keyword"), KEYWORDS)
def test_keyword(sentence: str, keyword: str | None) -> None:
    assert plan(sentence).keyword == keyword


# --- sort -------------------------------------------------------------------------------------

SORTS: list[tuple[str, str, str]] = [
    ("最重要的三个任务", "priority", "asc"),
    ("优先级最高的任务", "priority", "asc"),
    ("按优先级列出本周任务", "priority", "asc"),
    ("最新添加的任务", "id", "desc"),
    ("最近新建的任务", "id", "desc"),
    ("截止最晚的任务", "deadline", "desc"),
    ("明天的任务", "deadline", "asc"),
]


@pytest.mark.parametrize(("sentence", "sort_by", "order"), SORTS)
def test_sort(sentence: str, sort_by: str, order: str) -> None:
    p = plan(sentence)
    assert (p.sort_by, p.order) == (sort_by, order)


COLLOQUIAL_TIME: list[tuple[str, str]] = [
    ("这礼拜有啥要忙的", "这礼拜"),
    ("下礼拜要交啥", "下礼拜"),
    ("明早九点前要交的东西", "明早九点前"),
    ("今晚有什么安排", "今晚"),
    ("这两天有啥要紧的", "这两天"),
    ("下周要交的前三个", "下周"),
    ("5号之前要交的3件事", "5号之前"),
]


@pytest.mark.parametrize(("sentence", "time_text"), COLLOQUIAL_TIME)
def test_time_text_is_the_phrase_verbatim(sentence: str, time_text: str) -> None:
    p = plan(sentence)
    assert p.time_text == time_text
    assert p.time_before is not None


def test_count_phrase_is_not_read_as_time() -> None:
    p = plan("前三个任务")
    assert p.limit == 3
    assert p.time_text is None


# --- follow-ups -------------------------------------------------------------------------------


def test_followup_more_keeps_filters_and_takes_new_count() -> None:
    p = offline_plan_followup("再来两个", "来一个我的简单任务", NOW, TZ)
    assert p.quadrants == [3]
    assert p.limit == 2


def test_followup_time_switch() -> None:
    p = offline_plan_followup("那下周的呢", "重要的任务有哪些", NOW, TZ)
    assert p.quadrants == [1, 2]
    assert p.time_text == "下周"


def test_followup_bare_more_keeps_previous_count() -> None:
    p = offline_plan_followup("还有吗", "给我3个简单任务", NOW, TZ)
    assert p.limit == 3
    assert p.quadrants == [3]


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=40))
def test_never_raises(text: str) -> None:
    p = offline_plan(text, NOW, TZ)
    assert p.quadrants is None or set(p.quadrants) <= {1, 2, 3, 4}


# --- probe set: plan fields for colloquial questions (own sentences, a regression suite) -----------
# Each entry names only the fields it checks. "win": None = no time window, "overdue" = the overdue
# filter, (after, before) = the anchored window (after may start at now instead of midnight).

_TODAY = ("2026-11-30T00:00:00+08:00", "2026-11-30T23:59:59+08:00")
_TOMORROW = ("2026-12-01T00:00:00+08:00", "2026-12-01T23:59:59+08:00")
_WEEK = ("2026-11-30T00:00:00+08:00", "2026-12-06T23:59:59+08:00")
_NEXT_MONTH = ("2026-12-01T00:00:00+08:00", "2026-12-31T23:59:59+08:00")
_WED = ("2026-12-02T00:00:00+08:00", "2026-12-02T23:59:59+08:00")
_SOON = ("2026-11-30T10:00:00+08:00", "2026-12-03T23:59:59+08:00")  # same as "3天内"
_LAST_WEEK = ("2026-11-23T00:00:00+08:00", "2026-11-29T23:59:59+08:00")

PROBE_PLANS: list[tuple[str, dict[str, object]]] = [
    ("还有哪些没做完的", {"inc": False, "win": None}),
    ("12月10号之后的安排", {"win": ("2026-12-10T00:00:00+08:00", None), "kw": None}),
    ("今天忙不忙", {"win": _TODAY}),
    ("这周的工作多吗", {"win": _WEEK, "kw": None}),
    ("任务清单", {"win": None, "q": None, "kw": None}),
    ("明天有会吗", {"win": _TOMORROW, "kw": "会"}),
    ("帮我查查下个月的计划", {"win": _NEXT_MONTH, "kw": None}),
    ("有什么是今天必须做完的", {"win": _TODAY, "inc": False}),
    ("哪些事拖了很久了", {"win": "overdue"}),
    ("我该先做哪个", {"sort": "priority", "win": None}),
    ("周报交了没", {"kw": "周报", "inc": True}),
    ("周三的会议是几点", {"kw": "会议", "win": _WED}),
    ("帮我安排一下明天", {"win": _TOMORROW}),
    ("我今天有点空，随便给我挑俩简单的活儿", {"win": None, "limit": 2, "q": [3]}),
    ("有没有快到期的任务", {"win": _SOON, "q": None}),
    ("快截止的有哪些", {"win": _SOON}),
    ("马上到期的任务", {"win": _SOON, "q": None}),
    ("即将到期的", {"win": _SOON}),
    ("临近截止的事情", {"win": _SOON}),
    ("快到deadline的", {"win": _SOON}),
    ("周末闲着没事，找点活干", {"win": None, "q": [3, 4]}),
    ("下午没事，有啥简单的可以做", {"win": None, "q": [3]}),
    ("今晚有空，给我找点事", {"win": None}),
    ("今儿个有啥要干的", {"win": _TODAY}),
    ("明儿有啥事不", {"win": _TOMORROW}),
    ("报告写完了没", {"kw": "报告", "inc": True}),
    ("房租交了吗", {"kw": "房租", "inc": True}),
    ("合同签了没有", {"kw": "合同", "inc": True}),
    ("下午的会几点开", {"kw": "会"}),
    ("明天几点开会来着", {"win": _TOMORROW, "kw": "会"}),
    ("哪个最急", {"sort": "priority", "q": [1]}),
    ("先干哪个好", {"sort": "priority"}),
    ("接下来该做什么", {"sort": "priority", "win": None}),
    ("现在该干啥", {"sort": "priority"}),
    ("拖了好久的那些", {"win": "overdue"}),
    ("有哪些已经超时了", {"win": "overdue"}),
    ("过了截止日期还没做的", {"win": "overdue"}),
    ("有没有逾期的", {"win": "overdue"}),
    ("这个月完成了多少", {"field": "completed", "inc": True}),
    ("昨天干了啥", {"field": "completed", "inc": True}),
    ("上周做完了几件", {"field": "completed", "limit": None, "win": _LAST_WEEK}),
    ("上礼拜完成的", {"field": "completed", "win": _LAST_WEEK}),
    ("最近加的几个任务", {"field": "created", "sort": "id", "limit": None}),
    ("今天新增了哪些待办", {"field": "created"}),
    ("给我来俩轻松的", {"limit": 2, "q": [3]}),
    ("挑三个重要的", {"limit": 3, "q": [1, 2]}),
    ("前3个最急的", {"limit": 3, "sort": "priority", "q": [1]}),
    ("无聊，有啥能做的", {"q": [3, 4]}),
    ("重要的事有几件", {"q": [1, 2], "limit": None}),
    ("不急的活有哪些", {"q": [2, 4]}),
    ("麻烦但不重要的那些", {"q": [4]}),
    ("紧急的都列出来", {"q": [1]}),
    ("跟客户有关的事", {"kw": "客户"}),
    ("有关于装修的任务吗", {"kw": "装修"}),
    ("带“发票”两个字的", {"kw": "发票"}),
    ("今天的事都做完了吗", {"win": _TODAY, "inc": True}),
    ("这周的活儿干完了没", {"win": _WEEK, "inc": True}),
    ("明天有神马任务", {"win": _TOMORROW, "kw": None}),
    ("还剩啥没做", {"inc": False, "win": None}),
    ("今天安排满了吗", {"win": _TODAY}),
    ("下个月有啥大事", {"win": _NEXT_MONTH, "kw": None}),
    ("月底之前要搞定的", {"inc": False}),
    ("今天要忙些什么", {"win": _TODAY, "kw": None}),
    # second round
    ("后天我有空吗", {"win": ("2026-12-02T00:00:00+08:00", "2026-12-02T23:59:59+08:00"), "q": None}),
    ("下周一的例会几点", {"kw": "例会"}),
    ("作业交了吗", {"kw": "作业", "inc": True}),
    ("老王的合同签了没", {"kw": "合同", "inc": True}),
    ("快过期的有哪些", {"win": _SOON}),
    ("下周快到期的", {"win": ("2026-12-07T00:00:00+08:00", "2026-12-13T23:59:59+08:00")}),
    ("周末有空，给我找两个轻松的", {"win": None, "limit": 2, "q": [3]}),
    ("今天下午没事，来一个简单点的", {"win": None, "limit": 1, "q": [3]}),
    ("今天有空的话，明天要交什么", {"win": _TOMORROW}),
    ("拖延了很久的事有哪些", {"win": "overdue"}),
    ("今天要做的都做完了吗", {"win": _TODAY, "inc": True, "kw": None}),
    ("上周干了些啥", {"field": "completed", "win": _LAST_WEEK}),
    ("给我排一下今天的优先级", {"sort": "priority", "win": _TODAY}),
    ("明天要完成的任务", {"inc": False, "field": "deadline"}),
]


def _check_probe(sentence: str, want: dict[str, object]) -> list[str]:
    from taskquery.steps import anchor_window

    p = plan(sentence)
    window = anchor_window(p, NOW, TZ)
    bad: list[str] = []
    if "win" in want:
        w = want["win"]
        if w is None:
            ok = window is None
        elif w == "overdue":
            ok = window is not None and window.overdue
        else:
            assert isinstance(w, tuple)
            ok = (
                window is not None
                and not window.overdue
                and _same_start(window.start, w[0])
                and (window.end is None if w[1] is None else _same(window.end, w[1]))
            )
        if not ok:
            bad.append(f"win={window}")
    checks = {
        "q": p.quadrants,
        "kw": p.keyword,
        "inc": p.include_completed or p.time_field == "completed",
        "sort": p.sort_by,
        "limit": p.limit,
        "field": p.time_field,
    }
    for key, got in checks.items():
        if key in want and got != want[key]:
            bad.append(f"{key}={got!r}")
    return bad


@pytest.mark.parametrize(("sentence", "want"), PROBE_PLANS)
def test_probe_plans(sentence: str, want: dict[str, object]) -> None:
    assert _check_probe(sentence, want) == []
