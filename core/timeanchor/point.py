"""A time point under construction (slots filled by tokens) and its resolution to a window."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, time, timedelta

from .caltools import (
    add_months,
    day_end,
    day_start,
    monday_of,
    month_last_day,
    shift_month,
    valid_date,
)
from .context import Ctx, Span

# name → (first hour, last hour, how a clock hour is read inside it)
POD: dict[str, tuple[int, int, str]] = {
    "凌晨": (0, 5, "am0"),
    "清晨": (5, 7, "am"),
    "早晨": (6, 9, "am"),
    "早上": (6, 9, "am"),
    "早间": (6, 9, "am"),
    "早": (6, 9, "am"),
    "上午": (7, 11, "am"),
    "中午": (11, 13, "noon"),
    "正午": (11, 13, "noon"),
    "午间": (11, 13, "noon"),
    "午后": (13, 14, "pm"),
    "下午": (13, 17, "pm"),
    "傍晚": (17, 19, "eve"),
    "晚上": (18, 23, "eve"),
    "晚间": (18, 23, "eve"),
    "夜晚": (18, 23, "eve"),
    "晚": (18, 23, "eve"),
    "夜里": (20, 23, "night"),
    "夜间": (20, 23, "night"),
    "深夜": (22, 23, "night"),
    "半夜": (22, 23, "night"),
    "午夜": (0, 0, "midnight"),
    "白天": (6, 18, "day"),
    "白日": (6, 18, "day"),
    # only recognised before 前/之前/以前 ("午饭前"): the moment itself is what counts.
    "午饭": (12, 12, "noon"),
    "晚饭": (18, 18, "eve"),
    # moments of the working day (MOMENTS), only recognised with 前/后 right after them
    "上班": (9, 9, "am"),
    "下班": (18, 18, "eve"),
    "睡觉": (23, 23, "eve"),
    "睡": (23, 23, "eve"),
}
# The moment "before <part of day>" means: 中午之前 → 12:00, 晚饭前 → 18:00.
POD_ANCHOR: dict[str, int] = {"中午": 12, "正午": 12, "午间": 12, "午饭": 12, "晚饭": 18}
# Conventional moments of a working day, read like a clock time the user did not say:
#   上班前 → [now, 09:00]      下班前/下班之前/下班以前 → [now, 18:00]      睡前/睡觉前 → [now, 23:00]
#   上班后 → [09:00, 23:59:59] 下班后/下班之后/下班以后 → [18:00, 23:59:59]
# "Before" ends at the moment (like "五点前"), so a quick note's deadline is that moment; "after"
# runs to the end of that day and carries no clock, so its deadline is 23:59:59 (you can do it
# from 18:00 on; it is due by the end of the evening). Bare, the moment is today's, or tomorrow's
# once it has passed ("下班前" said at 19:00 → tomorrow 18:00); with a day ("明天下班前") that day's.
# A moment replaces a part of day said with it ("今晚睡前" → 23:00, "明早上班前" → 09:00).
MOMENTS: dict[str, int] = {"上班": 9, "下班": 18, "睡觉": 23, "睡": 23}

HOLIDAYS: dict[str, tuple[int, int]] = {
    "元旦": (1, 1),
    "情人节": (2, 14),
    "妇女节": (3, 8),
    "植树节": (3, 12),
    "劳动节": (5, 1),
    "五一": (5, 1),
    "儿童节": (6, 1),
    "六一": (6, 1),
    "建军节": (8, 1),
    "教师节": (9, 10),
    "国庆节": (10, 1),
    "国庆": (10, 1),
    "万圣节": (10, 31),
    "双十一": (11, 11),
    "双11": (11, 11),
    "双十二": (12, 12),
    "双12": (12, 12),
    "平安夜": (12, 24),
    "圣诞节": (12, 25),
    "圣诞": (12, 25),
    # Duckling's Chinese corpus: the fixed-date festivals it knows beyond the statutory ones
    "新年": (1, 1),
    "消费者权益日": (3, 15),
    "三一五": (3, 15),
    "愚人节": (4, 1),
    "青年节": (5, 4),
    "五四青年节": (5, 4),
    "护士节": (5, 12),
    "建党节": (7, 1),
    "七一建党节": (7, 1),
    "光棍节": (11, 11),
    # English (absorb._holiday folds case, spaces and the apostrophe)
    "christmas": (12, 25),
    "christmas day": (12, 25),
    "christmas eve": (12, 24),
    "new year's day": (1, 1),
    "new year's eve": (12, 31),
    "valentine's day": (2, 14),
    "halloween": (10, 31),
}
# (month, weekday 0=Mon, nth)
NTH_WEEKDAY_HOLIDAYS: dict[str, tuple[int, int, int]] = {
    "母亲节": (5, 6, 2),
    "父亲节": (6, 6, 3),
    "感恩节": (11, 3, 4),
}


@dataclass
class Point:
    year: int | None = None
    year_off: int | None = None
    month: int | None = None
    month_off: int | None = None
    day: int | None = None
    day_off: int | None = None
    day_span: int = 0  # 今明两天: extra days after day_off
    week_off: int | None = None
    weekday: int | None = None
    weekend: bool = False
    edge: tuple[str, int] | None = None
    implied_month: bool = False  # bare 月初/月底: "this month" was not said, only assumed
    quarter: int | None = None
    quarter_off: int | None = None
    holiday: str | None = None
    pod: str | None = None
    hour: int | None = None
    minute: int | None = None
    hour2: int | None = None
    ampm: str | None = None
    zero_padded: bool = False
    weak_clock: bool = False
    pending_num: int | None = None
    rel_to_prev: bool = False
    year_span: int = 0  # 今明两年
    workdays: bool = False  # 工作日: Monday..Friday of the week
    lunar_dir: str | None = None  # 年前 → "before" the Spring Festival, 年后/过完年 → "after" it
    lunar_md: tuple[int, int] | None = None  # 正月初八 → (1, 8): a lunar month and day
    lunar_year: bool = False  # 农历2015年十月初一: the year said is a lunar year
    period: bool = False  # holiday names a statutory break (国庆假期), not the festival day
    wd_step: int | None = None  # 下个工作日 → 1, 上个工作日 → -1
    post_holiday: bool = False  # 节后(第一天): the first workday after the current/next break
    pre_holiday: bool = False  # 节前: the eve of the next break

    # -- slot queries -------------------------------------------------------------------
    @property
    def has_year(self) -> bool:
        return self.year is not None or self.year_off is not None

    @property
    def has_month(self) -> bool:
        return self.month is not None or self.month_off is not None

    @property
    def has_day(self) -> bool:
        return self.day is not None or self.day_off is not None or self.weekday is not None or self.weekend

    @property
    def has_week(self) -> bool:
        return self.week_off is not None

    @property
    def has_date(self) -> bool:
        return (
            self.has_year
            or self.has_month
            or self.has_day
            or self.has_week
            or self.edge is not None
            or self.quarter is not None
            or self.quarter_off is not None
            or self.holiday is not None
            or self.workdays
            or self.calendar
        )

    @property
    def calendar(self) -> bool:
        """Needs the Chinese calendar (lunar dates, statutory workdays)."""
        return self.lunar_md is not None or self.wd_step is not None or self.post_holiday or self.pre_holiday

    @property
    def has_clock(self) -> bool:
        return self.hour is not None

    @property
    def empty(self) -> bool:
        return not (self.has_date or self.pod or self.has_clock)


# -- date part ------------------------------------------------------------------------------


def _nth_weekday(year: int, month: int, weekday: int, nth: int) -> date:
    first = date(year, month, 1)
    offset = (weekday - first.weekday()) % 7
    return first + timedelta(days=offset + 7 * (nth - 1))


def _holiday_dates(name: str, year: int) -> tuple[date, ...]:
    """The days a named festival falls on in a Gregorian year (lunar ones may fall twice or not)."""
    if name in HOLIDAYS:
        m, d = HOLIDAYS[name]
        day = valid_date(year, m, d)
        return () if day is None else (day,)
    if name in NTH_WEEKDAY_HOLIDAYS:
        m, wd, nth = NTH_WEEKDAY_HOLIDAYS[name]
        return (_nth_weekday(year, m, wd, nth),)
    from . import chinacal  # lunar festivals and solar terms: the lunar library loads on first use

    return chinacal.festival_dates(name, year)


def _occurrences(p: Point, year: int) -> tuple[date, ...]:
    if p.lunar_md is not None:
        from . import chinacal

        return chinacal.lunar_dates(year, *p.lunar_md)
    return _holiday_dates(p.holiday or "", year)


def _pick_occurrence(p: Point, year: int | None, ctx: Ctx, today: date) -> date | None:
    """The said year's first occurrence, else the next one from today (the last one, for the past)."""
    if year is not None and p.lunar_year and p.lunar_md is not None:
        from . import chinacal

        return chinacal.lunar_to_solar(year, *p.lunar_md)
    if year is not None:
        days = _occurrences(p, year)
        return days[0] if days else None
    found = sorted(d for y in (today.year - 1, today.year, today.year + 1) for d in _occurrences(p, y))
    if ctx.future:
        return next((d for d in found if d >= today), None)
    return next((d for d in reversed(found) if d <= today), None)


