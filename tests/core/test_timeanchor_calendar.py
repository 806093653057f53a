"""The Chinese calendar in time anchoring: statutory workdays and 调休, lunar dates, traditional
festivals, the 24 solar terms, holiday periods, X前/X那天, the beyond-data fallback, dialect day words.

Every case passes an explicit `now`. Notation: "YYYY-MM-DD" is that day's 00:00, a leading "e" is
23:59:59 of that day, "now" is the `now` passed, None is an open side. Expected lunar and solar-term
dates were cross-checked against a second library (lunardate) and the 2026 State Council notice.
"""

from __future__ import annotations

import subprocess
import sys
from datetime import date, datetime, time, timedelta
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.timeanchor import resolve_time

SH = ZoneInfo("Asia/Shanghai")


def at(day: str, hour: int = 10) -> datetime:
    return datetime.combine(date.fromisoformat(day), time(hour, 0), SH)


def _t(spec: str | None, now: datetime) -> datetime | None:
    if spec is None:
        return None
    if spec == "now":
        return now
    if spec.startswith("e"):
        return datetime.combine(date.fromisoformat(spec[1:]), time(23, 59, 59), SH)
    return datetime.combine(date.fromisoformat(spec), time(0, 0), SH)


def check(sentence: str, now_day: str, start: str | None, end: str | None) -> None:
    now = at(now_day)
    w = resolve_time(sentence, now, "Asia/Shanghai")
    assert w is not None, sentence
    assert (w.start, w.end) == (_t(start, now), _t(end, now)), (sentence, w)


# -- workdays: statutory holidays, makeup days (调休), the year boundary -------------------------
WORKDAYS = [
    ("下一个工作日要做的事", "2026-10-09", "2026-10-10", "e2026-10-10"),  # Fri → makeup Saturday
    ("下个工作日把报告交了", "2026-02-13", "2026-02-14", "e2026-02-14"),  # makeup Saturday before 春节
    ("下个工作日提醒我", "2026-09-30", "2026-10-08", "e2026-10-08"),  # over the National Day break
    ("下个工作日开会", "2026-06-18", "2026-06-22", "e2026-06-22"),  # over the 端午 break
    ("下个工作日", "2026-12-04", "2026-12-07", "e2026-12-07"),  # an ordinary weekend
    ("下个工作日要交什么", "2026-12-31", "2027-01-04", "e2027-01-04"),  # beyond the data: 元旦 + weekend
    ("上个工作日做了啥", "2026-10-08", "2026-09-30", "e2026-09-30"),
    ("3个工作日内回复", "2026-09-29", "now", "e2026-10-09"),  # 9/30, 10/8, 10/9
    ("两个工作日后交", "2026-10-09", "2026-10-12", "e2026-10-12"),  # 10/10 (makeup), 10/12
    ("5个工作日内", "2026-02-12", "now", "e2026-02-26"),  # 2/13, 2/14, 2/24, 2/25, 2/26
    ("3个交易日内", "2026-10-09", "now", "e2026-10-14"),  # exchanges close on makeup Saturdays
    ("节后第一天要做的", "2026-09-28", "2026-10-08", "e2026-10-08"),
    ("节后第一个工作日", "2026-10-03", "2026-10-08", "e2026-10-08"),
    ("节后再说吧", "2026-06-20", "2026-06-22", "e2026-06-22"),
    ("节后第一个工作日", "2026-12-01", "2027-01-04", "e2027-01-04"),  # next is 元旦 2027 (fallback)
    ("这周的工作日有什么", "2026-12-02", "2026-11-30", "e2026-12-04"),
    ("这周的工作日", "2026-10-06", "2026-10-08", "e2026-10-10"),  # 10/8, 10/9 and makeup 10/10
    ("下周的工作日", "2026-09-30", "2026-10-08", "e2026-10-10"),
    ("下下个工作日", "2026-09-10", "2026-09-14", "e2026-09-14"),
    ("上上个工作日", "2026-09-10", "2026-09-08", "e2026-09-08"),
    ("国庆节后第一个工作日", "2026-09-10", "2026-10-08", "e2026-10-08"),  # after the whole break
    ("中秋节后第一个工作日", "2026-09-10", "2026-09-28", "e2026-09-28"),
    ("国庆假期后第一天", "2026-11-30", "2027-10-08", "e2027-10-08"),  # conventional 10/1..10/7
    ("节前要做完的", "2026-09-10", "now", "e2026-09-24"),  # the eve of the 中秋 break
    ("节前", "2026-11-30", "now", "e2026-12-31"),  # the eve of 元旦 2027 (fallback)
    ("本周最后一个工作日", "2026-09-10", "2026-09-11", "e2026-09-11"),
    ("下周的最后一个工作日", "2026-09-10", "2026-09-20", "e2026-09-20"),  # a makeup Sunday
    ("下周第一个工作日", "2026-09-30", "2026-10-08", "e2026-10-08"),
    ("这个月最后一个工作日", "2026-09-10", "2026-09-30", "e2026-09-30"),
    ("下个工作日下午3点", "2026-10-09", "2026-10-10", None),  # checked separately below
]


