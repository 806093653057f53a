"""The Chinese calendar: statutory workdays, 调休 and holiday periods (chinese-calendar), lunar
dates, traditional festivals and the 24 solar terms (lunar-python). See docs/fdr/0014.

Both libraries are imported on first use only (a calendar word matched) or by warm(): a plain
"下周三之前" never pays for them. Everything is per year and cached. chinese-calendar only knows the
years whose State Council notice is published; beyond them, workdays are Monday..Friday minus the
fixed statutory days (FALLBACK_*) and callers say so (schedule_known).
"""

from __future__ import annotations

import hashlib
from datetime import date, timedelta
from functools import lru_cache
from typing import Any

# Lunar (month, day) of the traditional festivals. 小年 is the northern 腊月二十三 (the south keeps
# 腊月二十四); 除夕 is the last day of 腊月 (29th or 30th), 春节 is 正月初一.
LUNAR_FESTIVALS: dict[str, tuple[int, int]] = {
    "春节": (1, 1), "元宵节": (1, 15), "龙抬头": (2, 2), "端午节": (5, 5), "七夕": (7, 7), "中元节": (7, 15),
    "中秋节": (8, 15), "重阳节": (9, 9), "腊八节": (12, 8), "小年": (12, 23), "除夕": (12, 30),
}  # fmt: skip
SOLAR_TERMS = ("小寒", "大寒", "立春", "雨水", "惊蛰", "春分", "清明", "谷雨", "立夏", "小满", "芒种", "夏至",
               "小暑", "大暑", "立秋", "处暑", "白露", "秋分", "寒露", "霜降", "立冬", "小雪", "大雪", "冬至")  # fmt: skip
# lunar-python names the terms outside the lunar year in pinyin.
_PINYIN_TERMS = {"DA_XUE": "大雪", "DONG_ZHI": "冬至", "XIAO_HAN": "小寒", "DA_HAN": "大寒", "LI_CHUN": "立春",
                 "YU_SHUI": "雨水", "JING_ZHE": "惊蛰"}  # fmt: skip

# Holiday period key → chinese-calendar's holiday name.
PERIOD_NAMES = {"元旦": "New Year's Day", "春节": "Spring Festival", "清明": "Tomb-sweeping Day",
                "五一": "Labour Day", "端午": "Dragon Boat Festival", "中秋": "Mid-autumn Festival",
                "国庆": "National Day"}  # fmt: skip
# A festival's own break: "国庆节后第一个工作日" is after the whole 国庆 break, not after Oct 1.
FESTIVAL_PERIOD = {"元旦": "元旦", "春节": "春节", "清明": "清明", "劳动节": "五一", "五一": "五一",
                   "端午节": "端午", "中秋节": "中秋", "国庆节": "国庆", "国庆": "国庆"}  # fmt: skip
# Beyond the published years: the conventional break, as (anchor, first offset, last offset).
# 国庆/五一 are the usual 7/5-day breaks; 春节 runs 除夕..初七; the others are their festival day.
_FALLBACK_PERIODS: dict[str, tuple[str, int, int]] = {
    "元旦": ("01-01", 0, 0), "春节": ("除夕", 0, 7), "清明": ("清明", 0, 0), "五一": ("05-01", 0, 4),
    "端午": ("端午节", 0, 0), "中秋": ("中秋节", 0, 0), "国庆": ("10-01", 0, 6),
}  # fmt: skip
# The statutory days off themselves (2025 rules): 元旦 1, 春节 4 (除夕..初三), 清明 1, 五一 2, 端午 1,
# 中秋 1, 国庆 3. Used only where no notice is published; 调休 cannot be guessed.
_FALLBACK_DAYS: tuple[tuple[str, int, int], ...] = (
    ("01-01", 0, 0), ("除夕", 0, 3), ("清明", 0, 0), ("05-01", 0, 1), ("端午节", 0, 0), ("中秋节", 0, 0),
    ("10-01", 0, 2),
)  # fmt: skip


