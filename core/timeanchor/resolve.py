"""resolve_time: find the time expression in a text and return its closed window."""

from __future__ import annotations

import re
from datetime import datetime, tzinfo
from functools import lru_cache
from typing import Literal
from zoneinfo import ZoneInfo

from . import numdate
from .context import Ctx
from .grammar import parse_at
from .patterns import glued, normalise, tokens
from .window import Granularity, TimeWindow

MAX_CHARS = 20_000  # a query is a sentence; beyond this we only look at the start
_GRANULARITIES: frozenset[str] = frozenset(
    {"minute", "hour", "part_of_day", "day", "week", "month", "year", "span", "open"}
)


@lru_cache(maxsize=64)
def _zone(name: str) -> tzinfo:
    return ZoneInfo(name)


def resolve_time(
    text: str,
    now: datetime,
    tz: str | ZoneInfo = "Asia/Shanghai",
    *,
    prefer: Literal["future", "past"] = "future",
) -> TimeWindow | None:
    """The closed window of the first time expression in `text`, relative to `now`, in `tz`.

    Never raises on odd input: an unparseable text, timezone or naive `now` gives None.
    """
    try:
        zone = _zone(tz) if isinstance(tz, str) else tz
        if not isinstance(text, str) or not text or now.tzinfo is None or now.utcoffset() is None:
            return None
        order = numdate.ORDER.get()  # part of the key: the same "1/2" is another day under "dmy"
        return _resolve_once(text[:MAX_CHARS], now, zone, "past" if prefer == "past" else "future", order)
    except (ValueError, OverflowError, KeyError, IndexError, TypeError, ArithmeticError):
        return None


# One turn reads the same sentence several times (router, plan rules, boundary): the answer is a
# pure function of these arguments and immutable, so it is worked out once.
@lru_cache(maxsize=256)
def _resolve_once(
    text: str, now: datetime, zone: tzinfo, prefer: Literal["future", "past"], order: str = "auto"
) -> TimeWindow | None:
    return _resolve(text, Ctx(now.astimezone(zone), zone, prefer))


# A title in 《》 or 「」/『』 is a name, never a time: "《明日之后》将于明日上线" reads only the second 明日.
_NAMED = re.compile(r"《[^《》]*》|「[^「」]*」|『[^『』]*』")
# Tokens that start a date: once one of them fails, the rest of that date is no date of its own
# ("2019年2月29日" is no day at all, not the next Feb 29).
_DATE_HEADS = frozenset({"year", "yrel"})


def _resolve(text: str, ctx: Ctx) -> TimeWindow | None:
    norm = normalise(text)
    named = [m.span() for m in _NAMED.finditer(norm)]
    toks = [t for t in tokens(norm) if not any(a <= t.start < b for a, b in named)]
    failed_head = -1  # where a failed year ended
    for i in range(len(toks)):
        if failed_head >= 0 and glued(norm, failed_head, toks[i].start):
            failed_head = toks[i].end
            continue
        expr = parse_at(toks, i, norm, ctx)
        if expr is None:
            failed_head = toks[i].end if toks[i].kind in _DATE_HEADS else -1
            continue
        failed_head = -1
        s = expr.span
        if s.start is not None and s.end is not None and s.start > s.end:
            continue
        gran: Granularity = s.granularity if s.granularity in _GRANULARITIES else "span"  # type: ignore[assignment]
        return TimeWindow(
            start=s.start,
            end=s.end,
            phrase=text[expr.start : expr.end],
            granularity=gran,
            has_clock_time=s.has_clock,
            overdue=expr.overdue,
            clock_at=s.clock_at,
            note=expr.note,
        )
    return None
