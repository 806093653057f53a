"""The write log: what each write changed, so that "撤销" and ``POST /changes/{id}/revert`` can put it back.

Every write to a task goes through :mod:`core.writes`, which records it here (:func:`record`) in
the same transaction as the write. A change keeps what its kind needs to invert it — for a field
edit, the fields it touched as they were before (``before``) and the task right after (``after``)
— and the answer carries the change ids as a signed ``w1`` record (:mod:`core.carry`), so the undo
action finds "the last write of this conversation" with :func:`last_written` without any
server-side conversation state.

**Kinds are data.** A :class:`ChangeKind` says how a change of its kind is logged, undone and told
to the user; the built-in kinds (create, complete, reopen, update, delete) live in
:mod:`core.kinds`, and a feature adds its own with :func:`register_kind` — no migration, no edit
here. :func:`undo` is generic over kinds: it claims each change (a conditional ``UPDATE … SET
undone_at … WHERE undone_at IS NULL``, so two concurrent undos of one change cannot both revert
it), then applies that change's own inverse, newest first. Inverses touch only what their change
did: a field changed again later keeps its later value, and the result says so
(``ChangeRow.kept``). The record is client input: :func:`undo` touches only the caller's own rows
(another user's ids read as missing).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlmodel import Session, col, select

from core import carry, outbox
from core.display import group_label
from core.fields import SNAPSHOT_FIELDS, locked_task, restore_fields, snapshot, touched
from core.kinds import ChangeKind, ChangeRow, Effect, Telling, kind_of, kinds, register_kind
from core.locale import Locale
from core.models import Task, TaskChange
from core.turn import ChatText

CARRY_KIND = "w1"
MAX_CARRIED_CHANGES = 50  # a bound on what a client's record can make us look up
CHANGE_ID_MAX = 2**31 - 1  # ids are 32-bit integer columns (PostgreSQL int4)
_W1_LINE = re.compile(r'\n*^\[suikou\]: # "w1\.[A-Za-z0-9_.-]+"[^\n]*$', re.M)  # text a client appended is dropped too

# What an undo adds to a change's own words: the task was gone, or fields were changed again since.
_EFFECT_WORDS: dict[Locale, dict[str, str]] = {
    "zh": {
        "gone": "（任务已不在，无需恢复）",
        "kept": "（{fields}）",
        "kept_field": "{name}后来又改过，保留了{value}",
        "joiner": "，",
        "open": "未完成",
        "done": "已完成",
    },
    "en": {
        "gone": " (the task no longer exists)",
        "kept": " ({fields})",
        "kept_field": "{name} was changed again since, kept {value}",
        "joiner": ", ",
        "open": "not done",
        "done": "done",
    },
}
_FIELD_NAMES: dict[Locale, dict[str, str]] = {
    "zh": {
        "title": "标题",
        "priority_group": "优先级",
        "deadline_at": "截止时间",
        "urgency_threshold_at": "紧急时间",
        "is_completed": "完成状态",
    },
    "en": {
        "title": "the title",
        "priority_group": "the priority",
        "deadline_at": "the deadline",
        "urgency_threshold_at": "the urgent-from time",
        "is_completed": "its completion",
    },
}


def tell(change: ChangeRow, telling: Telling) -> str:
    """A change in a few words, with what undoing it did: "修改「交报告」（截止时间后来又改过，保留了 …）"."""
    words = _EFFECT_WORDS[telling.locale]
    out = kind_of(change.kind).tell[telling.locale](change, telling)
    if change.effect == "gone":
        out += words["gone"]
    if change.kept:
        kept = [_kept_field(name, change.kept[name], telling) for name in _FIELD_NAMES["en"] if name in change.kept]
        out += words["kept"].format(fields=words["joiner"].join(kept))
    return out


def _kept_field(name: str, value: Any, telling: Telling) -> str:
    words = _EFFECT_WORDS[telling.locale]
    if name == "priority_group":
        shown = group_label(int(value), telling.locale)
    elif name == "title":
        shown = f"「{value}」" if telling.locale == "zh" else f'"{value}"'
    elif name == "is_completed":
        shown = words["done"] if value else words["open"]
    else:
        shown = (" " if telling.locale == "zh" and value else "") + telling.when(value)
    return words["kept_field"].format(name=_FIELD_NAMES[telling.locale][name], value=shown)


def record(
    session: Session,
    *,
    user_id: int,
    turn_key: str,
    kind: str,
    task: Task,
    before: dict[str, Any] | None,
    now: datetime,
    after: dict[str, Any] | None = None,
) -> int:
    """Logs one write to ``task`` (already flushed, so it has an id); flushes, returns the change id.

    ``before``: the task as it was (a :func:`snapshot`, or what the kind needs), None for a create;
    the kind decides what of it is kept. ``after``: the task after the write (default: its
    snapshot now). Never commits: the change belongs to the caller's transaction. Called by
    :mod:`core.writes` only: it is the one writer of the log.
    """
    spec = kind_of(kind)
    if task.id is None:
        raise ValueError("record() needs a flushed task (it has no id yet)")
    if task.user_id != user_id:
        raise ValueError("the task is not this user's")
    if (before is not None) != spec.needs_before:
        raise ValueError(f"a {kind} change needs before={'a snapshot' if spec.needs_before else 'None'}")
    after = snapshot(task) if after is None else after
    kept = spec.logged(before, after)
    row = TaskChange(
        user_id=user_id,
        task_id=task.id,
        turn_key=turn_key[:128],
        kind=kind,
        before=json.dumps(kept, ensure_ascii=False) if kept is not None else None,
        after=json.dumps(after, ensure_ascii=False),
        created_at=now,
    )
    session.add(row)
    session.flush()
    assert row.id is not None
    return row.id


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


def change_row(change: TaskChange, effect: Effect | None, kept: dict[str, Any] | None = None) -> ChangeRow:
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
        return Undone([change_row(c, None) for c in found], already=bool(found), missing=missing)
    done: list[ChangeRow] = []
    for change in found:
        if change.id in claimed:
            was = session.get(Task, change.task_id) if change.task_id is not None else None
            effect, kept = kind_of(change.kind).revert(session, user_id, change, now)
            done.append(change_row(change, effect, kept))
            _announce(session, user_id, change, effect, was, now)
    session.flush()
    return Undone(done, already=False, missing=missing)


BATCH_SURFACES = ("import:",)  # turn keys whose changes are taken back together


def batch_of(session: Session, user_id: int, change_id: int) -> list[int]:
    """The changes one revert of ``change_id`` takes back: itself, or every change of its import
    (an import is one change to the person who made it, however many tasks it wrote)."""
    row = session.exec(
        select(TaskChange.turn_key).where(col(TaskChange.user_id) == user_id, col(TaskChange.id) == change_id)
    ).first()
    if row is None or not row.startswith(BATCH_SURFACES):
        return [change_id]
    stmt = select(TaskChange.id).where(col(TaskChange.user_id) == user_id, col(TaskChange.turn_key) == row)
    return sorted(int(i) for i in session.exec(stmt) if i is not None)


def _announce(
    session: Session, user_id: int, change: TaskChange, effect: Effect, was: Task | None, now: datetime
) -> None:
    """The event an undo is (core.outbox.UNDO_EVENTS), in the undo's transaction."""
    event_type = outbox.UNDO_EVENTS.get(change.kind)
    if event_type is None or effect not in ("deleted", "restored"):
        return
    if effect == "deleted":
        task = was  # gone from the table; the object read before still holds it
    else:
        task_id = change.task_id if change.task_id is not None else json.loads(change.before or "{}").get("id")
        task = session.get(Task, task_id) if task_id is not None else None
    if task is None or task.id is None:
        return
    data = {"task": outbox.task_json(task, now=now), "change_id": change.id, "undo": True}
    outbox.emit(session, user_id, event_type, data, now=now)


__all__ = [
    "CARRY_KIND",
    "SNAPSHOT_FIELDS",
    "ChangeKind",
    "ChangeRow",
    "Effect",
    "Telling",
    "Undone",
    "batch_of",
    "change_row",
    "kind_of",
    "kinds",
    "last_written",
    "locked_task",
    "marker",
    "record",
    "register_kind",
    "restore_fields",
    "snapshot",
    "tell",
    "touched",
    "undo",
]
