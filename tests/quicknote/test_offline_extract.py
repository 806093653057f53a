"""The offline quick-note extraction: title, time phrase, priority group and urgency threshold."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.timeanchor import deadline_of, resolve_time
from quicknote.offline import offline_extract_note

NOW = datetime.fromisoformat("2026-11-30T10:00:00+08:00")  # a Monday
TZ = "Asia/Shanghai"
TOL = timedelta(minutes=2)


def _deadline(time_text: str | None) -> datetime | None:
    """What the pipeline's time_anchor step does with the extracted phrase."""
    if time_text is None:
        return None
    window = resolve_time(time_text, NOW, TZ)
    assert window is not None, f"time_text {time_text!r} does not resolve on its own"
    return deadline_of(window)


# dev-set cases (copied; the tests never read the eval files)
DEV: list[tuple[str, list[str], list[str | None] | None]] = [
    (
        "记一下明天交周报",
        ["周报"],
        ["2026-12-01T23:59:00+08:00", "2026-12-01T00:00:00+08:00", "2026-12-01T18:00:00+08:00"],
    ),
    ("提醒我下周一上午10点开会", ["开会"], ["2026-12-07T10:00:00+08:00"]),
    ("添加待办：洗车", ["洗车"], [None]),
    ("帮我记个很重要的事：续签合同，月底前", ["合同"], None),
]


@pytest.mark.parametrize(("sentence", "title_has", "deadline_any"), DEV)
def test_dev_cases(sentence: str, title_has: list[str], deadline_any: list[str | None] | None) -> None:
    note = offline_extract_note(sentence, NOW, TZ)
    assert note.title and all(s in note.title for s in title_has)
    if deadline_any is not None:
        got = _deadline(note.time_text)
        assert any(
            (got is None and want is None)
            or (got is not None and want is not None and abs(got - datetime.fromisoformat(want)) <= TOL)
            for want in deadline_any
        )


TITLES: list[tuple[str, str | None, str | None]] = [
    ("帮我记一下明天下午三点交报告", "交报告", "明天下午三点"),
    ("提醒我下周一上午10点开会", "开会", "下周一上午10点"),
    ("添加待办：洗车", "洗车", None),
    ("帮我记个很重要的事：续签合同，月底前", "续签合同", "月底前"),
    ("记一下明天交周报", "交周报", "明天"),
    ("提醒我周五前把发票寄给财务", "把发票寄给财务", "周五前"),
    ("帮我加个任务：整理书架", "整理书架", None),
    ("别忘了给妈妈打电话", "给妈妈打电话", None),
    ("待办：买牛奶", "买牛奶", None),
    ("记一下：明天我要去医院复查", "去医院复查", "明天"),
    ("帮我记一下吧", None, None),
    ("帮我记一下", None, None),
    ("提醒我明天", None, "明天"),
    ("明天下午三点交报告", "交报告", "明天下午三点"),
    ("提醒我明天早上吃药", "吃药", "明天早上"),
    ("明早8点提醒我给妈妈打电话", "给妈妈打电话", "明早8点"),
    ("后天之前要把PPT做完，帮我记一下", "把PPT做完", "后天之前"),
    ("记个事，下下周二体检", "体检", "下下周二"),
    ("帮我记一下12月5号前交论文", "交论文", "12月5号前"),
    ("记住我下周要体检", "体检", "下周"),
    ("帮我添加一个任务：准备年会节目", "准备年会节目", None),
    ("记一下，有空的时候整理一下照片", "整理照片", None),
    ("下午三点开会，提醒我", "开会", "下午三点"),
]


@pytest.mark.parametrize(("sentence", "title", "time_text"), TITLES)
def test_title_and_time_text(sentence: str, title: str | None, time_text: str | None) -> None:
    note = offline_extract_note(sentence, NOW, TZ)
    assert note.title == title
    assert note.time_text == time_text


GROUPS: list[tuple[str, int]] = [
    ("帮我记一下明天下午三点交报告", 1),  # due within 48 h
    ("提醒我周五前把发票寄给财务", 2),  # due later
    ("添加待办：洗车", 2),  # no deadline, no words
    ("帮我记个很重要的事：续签合同，下个月底前", 2),  # important, not near
    ("帮我记一下，很重要，明天交合同", 1),  # important and near
    ("记一下，紧急：修复线上bug", 1),
    ("记一下尽快回复王总邮件", 1),
    ("顺手记个小事：买电池", 3),
    ("记一下，简单的事，扔垃圾", 3),
    ("记一下整理发票，麻烦但不重要", 4),
    ("记一下下周整理相册，不重要", 3),
    ("记一下写年终总结，不急", 2),
    ("记一下，有空的时候整理一下照片", 3),
    ("帮我记一下今天必须交周报", 1),
    ("记下来：周三前给客户回邮件，挺急的", 1),
    ("记一下：月底前做完年度总结，很麻烦但不重要", 4),
    ("记一下下周五前交房租，周三开始要紧", 2),  # "要紧" here is the threshold, not importance
]


@pytest.mark.parametrize(("sentence", "group"), GROUPS)
def test_priority_groups(sentence: str, group: int) -> None:
    note = offline_extract_note(sentence, NOW, TZ)
    assert note.priority_group == group
    assert note.priority_reason


THRESHOLDS: list[tuple[str, str | None]] = [
    ("记一下下周五前交房租，周三开始要紧", "周三"),
    ("记一下明天交周报", None),
]


@pytest.mark.parametrize(("sentence", "threshold"), THRESHOLDS)
def test_urgency_threshold(sentence: str, threshold: str | None) -> None:
    note = offline_extract_note(sentence, NOW, TZ)
    assert note.urgency_threshold_text == threshold
    if threshold is not None:
        assert note.title and threshold not in note.title


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("提醒我周五下午3点交报告，提前一天提醒我", "2026-12-03T15:00:00+08:00"),
        ("记一下明天下午三点开会，提前两小时提醒我", "2026-12-01T13:00:00+08:00"),
    ],
)
def test_lead_threshold_becomes_an_absolute_phrase(sentence: str, expected: str) -> None:
    note = offline_extract_note(sentence, NOW, TZ)
    assert note.urgency_threshold_text is not None
    window = resolve_time(note.urgency_threshold_text, NOW, TZ)
    assert window is not None and window.start is not None
    assert abs(window.start - datetime.fromisoformat(expected)) <= TOL
    assert note.title and "提前" not in note.title


def test_lead_threshold_without_deadline_is_left_to_the_default() -> None:
    assert offline_extract_note("记一下交报告，提前一天提醒我", NOW, TZ).urgency_threshold_text is None


def test_threshold_phrase_is_not_taken_as_the_deadline() -> None:
    note = offline_extract_note("记一下下周五前交房租，周三开始要紧", NOW, TZ)
    assert note.title == "交房租"
    assert note.time_text == "下周五前"


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=40))
def test_never_raises(text: str) -> None:
    note = offline_extract_note(text, NOW, TZ)
    assert 1 <= note.priority_group <= 4
    assert note.title is None or note.title.strip()
