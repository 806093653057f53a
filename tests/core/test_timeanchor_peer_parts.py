"""Peer probes (chrono-style zh-Hans): parts of a year or month, lunar dates, odd dates, clock times
said the Chinese way, and words that look like dates but are names.

Conventions checked here (see core/timeanchor/point.py):
* the Nth week of a month or a year is its days 7N-6..7N ("九月的第三周" = 9/15..9/21, "2021年的第一周"
  = 1/1..1/7), the same rule the month's nth_week always had; "最后一周" is the last 7 days;
* "十月第一个星期一" is the first Monday inside October; "最后一个周五" the last Friday of the month;
* "明年第九个月" is September; "第一季度的第一个月" January; "年初三个月" January..March;
* a month with 初一..初十 is a lunar date ("三月初一"), and so is any date after 农历/阴历 ("农历三月三");
  "农历2015年十月初一" is lunar year 2015's tenth month;
* "07年以后" is the year 2007 on, not seven years later; "2月29日" without a year is the next Feb 29
  that exists (the last one, for a past question); "2019年2月29日" is no date at all;
* 《…》 / 「…」 names keep their words; 今日/明日/昨日 directly before a noun-only continuation (今日头条)
  is a name, not a day.

Run `PYTHONPATH=tests python tests/core/test_timeanchor_peer_parts.py` for per-kind counts.
"""

from __future__ import annotations

from datetime import date, datetime, time, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.timeanchor import resolve_time
from core.timeanchor.chinacal import lunar_to_solar
from support.timeprobe import PAST, SH, TRAP, P, Probe, params, probe_ok, report

Y, M, L, D, C, T = "part_of_year", "part_of_month", "lunar", "odd_date", "clock_zh", "trap"

