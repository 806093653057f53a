"""core.recurrence.expand: occurrences across DST, the Chinese statutory calendar, lunar dates and
solar terms (checked against chinese-calendar and lunar-python themselves), bounds, and old DTSTARTs."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from itertools import islice
from zoneinfo import ZoneInfo

import chinese_calendar
import pytest
from dateutil.rrule import rrulestr
from hypothesis import given, settings
from hypothesis import strategies as st
from lunar_python import Lunar, LunarMonth, LunarYear, Solar

from core.recurrence import MAX_STEPS, Recurrence, make, next_after, occurrences

TZ = "Asia/Shanghai"
SH = ZoneInfo(TZ)
NY = ZoneInfo("America/New_York")


def _rule(rule: str, start: datetime, tz: str = TZ) -> Recurrence:
    return make(rule, start=start, tz=tz)


def _days(rec: Recurrence, first: date, last: date, limit: int = 1000) -> list[date]:
    after = datetime.combine(first, datetime.min.time(), tzinfo=rec.start.tzinfo)
    before = datetime.combine(last, datetime.max.time(), tzinfo=rec.start.tzinfo)
    return [o.date() for o in occurrences(rec, after=after, before=before, limit=limit, inclusive=True)]


def _year(y: int) -> list[date]:
    return [date(y, 1, 1) + timedelta(days=i) for i in range((date(y + 1, 1, 1) - date(y, 1, 1)).days)]


def _solar(s: Solar) -> date:
    return date(s.getYear(), s.getMonth(), s.getDay())


# --- DST: the wall-clock time is kept ----------------------------------------------------------


def test_weekly_nine_oclock_stays_nine_oclock_across_both_dst_changes() -> None:
    rec = _rule("FREQ=WEEKLY;BYDAY=TU", datetime(2026, 2, 24, 9, 0), tz="America/New_York")
    found = occurrences(rec, after=rec.start, limit=40, inclusive=True)
    assert {o.strftime("%H:%M") for o in found} == {"09:00"}
    by_day = {o.date(): o.utcoffset() for o in found}
    assert by_day[date(2026, 3, 3)] == timedelta(hours=-5)  # before Sunday 8 March: EST
    assert by_day[date(2026, 3, 10)] == timedelta(hours=-4)  # after: EDT, still 09:00 local
    assert by_day[date(2026, 10, 27)] == timedelta(hours=-4)
    assert by_day[date(2026, 11, 3)] == timedelta(hours=-5)  # after Sunday 1 November: EST again
    assert all(o.tzinfo == NY for o in found)


def test_a_wall_time_in_the_spring_gap_is_read_as_rfc_5545_says() -> None:
    # 02:30 does not exist on Sunday 8 March 2026 in New York: RFC 5545 takes the offset from before
    # the gap, so it is 03:30 EDT (07:30 UTC); the weeks around it stay 02:30.
    rec = _rule("FREQ=WEEKLY;BYDAY=SU", datetime(2026, 3, 1, 2, 30), tz="America/New_York")
    found = occurrences(rec, after=rec.start, limit=3, inclusive=True)
    utc = [o.astimezone(ZoneInfo("UTC")).strftime("%m-%d %H:%M") for o in found]
    assert utc == ["03-01 07:30", "03-08 07:30", "03-15 06:30"]
    assert found[1].astimezone(NY).strftime("%H:%M %Z") == "03:30 EDT"


# --- the statutory calendar (X-DAYS) -----------------------------------------------------------

WORKDAYS_2026 = {d for d in _year(2026) if chinese_calendar.is_workday(d)}


def test_cn_workday_over_2026_is_exactly_chinese_calendars_workdays() -> None:
    rec = _rule("FREQ=DAILY;X-DAYS=CN-WORKDAY", datetime(2026, 1, 1, 9, 0))
    got = _days(rec, date(2026, 1, 1), date(2026, 12, 31))
    assert set(got) == WORKDAYS_2026 and len(got) == len(WORKDAYS_2026)
    # 调休: Saturday 10 October makes up for the National Day break, Sunday 4 January for 元旦.
    assert date(2026, 10, 10) in got and date(2026, 1, 4) in got
    # Weekdays inside breaks are out: Monday 5 October (国庆), Tuesday 17 February (春节).
    assert date(2026, 10, 5) not in got and date(2026, 2, 17) not in got


def test_cn_restday_is_the_complement() -> None:
    rec = _rule("FREQ=DAILY;X-DAYS=CN-RESTDAY", datetime(2026, 1, 1, 9, 0))
    got = set(_days(rec, date(2026, 1, 1), date(2026, 12, 31)))
    assert got == set(_year(2026)) - WORKDAYS_2026
    assert date(2026, 10, 7) in got and date(2026, 10, 10) not in got


def _after_breaks(y: int) -> set[date]:
    """The first workday after each run of days off that holds a statutory holiday."""
    out, run_has_holiday = set(), False
    for d in _year(y):  # chinese-calendar knows 2026 and earlier: a break running into y+1 is not counted
        if not chinese_calendar.is_workday(d):
            run_has_holiday |= chinese_calendar.get_holiday_detail(d)[1] is not None
            continue
        if run_has_holiday:
            out.add(d)
        run_has_holiday = False
    return {d for d in out if d.year == y}


def test_cn_after_holiday_is_the_first_workday_after_each_break() -> None:
    rec = _rule("FREQ=DAILY;X-DAYS=CN-AFTER-HOLIDAY", datetime(2026, 1, 1, 9, 0))
    got = _days(rec, date(2026, 1, 1), date(2026, 12, 31))
    assert set(got) == _after_breaks(2026)
    assert date(2026, 10, 8) in got  # after 国庆 (1..7 October)
    assert date(2026, 2, 24) in got  # after 春节
    assert len(got) == 7  # 元旦, 春节, 清明, 五一, 端午, 中秋, 国庆


def test_count_counts_the_days_the_filter_keeps() -> None:
    # "每个工作日，共10次" is ten workdays, not ten calendar days of which some are off.
    rec = _rule("FREQ=DAILY;X-DAYS=CN-WORKDAY;COUNT=10", datetime(2026, 9, 28, 9, 0))
    got = [o.date() for o in occurrences(rec, after=rec.start, limit=50, inclusive=True)]
    assert len(got) == 10 and all(chinese_calendar.is_workday(d) for d in got)
    assert date(2026, 10, 10) in got and not {date(2026, 10, i) for i in range(1, 8)} & set(got)


# --- lunar dates (RSCALE=CHINESE) --------------------------------------------------------------


def test_lunar_first_of_every_month_2026_2027_matches_lunar_python() -> None:
    expected = [_solar(Lunar.fromYmd(y, m, 1).getSolar()) for y in (2026, 2027) for m in range(1, 13)]
    rec = _rule("RSCALE=CHINESE;FREQ=MONTHLY;BYMONTHDAY=1", datetime(2026, 1, 1, 8, 0))
    assert LunarYear.fromYear(2026).getLeapMonth() == 0 and LunarYear.fromYear(2027).getLeapMonth() == 0
    assert _days(rec, expected[0], expected[-1]) == expected


def test_a_monthly_lunar_rule_includes_the_leap_month() -> None:
    # Decision: "每月农历初一上香" happens in a leap month too (闰五月 in 2028) — every lunar month,
    # as RFC 7529 iterates them. BYMONTH=5 names the ordinary fifth month only (see the next test).
    assert LunarYear.fromYear(2028).getLeapMonth() == 5
    rec = _rule("RSCALE=CHINESE;FREQ=MONTHLY;BYMONTHDAY=1", datetime(2028, 1, 1, 8, 0))
    got = _days(rec, date(2028, 1, 26), date(2029, 2, 12))
    months = LunarYear.fromYear(2028).getMonthsInYear()
    expected = [_solar(Lunar.fromYmd(2028, m.getMonth(), 1).getSolar()) for m in months]
    assert len(expected) == 13 and got == expected
    assert _solar(Lunar.fromYmd(2028, -5, 1).getSolar()) in got


def test_a_yearly_lunar_date_is_once_a_year_even_in_a_leap_year() -> None:
    rec = _rule("RSCALE=CHINESE;FREQ=YEARLY;BYMONTH=5;BYMONTHDAY=5", datetime(2028, 1, 1, 8, 0))  # 端午
    got = _days(rec, date(2028, 1, 1), date(2028, 12, 31))
    assert got == [_solar(Lunar.fromYmd(2028, 5, 5).getSolar())]


@pytest.mark.parametrize("year", [2026, 2027, 2028, 2029, 2030])
def test_chuxi_is_the_day_before_the_spring_festival(year: int) -> None:
    rec = _rule("RSCALE=CHINESE;FREQ=YEARLY;BYMONTH=12;BYMONTHDAY=-1", datetime(2025, 12, 1, 18, 0))
    spring = _solar(Lunar.fromYmd(year, 1, 1).getSolar())
    got = _days(rec, date(year, 1, 1), date(year, 12, 31))
    assert got == [spring - timedelta(days=1)]
    lunar = Solar.fromYmd(got[0].year, got[0].month, got[0].day).getLunar()
    assert lunar.getMonth() == 12 and lunar.getDay() in (29, 30)


def test_a_lunar_birthday_yearly() -> None:
    rec = _rule("RSCALE=CHINESE;FREQ=YEARLY;BYMONTH=8;BYMONTHDAY=12", datetime(2026, 1, 1, 9, 0))
    got = occurrences(rec, after=rec.start, limit=3, inclusive=True)
    assert [o.date() for o in got] == [_solar(Lunar.fromYmd(y, 8, 12).getSolar()) for y in (2026, 2027, 2028)]
    assert {o.strftime("%H:%M") for o in got} == {"09:00"}


def _dongzhi(y: int) -> date:
    return next(d for d in _year(y)[-31:] if Solar.fromYmd(d.year, d.month, d.day).getLunar().getJieQi() == "冬至")


def test_dongzhi_matches_lunar_pythons_solar_terms() -> None:
    rec = _rule("FREQ=YEARLY;X-TERM=DONGZHI", datetime(2026, 1, 1, 9, 0))
    got = [o.date() for o in occurrences(rec, after=rec.start, limit=5, inclusive=True)]
    assert got == [_dongzhi(y) for y in range(2026, 2031)]
    assert got[0] == date(2026, 12, 22)


# --- plain rules: month end, bounds, next_after ------------------------------------------------


def test_the_31st_every_month_falls_back_to_the_last_day() -> None:
    rec = _rule("FREQ=MONTHLY;BYMONTHDAY=28,29,30,31;BYSETPOS=-1", datetime(2027, 1, 1, 9, 0))  # 每月31号
    got = _days(rec, date(2027, 1, 1), date(2028, 4, 30))
    assert date(2027, 2, 28) in got and date(2028, 2, 29) in got and date(2027, 4, 30) in got
    assert date(2027, 1, 31) in got and len(got) == 16


def test_mothers_day_is_the_second_sunday_of_may() -> None:
    rec = _rule("FREQ=YEARLY;BYMONTH=5;BYDAY=2SU", datetime(2026, 11, 30, 9, 0))  # 每年母亲节
    got = [o.date() for o in occurrences(rec, after=rec.start, limit=3)]
    assert got == [date(2027, 5, 9), date(2028, 5, 14), date(2029, 5, 13)]


def test_until_is_inclusive_and_count_is_exact() -> None:
    until = _rule("FREQ=WEEKLY;BYDAY=MO;UNTIL=20261221T235959", datetime(2026, 11, 30, 9, 0))
    assert [o.day for o in occurrences(until, after=until.start, limit=10, inclusive=True)] == [30, 7, 14, 21]
    day_only = _rule("FREQ=DAILY;UNTIL=20261203", datetime(2026, 12, 1, 0, 0))
    assert [o.day for o in occurrences(day_only, after=day_only.start, limit=10, inclusive=True)] == [1, 2, 3]
    count = _rule("FREQ=WEEKLY;BYDAY=MO,TH;COUNT=3", datetime(2026, 11, 30, 9, 0))
    assert [o.day for o in occurrences(count, after=count.start, limit=10, inclusive=True)] == [30, 3, 7]
    lunar = _rule("RSCALE=CHINESE;FREQ=MONTHLY;BYMONTHDAY=15;COUNT=2", datetime(2026, 11, 30, 9, 0))
    assert len(occurrences(lunar, after=lunar.start, limit=10)) == 2


def test_next_after_inclusive_and_exclusive() -> None:
    rec = _rule("FREQ=WEEKLY;BYDAY=MO", datetime(2026, 11, 30, 9, 0))
    at = datetime(2026, 11, 30, 9, 0, tzinfo=SH)
    assert next_after(rec, at, inclusive=True) == at
    assert next_after(rec, at) == datetime(2026, 12, 7, 9, 0, tzinfo=SH)
    assert next_after(rec, at - timedelta(seconds=1)) == at
    # A moment in another zone is the same instant.
    assert next_after(rec, datetime(2026, 11, 30, 1, 0, tzinfo=ZoneInfo("UTC")), inclusive=True) == at
    done = _rule("FREQ=DAILY;COUNT=2", datetime(2026, 11, 30, 9, 0))
    assert next_after(done, datetime(2026, 12, 1, 9, 0, tzinfo=SH)) is None


def test_before_and_limit_bound_the_answer() -> None:
    rec = _rule("FREQ=DAILY", datetime(2026, 11, 30, 9, 0))
    assert len(occurrences(rec, after=rec.start, limit=3)) == 3
    before = datetime(2026, 12, 2, 9, 0, tzinfo=SH)
    assert [o.day for o in occurrences(rec, after=rec.start, before=before, limit=10)] == [1, 2]


# --- an old DTSTART (fast-forward) -------------------------------------------------------------

OLD_RULES = [
    ("FREQ=DAILY", datetime(2010, 1, 1, 9, 0)),
    ("FREQ=DAILY;INTERVAL=3", datetime(2010, 1, 1, 9, 0)),
    ("FREQ=WEEKLY;INTERVAL=2;BYDAY=FR", datetime(2010, 1, 8, 17, 0)),
    ("FREQ=WEEKLY;INTERVAL=3;BYDAY=MO,SU;WKST=SU", datetime(2010, 1, 3, 8, 0)),
    ("FREQ=MONTHLY;INTERVAL=5", datetime(2010, 1, 31, 9, 0)),  # the 31st: months without one are skipped
    ("FREQ=MONTHLY;INTERVAL=2;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1", datetime(2011, 3, 1, 18, 0)),
    ("FREQ=MONTHLY;BYDAY=2TU", datetime(2012, 5, 1, 10, 0)),
    ("FREQ=YEARLY", datetime(2012, 2, 29, 9, 0)),  # a leap day: only leap years
    ("FREQ=YEARLY;INTERVAL=3;BYMONTH=6", datetime(2011, 6, 15, 9, 0)),
    ("FREQ=YEARLY;BYWEEKNO=1;BYDAY=MO", datetime(2010, 1, 4, 9, 0)),
    ("FREQ=DAILY;INTERVAL=7;X-DAYS=CN-WORKDAY", datetime(2010, 1, 4, 9, 0)),
    ("FREQ=MONTHLY;BYMONTHDAY=28,29,30,31;BYSETPOS=-1", datetime(2009, 12, 31, 9, 0)),  # 每月31号
    ("FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,WE,FR;BYSETPOS=-1;WKST=SU", datetime(2013, 7, 10, 9, 0)),
    ("FREQ=DAILY;BYMONTH=10;BYMONTHDAY=8", datetime(2011, 5, 5, 9, 0)),  # walked a year at a time
]


@pytest.mark.parametrize(("rule", "start"), OLD_RULES)
def test_a_rule_started_long_ago_gives_the_right_next_occurrences(rule: str, start: datetime) -> None:
    rec = _rule(rule, start)
    now = datetime(2026, 9, 1, 12, 0, tzinfo=SH)  # the six next ones stay in 2026 (chinese-calendar's last year)
    got = occurrences(rec, after=now, limit=6)
    # Reference: dateutil's own unbounded walk from the real DTSTART.
    plain = ";".join(p for p in rule.split(";") if not p.startswith("X-"))
    ref = (d.replace(tzinfo=SH) for d in rrulestr(plain, dtstart=start).xafter(now.replace(tzinfo=None)))
    keep = chinese_calendar.is_workday if "X-DAYS" in rule else (lambda _d: True)
    expected = []
    for d in ref:
        if keep(d.date()):
            expected.append(d)
        if len(expected) == 6:
            break
    assert got == expected


def test_a_lunar_rule_started_long_ago_still_answers() -> None:
    rec = _rule("RSCALE=CHINESE;FREQ=YEARLY;BYMONTH=8;BYMONTHDAY=15", datetime(1950, 1, 1, 20, 0))
    got = next_after(rec, datetime(2026, 12, 4, tzinfo=SH))
    assert got is not None and got.date() == _solar(Lunar.fromYmd(2027, 8, 15).getSolar())


def test_with_count_the_series_is_counted_from_dtstart() -> None:
    # COUNT=1000 daily from 2024-06-01: the last is 2027-02-25, whatever moment is asked about.
    rec = _rule("FREQ=DAILY;COUNT=1000", datetime(2024, 6, 1, 9, 0))
    got = occurrences(rec, after=datetime(2027, 2, 20, tzinfo=SH), limit=10)
    assert [o.day for o in got] == [20, 21, 22, 23, 24, 25]
    over = _rule("FREQ=DAILY;COUNT=5", datetime(2010, 1, 1, 9, 0))
    assert occurrences(over, after=datetime(2026, 12, 1, tzinfo=SH)) == []


def test_with_count_and_a_rare_filter_the_walk_stays_bounded() -> None:
    # Documented: a COUNT rule is walked from DTSTART and gives up after MAX_STEPS candidates; the
    # first workday after each break is ~7 days a year, so COUNT=1000 cannot be reached.
    rec = _rule("FREQ=DAILY;X-DAYS=CN-AFTER-HOLIDAY;COUNT=1000", datetime(2026, 1, 1, 9, 0))
    got = occurrences(rec, after=rec.start, limit=1000, inclusive=True)
    assert 0 < len(got) < 1000
    assert got[-1] < rec.start + timedelta(days=MAX_STEPS + 1)


_FREQ_PARTS = {
    "DAILY": st.just(""),
    "WEEKLY": st.tuples(
        st.sets(st.sampled_from(["MO", "TU", "WE", "TH", "FR", "SA", "SU"]), min_size=1, max_size=3),
        st.sampled_from(["", ";WKST=SU", ";WKST=TH", ";BYSETPOS=1", ";BYSETPOS=-1;WKST=SA"]),
    ).map(lambda dw: f";BYDAY={','.join(sorted(dw[0]))}{dw[1]}"),
    "MONTHLY": st.one_of(
        st.just(""),
        st.integers(1, 28).map(lambda d: f";BYMONTHDAY={d}"),
        st.sampled_from(["1MO", "-1FR", "2WE", "3SU"]).map(lambda d: f";BYDAY={d}"),
        st.sampled_from(["1", "-1", "2"]).map(lambda p: f";BYDAY=MO,TU,WE,TH,FR;BYSETPOS={p}"),
    ),
    "YEARLY": st.one_of(
        st.just(""),
        st.tuples(st.integers(1, 12), st.integers(1, 28)).map(lambda md: f";BYMONTH={md[0]};BYMONTHDAY={md[1]}"),
        st.sampled_from(["1MO", "-1SU", "20FR"]).map(lambda d: f";BYDAY={d}"),
    ),
}
_PLAIN = st.sampled_from(sorted(_FREQ_PARTS)).flatmap(
    lambda freq: st.tuples(st.integers(1, 6), _FREQ_PARTS[freq]).map(lambda ib: f"FREQ={freq};INTERVAL={ib[0]}{ib[1]}")
)


@settings(max_examples=60, deadline=None)
@given(
    rule=_PLAIN,
    start=st.datetimes(min_value=datetime(2000, 1, 1), max_value=datetime(2024, 12, 31)).map(
        lambda d: d.replace(second=0, microsecond=0)
    ),
)
def test_fast_forward_agrees_with_dateutils_walk_from_dtstart(rule: str, start: datetime) -> None:
    rec = _rule(rule, start)
    now = datetime(2026, 12, 4, 12, 0)
    expected = [d.replace(tzinfo=SH) for d in islice(rrulestr(rule, dtstart=start).xafter(now), 5)]
    assert occurrences(rec, after=now.replace(tzinfo=SH), limit=5) == expected


@pytest.mark.parametrize(
    ("skip", "expected"),
    [
        ("", "last"),  # no SKIP: the month's last day ("大年三十" is 除夕 in a 29-day 腊月 too)
        (";SKIP=BACKWARD", "last"),
        (";SKIP=FORWARD", "next"),
        (";SKIP=OMIT", None),
    ],
)
def test_the_30th_of_a_29_day_lunar_month_follows_skip(skip: str, expected: str | None) -> None:
    assert LunarMonth.fromYm(2026, 2).getDayCount() == 29  # 2026's second lunar month
    rec = _rule(f"RSCALE=CHINESE;FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30{skip}", datetime(2026, 1, 1, 9, 0))
    got = _days(rec, date(2026, 1, 1), date(2026, 12, 31))
    last = _solar(Lunar.fromYmd(2026, 2, 29).getSolar())
    assert got == ([] if expected is None else [last if expected == "last" else last + timedelta(days=1)])


def test_a_utc_until_is_converted_and_a_date_until_is_the_whole_day() -> None:
    # RFC 5545 asks for UNTIL in UTC with a zoned DTSTART: 00:00Z on the 3rd is 08:00 in Shanghai,
    # before that day's 09:00 occurrence.
    utc = _rule("FREQ=DAILY;UNTIL=20261203T000000Z", datetime(2026, 12, 1, 9, 0))
    assert [o.day for o in occurrences(utc, after=utc.start, inclusive=True)] == [1, 2]
    day = _rule("FREQ=DAILY;UNTIL=20261203", datetime(2026, 12, 1, 9, 0))
    assert [o.day for o in occurrences(day, after=day.start, inclusive=True)] == [1, 2, 3]
    lunar = _rule("RSCALE=CHINESE;FREQ=MONTHLY;BYMONTHDAY=1;UNTIL=20270206T000000Z", datetime(2026, 12, 1, 9, 0))
    assert [o.date() for o in occurrences(lunar, after=lunar.start, inclusive=True)] == [
        date(2026, 12, 9),
        date(2027, 1, 8),
    ]  # not 2027-02-06 09:00, after UNTIL (08:00 local)