@pytest.mark.parametrize(("sentence", "now", "start", "end"), [c for c in WORKDAYS if c[3] is not None])
def test_workdays(sentence: str, now: str, start: str, end: str) -> None:
    check(sentence, now, start, end)


def test_next_workday_composes_with_a_clock() -> None:
    w = resolve_time("下个工作日下午3点开会", at("2026-10-09"))
    assert w is not None and w.start == datetime(2026, 10, 10, 15, 0, tzinfo=SH)


@settings(max_examples=60, deadline=None)
@given(st.dates(min_value=date(2025, 1, 1), max_value=date(2026, 12, 20)))
def test_next_workday_is_the_first_statutory_workday(d: date) -> None:
    import chinese_calendar

    w = resolve_time("下个工作日", datetime.combine(d, time(9, 0), SH))
    assert w is not None and w.start is not None
    got = w.start.date()
    assert got > d and chinese_calendar.is_workday(got)
    assert not any(chinese_calendar.is_workday(d + timedelta(days=i)) for i in range(1, (got - d).days))


@settings(max_examples=60, deadline=None)
@given(st.dates(min_value=date(2025, 1, 1), max_value=date(2026, 11, 30)), st.integers(1, 9))
def test_n_workdays_later_counts_statutory_workdays(d: date, n: int) -> None:
    import chinese_calendar

    w = resolve_time(f"{n}个工作日后", datetime.combine(d, time(9, 0), SH))
    assert w is not None and w.start is not None
    got = w.start.date()
    assert chinese_calendar.is_workday(got)
    assert sum(chinese_calendar.is_workday(d + timedelta(days=i)) for i in range(1, (got - d).days + 1)) == n


@settings(max_examples=40, deadline=None)
@given(st.dates(min_value=date(2024, 1, 1), max_value=date(2030, 12, 31)))
def test_mid_autumn_is_the_next_lunar_8_15(d: date) -> None:
    from lunar_python import Solar

    w = resolve_time("中秋节", datetime.combine(d, time(9, 0), SH))
    assert w is not None and w.start is not None
    got = w.start.date()
    lunar = Solar.fromYmd(got.year, got.month, got.day).getLunar()
    assert (lunar.getMonth(), lunar.getDay()) == (8, 15)
    assert d <= got < d + timedelta(days=385)


