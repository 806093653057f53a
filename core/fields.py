"""A task's user-visible fields as the write log keeps them, and putting some of them back.

A change logs the fields it touched (:func:`touched`) of a :func:`snapshot`; undoing it puts back
each one the task still holds as the change left it (:func:`restore_fields`). Completion
(``is_completed`` with ``completed_at``) is one unit: its fields go back together or not at all.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlmodel import Session, col, select

from core import listnames, titlegrams
from core.models import Task

__all__ = ["SNAPSHOT_FIELDS", "TIME_FIELDS", "UNITS", "locked_task", "restore_fields", "same", "snapshot", "touched"]

SNAPSHOT_FIELDS = (
    "title",
    "priority_group",
    "deadline_at",
    "urgency_threshold_at",
    "is_completed",
    "completed_at",
    "recurrence",
    "reminders",
    "estimate_minutes",
    "list_name",
    "labels",
)
TIME_FIELDS = ("deadline_at", "urgency_threshold_at", "completed_at")
# Fields that change together and are put back together: completion is one fact.
UNITS: tuple[tuple[str, ...], ...] = (
    ("title",),
    ("priority_group",),
    ("deadline_at",),
    ("urgency_threshold_at",),
    ("is_completed", "completed_at"),
    ("recurrence",),
    ("reminders",),
    ("estimate_minutes",),
    ("list_name",),
    ("labels",),
)


def _iso(value: datetime | None) -> str | None:
    return value.astimezone(UTC).isoformat() if value is not None else None


def snapshot(task: Task) -> dict[str, Any]:
    """The task's user-visible fields, JSON-ready (times as ISO 8601 with offset, UTC)."""
    return {
        "title": task.title,
        "priority_group": task.priority_group,
        "deadline_at": _iso(task.deadline_at),
        "urgency_threshold_at": _iso(task.urgency_threshold_at),
        "is_completed": bool(task.is_completed),
        "completed_at": _iso(task.completed_at),
        "recurrence": task.recurrence,
        "reminders": task.reminders,
        "estimate_minutes": task.estimate_minutes,
        "list_name": task.list_name,
        "labels": task.labels,
    }


def same(name: str, a: Any, b: Any) -> bool:
    """Two JSON values of field ``name`` are equal (times compared as instants, not as text)."""
    if name in TIME_FIELDS and a is not None and b is not None:
        return bool(datetime.fromisoformat(a) == datetime.fromisoformat(b))
    return bool(a == b)


def touched(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    """The fields of ``before`` that a write changed (a unit as a whole), as they were before it."""
    out: dict[str, Any] = {}
    for unit in UNITS:
        if any(name in before and not same(name, before[name], after.get(name)) for name in unit):
            out.update({name: before[name] for name in unit if name in before})
    return out


def _value(name: str, value: Any) -> Any:
    return datetime.fromisoformat(value) if name in TIME_FIELDS and value is not None else value


def restore_fields(task: Task, before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    """Puts back each unit of fields the change touched, where the task still holds the change's
    value; returns the units changed again since (name → the later value, kept)."""
    now_values = snapshot(task)
    kept: dict[str, Any] = {}
    for name, value in touched(before, after).items():
        unit = next(u for u in UNITS if name in u)
        if any(not same(n, now_values[n], after.get(n)) for n in unit if n in after):
            kept[name] = now_values[name]
            continue
        setattr(task, name, _value(name, value))
    if "title" in before and "title" not in kept:
        task.title_key = titlegrams.match_key(task.title)
    if "list_name" in before and "list_name" not in kept:
        task.list_key = listnames.key(task.list_name) if task.list_name else None
    return kept


def locked_task(session: Session, user_id: int, task_id: int | None) -> Task | None:
    """The user's task ``task_id`` read for an update (a row lock on PostgreSQL), or None."""
    if task_id is None:
        return None
    stmt = select(Task).where(col(Task.id) == task_id, col(Task.user_id) == user_id).with_for_update()
    return session.exec(stmt).first()
