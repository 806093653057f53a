"""resolve_time: find the time expression in a text and return its closed window."""

from __future__ import annotations

from datetime import datetime, tzinfo
from functools import lru_cache
from typing import Literal
from zoneinfo import ZoneInfo

from .context import Ctx
from .grammar import parse_at
from .patterns import normalise, tokens
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
        return _resolve_once(text[:MAX_CHARS], now, zone, "past" if prefer == "past" else "future")
    except (ValueError, OverflowError, KeyError, IndexError, TypeError, ArithmeticError):
        return None


# One turn reads the same sentence several times (router, plan rules, boundary): the answer is a
# pure function of these arguments and immutable, so it is worked out once.
@lru_cache(maxsize=256)
def _resolve_once(text: str, now: datetime, zone: tzinfo, prefer: Literal["future", "past"]) -> TimeWindow | None:
    return _resolve(text, Ctx(now.astimezone(zone), zone, prefer))


def _resolve(text: str, ctx: Ctx) -> TimeWindow | None:
    norm = normalise(text)
    toks = list(tokens(norm))
    for i in range(len(toks)):
        expr = parse_at(toks, i, norm, ctx)
        if expr is None:
            continue
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
