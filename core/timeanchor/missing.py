"""Dates that name a day their month does not have ("2019年2月29日", "4月31日"): the grammar gives them
no window, and whoever asked is told why instead of getting a guess (a note asks, a query says so)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from .caltools import month_last_day
from .numerals import to_int

_YMD_RE = re.compile(
    r"(?:(?P<y>\d{4}|[零〇一二三四五六七八九]{4})年)?(?P<m>\d{1,2}|[一二三四五六七八九十]{1,3})月份?"
    r"(?P<d>\d{1,2}|[一二三四五六七八九十]{1,3})[日号]"
)


@dataclass(frozen=True, slots=True)
class MissingDay:
    phrase: str  # as written
    year: int | None  # None: no year said, and no year has that day ("4月31日")
    month: int
    days: int  # how many days that month has (in that year)


def _check(m: re.Match[str]) -> MissingDay | None:
    year = to_int(m.group("y")) if m.group("y") else None
    month, day = to_int(m.group("m")), to_int(m.group("d"))
    if month is None or day is None or not (1 <= month <= 12 and 1 <= day <= 31):
        return None
    if year is not None and not 1 <= year <= 9999:
        return None
    days = month_last_day(year if year is not None else 2000, month)  # 2000: a leap year has every day
    return None if day <= days else MissingDay(m.group(0), year, month, days)


def missing_day(text: str, *, whole: bool = False) -> MissingDay | None:
    """The first date in ``text`` (all of it, with ``whole``) that names a day its month lacks."""
    if whole:
        m = _YMD_RE.fullmatch(text.strip())
        return None if m is None else _check(m)
    return next((found for m in _YMD_RE.finditer(text) if (found := _check(m)) is not None), None)