PROBES: list[Probe] = [
    # -- parts of a year -------------------------------------------------------------------------
    PAST("2021年的第一周完成了什么", "A", "2021-01-01", "e2021-01-07", kind=Y),
    PAST("今年第一周我都做了啥", "G", "2026-01-01", "e2026-01-07", kind=Y),
    P("明年第二周有哪些任务", "A", "2027-01-08", "e2027-01-14", kind=Y),
    P("明年第九个月有什么要做的", "A", "2027-09-01", "e2027-09-30", kind=Y),
    PAST("去年第三个月完成了哪些", "G", "2025-03-01", "e2025-03-31", kind=Y),
    PAST("去年的前10天完成了什么", "A", "2025-01-01", "e2025-01-10", kind=Y),
    P("今年的最后10天要做完什么", "A", "12-22", "e12-31", kind=Y),
    P("今年后半年有什么要做的", "A", "2026-07-01", "e2026-12-31", kind=Y),
    PAST("今年前半年完成了什么", "G", "2026-01-01", "e2026-06-30", kind=Y),
    P("明年后半年的计划有哪些", "C", "2027-07-01", "e2027-12-31", kind=Y),
    P("今年最后一周有什么安排", "A", "12-25", "e12-31", kind=Y),
    PAST("去年最后一周完成了哪些任务", "F", "2026-12-25", "e2026-12-31", kind=Y),
    P("明年第一季度的第一个月有哪些任务", "A", "2027-01-01", "e2027-01-31", kind=Y),
    P("下季度的第二个月要交什么", "A", "2027-02-01", "e2027-02-28", kind=Y),
    PAST("本季度第一个月完成了什么", "G", "2026-07-01", "e2026-07-31", kind=Y),
    PAST("年初三个月完成了什么", "A", "2026-01-01", "e2026-03-31", kind=Y),
    P("年底两个月有什么要做的", "G", "2026-11-01", "e2026-12-31", kind=Y),
    P("明年年初两个月的任务", "A", "2027-01-01", "e2027-02-28", kind=Y),
    P("明年的第一天要做什么", "A", "2027-01-01", "e2027-01-01", kind=Y),
    P("2028年第60天有什么安排", "D", "2028-02-29", "e2028-02-29", kind=Y),
    # -- parts of a month ------------------------------------------------------------------------
    P("十月第一个星期一要交什么", "A", "2027-10-04", "e2027-10-04", kind=M),
    PAST("本月第二个周五开了什么会", "A", "11-13", "e11-13", kind=M),
    P("本月第五个周一有什么安排", "A", "11-30", "e11-30", kind=M),
    P("十二月第三个星期天要做什么", "A", "12-20", "e12-20", kind=M),
    P("下个月第一个周一要做什么", "C", "2027-01-04", "e2027-01-04", kind=M),
    PAST("2月最后一个星期五完成了什么", "D", "2028-02-25", "e2028-02-25", kind=M),
    P("这个月最后一个礼拜三要交什么", "G", "07-29", "e07-29", kind=M),
    P("下个月的第二个周六有什么活动", "H", "04-11", "e04-11", kind=M),
    P("下个月的最后一天要做什么", "A", "12-31", "e12-31", kind=M),
    P("本月最后一天要交什么", "D", "2028-02-29", "e2028-02-29", kind=M),
    P("下个月的第一天有什么安排", "C", "2027-01-01", "e2027-01-01", kind=M),
    P("下个月第10天要做什么", "A", "12-10", "e12-10", kind=M),
    P("第二个周五有什么安排", "A", "12-11", "e12-11", kind=M),
    PAST("第二个周五完成了什么", "A", "11-13", "e11-13", kind=M),
    P("最后一个周五要交什么", "G", "07-31", "e07-31", kind=M),
    PAST("九月的第三周完成了什么", "A", "09-15", "e09-21", kind=M),
    P("下个月第二周有什么任务", "A", "12-08", "e12-14", kind=M),
    P("本月最后一周有什么要做的", "G", "07-25", "e07-31", kind=M),
    P("下个月的前三天要做什么", "A", "12-01", "e12-03", kind=M),
    PAST("上个月最后5天完成了什么", "H", "02-24", "e02-28", kind=M),
    # -- lunar dates ---------------------------------------------------------------------------
    P("三月初一有什么安排", "A", "2027-04-07", "e2027-04-07", kind=L),
    PAST("八月初三完成了什么", "A", "2026-09-13", "e2026-09-13", kind=L),
    P("十一月初八要办的事", "A", "12-16", "e12-16", kind=L),
    P("五月初五之前要做完什么", "A", "now", "e2027-06-09", kind=L),
    PAST("农历2015年十月初一那天做了什么", "A", "2015-11-12", "e2015-11-12", kind=L),
    P("农历2026年腊月二十八要做什么", "A", "2027-02-04", "e2027-02-04", kind=L),
    P("农历三月三要去踏青", "A", "2027-04-09", "e2027-04-09", kind=L),
    P("阴历八月十五有什么安排", "A", "2027-09-15", "e2027-09-15", kind=L),
    P("腊月二十三要做什么", "C", "2027-01-30", "e2027-01-30", kind=L),
    P("正月十五有什么要做的", "F", "2027-02-20", "e2027-02-20", kind=L),
    P("农历十月初十有啥安排", "A", "2027-11-07", "e2027-11-07", kind=L),
    P("三月初要交什么", "A", "2027-03-01", "e2027-03-05", kind=L),
    # -- odd dates -------------------------------------------------------------------------------
    PAST("07年以后完成了什么", "A", "2007-01-01", None, kind=D),
    PAST("零八年以后做过哪些项目", "A", "2008-01-01", None, kind=D),
    # a count, not the year 2003 (the window is relative.offset_span's, not this table's business)
    P("3年以后要做什么", "A", "2029-01-01", None, ("2029-11-30", None), kind=D),
    P("2月29日有什么要做的", "A", "2028-02-29", "e2028-02-29", kind=D),
    P("2月29号要交什么", "D", "2028-02-29", "e2028-02-29", kind=D),
    PAST("2月29日完成了什么", "A", "2024-02-29", "e2024-02-29", kind=D),
    P("2028年2月29日有什么安排", "A", "2028-02-29", "e2028-02-29", kind=D),
    P("七月五号晚有什么安排", "A", "2027-07-05 18:00", "e2027-07-05", kind=D),
    P("周四晚要做什么", "A", "12-03 18:00", "e12-03", kind=D),
    P("三十号有什么要做的", "A", "11-30", "e11-30", kind=D),
    P("三十号要交什么", "B", "12-30", "e12-30", kind=D),
    P("三十号有啥任务", "D", "2028-03-30", "e2028-03-30", kind=D),
    P("周四下午有什么会", "A", "12-03 13:00", "12-03 17:59:59", kind=D),
    # -- clock times said the Chinese way --------------------------------------------------------
    P("九点零五分开会", "A", "12-01 09:05", "12-01 09:05:59", kind=C),
    P("下午三点一刻要做什么", "A", "11-30 15:15", "11-30 15:15:59", kind=C),
    P("中午12点半有什么安排", "A", "11-30 12:30", "11-30 12:30:59", kind=C),
    P("晚上十点零八分要做什么", "A", "11-30 22:08", "11-30 22:08:59", kind=C),
    P("明天上午6点13分要做什么", "A", "12-01 06:13", "12-01 06:13:59", kind=C),
    P("今天5点至8点有什么安排", "A", "11-30 17:00", "11-30 20:00:59", ("11-30 17:00", "11-30 20:59:59"), kind=C),
    P("明天下午3点开什么会", "A", "12-01 15:00", "12-01 15:59:59", kind=C),
    P("2026年12月3号下午三点半要做什么", "A", "12-03 15:30", "12-03 15:30:59", kind=C),
    # -- traps: names and words that are no time -------------------------------------------------
    TRAP("2019年2月29日完成了什么", "A", prefer="past", kind=T),
    TRAP("2月30日有什么要做的", "A", kind=T),
    TRAP("《明日之后》什么时候更新", "A", kind=T),
    TRAP("「昨日青空」的观后感写了吗", "A", kind=T),
    TRAP("今日头条的稿子写了吗", "A", kind=T),
    TRAP("明日方舟的活动任务有哪些", "A", kind=T),
    TRAP("初一的数学作业有哪些", "A", kind=T),
    TRAP("第一个月的工资还没发", "A", kind=T),
    TRAP("住一晚要多少钱", "A", kind=T),
    P("今日开会的材料有哪些", "A", "11-30", "e11-30", kind=T),
    P("明日交报告有哪些", "A", "12-01", "e12-01", kind=T),
    P("《明日之后》的更新明天要做完", "A", "12-01", "e12-01", kind=T),
]


