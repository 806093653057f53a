"""Properties of ranges and counted spans (see test_timeanchor_peer_ranges.py for the conventions).

* "X到Y" for X before Y (days, months, clock times) starts at X's start and contains both points;
* counted spans and day ranges at a month's or a year's last day land on the right calendar days;
* a clock range stays the same length on the wall clock across a daylight-saving change.
"""

from __future__ import annotations

import calendar
from datetime import date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from hypothesis import given, settings
from hypothesis import strategies as st

from core.timeanchor import TimeWindow, resolve_time

SH = ZoneInfo("Asia/Shanghai")
NY = ZoneInfo("America/New_York")
NOW = datetime(2026, 11, 30, 10, 0, tzinfo=SH)


def _win(text: str, now: datetime = NOW, tz: str = "Asia/Shanghai") -> TimeWindow:
    w = resolve_time(text, now, tz)
    assert w is not None and w.start is not None and w.end is not None, text
    return w


def _contains(outer: TimeWindow, inner: TimeWindow) -> bool:
    assert outer.start and outer.end and inner.start and inner.end
    return outer.start <= inner.start and inner.end <= outer.end + timedelta(minutes=1)


def _start(d: date, tz: ZoneInfo = SH) -> datetime:
    return datetime.combine(d, time(0, 0), tz)


def _end(d: date, tz: ZoneInfo = SH) -> datetime:
    return datetime.combine(d, time(23, 59, 59), tz)


# -- "X到Y" contains both ends and starts at X ------------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(st.integers(1, 299), st.integers(1, 299), st.sampled_from(["到", "至", "-", "和", "或"]))
def test_day_range_contains_both_days(a: int, b: int, sep: str) -> None:
    # both days in the coming 300 days: each alone is read in the same year as in the range
    x, y = sorted((NOW.date() + timedelta(days=a), NOW.date() + timedelta(days=b)))
    wx, wy = _win(f"{x.month}月{x.day}日"), _win(f"{y.month}月{y.day}日")
    w = _win(f"{x.month}月{x.day}日{sep}{y.month}月{y.day}日有什么要做的")
    assert w.start == wx.start
    assert _contains(w, wx) and _contains(w, wy)


@settings(max_examples=60, deadline=None)
@given(st.integers(2026, 2035), st.integers(1, 12), st.integers(1, 12))
def test_month_range_in_a_year_contains_both_months(year: int, m1: int, m2: int) -> None:
    x, y = sorted((m1, m2))
    w = _win(f"{year}年{x}月到{y}月的计划")
    assert w.start == _start(date(year, x, 1))
    assert w.end == _end(date(year, y, calendar.monthrange(year, y)[1]))


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 22), st.integers(0, 59), st.integers(1, 23 * 60))
def test_clock_range_contains_both_times(h: int, m: int, length: int) -> None:
    start = datetime.combine(NOW.date() + timedelta(days=1), time(h, m), SH)
    stop = start + timedelta(minutes=length)
    if stop.date() != start.date():
        stop = _end(start.date()).replace(second=0)
    x, y = f"{start:%H:%M}", f"{stop:%H:%M}"
    w = _win(f"明天{x}到{y}有什么会")
    wx, wy = _win(f"明天{x}"), _win(f"明天{y}")
    assert w.start == wx.start == start
    assert _contains(w, wx) and _contains(w, wy)


@settings(max_examples=60, deadline=None)
@given(st.integers(18, 23), st.integers(0, 5), st.integers(0, 27), st.integers(8, 17))
def test_evening_to_small_hours_crosses_midnight(h1: int, h2: int, day: int, now_hour: int) -> None:
    now = datetime(2026, 2, 1, now_hour, tzinfo=SH) + timedelta(days=day)
    pod = "凌晨"
    w = _win(f"晚上{h1 - 12 if h1 > 12 else h1}点到{pod}{h2}点有什么", now)
    assert w.start == datetime.combine(now.date(), time(h1), SH)
    assert w.end is not None
    assert w.end.date() == now.date() + timedelta(days=1)
    assert (w.end.hour, w.end.minute) == (h2, 0)


