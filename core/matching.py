"""Which of the user's tasks the words name.

Tiers, first non-empty wins (each scoped by ``user_id`` and by completion state):

1. ``exact``: the title equals the words (case-insensitive, surrounding spaces ignored);
2. ``contains``: the title contains the words;
3. ``similar``: no title contains them, so titles are scored by shared CJK bigrams (Chinese) or
   shared words (other scripts); the best score wins if it covers at least half of the words'
   bigrams/words. Deterministic: ties keep every tied task (the handler then asks).

Candidates come back ordered by deadline (none last), then id, so a list shown to the user is
stable.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Literal

import sqlalchemy as sa
from sqlmodel import Session, col, select

from core.models import Task

__all__ = ["Match", "find_matches", "grams"]

# How many tasks the "similar" tier scores at most (the newest ones), and how many grams it looks up.
SCAN_CAP = 500
GRAM_CAP = 12

_CJK = r"\u3400-\u9fff"
_CJK_RUN_RE = re.compile(rf"[{_CJK}]+")
_WORD_RE = re.compile(r"[a-z0-9][a-z0-9'_-]*")
_STOP_WORDS = frozenset({"the", "a", "an", "my", "to", "of", "for", "and", "on", "in", "with", "task", "todo"})

Tier = Literal["exact", "contains", "similar", "none"]


@dataclass(frozen=True)
class Match:
    tier: Tier
    tasks: list[Task]


def grams(text: str) -> set[str]:
    """CJK bigrams (a lone CJK character counts as itself) and lower-cased non-stop words."""
    low = text.lower()
    out: set[str] = set()
    for run in _CJK_RUN_RE.findall(low):
        if len(run) > 1:
            out.update(run[i : i + 2] for i in range(len(run) - 1))
        else:
            out.add(run)
    out.update(w for w in _WORD_RE.findall(low) if w not in _STOP_WORDS)
    return out


def _order(tasks: list[Task]) -> list[Task]:
    far = datetime.max.replace(tzinfo=UTC)
    return sorted(tasks, key=lambda t: (t.deadline_at is None, t.deadline_at or far, t.id or 0))


def _like(words: str) -> str:
    escaped = words.lower().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def _scoped(user_id: int, completed: bool) -> list[sa.ColumnElement[bool]]:
    return [col(Task.user_id) == user_id, col(Task.is_completed) == completed]


def find_matches(session: Session, user_id: int, words: str, *, completed: bool, similar: bool = True) -> Match:
    """The user's tasks (completed or not, as asked) that ``words`` names; see the module docstring.
    ``similar=False``: only the exact and contains tiers (no scoring scan)."""
    needle = " ".join(words.split()).lower()
    if not needle:
        return Match("none", [])
    title = sa.func.lower(col(Task.title))
    contained = list(
        session.exec(
            select(Task).where(*_scoped(user_id, completed), title.like(_like(needle), escape="\\")).limit(SCAN_CAP)
        ).all()
    )
    exact = [t for t in contained if " ".join(t.title.split()).lower() == needle]
    if exact:
        return Match("exact", _order(exact))
    if contained:
        return Match("contains", _order(contained))

    wanted = sorted(grams(needle))[:GRAM_CAP]
    if not wanted or not similar:
        return Match("none", [])
    candidates = session.exec(
        select(Task)
        .where(*_scoped(user_id, completed), sa.or_(*(title.like(_like(g), escape="\\") for g in wanted)))
        .order_by(col(Task.id).desc())
        .limit(SCAN_CAP)
    ).all()
    need = max(1, (len(wanted) + 1) // 2)
    scored = [(len(grams(t.title) & set(wanted)), t) for t in candidates]
    best = max((score for score, _ in scored), default=0)
    if best < need:
        return Match("none", [])
    return Match("similar", _order([t for score, t in scored if score == best]))
