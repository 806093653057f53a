"""The write log of chat turns: what a turn changed, so that "撤销" can put it back.

Every write an action makes to a task is recorded in ``task_changes`` (:class:`core.models.TaskChange`)
with the task's fields before and after, in the same transaction as the write::

    before = changes.snapshot(task)          # omit for a create (before=None)
    ... change the task, flush ...
    change_id = changes.record(s, user_id=..., turn_key=turn.turn_key, kind="complete",
                               task=task, before=before, now=turn.now)
    s.commit()
    text = changes.marker(text, [change_id])  # the answer carries which changes it made

The answer carries the change ids as a ``w1`` record (:mod:`core.carry`), so the undo action
finds "the last write of this conversation" with :func:`last_written` without any server-side
conversation state. The record is client input: :func:`undo` touches only the caller's own rows
(another user's ids read as missing), and is idempotent (a change is undone at most once; the
claim is a conditional UPDATE, so two concurrent undos of the same change cannot both revert it).

Undo of a ``create`` deletes the task (if it still exists; its change row stays, ``task_id`` set
NULL by the foreign key); undo of ``complete``/``reopen``/``update`` restores the ``before``
fields. Changes are reverted newest first.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal, get_args

import sqlalchemy as sa
from sqlmodel import Session, col, select

from core import carry, titlegrams
from core.models import Task, TaskChange
from core.turn import ChatText

Kind = Literal["create", "complete", "reopen", "update"]
KINDS: tuple[str, ...] = get_args(Kind)
CARRY_KIND = "w1"
MAX_CARRIED_CHANGES = 50  # a bound on what a client's record can make us look up
SNAPSHOT_FIELDS = ("title", "priority_group", "deadline_at", "urgency_threshold_at", "is_completed", "completed_at")
_TIME_FIELDS = ("deadline_at", "urgency_threshold_at", "completed_at")
_W1_LINE = re.compile(r'\n*^\[suikou\]: # "w1\.[A-Za-z0-9_-]+"[ \t]*$', re.M)

Effect = Literal["deleted", "restored", "gone"]


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def snapshot(task: Task) -> dict[str, Any]:
    """The task's user-visible fields, JSON-ready (times as ISO 8601 with offset, UTC)."""
    return {
        "title": task.title,
        "priority_group": task.priority_group,
        "deadline_at": _iso(task.deadline_at),
        "urgency_threshold_at": _iso(task.urgency_threshold_at),
        "is_completed": bool(task.is_completed),
        "completed_at": _iso(task.completed_at),
    }


def record(
    session: Session,
    *,
    user_id: int,
    turn_key: str,
    kind: Kind,
    task: Task,
    before: dict[str, Any] | None,
    now: datetime,
) -> int:
    """Logs one write to ``task`` (already flushed, so it has an id); flushes, returns the change id.

    Never commits: the change belongs to the caller's transaction, with the write itself.
    """
    if kind not in KINDS:
        raise ValueError(f"unknown change kind {kind!r}")
    if task.id is None:
        raise ValueError("record() needs a flushed task (it has no id yet)")
    if task.user_id != user_id:
        raise ValueError("the task is not this user's")
    if (before is None) != (kind == "create"):
        raise ValueError("before must be None for a create, and a snapshot otherwise")
    row = TaskChange(
        user_id=user_id,
        task_id=task.id,
        turn_key=turn_key[:128],
        kind=kind,
        before=json.dumps(before, ensure_ascii=False) if before is not None else None,
        after=json.dumps(snapshot(task), ensure_ascii=False),
        created_at=now,
    )
    session.add(row)
    session.flush()
    assert row.id is not None
    return row.id


def marker(text: str, change_ids: Sequence[int]) -> str:
    """``text`` with a carried write record (``w1``: ``{"changes": [...]}``) as its last line.

    An earlier ``w1`` line in ``text`` is replaced; records of other kinds are kept.
    """
    line = carry.attach("", CARRY_KIND, {"changes": [int(i) for i in change_ids]}).strip()
    body = _W1_LINE.sub("", text).rstrip()
    return f"{body}\n\n{line}" if body else line


def _valid_ids(payload: dict[str, Any] | None) -> list[int] | None:
    if payload is None:
        return None
    ids = payload.get("changes")
    if not isinstance(ids, list) or not ids or len(ids) > MAX_CARRIED_CHANGES:
        return None
    if not all(isinstance(i, int) and not isinstance(i, bool) and 0 < i < 2**63 for i in ids):
        return None
    return list(ids)


