"""Near-duplicate notes: "交电费" again while an open "交电费" due tomorrow is on the list.

Two titles are near-identical when, after normalising (case, width, spaces and punctuation, a
leading "去/要/把"), they are equal, or one contains the other (its characters in order, not
necessarily together: "交报告" in "交季度报告") and they differ by at most
`MAX_CONTAINED_DIFFERENCE` characters, or their character bigrams overlap (Dice) by at least
`MIN_BIGRAM_OVERLAP`. Deadlines are close when both are absent or they are within `CLOSE_DEADLINE`.
Only the user's open tasks count: a finished "交电费" is last month's.
"""

from __future__ import annotations

import re
import unicodedata
from datetime import datetime, timedelta

from sqlmodel import Session, col, select

from core.models import Task

MIN_BIGRAM_OVERLAP = 0.8
MAX_CONTAINED_DIFFERENCE = 2
CLOSE_DEADLINE = timedelta(hours=24)
MAX_CANDIDATES = 200  # open tasks compared per note, nearest deadline first

_NOISE_RE = re.compile(r"[\s\W_]+", re.UNICODE)
_HEAD_RE = re.compile(r"^(?:去|要|把|得)(?=..)")


def normalise_title(title: str) -> str:
    text = unicodedata.normalize("NFKC", title).casefold()
    return _HEAD_RE.sub("", _NOISE_RE.sub("", text))


def _bigrams(text: str) -> set[str]:
    return {text[i : i + 2] for i in range(len(text) - 1)} if len(text) > 1 else {text}


def _within(short: str, long: str) -> bool:
    """`short`'s characters appear in `long` in order."""
    rest = iter(long)
    return all(char in rest for char in short)


def similar_titles(a: str, b: str) -> bool:
    x, y = normalise_title(a), normalise_title(b)
    if not x or not y:
        return False
    if x == y:
        return True
    short, long = sorted((x, y), key=len)
    if len(short) >= 2 and len(long) - len(short) <= MAX_CONTAINED_DIFFERENCE and _within(short, long):
        return True
    bx, by = _bigrams(x), _bigrams(y)
    return 2 * len(bx & by) / (len(bx) + len(by)) >= MIN_BIGRAM_OVERLAP


def close_deadlines(a: datetime | None, b: datetime | None) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return abs(a - b) <= CLOSE_DEADLINE


def near_duplicate(session: Session, user_id: int, title: str, deadline: datetime | None) -> Task | None:
    """An open task of the user that this note would repeat, if any."""
    stmt = select(Task).where(col(Task.user_id) == user_id, col(Task.is_completed).is_(False))
    if deadline is None:
        stmt = stmt.where(col(Task.deadline_at).is_(None))
    else:
        stmt = stmt.where(
            col(Task.deadline_at) >= deadline - CLOSE_DEADLINE, col(Task.deadline_at) <= deadline + CLOSE_DEADLINE
        )
    stmt = stmt.order_by(col(Task.id).desc()).limit(MAX_CANDIDATES)
    for task in session.exec(stmt):
        if similar_titles(title, task.title) and close_deadlines(deadline, task.deadline_at):
            return task
    return None
