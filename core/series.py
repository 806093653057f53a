"""A repeating task moving along its schedule: what completing or skipping an occurrence changes.

A series is one task whose deadline is its next open occurrence (docs/fdr/0037). Completing an
occurrence leaves a completed copy of it (so "今天完成了什么" lists it) and moves the deadline to
the schedule's next occurrence after the one done — once, however early; an overdue one moves to the
next occurrence after now, so missed ones don't pile up. A rule counted from completion
("做完后每3天") counts from now. Skipping moves the deadline the same way without a copy. Writes
happen in :mod:`core.writes`; this module only computes.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from core import recurrence
from core.models import Task

__all__ = ["Step", "next_step", "rule_of"]


def rule_of(task: Task) -> recurrence.Recurrence | None:
    """The task's rule, or None for a one-off (or a stored rule this version can't read)."""
    if not task.recurrence:
        return None
    try:
        return recurrence.Recurrence.from_ical(task.recurrence)
    except recurrence.RuleError:
        return None


@dataclass(frozen=True)
class Step:
    """Where a series goes from its current occurrence: the next deadline (None: the series is over),
    the urgency threshold moved along with it, and the rule (rebased when counted from completion)."""

    deadline_at: datetime | None
    urgency_threshold_at: datetime | None
    rule: str


def next_step(task: Task, *, now: datetime) -> Step | None:
    """The step a completion or a skip takes at ``now``; None when the task doesn't repeat."""
    rec = rule_of(task)
    if rec is None or task.recurrence is None:
        return None
    due = task.deadline_at or now
    if rec.from_completion:
        start = rec.rebased(datetime.combine(now.astimezone(rec.start.tzinfo).date(), rec.start.timetz()))
        found = recurrence.occurrences(start, after=start.start, limit=1)
        nxt, rule = (found[0] if found else None), start.to_ical()
    else:
        nxt, rule = recurrence.next_after(rec, max(due, now)), task.recurrence
    threshold = task.urgency_threshold_at
    if nxt is not None and threshold is not None and task.deadline_at is not None:
        threshold = threshold + (nxt - task.deadline_at)  # the same lead time before the new deadline
    return Step(nxt, threshold if nxt is not None else task.urgency_threshold_at, rule)