def last_written(messages: Sequence[ChatText]) -> list[int] | None:
    """The change ids of the most recent assistant message carrying a valid ``w1`` record.

    A malformed record reads as absent (as every carried record does). None when there is none.
    """
    for message in reversed(messages):
        if message.role != "assistant":
            continue
        ids = _valid_ids(carry.read(message.text, CARRY_KIND))
        if ids is not None:
            return ids
    return None


@dataclass(frozen=True)
class ChangeRow:
    """One change as undo reports it (JSON-ready through :meth:`as_dict`)."""

    id: int
    kind: str
    task_id: int | None
    before: dict[str, Any] | None
    after: dict[str, Any]
    created_at: datetime
    undone_at: datetime | None
    effect: Effect | None = None  # what this undo did: None when it did nothing (already undone)

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "kind": self.kind,
            "task_id": self.task_id,
            "before": self.before,
            "after": self.after,
            "created_at": self.created_at.isoformat(),
            "undone_at": _iso(self.undone_at),
            "effect": self.effect,
        }


@dataclass(frozen=True)
class Undone:
    """What :func:`undo` did.

    ``changes``: the changes reverted now, newest first — or, when ``already``, the ones an
    earlier undo reverted. ``already``: every change found had been undone before (nothing
    changed now). ``missing``: some id is not one of the user's changes.
    """

    changes: list[ChangeRow] = field(default_factory=list)
    already: bool = False
    missing: bool = False


def _row(change: TaskChange, effect: Effect | None) -> ChangeRow:
    assert change.id is not None
    return ChangeRow(
        id=change.id,
        kind=change.kind,
        task_id=change.task_id,
        before=json.loads(change.before) if change.before else None,
        after=json.loads(change.after),
        created_at=change.created_at,
        undone_at=change.undone_at,
        effect=effect,
    )


def _restore(task: Task, before: dict[str, Any]) -> bool:
    """Sets ``task``'s fields to ``before``; True when the title changed."""
    title_changed = False
    for name in SNAPSHOT_FIELDS:
        if name not in before:
            continue
        value = before[name]
        if name in _TIME_FIELDS:
            value = datetime.fromisoformat(value) if value is not None else None
        if name == "title":
            title_changed = value != task.title
        setattr(task, name, value)
    return title_changed


def _revert(session: Session, user_id: int, change: TaskChange, now: datetime) -> Effect:
    task = None
    if change.task_id is not None:
        task = session.exec(select(Task).where(col(Task.id) == change.task_id, col(Task.user_id) == user_id)).first()
    if task is None:
        return "gone"
    if change.kind == "create":
        session.delete(task)
        session.flush()
        return "deleted"
    before = json.loads(change.before) if change.before else {}
    title_changed = _restore(task, before)
    task.updated_at = now
    session.add(task)
    session.flush()
    if title_changed:
        assert task.id is not None
        titlegrams.reindex_task(session, user_id, task.id, task.title)
    return "restored"


def undo(session: Session, *, user_id: int, change_ids: Sequence[int], now: datetime) -> Undone:
    """Reverts the user's changes ``change_ids``, newest first; flushes, never commits.

    Idempotent: each change is claimed (``undone_at`` set where it is NULL) before it is reverted,
    so a retry, or a concurrent undo, of the same changes reverts nothing and reports ``already``.
    """
    ids = sorted({int(i) for i in change_ids}, reverse=True)
    if not ids:
        return Undone(missing=False)
    table = TaskChange.__table__  # type: ignore[attr-defined]
    claim = (
        sa.update(table)
        .where(table.c.user_id == user_id, table.c.id.in_(ids), table.c.undone_at.is_(None))
        .values(undone_at=now)
        .returning(table.c.id)
    )
    claimed = set(session.execute(claim).scalars().all())
    # The claim ran in SQL: populate_existing refreshes rows this session may already hold.
    rows = session.exec(
        select(TaskChange)
        .where(col(TaskChange.user_id) == user_id, col(TaskChange.id).in_(ids))
        .execution_options(populate_existing=True)
    ).all()
    found = sorted(rows, key=lambda c: c.id or 0, reverse=True)
    missing = len(found) < len(ids)
    if not claimed:
        return Undone([_row(c, None) for c in found], already=bool(found), missing=missing)
    done: list[ChangeRow] = []
    for change in found:
        if change.id in claimed:
            effect = _revert(session, user_id, change, now)
            done.append(_row(change, effect))
    session.flush()
    return Undone(done, already=False, missing=missing)


__all__ = [
    "CARRY_KIND",
    "KINDS",
    "ChangeRow",
    "Kind",
    "Undone",
    "last_written",
    "marker",
    "record",
    "snapshot",
    "undo",
]