def _pick_period(key: str, year: int | None, ctx: Ctx, today: date) -> tuple[date, date] | None:
    """A statutory break: the said year's, else the current or next one (the last one, for the past)."""
    from . import chinacal

    years = (year,) if year is not None else (today.year - 1, today.year, today.year + 1)
    spans = [s for y in years if (s := chinacal.holiday_period(key, y)) is not None]
    if year is None:
        spans = [s for s in spans if (s[1] >= today if ctx.future else s[0] <= today)]
        spans = spans[:1] if ctx.future else spans[-1:]
    return (spans[0][0], spans[0][1]) if spans else None


def _workday_date(p: Point, today: date) -> date | None:
    from . import chinacal

    if p.post_holiday:
        return chinacal.after_holiday(today)
    if p.pre_holiday:
        return chinacal.before_holiday(today)
    return chinacal.step_workdays(today, p.wd_step or 1)


def _month_edge(year: int, month: int, edge: tuple[str, int] | None) -> tuple[date, date]:
    last = month_last_day(year, month)
    kind, n = edge if edge else ("", 0)
    first_day, last_day = 1, last
    if kind == "begin":
        last_day = 5
    elif kind == "end":
        first_day = last - 6
    elif kind == "mid":
        first_day, last_day = 11, 20
    elif kind == "xun1":
        last_day = 10
    elif kind == "xun2":
        first_day, last_day = 11, 20
    elif kind == "xun3":
        first_day = 21
    elif kind == "first":
        last_day = max(1, min(n, last))
    elif kind == "last":
        first_day = max(1, last - n + 1)
    elif kind == "mhalf1":
        last_day = 15
    elif kind == "mhalf2":
        first_day = 16
    elif kind == "week_n":
        first_day, last_day = min(7 * (n - 1) + 1, last), min(7 * n, last)
    return date(year, month, first_day), date(year, month, last_day)


