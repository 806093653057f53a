"""Small calendar helpers: day bounds, month arithmetic, week starts."""

from __future__ import annotations

import calendar
from datetime import date, datetime, time, timedelta, tzinfo

END_OF_DAY = time(23, 59, 59)


def day_start(d: date, tz: tzinfo) -> datetime:
    return datetime.combine(d, time(0, 0), tz)


def day_end(d: date, tz: tzinfo) -> datetime:
    return datetime.combine(d, END_OF_DAY, tz)


def month_last_day(year: int, month: int) -> int:
    return calendar.monthrange(year, month)[1]


def shift_month(year: int, month: int, offset: int) -> tuple[int, int]:
    index = year * 12 + (month - 1) + offset
    return index // 12, index % 12 + 1


def add_months(d: date, offset: int) -> date:
    y, m = shift_month(d.year, d.month, offset)
    return date(y, m, min(d.day, month_last_day(y, m)))


def add_years(d: date, offset: int) -> date:
    y = d.year + offset
    return date(y, d.month, min(d.day, month_last_day(y, d.month)))


def monday_of(d: date) -> date:
    return d - timedelta(days=d.weekday())


def valid_date(year: int, month: int, day: int) -> date | None:
    if not (1 <= year <= 9998 and 1 <= month <= 12 and 1 <= day <= 31):
        return None
    if day > month_last_day(year, month):
        return None
    return date(year, month, day)