@pytest.mark.parametrize("probe", params(PROBES))
def test_probe(probe: Probe) -> None:
    ok, why = probe_ok(probe)
    assert ok, why


# -- properties ---------------------------------------------------------------------------------

_CN = "一二三四五六七八九十"
_WD = "一二三四五六日"
NOW = datetime(2026, 11, 30, 10, 0, tzinfo=SH)


def _cn_month(m: int) -> str:
    return _CN[m - 1] if m <= 10 else "十" + _CN[m - 11]


@settings(max_examples=60, deadline=None)
@given(m=st.integers(1, 12), n=st.integers(1, 4), wd=st.integers(0, 6), chinese=st.booleans())
def test_nth_weekday_lands_in_month(m: int, n: int, wd: int, chinese: bool) -> None:
    """ "M月第N个星期X" is weekday X inside month M, the Nth of them."""
    month = _cn_month(m) if chinese else str(m)
    w = resolve_time(f"{month}月第{_CN[n - 1]}个星期{_WD[wd]}要做什么", NOW)
    assert w is not None and w.start is not None and w.end is not None
    d = w.start.date()
    assert (d.month, d.weekday(), (d.day - 1) // 7 + 1) == (m, wd, n)
    assert w.end.date() == d


_LUNAR_DAYS = ["初" + c for c in _CN] + ["十" + c for c in _CN[:9]] + ["二十"] + ["廿" + c for c in _CN[:9]]


@settings(max_examples=60, deadline=None)
@given(m=st.integers(1, 12), d=st.integers(1, 29))
def test_lunar_month_day_is_the_lunar_python_day(m: int, d: int) -> None:
    """A lunar "M月初D" / "农历M月D" is the next day lunar-python converts it to (from NOW on)."""
    said = f"{_cn_month(m)}月{_LUNAR_DAYS[d - 1]}" if d <= 10 else f"农历{_cn_month(m)}月{_LUNAR_DAYS[d - 1]}"
    w = resolve_time(f"{said}有什么安排", NOW)
    assert w is not None and w.start is not None
    days = [x for ly in (2025, 2026, 2027, 2028) if (x := lunar_to_solar(ly, m, d)) is not None]
    want = min(x for x in days if x >= NOW.date())
    assert w.start.date() == want


@settings(max_examples=40, deadline=None)
@given(offset=st.integers(0, 3000))
def test_feb_29_is_a_leap_day(offset: int) -> None:
    """ "2月29日" is always a Feb 29 that exists, on the asked side of today, at most 4 years away."""
    now = datetime.combine(date(2020, 1, 1) + timedelta(days=offset), time(9), SH)
    for prefer in ("future", "past"):  # a literal loop: mypy keeps the Literal type
        w = resolve_time("2月29日有什么", now, prefer=prefer)
        assert w is not None and w.start is not None
        d = w.start.date()
        assert (d.month, d.day) == (2, 29)
        if now.month != 2:  # said in February, this year's Feb 29 if there is one (as any "2月X日")
            assert (d >= now.date()) if prefer == "future" else (d <= now.date())
        assert abs(d.year - now.year) <= 4


if __name__ == "__main__":
    report(PROBES)
