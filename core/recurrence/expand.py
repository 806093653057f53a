"""Expanding a rule into occurrences, always bounded (``MAX_STEPS`` candidates per call).

Plain RFC 5545 rules walk python-dateutil's ``rrule`` on wall-clock (naive) times in the rule's
zone, so a weekly 09:00 stays 09:00 across DST. The Chinese-calendar parts (core/recurrence
docstring) are days from core.timeanchor.chinacal: ``X-DAYS`` filters the days dateutil gives;
``RSCALE=CHINESE`` and ``X-TERM`` list the days of each year themselves (lunar-python), with the
rule's COUNT and UNTIL applied as RFC 5545 does.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import date, datetime, timedelta

from dateutil.rrule import rrulestr

from core.recurrence.rule import Recurrence
from core.timeanchor import chinacal

__all__ = ["MAX_STEPS", "known_term", "next_after", "occurrences"]

MAX_STEPS = 4000  # candidate occurrences one call may look at, whatever the rule
_TERMS = {
    "XIAOHAN": "小寒", "DAHAN": "大寒", "LICHUN": "立春", "YUSHUI": "雨水", "JINGZHE": "惊蛰", "CHUNFEN": "春分",
    "QINGMING": "清明", "GUYU": "谷雨", "LIXIA": "立夏", "XIAOMAN": "小满", "MANGZHONG": "芒种", "XIAZHI": "夏至",
    "XIAOSHU": "小暑", "DASHU": "大暑", "LIQIU": "立秋", "CHUSHU": "处暑", "BAILU": "白露", "QIUFEN": "秋分",
    "HANLU": "寒露", "SHUANGJIANG": "霜降", "LIDONG": "立冬", "XIAOXUE": "小雪", "DAXUE": "大雪", "DONGZHI": "冬至",
}  # fmt: skip


def known_term(name: str) -> bool:
    return name in _TERMS


def _after_holiday(d: date) -> bool:
    return chinacal.is_workday(d) and chinacal.is_holiday_day(d - timedelta(days=1))


_DAY_FILTERS: dict[str, Callable[[date], bool]] = {
    "CN-WORKDAY": chinacal.is_workday,
    "CN-RESTDAY": lambda d: not chinacal.is_workday(d),
    "CN-AFTER-HOLIDAY": _after_holiday,
}


def _year_days(parts: dict[str, str], year: int) -> list[date]:
    """The days a lunar or solar-term rule gives in the lunar year (or Gregorian year) ``year``."""
    if "X-TERM" in parts:
        day = chinacal.solar_terms(year).get(_TERMS.get(parts["X-TERM"], ""))
        return [day] if day else []
    months = [int(m) for m in parts.get("BYMONTH", ",".join(map(str, range(1, 13)))).split(",")]
    days = [30 if int(d) == -1 else int(d) for d in parts.get("BYMONTHDAY", "1").split(",")]
    found = (chinacal.lunar_to_solar(year, m, d) for m in months for d in days)
    return sorted({d for d in found if d is not None})


def _calendar_walk(rec: Recurrence, parts: dict[str, str]) -> Iterator[datetime]:
    count = int(parts["COUNT"]) if "COUNT" in parts else None
    until = _until(parts)
    clock, zone = rec.start.timetz(), rec.start.tzinfo
    first = rec.start.replace(tzinfo=None)
    year, seen = rec.start.year - 1, 0
    while year <= 2200:
        for day in _year_days(parts, year):
            moment = datetime.combine(day, clock.replace(tzinfo=None))
            if moment < first:
                continue
            if until is not None and moment > until:
                return
            yield moment.replace(tzinfo=zone)
            seen += 1
            if count is not None and seen >= count:
                return
        year += 1


def _until(parts: dict[str, str]) -> datetime | None:
    text = parts.get("UNTIL")
    if not text:
        return None
    text = text.rstrip("Z")
    return datetime.strptime(text, "%Y%m%dT%H%M%S") if "T" in text else datetime.strptime(text, "%Y%m%d")


def _plain_walk(rec: Recurrence, parts: dict[str, str]) -> Iterator[datetime]:
    plain = ";".join(f"{k}={v}" for k, v in parts.items() if not k.startswith(("X-", "RSCALE", "SKIP")))
    keep = _DAY_FILTERS.get(parts.get("X-DAYS", ""))
    for naive in rrulestr(plain, dtstart=rec.start.replace(tzinfo=None)):
        if keep is None or keep(naive.date()):
            yield naive.replace(tzinfo=rec.start.tzinfo)


def _walk(rec: Recurrence) -> Iterator[datetime]:
    parts = rec.parts()
    calendar = parts.get("RSCALE") == "CHINESE" or "X-TERM" in parts
    walk = _calendar_walk(rec, parts) if calendar else _plain_walk(rec, parts)
    for step, moment in enumerate(walk):
        if step >= MAX_STEPS:
            return
        yield moment


def occurrences(
    rec: Recurrence, *, after: datetime, before: datetime | None = None, limit: int = 10, inclusive: bool = False
) -> list[datetime]:
    """Up to ``limit`` occurrences (aware, in the rule's zone, ascending) later than ``after``
    (or at it, when ``inclusive``) and not later than ``before``."""
    out: list[datetime] = []
    for moment in _walk(rec):
        if before is not None and moment > before:
            break
        if moment > after or (inclusive and moment == after):
            out.append(moment)
            if len(out) >= limit:
                break
    return out


def next_after(rec: Recurrence, moment: datetime, *, inclusive: bool = False) -> datetime | None:
    found = occurrences(rec, after=moment, limit=1, inclusive=inclusive)
    return found[0] if found else None