# One day picked inside a month: its Nth day ("下个月第10天") or an Nth weekday ("十月第一个星期一").
MONTH_DAY_EDGES = frozenset({"nth_d", "nth_wd"})
LAST_NTH = 9  # nth_wd's n is 10 * nth + weekday; nth 9 is the last one ("最后一个周五")


def _month_day(year: int, month: int, edge: tuple[str, int]) -> date | None:
    kind, n = edge
    if kind == "nth_d":
        return valid_date(year, month, n)
    nth, weekday = divmod(n, 10)
    if nth == LAST_NTH:
        last = date(year, month, month_last_day(year, month))
        return last - timedelta(days=(last.weekday() - weekday) % 7)
    d = _nth_weekday(year, month, weekday, nth)
    return d if d.month == month else None  # no fifth Monday this month


# Year edges counted in days from Jan 1, as (first day, last day) of the year for a count n: the Nth
# week is days 7N-6..7N (the month's nth_week rule: "2021年的第一周" = 1/1..1/7), the first/last n days
# ("去年的前10天", "今年最后一周" = the last 7), the Nth day ("明年的第一天").
_YEAR_DAY_EDGES = {
    "y_week_n": lambda n, size: (7 * n - 6, 7 * n),
    "y_first_d": lambda n, size: (1, n),
    "y_last_d": lambda n, size: (size - n + 1, size),
    "y_nth_d": lambda n, size: (n, n),
}