# -- nothing slips a day at a month's or a year's end ----------------------------------------------

month_ends = st.builds(
    lambda y, m, h: datetime(y, m, calendar.monthrange(y, m)[1], h, 30, tzinfo=SH),
    st.integers(2024, 2030),
    st.integers(1, 12),
    st.integers(0, 23),
)


@settings(max_examples=120, deadline=None)
@given(month_ends)
def test_next_three_days_at_a_month_end(now: datetime) -> None:
    today = now.date()
    w = _win("下三天有什么要做的", now)
    assert (w.start, w.end) == (_start(today + timedelta(days=1)), _end(today + timedelta(days=3)))
    r = _win("明天到后天要交的", now)
    assert (r.start, r.end) == (_start(today + timedelta(days=1)), _end(today + timedelta(days=2)))
    alt = _win("明天或者后天要交的", now)
    assert (alt.start, alt.end) == (r.start, r.end)


@settings(max_examples=120, deadline=None)
@given(month_ends)
def test_counted_weeks_months_years_at_a_month_end(now: datetime) -> None:
    today = now.date()
    monday = today - timedelta(days=today.weekday())
    last_two_weeks = resolve_time("上两周完成了什么", now, "Asia/Shanghai", prefer="past")
    assert last_two_weeks is not None
    assert (last_two_weeks.start, last_two_weeks.end) == (
        _start(monday - timedelta(days=14)),
        _end(monday - timedelta(days=1)),
    )
    y, m = divmod(today.year * 12 + today.month, 12)  # the month after this one (0-based month)
    nxt = date(y, m + 1, 1)
    y3, m3 = divmod(today.year * 12 + today.month + 2, 12)
    w = _win("下三个月的计划", now)
    assert (w.start, w.end) == (_start(nxt), _end(date(y3, m3 + 1, calendar.monthrange(y3, m3 + 1)[1])))
    yr = _win("下两年的目标", now)
    assert (yr.start, yr.end) == (_start(date(today.year + 1, 1, 1)), _end(date(today.year + 2, 12, 31)))


@settings(max_examples=60, deadline=None)
@given(month_ends, st.sampled_from(["或之后", "及以后", "以后"]))
def test_on_or_after_a_day_is_open(now: datetime, word: str) -> None:
    d = now.date() + timedelta(days=1)
    w = resolve_time(f"{d.year}年{d.month}月{d.day}日{word}要做的", now, "Asia/Shanghai")
    assert w is not None and w.start == _start(d) and w.end is None


# -- daylight saving: wall-clock lengths are kept ----------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(st.sampled_from([date(2026, 3, 7), date(2026, 10, 31)]), st.integers(6, 22))
def test_clock_range_keeps_its_wall_clock_length_across_dst(eve: date, hour: int) -> None:
    now = datetime.combine(eve, time(hour, 0), NY)  # the day before the change: 明天 is the change day
    w = _win("明天上午9点到11点有什么会", now, "America/New_York")
    assert w.start is not None and w.end is not None
    tomorrow = eve + timedelta(days=1)
    assert w.start == datetime.combine(tomorrow, time(9, 0), NY)
    wall = w.end.replace(tzinfo=None) - w.start.replace(tzinfo=None)
    assert timedelta(hours=2) <= wall <= timedelta(hours=2, minutes=1)
    # 9:00 and 11:00 are on the same side of the 2 a.m. change: the real length is 2 h too
    assert timedelta(hours=2) <= w.end - w.start <= timedelta(hours=2, minutes=1)


def test_next_three_days_across_the_spring_forward_day() -> None:
    now = datetime(2026, 3, 7, 12, 0, tzinfo=NY)
    w = _win("下三天有什么要做的", now, "America/New_York")
    assert (w.start, w.end) == (_start(date(2026, 3, 8), NY), _end(date(2026, 3, 10), NY))
