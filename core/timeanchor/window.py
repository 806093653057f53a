"""The public result type and the quick-note deadline rule."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Literal
from zoneinfo import ZoneInfo

Granularity = Literal["minute", "hour", "part_of_day", "day", "week", "month", "year", "span", "open"]


@dataclass(frozen=True)
class TimeWindow:
    """A closed window [start, end] in the user's timezone; None means open on that side."""

    start: datetime | None
    end: datetime | None
    phrase: str
    granularity: Granularity
    has_clock_time: bool
    overdue: bool = False
    # The named clock time itself (e.g. 15:00 for "下午3点前"), kept for deadline_of; not compared.
    clock_at: datetime | None = field(default=None, compare=False, repr=False)
    # The calendar rule behind the window, in one short Chinese line for the answer to show
    # ("重阳节 → 2027年10月8日（农历九月初九）"); None for ordinary phrases. Not compared.
    note: str | None = field(default=None, compare=False)

    @property
    def caveat(self) -> str | None:
        """What the answer must add: the holiday schedule behind the window is not published yet."""
        if self.note is None or UNPUBLISHED not in self.note:
            return None
        return self.note[self.note.rindex("（") + 1 :].rstrip("）")


# The words every note uses when a year's holiday schedule is beyond the published data (calnote).
UNPUBLISHED = "放假安排尚未公布"


def deadline_of(window: TimeWindow) -> datetime | None:
    """The deadline a quick note should get from a window.

    A named clock time wins (its start: "下午3点" → 15:00, also inside "下午3点前"); otherwise the
    window's end (a date-only phrase → 23:59:59 that day); an open end → None. An overdue window
    is not a deadline → None.
    """
    if window.overdue:
        return None
    if window.has_clock_time:
        if window.clock_at is not None:
            return window.clock_at
        if window.start is not None:
            return window.start
    return window.end


def day_before(moment: datetime, tz: str) -> datetime:
    """The same wall-clock time one day earlier in ``tz``: the urgency threshold of a deadline.

    Not ``moment - 24 h``: across a daylight-saving change that is 23 or 25 wall-clock hours
    (aware arithmetic in one zone is wall-clock arithmetic; zoneinfo then finds the offset)."""
    zone = ZoneInfo(tz)
    local = moment.astimezone(zone)
    return (local - timedelta(days=1)).replace(tzinfo=zone)
