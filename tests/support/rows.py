"""Task rows as a query returns them, for renderer and step tests that need no database."""

from __future__ import annotations

from datetime import datetime

from core.store import TaskRow
from support.harness import NOW


def task_row(
    title: str,
    group: int = 2,
    deadline: datetime | None = None,
    *,
    effective: int | None = None,
    completed: bool = False,
    task_id: int = 1,
) -> TaskRow:
    """`effective` differing from `group` makes the row promoted (see core.store)."""
    return TaskRow(
        id=task_id,
        title=title,
        priority_group=group,
        effective_group=effective or group,
        deadline_at=deadline,
        urgency_threshold_at=None,
        is_completed=completed,
        completed_at=None,
        created_at=NOW,
        promoted=effective is not None and effective != group,
    )
