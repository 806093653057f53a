"""English bits: word numbers and month-name dates (the latter via dateparser, imported lazily).

dateparser costs about 0.1 s the first time (its import, then its English data on the first
parse), so it is loaded only for a month name; a server loads it at start, in the background
(`warm`). One lock covers building the parser and parsing: the warm-up thread and a request may
meet, and dateparser's lazily filled caches are not documented as thread-safe.
"""

from __future__ import annotations

import re
import threading
import warnings
from datetime import datetime
from functools import lru_cache
from typing import Any

WORD_NUMBERS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "few": 3,
}
WEEKDAYS = {"mon": 0, "tue": 1, "wed": 2, "thu": 3, "fri": 4, "sat": 5, "sun": 6}
_YEAR = re.compile(r"\b\d{4}\b")
_parser: Any = None
_parser_lock = threading.Lock()


def word_number(raw: str) -> int | None:
    s = " ".join(raw.lower().split())
    if s.isdigit():
        return int(s)
    if s.startswith("couple"):
        return 2
    return WORD_NUMBERS.get(s)


def weekday_index(raw: str) -> int | None:
    return WEEKDAYS.get(raw.lower()[:3])


def _date_parser() -> Any:
    """The one parser (call with `_parser_lock` held)."""
    global _parser
    if _parser is None:
        from dateparser.date import DateDataParser

        _parser = DateDataParser(
            languages=["en"],
            settings={
                # a leap year so Feb 29 parses; the year itself is decided by our own rule
                "RELATIVE_BASE": datetime(2000, 1, 1),
                "PREFER_DAY_OF_MONTH": "first",
                "RETURN_AS_TIMEZONE_AWARE": False,
            },
        )
    return _parser


@lru_cache(maxsize=512)
def month_day(phrase: str) -> tuple[int | None, int, int] | None:
    """ "Dec 5", "5th of December 2026" → (year or None, month, day) via dateparser."""
    try:
        with _parser_lock, warnings.catch_warnings():
            # dateparser calls deprecated datetime APIs on newer Pythons; nothing actionable for us.
            warnings.simplefilter("ignore", DeprecationWarning)
            data = _date_parser().get_date_data(phrase)
    except Exception:
        return None
    dt = data.date_obj if data is not None else None
    if dt is None:
        return None
    year = dt.year if _YEAR.search(phrase) else None
    return year, dt.month, dt.day


def warm() -> None:
    """Load dateparser and its English data now rather than on the first month name.

    For a background thread: no `warnings.catch_warnings` here (it swaps the process-wide filters,
    which is not safe off the main thread), and a failure only means the first month name pays.
    """
    try:
        with _parser_lock:
            _date_parser().get_date_data("5 December 2000")
    except Exception:
        return
