"""The resolution context: `now` in the user's timezone and the past/future preference."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, tzinfo
from typing import Literal

Prefer = Literal["future", "past"]


@dataclass(frozen=True, slots=True)
class Ctx:
    now: datetime
    tz: tzinfo
    prefer: Prefer

    @property
    def today(self) -> date:
        return self.now.date()

    @property
    def future(self) -> bool:
        return self.prefer != "past"


@dataclass(frozen=True, slots=True)
class Span:
    """An intermediate resolved window."""

    start: datetime | None
    end: datetime | None
    granularity: str
    has_clock: bool = False
    clock_at: datetime | None = None