# Years an operator added from a holiday-cn file (SUIKOU_HOLIDAYS_FILE, :func:`add_schedule`): days off
# and make-up workdays, each with its holiday's PERIOD_NAMES key. They win over the library's years.
_ADDED_OFF: dict[date, str] = {}
_ADDED_ON: dict[date, str] = {}
_ADDED_YEARS: set[int] = set()
# holiday-cn's names ("国庆节", "劳动节", "中秋节、国庆节") → PERIOD_NAMES keys.
_HOLIDAY_CN_NAMES = {"元旦": "元旦", "春节": "春节", "清明节": "清明", "清明": "清明", "劳动节": "五一", "端午节": "端午",
                     "端午": "端午", "中秋节": "中秋", "中秋": "中秋", "国庆节": "国庆", "国庆": "国庆"}  # fmt: skip


class ScheduleError(ValueError):
    """A holiday file that can't be read: what is wrong and where."""


def _period_key(name: str) -> str:
    """The break a holiday-cn name belongs to; a joint one ("国庆节、中秋节") is the first named."""
    found = [(name.find(k), v) for k, v in _HOLIDAY_CN_NAMES.items() if k in name]
    return min(found)[1] if found else ""


def add_schedule(document: Any) -> list[int]:
    """Adds the years of a holiday-cn document (``{"year": 2027, "days": [{"name": "元旦", "date":
    "2027-01-01", "isOffDay": true}, ...]}``, or a list of them): the years added. Raises
    :class:`ScheduleError` naming the problem; nothing is added then."""
    off: dict[date, str] = {}
    on: dict[date, str] = {}
    years: set[int] = set()
    for i, year_doc in enumerate(document if isinstance(document, list) else [document]):
        if (
            not isinstance(year_doc, dict)
            or not isinstance(year_doc.get("year"), int)
            or not isinstance(year_doc.get("days"), list)
        ):
            raise ScheduleError(f"entry {i}: expected {{'year': <int>, 'days': [...]}}")
        years.add(year_doc["year"])
        for j, day in enumerate(year_doc["days"]):
            try:
                d = date.fromisoformat(day["date"])
                key = _period_key(str(day["name"]))
                (off if bool(day["isOffDay"]) else on)[d] = key
            except (KeyError, TypeError, ValueError) as exc:
                raise ScheduleError(f"year {year_doc['year']}, day {j}: {exc!r}") from exc
    _ADDED_OFF.update(off)
    _ADDED_ON.update(on)
    _ADDED_YEARS.update(years)
    for cached in (fallback_holidays, holiday_period, _runs):
        cached.cache_clear()
    return sorted(years)


def clear_added() -> None:
    """Forgets the added years (tests; a reload)."""
    _ADDED_OFF.clear()
    _ADDED_ON.clear()
    _ADDED_YEARS.clear()
    for cached in (fallback_holidays, holiday_period, _runs):
        cached.cache_clear()


def data_version() -> str:
    """Which statutory schedules this process knows (the library's and the added years): a workday
    rule's days change with it, so what caches them (the calendar feed's ETag) names it."""
    from importlib.metadata import version

    added = hashlib.sha256(repr(sorted(_ADDED_OFF.items()) + sorted(_ADDED_ON.items())).encode()).hexdigest()[:12]
    return f"{version('chinese-calendar')}+{added}"


def _cc() -> Any:
    import chinese_calendar

    return chinese_calendar


def _lunar() -> Any:
    import lunar_python

    return lunar_python


def warm() -> None:
    """Import both libraries and fill this year's caches (a server runs this at start)."""
    year = date.today().year
    schedule_known(year)
    solar_terms(year)
    fallback_holidays(year + 1)


# -- lunar calendar -------------------------------------------------------------------------------


