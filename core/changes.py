"""The write log of chat turns: what a turn changed, so that "撤销" can put it back.

Every write an action makes to a task is recorded in ``task_changes`` (:class:`core.models.TaskChange`)
in the same transaction as the write::

    before = changes.snapshot(task)          # omit for a create (before=None)
    ... change the task, flush ...
    change_id = changes.record(s, user_id=..., turn_key=turn.turn_key, kind="complete",
                               task=task, before=before, now=turn.now)
    s.commit()
    text = changes.marker(text, [change_id], turn.seal)  # the answer carries which changes it made

A change keeps the fields it touched as they were before (``before``) and the task as it was right
after (``after``). The answer carries the change ids as a signed ``w1`` record (:mod:`core.carry`),
so the undo action finds "the last write of this conversation" with :func:`last_written` without
any server-side conversation state. The record is client input: :func:`undo` touches only the
caller's own rows (another user's ids read as missing), and is idempotent (a change is undone at
most once; the claim is a conditional UPDATE, so two concurrent undos of the same change cannot
both revert it).

Undo applies the inverse of the change's own fields, never a whole-row snapshot: undo of a
``create`` deletes the task (if it still exists; its change row stays, ``task_id`` set NULL by the
foreign key); undo of ``complete``/``reopen``/``update`` puts back each field it touched — unless
that field was changed again later (by REST, MCP, another conversation), in which case the later
value is kept and reported (``ChangeRow.kept``) so the answer can say so. Changes are reverted
newest first.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
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
CHANGE_ID_MAX = 2**31 - 1  # ids are 32-bit integer columns (PostgreSQL int4)
SNAPSHOT_FIELDS = ("title", "priority_group", "deadline_at", "urgency_threshold_at", "is_completed", "completed_at")
_TIME_FIELDS = ("deadline_at", "urgency_threshold_at", "completed_at")
# Fields that change together and are put back together: completion is one fact.
_UNITS: tuple[tuple[str, ...], ...] = (
    ("title",),
    ("priority_group",),
    ("deadline_at",),
    ("urgency_threshold_at",),
    ("is_completed", "completed_at"),
)
_W1_LINE = re.compile(r'\n*^\[suikou\]: # "w1\.[A-Za-z0-9_.-]+"[ \t]*$', re.M)

# What undoing one change did: deleted the task it created, restored fields, found the task gone,
# or kept every field (each was changed again later).
Effect = Literal["deleted", "restored", "gone", "kept"]


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
    after = snapshot(task)
    row = TaskChange(
        user_id=user_id,
        task_id=task.id,
        turn_key=turn_key[:128],
        kind=kind,
        before=json.dumps(touched(before, after), ensure_ascii=False) if before is not None else None,
        after=json.dumps(after, ensure_ascii=False),
        created_at=now,
    )
    session.add(row)
    session.flush()
    assert row.id is not None
    return row.id


def _same(name: str, a: Any, b: Any) -> bool:
    """Two JSON values of field ``name`` are equal (times compared as instants, not as text)."""
    if name in _TIME_FIELDS and a is not None and b is not None:
        return bool(datetime.fromisoformat(a) == datetime.fromisoformat(b))
    return bool(a == b)


def touched(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    """The fields of ``before`` that a write changed (a unit as a whole), as they were before it."""
    out: dict[str, Any] = {}
    for unit in _UNITS:
        if any(name in before and not _same(name, before[name], after.get(name)) for name in unit):
            out.update({name: before[name] for name in unit if name in before})
    return out


def marker(text: str, change_ids: Sequence[int], seal: carry.Seal) -> str:
    """``text`` with a signed write record (``w1``: ``{"changes": [...]}``) as its last line.

    An earlier ``w1`` line in ``text`` is replaced; records of other kinds are kept.
    """
    line = carry.line(CARRY_KIND, {"changes": [int(i) for i in change_ids]}, seal)
    body = _W1_LINE.sub("", text).rstrip()
    return f"{body}\n\n{line}" if body else line


def _valid_ids(payload: dict[str, Any] | None) -> list[int] | None:
    if payload is None:
        return None
    ids = payload.get("changes")
    if not isinstance(ids, list) or not ids or len(ids) > MAX_CARRIED_CHANGES:
        return None
    if not all(isinstance(i, int) and not isinstance(i, bool) and 0 < i <= CHANGE_ID_MAX for i in ids):
        return None
    return list(ids)


def last_written(messages: Sequence[ChatText], seal: carry.Seal) -> list[int] | None:
    """The change ids of the most recent assistant message carrying a valid, signed ``w1`` record.

    A forged, unsigned or malformed record reads as absent (as every carried record does). None
    when there is none.
    """
    for message in reversed(messages):
        if message.role != "assistant":
            continue
        ids = _valid_ids(carry.read(message.text, CARRY_KIND, seal))
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
    # Fields this undo left as they are because they were changed again after this change:
    # name → the later value kept (JSON, as in ``after``).
    kept: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "kind": self.kind,
            "task_id": self.task_id,
            "before": self.before,
            "after": self.after,
            "created_at": _iso(self.created_at),
            "undone_at": _iso(self.undone_at),
            "effect": self.effect,
            "kept": self.kept,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ChangeRow:
        """The inverse of :meth:`as_dict` (an undo's report, as a copy of its attempt reads it)."""
        undone = data.get("undone_at")
        return cls(
            id=int(data["id"]),
            kind=str(data["kind"]),
            task_id=data.get("task_id"),
            before=data.get("before"),
            after=dict(data.get("after") or {}),
            created_at=datetime.fromisoformat(data["created_at"]),
            undone_at=datetime.fromisoformat(undone) if undone else None,
            effect=data.get("effect"),
            kept=dict(data.get("kept") or {}),
        )


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

    def as_dict(self) -> dict[str, Any]:
        return {"undone": [c.as_dict() for c in self.changes], "already": self.already, "missing": self.missing}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Undone:
        rows = [ChangeRow.from_dict(c) for c in data.get("undone", [])]
        return cls(rows, already=bool(data.get("already")), missing=bool(data.get("missing")))


def _row(change: TaskChange, effect: Effect | None, kept: dict[str, Any] | None = None) -> ChangeRow:
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
        kept=kept or {},
    )