def _year_days(year: int, kind: str, n: int) -> tuple[date, date] | None:
    jan1 = date(year, 1, 1)
    size = (date(year, 12, 31) - jan1).days + 1
    first, last = _YEAR_DAY_EDGES[kind](n, size)
    if not 1 <= first <= size or n < 1:
        return None
    return jan1 + timedelta(days=first - 1), jan1 + timedelta(days=min(last, size) - 1)


def _year_edge(year: int, edge: tuple[str, int] | None) -> tuple[date, date] | None:
    kind, n = edge if edge else ("", 0)
    if kind in _YEAR_DAY_EDGES:
        return _year_days(year, kind, n)
    if kind in ("", "within"):
        return date(year, 1, 1), date(year, 12, 31)
    if kind == "y_begin":
        return date(year, 1, 1), date(year, 2, month_last_day(year, 2))
    if kind == "y_start1":
        return date(year, 1, 1), date(year, 1, 31)
    if kind == "y_end":
        return date(year, 11, 1), date(year, 12, 31)
    if kind == "y_mid":
        return date(year, 6, 1), date(year, 7, 31)
    if kind == "y_h1":
        return date(year, 1, 1), date(year, 6, 30)
    if kind == "y_h2":
        return date(year, 7, 1), date(year, 12, 31)
    if kind == "y_first_m" and 1 <= n <= 12:
        return date(year, 1, 1), date(year, n, month_last_day(year, n))
    if kind == "y_last_m" and 1 <= n <= 12:
        return date(year, 13 - n, 1), date(year, 12, 31)
    if kind == "y_season" and 1 <= n <= 4:  # 春 3-5, 夏 6-8, 秋 9-11, 冬 12-2 (meteorological)
        end_year, end_month = shift_month(year, 3 * n + 2, 0)
        return date(year, 3 * n, 1), date(end_year, end_month, month_last_day(end_year, end_month))
    if kind == "y_first_q" and 1 <= n <= 4:
        return date(year, 1, 1), date(year, 3 * n, month_last_day(year, 3 * n))
    return None


MONTH_EDGES = frozenset({"begin", "end", "mid", "xun1", "xun2", "xun3", "first", "last", "mhalf1", "mhalf2", "week_n"})


def _pick_year_for(month: int, day: int | None, ctx: Ctx) -> int:
    """A month(-day) without a year: this year unless it lies on the wrong side of today."""
    today = ctx.today
    y = today.year
    if month == today.month:
        return y
    probe = date(y, month, min(day or 1, month_last_day(y, month)))
    if ctx.future and probe < today:
        return y + 1
    if not ctx.future and probe > today:
        return y - 1
    return y


