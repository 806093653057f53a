"""Expanding a rule into occurrences, always bounded (``MAX_STEPS`` candidates per call).

Plain RFC 5545 rules walk python-dateutil's ``rrule`` on wall-clock (naive) times in the rule's
zone, so a weekly 09:00 stays 09:00 across DST; without COUNT the walk starts near the asked
moment (fast-forward), and it never looks past a horizon of years. The Chinese-calendar parts (core/recurrence
docstring) are days from core.timeanchor.chinacal: ``X-DAYS`` filters the days dateutil gives;
``RSCALE=CHINESE`` and ``X-TERM`` list the days of each year themselves (lunar-python), with the
rule's COUNT and UNTIL applied as RFC 5545 does.
"""

from __future__ import annotations

import datetime as _datetime_module
from collections.abc import Callable, Iterator
from datetime import UTC, date, datetime, time, timedelta, tzinfo
from functools import lru_cache
from types import FunctionType
from typing import Any, Protocol

from dateutil.relativedelta import relativedelta
from dateutil.rrule import rrule, rrulestr

from core.recurrence.terms import TERMS
from core.timeanchor import chinacal

__all__ = ["MAX_STEPS", "Rule", "next_after", "occurrences"]


class Rule(Protocol):
    """What expansion reads of a rule (core.recurrence.rule.Recurrence; the rule module imports this
    one, to check that a rule occurs at all, so this one must not import it)."""

    @property
    def start(self) -> datetime: ...

    def parts(self) -> dict[str, str]: ...


MAX_STEPS = 4000  # candidate occurrences one call may look at, whatever the rule
_HORIZON_YEARS = 100  # how far past DTSTART (or the asked moment) a call looks; "never" beyond it
# X-DAYS past the published schedules is chinacal's conventional guess, and each such year costs a
# lunar table (~10 ms): a statutory-calendar rule looks this far ahead only.
_X_DAYS_HORIZON_YEARS = 30
_LAST_YEAR = 9998  # datetime's last year, less one: a lunar year reaches into the next Gregorian one
_RRULE_ITER = rrule._iter
_LONGEST_BREAK = 14  # days off in a row, at most (春节 with its weekends is 9)


def _after_holiday(d: date) -> bool:
    """The first workday after a run of days off that holds a statutory holiday. The run is walked
    back, not just the day before: a break's last days may be an ordinary weekend the published
    schedule does not list (a Friday festival, then Saturday and Sunday)."""
    if not chinacal.is_workday(d):
        return False
    day = d - timedelta(days=1)
    for _ in range(_LONGEST_BREAK):
        if chinacal.is_workday(day):
            return False
        if chinacal.is_holiday_day(day):
            return True
        day -= timedelta(days=1)
    return False


_DAY_FILTERS: dict[str, Callable[[date], bool]] = {
    "CN-WORKDAY": chinacal.is_workday,
    "CN-RESTDAY": lambda d: not chinacal.is_workday(d),
    "CN-AFTER-HOLIDAY": _after_holiday,
}


@lru_cache(maxsize=256)
def _lunar_months(year: int) -> tuple[tuple[int, date, int], ...]:
    """(month, first day, day count) of each month of lunar year ``year``, a leap month as -month."""
    import lunar_python

    out = []
    for lm in lunar_python.LunarYear.fromYear(year).getMonthsInYear():
        s = lunar_python.Lunar.fromYmd(year, lm.getMonth(), 1).getSolar()
        out.append((lm.getMonth(), date(s.getYear(), s.getMonth(), s.getDay()), lm.getDayCount()))
    return tuple(out)


@lru_cache(maxsize=64)
def _lunar_of(d: date) -> tuple[int, int]:
    """The lunar (month, day) of a Gregorian day (a leap month as -month)."""
    import lunar_python

    lunar = lunar_python.Solar.fromYmd(d.year, d.month, d.day).getLunar()
    return lunar.getMonth(), lunar.getDay()


def _lunar_day(first: date, length: int, day: int, skip: str) -> date | None:
    """-1 is the month's last day (除夕 in month 12). Day 30 of a 29-day month is as SKIP says:
    OMIT drops it, FORWARD is the next month's first day, BACKWARD its last day. Without SKIP it is
    BACKWARD, unlike RFC 7529's OMIT default: "大年三十" is 除夕 in a 29-day 腊月 too, and "每月三十"
    should not silently skip half the months."""
    if day == -1 or day <= length:
        return first + timedelta(days=(length if day == -1 else day) - 1)
    if skip == "OMIT":
        return None
    return first + timedelta(days=length if skip == "FORWARD" else length - 1)


