"""Expanding a rule into occurrences, always bounded."""

from __future__ import annotations

from datetime import datetime

from dateutil.rrule import rrulestr

from core.recurrence.rule import Recurrence

__all__ = ["MAX_STEPS", "next_after", "occurrences"]

MAX_STEPS = 4000  # candidate occurrences one call may look at, whatever the rule


def _walk(rec: Recurrence):  # type: ignore[no-untyped-def]
    plain = ";".join(p for p in rec.rule.split(";") if not p.startswith(("X-", "RSCALE", "SKIP")))
    rule = rrulestr(plain, dtstart=rec.start.replace(tzinfo=None))
    for step, naive in enumerate(rule):
        if step >= MAX_STEPS:
            return
        yield naive.replace(tzinfo=rec.start.tzinfo)


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