def resolve_date(p: Point, ctx: Ctx, base: date | None = None) -> tuple[date, date, str, bool] | None:
    """(first day, last day, granularity, implicit) of the date part of a point."""
    today = base or ctx.today
    if p.wd_step is not None or p.post_holiday or p.pre_holiday:
        wd = _workday_date(p, today)
        return None if wd is None else (wd, wd, "day", False)
    if p.day_off is not None:
        d = today + timedelta(days=p.day_off)
        return d, d + timedelta(days=p.day_span), "day" if not p.day_span else "span", False
    if p.week_off is not None or p.weekday is not None or p.weekend or p.workdays:
        mon = monday_of(today) + timedelta(weeks=p.week_off or 0)
        if p.workdays and p.weekday is None and not p.weekend:
            if p.week_off is None and ctx.future and today.weekday() >= 5:
                mon += timedelta(weeks=1)  # a bare 工作日 said at the weekend: the coming week's
            from . import chinacal  # 调休 and statutory holidays move the week's workdays

            first, last = chinacal.week_workdays(mon)
            return first, last, "span", False
        if p.weekday is not None:
            d = mon + timedelta(days=p.weekday)
            if p.week_off is None:
                if ctx.future and d < today:
                    d += timedelta(weeks=1)
                elif not ctx.future and d > today:
                    d -= timedelta(weeks=1)
            return d, d, "day", False
        if p.weekend:
            sat = mon + timedelta(days=5)
            if p.week_off is None and not ctx.future and today < sat:
                sat -= timedelta(weeks=1)
            return sat, sat + timedelta(days=1), "span", False
        return mon, mon + timedelta(days=6), "week", False

    year: int | None = p.year
    if year is None and p.year_off is not None:
        year = today.year + p.year_off
    month = p.month
    if p.month_off is not None:
        y0, month = shift_month(today.year, today.month, p.month_off)
        if year is None:
            year = y0
    edge = p.edge

    if p.holiday is not None and p.period:
        span = _pick_period(p.holiday, year, ctx, today)
        return None if span is None else (span[0], span[1], "period", False)
    if p.holiday is not None or p.lunar_md is not None:
        hd = _pick_occurrence(p, year, ctx, today)
        return None if hd is None else (hd, hd, "day", False)

    if p.day is not None:
        if month is None:
            y, m = (year, today.month) if year is not None else (today.year, today.month)
            bare = valid_date(y, m, p.day)
            if year is None:
                if bare is not None and ctx.future and bare < today:
                    bare = None
                if bare is None or (not ctx.future and bare > today):
                    for step in (1, 2) if ctx.future else (-1, -2):
                        yy, mm = shift_month(today.year, today.month, step)
                        cand = valid_date(yy, mm, p.day)
                        if cand is not None:
                            bare = cand
                            break
                    else:
                        bare = None
            if bare is None:
                return None
            return bare, bare, "day", False
        said_year = year is not None
        if year is None:
            year = _pick_year_for(month, p.day, ctx)
        full = valid_date(year, month, p.day)
        step = 1 if ctx.future else -1
        for _ in range(0 if said_year else 4):  # "2月29日": the next (last) Feb 29 there is
            if full is not None:
                break
            year += step
            full = valid_date(year, month, p.day)
        if full is None:
            return None
        return full, full, "day", False

    if month is not None:
        if not 1 <= month <= 12:
            return None
        if year is None:
            year = _pick_year_for(month, None, ctx)
        if not 1 <= year <= 9998:
            return None
        if edge is not None and edge[0] in MONTH_DAY_EDGES:
            picked = _month_day(year, month, edge)
            if p.implied_month and ctx.future and (picked is None or picked < today):
                picked = _month_day(*shift_month(year, month, 1), edge)  # "第二个周五" once it has passed
            return None if picked is None else (picked, picked, "day", False)
        a, b = _month_edge(year, month, edge if edge and edge[0] in MONTH_EDGES else None)
        if p.implied_month and ctx.future and b < today:
            # A bare 月初 said after this month's start has passed means next month's.
            year, month = shift_month(year, month, 1)
            a, b = _month_edge(year, month, edge if edge and edge[0] in MONTH_EDGES else None)
        gran = "month" if not edge or edge[0] not in MONTH_EDGES else "span"
        return a, b, gran, False

    if p.quarter is not None or p.quarter_off is not None:
        y = year if year is not None else today.year
        if p.quarter_off is not None:
            q_index = (today.year * 4 + (today.month - 1) // 3) + p.quarter_off
            y, q = q_index // 4, q_index % 4 + 1
        else:
            q = p.quarter or 1
        m0 = 3 * q - 2
        if edge is not None and edge[0] == "q_begin":
            return date(y, m0, 1), date(y, m0, month_last_day(y, m0)), "span", False
        if edge is not None and edge[0] == "q_end":
            return date(y, m0 + 2, 1), date(y, m0 + 2, month_last_day(y, m0 + 2)), "span", False
        return date(y, m0, 1), date(y, m0 + 2, month_last_day(y, m0 + 2)), "span", False

    if edge is not None and edge[0] in MONTH_EDGES:
        a, b = _month_edge(today.year, today.month, edge)
        return a, b, "span", False

    if year is not None or edge is not None:
        y = year if year is not None else today.year
        if not 1 <= y <= 9998:
            return None
        span = _year_edge(y, edge)
        if span is None:
            return None
        a, b = span
        if p.year_span:
            b = date(y + p.year_span, 12, 31)
        gran = "year" if (edge is None or edge[0] == "within") and not p.year_span else "span"
        return a, b, gran, False

    return today, today, "day", True


# -- clock part -----------------------------------------------------------------------------


def clock_hour(p: Point) -> int | None:
    """The 0..24 hour of the point's clock, read through its part of day or am/pm."""
    h = p.hour
    if h is None:
        return None
    if p.ampm == "pm" and 1 <= h < 12:
        return h + 12
    if p.ampm == "am":
        return 0 if h == 12 else h
    mode = POD[p.pod][2] if p.pod in POD else None
    if mode is None:
        if 1 <= h <= 5 and not p.zero_padded:
            return h + 12
        return h
    if mode == "am0":
        return 0 if h == 12 else h
    if mode == "noon":
        return h + 12 if 1 <= h <= 4 else h
    if mode == "pm":
        return h + 12 if 1 <= h < 12 else h
    if mode == "eve":
        return h + 12 if 1 <= h <= 12 else h
    if mode == "night":
        return h + 12 if 6 <= h <= 12 else h
    if mode == "midnight":
        return 24 if h == 12 else h
    if mode == "day":
        return h + 12 if 1 <= h <= 6 else h
    return h


def resolve_point(p: Point, ctx: Ctx, base: date | None = None) -> Span | None:
    if p.empty or (p.pending_num is not None and not p.has_clock and not p.has_date):
        return None
    dated = resolve_date(p, ctx, base)
    if dated is None:
        return None
    d0, d1, gran, implicit = dated
    tz = ctx.tz
    if p.has_clock or p.pod:
        if d0 != d1:
            return Span(day_start(d0, tz), day_end(d1, tz), gran)
        span = _time_of_day(p, d0, ctx)
        if span is None:
            return None
        if implicit and span.end is not None and span.start is not None:
            if ctx.future and span.end < ctx.now:
                return _time_of_day(p, d0 + timedelta(days=1), ctx)
            if not ctx.future and span.start > ctx.now:
                return _time_of_day(p, d0 - timedelta(days=1), ctx)
        return span
    return Span(day_start(d0, tz), day_end(d1, tz), gran)


def _time_of_day(p: Point, d: date, ctx: Ctx) -> Span | None:
    tz = ctx.tz
    if p.hour is None and p.pod in MOMENTS:
        moment = datetime.combine(d, time(MOMENTS[p.pod], 0), tz)
        return Span(moment, moment + timedelta(seconds=59), "moment", True, moment)
    if p.hour is None:
        assert p.pod is not None
        h0, h1, _ = POD[p.pod]
        start = datetime.combine(d, time(h0, 0), tz)
        end = datetime.combine(d, time(h1, 59, 59), tz)
        anchor = POD_ANCHOR.get(p.pod)
        at = None if anchor is None else datetime.combine(d, time(anchor, 0), tz)
        return Span(start, end, "part_of_day", False, at)
    h = clock_hour(p)
    if h is None or not 0 <= h <= 24:
        return None
    minute = p.minute
    if minute is not None and not 0 <= minute <= 59:
        return None
    start = datetime.combine(d, time(0, 0), tz) + timedelta(hours=h, minutes=minute or 0)
    if minute is not None:
        return Span(start, start + timedelta(seconds=59), "minute", True, start)
    last = h
    if p.hour2 is not None:
        h2 = p.hour2 + (h - p.hour)
        if h2 > h:
            last = h2
    end = datetime.combine(d, time(0, 0), tz) + timedelta(hours=last, minutes=59, seconds=59)
    return Span(start, end, "hour", True, start)


def add_months_start(today: date, n: int) -> date:
    return add_months(today, n).replace(day=1)
