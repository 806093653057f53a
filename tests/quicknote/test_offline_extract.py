"""The offline quick-note extraction: title, time phrase, priority group and urgency threshold."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.timeanchor import deadline_of, resolve_time
from quicknote.offline import offline_extract_note
from support.harness import Harness

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
    # a due-word after the time phrase goes with it, not into the title
    ("帮我记一下，下周三截止的设计稿要交", "设计稿要交", "下周三"),
    ("记一下 周五到期的信用卡还款", "信用卡还款", "周五"),
    ("记一下 周五为止交齐材料", "交齐材料", "周五为止"),
    # counts and numbered places inside a title stay
    ("加个待办：买两斤苹果", "买两斤苹果", None),
    ("加个待办：去5号楼取快递", "去5号楼取快递", None),
    ("记一下：明天开3个会", "开3个会", "明天"),
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


# --- time phrases the resolver cannot (fully) account for: handed on verbatim, no deadline --------

UNCLEAR_TIMES: list[tuple[str, str, str]] = [
    # (sentence, time_text, title)
    ("帮我记一下2月30日交报告", "2月30日", "交报告"),  # impossible day: resolver reads nothing
    ("帮我记一下下个闰月交报告", "下个闰月", "交报告"),  # unknown phrase
    ("帮我记一下13月5日交报告", "13月5日", "交报告"),  # resolver would read only "5日"
    ("帮我记一下明天25点交报告", "明天25点", "交报告"),  # resolver would read only "明天"
    ("记一下十三月五号交报告", "十三月五号", "交报告"),
    ("记一下32号交报告", "32号", "交报告"),
    ("记一下25点交报告", "25点", "交报告"),
    ("记一下明天3点75分交报告", "明天3点75分", "交报告"),
    ("记一下下下下个月交报告", "下下下个月", "交报告"),  # one 下 more than the resolver knows
    ("记一下大大大后天交报告", "大大大后天", "交报告"),
    ("记一下2月30日前交报告", "2月30日前", "交报告"),
]


@pytest.mark.parametrize(("sentence", "time_text", "title"), UNCLEAR_TIMES)
def test_unclear_time_is_handed_on_verbatim(sentence: str, time_text: str, title: str) -> None:
    note = offline_extract_note(sentence, NOW, TZ)
    assert note.time_text == time_text
    assert time_text in sentence
    assert note.deadline_at is None
    assert note.title == title
    # The resolver cannot read the whole phrase: either nothing, or only a part of it.
    window = resolve_time(time_text, NOW, TZ)
    assert window is None or window.phrase != time_text


VALID_TIMES: list[tuple[str, str, str, str]] = [
    # no-regression neighbours: (sentence, time_text, title, deadline)
    ("记一下2月28日交报告", "2月28日", "交报告", "2027-02-28T23:59:59+08:00"),
    ("记一下12月31日交报告", "12月31日", "交报告", "2026-12-31T23:59:59+08:00"),
    ("记一下明天23点交报告", "明天23点", "交报告", "2026-12-01T23:00:00+08:00"),
    ("记一下明天24点交报告", "明天24点", "交报告", "2026-12-02T00:00:00+08:00"),
    ("记一下12月5日下午3点半交报告", "12月5日下午3点半", "交报告", "2026-12-05T15:30:00+08:00"),
    ("记一下下下个月交报告", "下下个月", "交报告", "2027-01-31T23:59:59+08:00"),
    ("记一下大后天交报告", "大后天", "交报告", "2026-12-03T23:59:59+08:00"),
    ("记一下明天5号楼开会", "明天", "5号楼开会", "2026-12-01T23:59:59+08:00"),  # a place, not a day
    ("帮我记一下12月5号前交论文", "12月5号前", "交论文", "2026-12-05T23:59:59+08:00"),
]


@pytest.mark.parametrize(("sentence", "time_text", "title", "deadline"), VALID_TIMES)
def test_valid_time_still_resolves(sentence: str, time_text: str, title: str, deadline: str) -> None:
    note = offline_extract_note(sentence, NOW, TZ)
    assert note.time_text == time_text
    assert note.title == title
    assert _deadline(note.time_text) == datetime.fromisoformat(deadline)
    assert note.deadline_at == datetime.fromisoformat(deadline)


# --- everyday moments and vague near-future words (core.timeanchor): out of the title, a deadline --

EVERYDAY: list[tuple[str, str, str | None, str | None]] = [
    # (sentence, title, time_text, deadline) — NOW is Monday 10:00
    ("下班前回复客户邮件", "回复客户邮件", "下班前", "2026-11-30T18:00:00+08:00"),
    ("记一下明天下班前交周报", "交周报", "明天下班前", "2026-12-01T18:00:00+08:00"),
    ("提醒我上班前带钥匙", "带钥匙", "上班前", "2026-12-01T09:00:00+08:00"),  # today's 09:00 has passed
    ("提醒我下班后买两斤苹果", "买两斤苹果", "下班后", "2026-11-30T23:59:59+08:00"),
    ("睡前记得吃药", "吃药", "睡前", "2026-11-30T23:00:00+08:00"),
    ("一会儿给老王回电话", "给老王回电话", "一会儿", "2026-11-30T23:59:59+08:00"),
    ("记一下待会儿给老王回电话", "给老王回电话", "待会儿", "2026-11-30T23:59:59+08:00"),
    ("记一下晚点给妈妈打电话", "给妈妈打电话", "晚点", "2026-11-30T23:59:59+08:00"),
    ("过两天去拿快递", "去拿快递", "过两天", "2026-12-02T23:59:59+08:00"),
    ("记一下过几天去拿快递", "去拿快递", "过几天", "2026-12-03T23:59:59+08:00"),
    ("再过三天交报告", "交报告", "再过三天", "2026-12-03T23:59:59+08:00"),
    ("记一下一年内考下驾照", "考下驾照", "一年内", "2027-11-30T23:59:59+08:00"),
    ("记一下半年内读完十本书", "读完十本书", "半年内", "2027-05-30T23:59:59+08:00"),
    # no commitment to a time: no deadline, and the words stay in the title
    ("记一下改天请老王吃饭", "改天请老王吃饭", None, None),
    ("回头整理一下照片", "回头整理照片", None, None),
    ("给孩子讲睡前故事", "给孩子讲睡前故事", None, None),
]


@pytest.mark.parametrize(("sentence", "title", "time_text", "deadline"), EVERYDAY)
def test_everyday_time_words(sentence: str, title: str, time_text: str | None, deadline: str | None) -> None:
    note = offline_extract_note(sentence, NOW, TZ)
    assert (note.title, note.time_text) == (title, time_text)
    want = None if deadline is None else datetime.fromisoformat(deadline)
    assert _deadline(note.time_text) == want
    assert note.deadline_at == want


# --- priority labels are not part of the title ---------------------------------------------------

LABELS: list[tuple[str, str, int]] = [
    ("帮我记一下很重要：明天下午三点交报告", "交报告", 1),
    ("帮我记一下不重要但很麻烦的事：整理旧照片", "整理旧照片", 4),
    ("帮我记一下整理旧照片，不重要但很麻烦", "整理旧照片", 4),
    ("记一下简单的小事：给绿萝浇水", "给绿萝浇水", 3),
    ("顺手把快递拿了", "把快递拿了", 3),
    ("记一下顺便把垃圾扔了吧", "把垃圾扔了", 3),
    ("重要又紧急的事：续签合同", "续签合同", 1),
    ("记一下，紧急：修复线上bug", "修复线上bug", 1),
    ("紧急：今天下班前回复客户邮件", "回复客户邮件", 1),  # "今天下班前" is the time phrase
    # neighbours: label words inside a title stay
    ("记一下把字体调小", "把字体调小", 2),
    ("记一下买小米手机", "买小米手机", 2),
    ("记一下解决难题", "解决难题", 2),
    ("记一下得交房租了", "交房租", 2),
    # more label words: priority levels, idioms
    ("记一下，可做可不做：整理相册", "整理相册", 3),
    ("记一下，优先级低：整理相册", "整理相册", 3),
    ("记一下 交报告，优先级高", "交报告", 2),
    ("记一下，无所谓的事：换手机壳", "换手机壳", 3),
    ("记一下 换手机壳，无关紧要", "换手机壳", 3),
    ("记一下 头等大事：交报告", "交报告", 2),
    ("后天之前要把PPT做完了，帮我记一下", "把PPT做完", 2),
]


@pytest.mark.parametrize(("sentence", "title", "group"), LABELS)
def test_priority_labels_are_not_the_title(sentence: str, title: str, group: int) -> None:
    note = offline_extract_note(sentence, NOW, TZ)
    assert note.title == title
    assert note.priority_group == group


# --- decisions: "after X" is not a deadline; a past deadline is kept as said ----------------------


@pytest.mark.parametrize(
    ("sentence", "title"),
    [
        ("12月5号以后去体检", "去体检"),
        ("记一下12月5号之后去体检", "去体检"),
        ("记一下12月5号起去体检", "去体检"),
        ("记一下从下周开始健身", "健身"),
    ],
)
def test_open_ended_start_is_not_a_deadline(sentence: str, title: str) -> None:
    note = offline_extract_note(sentence, NOW, TZ)
    assert note.title == title
    assert note.time_text is None
    assert note.deadline_at is None
    assert note.urgency_threshold_text is None
    assert note.priority_group == 2


@pytest.mark.parametrize(
    ("sentence", "time_text", "deadline"),
    [
        ("昨天交报告", "昨天", "2026-11-29T23:59:59+08:00"),
        ("记一下今天上午九点交报告", "今天上午九点", "2026-11-30T09:00:00+08:00"),
    ],
)
def test_past_deadline_is_kept_as_said(sentence: str, time_text: str, deadline: str) -> None:
    note = offline_extract_note(sentence, NOW, TZ)
    assert note.title == "交报告"
    assert note.time_text == time_text
    assert _deadline(note.time_text) == datetime.fromisoformat(deadline)
    assert (note.priority_group, note.priority_reason) == (1, "截止时间已过")


# --- the same decisions through the pipeline (router → graph → database) --------------------------


async def test_pipeline_open_ended_start_writes_no_deadline(harness: Harness) -> None:
    answer = await harness.ask("帮我记一下12月5号以后去体检")
    assert answer.visible == "好，已记下：去体检（重要不紧急）"


async def test_pipeline_past_deadline_is_written_overdue(harness: Harness) -> None:
    answer = await harness.ask("帮我记一下昨天交报告")
    assert answer.visible == "好，已记下：交报告（重要且紧急；截止 11月29日 周日 23:59）"


async def test_pipeline_unresolvable_time_is_asked_about(harness: Harness) -> None:
    answer = await harness.ask("帮我记一下2月30日交报告")
    assert "「2月30日」具体是什么时候？" in answer.content
    assert "我还没记下「交报告」" in answer.content


# --- English quick notes: lead-ins and the whole time phrase leave the title ------------------------
ENGLISH: list[tuple[str, str | None, str | None, str | None]] = [
    ("remind me to call mom tomorrow at 8pm", "call mom", "tomorrow at 8pm", "2026-12-01T20:00:00+08:00"),
    ("remind me to call mom at 8pm tomorrow", "call mom", "at 8pm tomorrow", "2026-12-01T20:00:00+08:00"),
    ("Remind me to call mom, tomorrow at 8pm.", "call mom", "tomorrow at 8pm", "2026-12-01T20:00:00+08:00"),
    ("don't forget to submit the report by Friday", "submit the report", "by Friday", "2026-12-04T23:59:59+08:00"),
    ("add a task: book flights next Monday 10am", "book flights", "next Monday 10am", "2026-12-07T10:00:00+08:00"),
    ("add a task to renew passport on Dec 5", "renew passport", "on Dec 5", "2026-12-05T23:59:59+08:00"),
    ("todo: buy milk tonight", "buy milk", "tonight", "2026-11-30T23:59:59+08:00"),
    ("note: dentist on Dec 5 at 3pm", "dentist", "on Dec 5 at 3pm", "2026-12-05T15:00:00+08:00"),
    ("I need to finish the slides by Friday", "finish the slides", "by Friday", "2026-12-04T23:59:59+08:00"),
    ("I have to pay rent tomorrow", "pay rent", "tomorrow", "2026-12-01T23:59:59+08:00"),
    ("please call the plumber tomorrow morning", "call the plumber", "tomorrow morning", "2026-12-01T11:59:59+08:00"),
    ("Please remind me to water the plants", "water the plants", None, None),
    ("remind me to call mom tomorrow at 8pm about the trip", "call mom about the trip", "tomorrow at 8pm",
     "2026-12-01T20:00:00+08:00"),
    ("remind me to call mom tomorrow at 8pm please", "call mom", "tomorrow at 8pm", "2026-12-01T20:00:00+08:00"),
    ("remind me to check in at the hotel tomorrow", "check in at the hotel", "tomorrow", "2026-12-01T23:59:59+08:00"),
    ("todo: buy milk", "buy milk", None, None),
    ("remind me to", None, None, None),
    ("i need to", None, None, None),
]  # fmt: skip


@pytest.mark.parametrize(("sentence", "title", "time_text", "deadline"), ENGLISH)
def test_english_notes(sentence: str, title: str | None, time_text: str | None, deadline: str | None) -> None:
    note = offline_extract_note(sentence, NOW, TZ)
    assert (note.title, note.time_text) == (title, time_text)
    assert _deadline(note.time_text) == (datetime.fromisoformat(deadline) if deadline else None)
    assert note.deadline_at == (datetime.fromisoformat(deadline) if deadline else None)


# A trailing priority remark on a timed 把-imperative stays out of the title and sets the group.
@pytest.mark.parametrize(
    ("sentence", "title", "time_text", "group"),
    [
        ("这周内把PPT做完，挺重要的", "把PPT做完", "这周内", 2),
        ("月底前把合同签了，很急", "把合同签了", "月底前", 1),
        ("周五前把报告交了", "把报告交了", "周五前", 2),
        ("明天把车洗了", "把车洗了", "明天", 1),
    ],
)
def test_ba_imperative_with_remark(sentence: str, title: str, time_text: str, group: int) -> None:
    note = offline_extract_note(sentence, NOW, TZ)
    assert (note.title, note.time_text, note.priority_group) == (title, time_text, group)