def _value(name: str, value: Any) -> Any:
    return datetime.fromisoformat(value) if name in _TIME_FIELDS and value is not None else value


def _restore(task: Task, before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    """Puts back each unit of fields the change touched, where the task still holds the change's
    value; returns the units changed again since (name → the later value, kept)."""
    now_values = snapshot(task)
    kept: dict[str, Any] = {}
    for name, value in touched(before, after).items():
        unit = next(u for u in _UNITS if name in u)
        if any(not _same(n, now_values[n], after.get(n)) for n in unit if n in after):
            kept[name] = now_values[name]
            continue
        setattr(task, name, _value(name, value))
    if "title" in before and "title" not in kept:
        task.title_key = titlegrams.match_key(task.title)
    return kept


def _revert(session: Session, user_id: int, change: TaskChange, now: datetime) -> tuple[Effect, dict[str, Any]]:
    task = None
    if change.task_id is not None:
        task = session.exec(
            select(Task).where(col(Task.id) == change.task_id, col(Task.user_id) == user_id).with_for_update()
        ).first()
    if task is None:
        return "gone", {}
    if change.kind == "create":
        session.delete(task)
        session.flush()
        return "deleted", {}
    title = task.title
    before = touched(json.loads(change.before) if change.before else {}, json.loads(change.after))
    kept = _restore(task, before, json.loads(change.after))
    if before and set(kept) == set(before):
        return "kept", kept
    task.updated_at = now
    session.add(task)
    session.flush()
    if task.title != title:
        assert task.id is not None
        titlegrams.reindex_task(session, user_id, task.id, task.title)
    return "restored", kept


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
            effect, kept = _revert(session, user_id, change, now)
            done.append(_row(change, effect, kept))
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
    "touched",
    "undo",
]