# -- lunar dates (next occurrence unless a year is said) ----------------------------------------
LUNAR = [
    ("正月初八之前要完成的", "2026-11-30", "now", "e2027-02-13"),
    ("腊月二十三", "2026-11-30", "2027-01-30", "e2027-01-30"),
    ("农历八月十五有啥", "2026-11-30", "2027-09-15", "e2027-09-15"),
    ("腊月廿八回家", "2026-11-30", "2027-02-04", "e2027-02-04"),
    ("冬月初一", "2026-11-30", "2026-12-09", "e2026-12-09"),
    ("正月十五那天", "2026-11-30", "2027-02-20", "e2027-02-20"),
    ("农历2月2", "2026-11-30", "2027-03-09", "e2027-03-09"),
    ("阴历七月初七", "2026-11-30", "2027-08-08", "e2027-08-08"),
    ("农历十月初一", "2026-11-30", "2027-10-29", "e2027-10-29"),  # lunar 2026's has passed (11-09)
    ("2025年农历八月十五", "2026-11-30", "2025-10-06", "e2025-10-06"),
    ("腊月三十", "2026-11-30", "2027-02-05", "e2027-02-05"),  # a 29-day 腊月: its last day
    ("正月初八到正月十五", "2026-11-30", "2027-02-13", "e2027-02-20"),
]


@pytest.mark.parametrize(("sentence", "now", "start", "end"), LUNAR)
def test_lunar_dates(sentence: str, now: str, start: str, end: str) -> None:
    check(sentence, now, start, end)


# -- traditional festivals ------------------------------------------------------------------------
FESTIVALS = [
    ("春节", "2026-11-30", "2027-02-06"),
    ("除夕", "2026-11-30", "2027-02-05"),
    ("元宵节", "2026-11-30", "2027-02-20"),
    ("元宵", "2026-11-30", "2027-02-20"),
    ("龙抬头", "2026-11-30", "2027-03-09"),
    ("端午节", "2026-11-30", "2027-06-09"),
    ("端午", "2026-06-01", "2026-06-19"),
    ("七夕", "2026-06-01", "2026-08-19"),
    ("七夕节", "2026-11-30", "2027-08-08"),
    ("中元节", "2026-11-30", "2027-08-16"),
    ("中秋节", "2026-06-01", "2026-09-25"),
    ("中秋", "2026-11-30", "2027-09-15"),
    ("重阳节", "2026-11-30", "2027-10-08"),
    ("重阳", "2026-10-18", "2026-10-18"),  # said on the day itself
    ("腊八节", "2026-11-30", "2027-01-15"),
    ("腊八", "2026-11-30", "2027-01-15"),
    ("小年", "2026-11-30", "2027-01-30"),  # northern 小年: 腊月二十三
    ("2027年中秋节", "2026-11-30", "2027-09-15"),
    ("2025年中秋", "2026-11-30", "2025-10-06"),
    ("母亲节", "2026-11-30", "2027-05-09"),
    ("圣诞节", "2026-11-30", "2026-12-25"),
    ("平安夜", "2026-11-30", "2026-12-24"),
    ("情人节", "2026-11-30", "2027-02-14"),
]


@pytest.mark.parametrize(("phrase", "now", "day"), FESTIVALS)
def test_festivals(phrase: str, now: str, day: str) -> None:
    check(phrase + "有什么安排", now, day, "e" + day)


# -- the 24 solar terms: next occurrence from 2026-11-30 -------------------------------------------
TERMS = {
    "大雪": "2026-12-07", "冬至": "2026-12-22", "小寒": "2027-01-05", "大寒": "2027-01-20", "立春": "2027-02-04",
    "雨水": "2027-02-19", "惊蛰": "2027-03-06", "春分": "2027-03-21", "清明": "2027-04-05", "谷雨": "2027-04-20",
    "立夏": "2027-05-06", "小满": "2027-05-21", "芒种": "2027-06-06", "夏至": "2027-06-21", "小暑": "2027-07-07",
    "大暑": "2027-07-23", "立秋": "2027-08-08", "处暑": "2027-08-23", "白露": "2027-09-08", "秋分": "2027-09-23",
    "寒露": "2027-10-08", "霜降": "2027-10-23", "立冬": "2027-11-07", "小雪": "2027-11-22",
}  # fmt: skip