def _year_days(parts: dict[str, str], year: int, start: date) -> list[date]:
    """The days a lunar or solar-term rule gives in the lunar year (or Gregorian year) ``year``.

    Defaults as RFC 5545 has them: no BYMONTHDAY → DTSTART's lunar day; a YEARLY rule without
    BYMONTH → DTSTART's lunar month. A MONTHLY rule without BYMONTH includes leap months (闰月):
    someone who burns incense "每月初一" does so in the leap month too (RFC 7529 iterates every month
    of the lunar year). BYMONTH=N is the ordinary month N only, so a yearly birthday stays once a year."""
    if "X-TERM" in parts:
        day = chinacal.solar_terms(year).get(TERMS.get(parts["X-TERM"], ""))
        return [day] if day else []
    lunar_month, lunar_day = _lunar_of(start)
    days = [int(d) for d in parts["BYMONTHDAY"].split(",")] if "BYMONTHDAY" in parts else [lunar_day]
    if "BYMONTH" in parts:
        wanted: set[int] | None = {int(m) for m in parts["BYMONTH"].split(",")}
    elif parts["FREQ"] == "YEARLY":
        wanted = {abs(lunar_month)}
    else:
        wanted = None  # every month, leap months included
    skip = parts.get("SKIP", "BACKWARD")
    found = {
        _lunar_day(first, length, d, skip)
        for month, first, length in _lunar_months(year)
        if (wanted is None or month in wanted)
        for d in days
    }
    return sorted(d for d in found if d is not None)


def _calendar_walk(rec: Rule, parts: dict[str, str], after: datetime) -> Iterator[datetime]:
    count = int(parts["COUNT"]) if "COUNT" in parts else None
    clock, zone = rec.start.timetz(), rec.start.tzinfo
    until = _until(parts, zone)
    first = rec.start.replace(tzinfo=None)
    # Fast-forward: without COUNT nothing before the year of ``after`` matters (lunar year Y ends
    # in Gregorian Y+1, hence the year before).
    year = (rec.start.year if count is not None else max(rec.start.year, after.year)) - 1
    seen = 0
    while year <= min(_HORIZON_YEARS + max(rec.start.year, after.year), _LAST_YEAR):
        for day in _year_days(parts, year, rec.start.date()):
            moment = datetime.combine(day, clock.replace(tzinfo=None))
            if moment < first:
                continue
            if until is not None and moment > until:
                return
            yield _aware(moment, zone)
            seen += 1
            if count is not None and seen >= count:
                return
        year += 1


def _aware(naive: datetime, zone: tzinfo | None) -> datetime:
    """A wall-clock time in the zone, as a real instant: one in a spring-forward gap (02:30 on the
    day 02:00 jumps to 03:00) is read with the offset before the gap, as RFC 5545 says (03:30)."""
    return naive.replace(tzinfo=zone).astimezone(UTC).astimezone(zone)


def _until(parts: dict[str, str], zone: tzinfo | None) -> datetime | None:
    """UNTIL as a wall-clock time in the rule's zone: a UTC one ("…Z", what RFC 5545 asks for with a
    zoned DTSTART) is converted; a bare date is the whole of that day ("到12月3日" includes the 3rd)."""
    text = parts.get("UNTIL")
    if not text:
        return None
    if "T" not in text:
        return datetime.combine(datetime.strptime(text, "%Y%m%d").date(), time(23, 59, 59))
    moment = datetime.strptime(text.rstrip("Z"), "%Y%m%dT%H%M%S")
    if text.endswith("Z"):
        moment = moment.replace(tzinfo=UTC).astimezone(zone).replace(tzinfo=None)
    return moment


def _months(a: datetime, b: datetime) -> int:
    return (b.year - a.year) * 12 + b.month - a.month


def _fast_forward(parts: dict[str, str], start: datetime, after: datetime) -> tuple[dict[str, str], datetime]:
    """A later DTSTART with the same occurrences from ``after`` on, for a rule without COUNT.

    The walk would otherwise spend its MAX_STEPS on a DTSTART years ago. The new start is a whole
    number of INTERVAL periods later (so INTERVAL's phase holds) and at least one period before
    ``after``; for MONTHLY/YEARLY it is the first day of its period, so BYSETPOS sees whole periods,
    and the defaults dateutil takes from DTSTART (its day, month) are made explicit first."""
    freq, interval = parts["FREQ"], int(parts.get("INTERVAL", "1"))
    given = {"BYWEEKNO", "BYYEARDAY", "BYMONTHDAY", "BYDAY"} & parts.keys()
    if freq in ("MONTHLY", "YEARLY") and not given:
        parts = {**parts, "BYMONTHDAY": str(start.day)}
        if freq == "YEARLY" and "BYMONTH" not in parts:
            parts["BYMONTH"] = str(start.month)
    days = (after.date() - start.date()).days
    if freq == "DAILY":
        k = days // interval - 1
        shifted = start + timedelta(days=k * interval) if k > 0 else start
    elif freq == "WEEKLY":
        k = days // 7 // interval - 1
        shifted = start + timedelta(weeks=k * interval) if k > 0 else start
    else:
        per = 12 if freq == "YEARLY" else 1
        k = _months(start, after) // per // interval - 1
        if k > 0:
            first = start.replace(month=1 if per == 12 else start.month, day=1)
            shifted = first + relativedelta(months=k * interval * per)
        else:
            shifted = start
    return parts, shifted