@lru_cache(maxsize=512)
def lunar_to_solar(lunar_year: int, month: int, day: int) -> date | None:
    """The Gregorian day of a (non-leap) lunar date; day 30 of a 29-day month is its last day."""
    lp = _lunar()
    lm = lp.LunarMonth.fromYm(lunar_year, month)
    if lm is None or not 1 <= day <= 30:
        return None
    s = lp.Lunar.fromYmd(lunar_year, month, min(day, lm.getDayCount())).getSolar()
    return date(s.getYear(), s.getMonth(), s.getDay())


def lunar_dates(year: int, month: int, day: int) -> tuple[date, ...]:
    """Every Gregorian day of `year` that is lunar month/day (of lunar year year-1 or year)."""
    found = (lunar_to_solar(ly, month, day) for ly in (year - 1, year))
    return tuple(d for d in found if d is not None and d.year == year)


@lru_cache(maxsize=128)
def lunar_label(d: date) -> str:
    """ "农历九月初九" for a Gregorian day."""
    lunar = _lunar().Solar.fromYmd(d.year, d.month, d.day).getLunar()
    return f"农历{lunar.getMonthInChinese()}月{lunar.getDayInChinese()}"


@lru_cache(maxsize=32)
def solar_terms(year: int) -> dict[str, date]:
    """The 24 solar terms of a Gregorian year."""
    lp = _lunar()
    out: dict[str, date] = {}
    for lunar_year in (year, year + 1):
        table = lp.Lunar.fromYmd(lunar_year, 1, 1).getJieQiTable()
        for key, s in table.items():
            d = date(s.getYear(), s.getMonth(), s.getDay())
            if d.year == year:
                out[_PINYIN_TERMS.get(key, key)] = d
    return out


def festival_dates(name: str, year: int) -> tuple[date, ...]:
    """The days of a lunar festival or solar term in a Gregorian year (usually one)."""
    if name in SOLAR_TERMS:
        d = solar_terms(year).get(name)
        return () if d is None else (d,)
    md = LUNAR_FESTIVALS.get(name)
    return () if md is None else lunar_dates(year, *md)


# -- statutory schedule ---------------------------------------------------------------------------


@lru_cache(maxsize=1)
def _published_years() -> tuple[int, int]:
    days = _cc().constants.holidays
    return min(days).year, max(days).year


def schedule_known(year: int) -> bool:
    if year in _ADDED_YEARS:
        return True
    first, last = _published_years()
    return first <= year <= last


def _anchor_day(anchor: str, year: int) -> date | None:
    if anchor[:2].isdigit():
        return date(year, int(anchor[:2]), int(anchor[3:]))
    days = festival_dates(anchor, year)
    return days[0] if days else None


@lru_cache(maxsize=16)
def fallback_holidays(year: int) -> frozenset[date]:
    out: set[date] = set()
    for anchor, a, b in _FALLBACK_DAYS:
        first = _anchor_day(anchor, year)
        if first is not None:
            out.update(first + timedelta(days=i) for i in range(a, b + 1))
    return frozenset(out)


def is_holiday_day(d: date) -> bool:
    """A statutory day off (weekends inside a break count; ordinary weekends do not)."""
    if d.year in _ADDED_YEARS:
        return d in _ADDED_OFF
    if schedule_known(d.year):
        return d in _cc().constants.holidays
    return d in fallback_holidays(d.year)


def holiday_key(d: date) -> str | None:
    """The break a published day off belongs to, as a PERIOD_NAMES key ("国庆"); None otherwise."""
    if d.year in _ADDED_YEARS:
        return _ADDED_OFF.get(d) or None
    if not schedule_known(d.year):
        return None
    name = _cc().constants.holidays.get(d)
    value = str(getattr(name, "value", name))
    return next((k for k, v in PERIOD_NAMES.items() if v == value), None)