@pytest.mark.parametrize(("term", "day"), TERMS.items())
def test_solar_terms(term: str, day: str) -> None:
    check(f"{term}那天的安排", "2026-11-30", day, "e" + day)


def test_solar_terms_with_a_year_and_before() -> None:
    check("2026年清明", "2026-11-30", "2026-04-05", "e2026-04-05")
    check("冬至前要做的", "2026-11-30", "now", "e2026-12-22")
    check("立春之后", "2026-11-30", "2027-02-04", None)


@pytest.mark.parametrize(
    "sentence",
    [
        "季节前后变化大",
        "本章节后面",
        "吃元宵",
        "腊八粥怎么煮",
        "小年轻的想法",
        "外面在下大雪",
        "外面下小雪了",
        "雨水太多了",
        "头脑清明的时候写",
        "小满同学的作业",
        "节省时间",
        "白露的照片",
    ],
)
def test_solar_term_words_that_are_not_dates(sentence: str) -> None:
    assert resolve_time(sentence, at("2026-11-30")) is None


# -- statutory holiday periods -----------------------------------------------------------------------
PERIODS = [
    ("端午假期有什么安排", "2026-06-01", "2026-06-19", "e2026-06-21"),
    ("春节假期的任务", "2026-02-01", "2026-02-15", "e2026-02-23"),
    ("国庆假期", "2026-09-01", "2026-10-01", "e2026-10-07"),
    ("十一长假去哪", "2026-09-01", "2026-10-01", "e2026-10-07"),
    ("国庆黄金周", "2026-09-01", "2026-10-01", "e2026-10-07"),
    ("五一假期", "2026-04-10", "2026-05-01", "e2026-05-05"),
    ("劳动节假期", "2026-04-10", "2026-05-01", "e2026-05-05"),
    ("五一小长假", "2026-04-10", "2026-05-01", "e2026-05-05"),
    ("中秋假期", "2026-09-01", "2026-09-25", "e2026-09-27"),
    ("清明假期", "2026-03-01", "2026-04-04", "e2026-04-06"),
    ("元旦假期", "2025-12-01", "2026-01-01", "e2026-01-03"),
    ("国庆假期", "2026-10-03", "2026-10-01", "e2026-10-07"),  # the current one
    ("2025年国庆假期", "2026-11-30", "2025-10-01", "e2025-10-08"),  # 国庆 and 中秋 together
    ("国庆假期", "2026-11-30", "2027-10-01", "e2027-10-07"),  # beyond the data: conventional span
    ("春节假期", "2026-11-30", "2027-02-05", "e2027-02-12"),  # beyond the data: 除夕..初七
    ("端午假期", "2026-11-30", "2027-06-09", "e2027-06-09"),  # beyond the data: the festival day
    ("端午假期前要做完", "2026-06-01", "now", "e2026-06-18"),
    ("国庆节期间的安排", "2026-09-10", "2026-10-01", "e2026-10-07"),
    ("过年期间", "2026-01-20", "2026-02-15", "e2026-02-23"),
    ("明年春节假期", "2025-03-01", "2026-02-15", "e2026-02-23"),
    ("国庆假期后", "2026-09-01", "2026-10-08", None),
]


@pytest.mark.parametrize(("sentence", "now", "start", "end"), PERIODS)
def test_holiday_periods(sentence: str, now: str, start: str | None, end: str | None) -> None:
    check(sentence, now, start, end)