class _Year:
    """dateutil's rrule stops a period that matches nothing only at ``datetime.MAXYEAR``: a rule
    like FREQ=DAILY;BYMONTH=4;BYMONTHDAY=31 would walk every day to 9999 (seconds) before saying
    it never occurs. Its ``_iter`` is run with this stand-in for the ``datetime`` module, whose
    MAXYEAR is our horizon; everything else is the real module."""

    def __init__(self, last: int) -> None:
        self.MAXYEAR = last

    def __getattr__(self, name: str) -> Any:
        return getattr(_datetime_module, name)


class _BoundedRule(rrule):
    horizon: int = _LAST_YEAR

    def _iter(self) -> Iterator[datetime]:
        run = FunctionType(_RRULE_ITER.__code__, {**_RRULE_ITER.__globals__, "datetime": _Year(self.horizon)})
        return run(self)


def _plain_walk(rec: Rule, parts: dict[str, str], after: datetime) -> Iterator[datetime]:
    # COUNT counts the occurrences the user gets, i.e. after the X-DAYS filter ("每个工作日，共10次"
    # is ten workdays), so it is applied here rather than by dateutil.
    count = int(parts["COUNT"]) if "COUNT" in parts else None
    start = rec.start.replace(tzinfo=None)
    if count is None:
        parts, start = _fast_forward(parts, start, after.astimezone(rec.start.tzinfo).replace(tzinfo=None))
    daily = parts["FREQ"] == "DAILY" and parts.get("INTERVAL", "1") == "1"
    if daily and "BYMONTHDAY" in parts and "BYSETPOS" not in parts:
        # The same days, walked a year at a time: dateutil visits every day of a DAILY rule, so a
        # rare one ("BYMONTH=2;BYMONTHDAY=29") costs 365 steps a year. BYMONTHDAY keeps YEARLY from
        # taking DTSTART's month and day as defaults.
        parts = {**parts, "FREQ": "YEARLY"}
    until = _until(parts, rec.start.tzinfo)
    if until is not None:
        parts = {**parts, "UNTIL": until.strftime("%Y%m%dT%H%M%S")}  # dateutil: naive, like DTSTART
    skip = ("X-", "RSCALE", "SKIP", "COUNT")
    plain = ";".join(f"{k}={v}" for k, v in parts.items() if not k.startswith(skip))
    base = rrulestr(plain, dtstart=start)
    assert isinstance(base, rrule)
    bounded = _BoundedRule.__new__(_BoundedRule)  # dateutil's parsed rule, iterated with a horizon
    bounded.__dict__.update(base.__dict__)
    keep = _DAY_FILTERS.get(parts.get("X-DAYS", ""))
    years = _HORIZON_YEARS if keep is None else _X_DAYS_HORIZON_YEARS
    bounded.horizon = min(max(start.year, after.year) + years, _LAST_YEAR)
    seen = 0
    for step, naive in enumerate(bounded):
        if step >= MAX_STEPS:  # candidates, before X-DAYS: a rare filter must not walk for ever
            return
        if naive < rec.start.replace(tzinfo=None):
            continue
        if keep is None or keep(naive.date()):
            yield _aware(naive, rec.start.tzinfo)
            seen += 1
            if count is not None and seen >= count:
                return


def _walk(rec: Rule, after: datetime) -> Iterator[datetime]:
    parts = rec.parts()
    calendar = parts.get("RSCALE") == "CHINESE" or "X-TERM" in parts
    if not calendar:
        yield from _plain_walk(rec, parts, after)  # counts its own candidates
        return
    for step, moment in enumerate(_calendar_walk(rec, parts, after)):
        if step >= MAX_STEPS:
            return
        yield moment


def occurrences(
    rec: Rule, *, after: datetime, before: datetime | None = None, limit: int = 10, inclusive: bool = False
) -> list[datetime]:
    """Up to ``limit`` occurrences (aware, in the rule's zone, ascending) later than ``after``
    (or at it, when ``inclusive``) and not later than ``before``.

    Bounded: at most MAX_STEPS candidates and _HORIZON_YEARS years past ``after`` (or DTSTART) are
    looked at (_X_DAYS_HORIZON_YEARS for an X-DAYS rule). A rule without COUNT is fast-forwarded
    to ``after``, so an old DTSTART costs nothing; a rule with COUNT is counted from DTSTART, so
    past MAX_STEPS candidates it gives no more."""
    out: list[datetime] = []
    for moment in _walk(rec, after):
        if before is not None and moment > before:
            break
        if moment > after or (inclusive and moment == after):
            out.append(moment)
            if len(out) >= limit:
                break
    return out


def next_after(rec: Rule, moment: datetime, *, inclusive: bool = False) -> datetime | None:
    found = occurrences(rec, after=moment, limit=1, inclusive=inclusive)
    return found[0] if found else None
