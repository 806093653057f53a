"""The transactional outbox: events recorded with the writes they describe (docs/fdr/0038).

Every change through the write path (:mod:`core.writes`; undo in :mod:`core.changes`) and every
reminder firing (:mod:`core.reminders`) calls :func:`emit` in its own transaction. The event row
and one ``deliveries`` row per webhook of the user that takes that type are written there, so an
event exists exactly when its write committed: never sent for a write that rolled back, never
missed for one that committed. Sending is the delivery workers' (the ``webhooks`` package), which
claim due deliveries with a lease.

Task events are written only when some webhook takes them (a user without webhooks pays one
indexed read per write); ``reminder.due`` is always recorded, delivered or not.
"""

from __future__ import annotations

import json
import uuid
from datetime import datetime
from typing import Any

from sqlmodel import Session, col, select

from core.models import Delivery, Event, Task, TaskPublic, Webhook

__all__ = [
    "CHANGE_EVENTS",
    "EVENT_TYPES",
    "UNDO_EVENTS",
    "delivery_id",
    "emit",
    "subscribed",
    "task_json",
]

EVENT_TYPES = ("reminder.due", "task.created", "task.updated", "task.completed", "task.reopened", "task.deleted")
# A change of each kind (core.kinds) is this event; its undo is the other.
CHANGE_EVENTS = {
    "create": "task.created",
    "occurrence": "task.completed",  # the completed copy a repeating task leaves
    "update": "task.updated",
    "complete": "task.completed",
    "reopen": "task.reopened",
    "delete": "task.deleted",
}
UNDO_EVENTS = {
    "create": "task.deleted",
    "occurrence": "task.deleted",
    "update": "task.updated",
    "complete": "task.reopened",
    "reopen": "task.completed",
    "delete": "task.created",
}


def delivery_id() -> str:
    return f"dlv_{uuid.uuid4().hex}"


def subscribed(hook: Webhook, event_type: str) -> bool:
    wanted = json.loads(hook.events)
    return "*" in wanted or event_type in wanted


def task_json(task: Task, *, now: datetime) -> dict[str, Any]:
    """The task as REST returns it (the same shape receivers already read)."""
    return TaskPublic.from_task(task, now=now).model_dump(mode="json")


def emit(
    session: Session, user_id: int, event_type: str, data: dict[str, Any], *, now: datetime, missed: bool = False
) -> int | None:
    """Records ``event_type`` with ``data`` and its deliveries in the caller's transaction; the
    event id, or None when nothing takes it. ``missed``: found too late to send (a reminder after
    an outage): its deliveries are recorded as missed, never sent."""
    hooks = [
        h
        for h in session.exec(select(Webhook).where(col(Webhook.user_id) == user_id).order_by(col(Webhook.id)))
        if subscribed(h, event_type)
    ]
    if not hooks and event_type != "reminder.due":
        return None
    event = Event(user_id=user_id, type=event_type, created_at=now, payload=json.dumps(data, ensure_ascii=False))
    session.add(event)
    session.flush()
    assert event.id is not None
    for hook in hooks:
        assert hook.id is not None
        session.add(
            Delivery(
                id=delivery_id(),
                event_id=event.id,
                webhook_id=hook.id,
                user_id=user_id,
                status="missed" if missed else "pending",
                next_attempt_at=None if missed else now,
                late=bool(data.get("late")),
                created_at=now,
            )
        )
    session.flush()
    return event.id
