"""Checks that a model's proposal is grounded in what the user said and in the domain.

Shared by every feature's trust boundary: a phrase must occur in the user's words, and an absolute
time a model computed must be an aware moment within a sane range of now.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

# Model-computed moments further than this from now are implausible for a personal task list.
PAST_RANGE = timedelta(days=366)
FUTURE_RANGE = timedelta(days=5 * 366)

_SPACE = re.compile(r"\s+")


def _fold(text: str) -> str:
    return _SPACE.sub("", text).casefold()


def occurs_in(phrase: str | None, words: str) -> bool:
    """Whether `phrase` (ignoring case and spacing) is part of what the user said."""
    if not phrase or not phrase.strip():
        return False
    return _fold(phrase) in _fold(words)


def plausible_moment(moment: datetime | None, now: datetime, tz: str) -> datetime | None:
    """The moment in the user's timezone when naive; None when it is too far from now to be meant."""
    if moment is None:
        return None
    if moment.tzinfo is None or moment.utcoffset() is None:
        moment = moment.replace(tzinfo=ZoneInfo(tz))
    if not now - PAST_RANGE <= moment <= now + FUTURE_RANGE:
        return None
    return moment


def grounded_share(candidate: str, words: str) -> float:
    """How much of `candidate` is taken from the user's words: CJK characters, or Latin words."""
    folded = _fold(words)
    units = re.findall(r"[\u3400-\u9fff]|[a-z0-9]+", candidate.casefold())
    if not units:
        return 0.0
    return sum(1 for unit in units if unit in folded) / len(units)