def is_workday(d: date) -> bool:
    if d.year in _ADDED_YEARS:
        return d in _ADDED_ON or (d.weekday() < 5 and d not in _ADDED_OFF)
    if schedule_known(d.year):
        return bool(_cc().is_workday(d))
    return d.weekday() < 5 and d not in fallback_holidays(d.year)


def is_trading_day(d: date) -> bool:
    """Exchanges stay shut on 调休 Saturdays: a trading day is a Monday..Friday that is no holiday."""
    return d.weekday() < 5 and is_workday(d)


def step_workdays(d: date, n: int, trading: bool = False) -> date:
    """d moved by n workdays (n < 0: back), not counting d itself."""
    ok = is_trading_day if trading else is_workday
    step = 1 if n >= 0 else -1
    left = abs(n)
    while left:
        d += timedelta(days=step)
        if ok(d):
            left -= 1
    return d


@lru_cache(maxsize=64)
def after_holiday(today: date) -> date | None:
    """The first workday after the holiday break under way or next to come (节后第一天)."""
    d = today
    for _ in range(400):
        if is_holiday_day(d):
            while not is_workday(d):
                d += timedelta(days=1)
            return d
        d += timedelta(days=1)
    return None


@lru_cache(maxsize=64)
def before_holiday(today: date) -> date | None:
    """The eve of the next break (节前); during a break, of the one after it."""
    d = today
    while is_holiday_day(d):
        d += timedelta(days=1)
    for _ in range(400):
        if is_holiday_day(d):
            return d - timedelta(days=1)
        d += timedelta(days=1)
    return None


def edge_workday(first: date, last: date, latest: bool) -> date | None:
    """The first (or last) workday within first..last."""
    days = [first + timedelta(days=i) for i in range((last - first).days + 1)]
    work = [d for d in (reversed(days) if latest else days) if is_workday(d)]
    return work[0] if work else None


def week_workdays(monday: date) -> tuple[date, date]:
    """First and last workday of a Monday..Sunday week (Monday..Friday if it has none)."""
    days = [monday + timedelta(days=i) for i in range(7)]
    work = [d for d in days if is_workday(d)]
    return (work[0], work[-1]) if work else (monday, monday + timedelta(days=4))


@lru_cache(maxsize=1)
def _runs() -> tuple[tuple[date, date, frozenset[str]], ...]:
    """The published breaks: runs of consecutive holiday days with the holiday names inside."""
    days: dict[date, str] = {
        d: str(getattr(v, "value", v)) for d, v in _cc().constants.holidays.items() if d.year not in _ADDED_YEARS
    }
    days.update((d, PERIOD_NAMES.get(key, key)) for d, key in _ADDED_OFF.items())
    runs: list[tuple[date, date, frozenset[str]]] = []
    for d in sorted(days):
        name = days[d]
        if runs and (d - runs[-1][1]).days == 1:
            a, _, names = runs[-1]
            runs[-1] = (a, d, names | {name})
        else:
            runs.append((d, d, frozenset({name})))
    return tuple(runs)


def break_end(name: str | None, day: date) -> date:
    """The last day of the break a festival day lies in (the day itself if none)."""
    key = FESTIVAL_PERIOD.get(name or "")
    span = holiday_period(key, day.year) if key else None
    return span[1] if span is not None and span[0] <= day <= span[1] else day


@lru_cache(maxsize=64)
def holiday_period(key: str, year: int) -> tuple[date, date, bool] | None:
    """(first day, last day, published) of a named break in a year, e.g. 端午 2026 → 06-19..06-21."""
    name = PERIOD_NAMES.get(key)
    if name is None:
        return None
    if schedule_known(year):
        for a, b, names in _runs():
            if name in names and (a.year == year or b.year == year) and (key != "元旦" or b.year == year):
                return a, b, True
    anchor, first, last = _FALLBACK_PERIODS[key]
    day = _anchor_day(anchor, year)
    if day is None:
        return None
    return day + timedelta(days=first), day + timedelta(days=last), False