# -- relations --------------------------------------------------------------------------------------
RELATIONS = [
    ("七夕前要准备的", "2026-11-30", "now", "e2027-08-08"),
    ("重阳节那天有什么", "2026-11-30", "2027-10-08", "e2027-10-08"),
    ("中秋当天", "2026-11-30", "2027-09-15", "e2027-09-15"),
    ("元宵节之前", "2026-11-30", "now", "e2027-02-20"),
    ("腊八以后", "2026-11-30", "2027-01-15", None),
    ("母亲节之前要买的", "2026-11-30", "now", "e2027-05-09"),
    ("端午节以前", "2026-06-01", "now", "e2026-06-19"),
    ("小年之后", "2026-11-30", "2027-01-30", None),
    ("中秋节前一天", "2026-09-10", "2026-09-24", "e2026-09-24"),
    ("除夕前一天要买的", "2026-11-30", "2027-02-04", "e2027-02-04"),
    ("春节前两天", "2026-11-30", "2027-02-04", "e2027-02-04"),
    ("端午节后两天", "2026-06-01", "2026-06-21", "e2026-06-21"),
    ("国庆假期后一天", "2026-09-10", "2026-10-08", "e2026-10-08"),
    ("元宵节后一天", "2026-11-30", "2027-02-21", "e2027-02-21"),
]


@pytest.mark.parametrize(("sentence", "now", "start", "end"), RELATIONS)
def test_relations(sentence: str, now: str, start: str, end: str | None) -> None:
    check(sentence, now, start, end)


@pytest.mark.parametrize("sentence", ["中秋节晚上", "中秋那天晚上", "农历八月十五晚上"])
def test_festival_with_part_of_day(sentence: str) -> None:
    w = resolve_time(sentence, at("2026-11-30"))
    assert w is not None and (w.start, w.end) == (
        datetime(2027, 9, 15, 18, 0, tzinfo=SH),
        datetime(2027, 9, 15, 23, 59, 59, tzinfo=SH),
    )


# -- dialect day words ------------------------------------------------------------------------------
DIALECT = [
    ("后儿要交的", "2026-12-02"),
    ("后儿个开会", "2026-12-02"),
    ("前儿做了啥", "2026-11-28"),
    ("前儿个的任务", "2026-11-28"),
    ("大后儿要去", "2026-12-03"),
    ("明儿个", "2026-12-01"),
    ("明儿", "2026-12-01"),
    ("今儿个", "2026-11-30"),
    ("大后天", "2026-12-03"),
    ("大前天", "2026-11-27"),
]


@pytest.mark.parametrize(("sentence", "day"), DIALECT)
def test_dialect_day_words(sentence: str, day: str) -> None:
    check(sentence, "2026-11-30", day, "e" + day)


@pytest.mark.parametrize("sentence", ["放在跟前儿", "眼前儿的事"])
def test_dialect_traps(sentence: str) -> None:
    assert resolve_time(sentence, at("2026-11-30")) is None


# -- the rule note -------------------------------------------------------------------------------------
def test_notes_name_the_rule() -> None:
    w = resolve_time("下个工作日", at("2026-10-09"))
    assert w is not None and w.note is not None and "调休" in w.note and "10月10日" in w.note
    w = resolve_time("重阳节那天", at("2026-11-30"))
    assert w is not None and w.note == "重阳节 → 2027年10月8日（农历九月初九）"
    w = resolve_time("下个工作日", at("2026-12-31"))
    assert w is not None and w.note is not None and "2027年的放假安排尚未公布" in w.note
    w = resolve_time("端午假期", at("2026-06-01"))
    assert w is not None and w.note is not None and "6月19日" in w.note and "6月21日" in w.note
    w = resolve_time("大寒", at("2026-11-30"))
    assert w is not None and w.note is not None and "节气" in w.note
    w = resolve_time("下周三之前", at("2026-11-30"))
    assert w is not None and w.note is None
    assert hash(w) == hash(resolve_time("下周三之前", at("2026-11-30")))


def test_calendar_libraries_load_lazily() -> None:
    code = (
        "import sys; from datetime import datetime; from zoneinfo import ZoneInfo;"
        "import core.timeanchor as t;"
        "t.resolve_time('下周三之前', datetime(2026, 11, 30, 10, tzinfo=ZoneInfo('Asia/Shanghai')));"
        "print(any(m in sys.modules for m in ('chinese_calendar', 'lunar_python')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
