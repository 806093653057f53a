"""Change kinds: how each kind of change is logged, undone and told (see :class:`ChangeKind`).

Kinds are data: the registry here maps a kind's name (``task_changes.kind``) to its definition, and
a feature adds its own with :func:`register_kind` (an action declares them: ``Action.kinds``) — no
migration, no edit to the log. The built-ins:

- ``create``: nothing before; undo deletes the task (if it still exists).
- ``complete`` / ``reopen`` / ``update``: the fields the write touched; undo puts back each one the
  task still holds as the write left it, and keeps (and reports) one changed again since.
- ``delete``: the whole row, and the changes that named the task (their ``task_id`` is set NULL
  when the row goes); undo puts the row back exactly — the same id, fields, source key and
  history — and re-links those changes.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal

import sqlalchemy as sa
from sqlmodel import Session, col, select

from core import estimates, listnames, titlegrams
from core.display import format_when, group_label
from core.fields import locked_task, restore_fields, touched
from core.locale import Locale
from core.models import Task, TaskChange
from core.store import refresh_derived

__all__ = [
    "CREATE",
    "DELETE",
    "FIELD_KINDS",
    "OCCURRENCE",
    "ChangeKind",
    "ChangeRow",
    "Effect",
    "Telling",
    "kind_of",
    "kinds",
    "register_kind",
    "row_of",
]

# What undoing one change did: deleted the task it created, restored fields (or a deleted task),
# found the task gone, or kept every field (each was changed again later).
Effect = Literal["deleted", "restored", "gone", "kept"]
# How a change is told to a person: the change, and the reader's locale, zone and moment.
Teller = Callable[["ChangeRow", "Telling"], str]
Reverter = Callable[[Session, int, TaskChange, datetime], tuple[Effect, dict[str, Any]]]
BeforeLog = Callable[[dict[str, Any] | None, dict[str, Any]], dict[str, Any] | None]


@dataclass(frozen=True)
class Telling:
    """Who a change is told to: what a kind's wording needs."""

    locale: Locale
    tz: str
    now: datetime

    def when(self, iso: str | None) -> str:
        none = "无" if self.locale == "zh" else "none"
        return format_when(datetime.fromisoformat(iso), self.tz, self.now, self.locale) if iso else none


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
            "created_at": iso(self.created_at),
            "undone_at": iso(self.undone_at),
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
class ChangeKind:
    """One kind of change. ``logged``: what of the task before the write the log keeps (None:
    nothing, as for a create). ``revert``: the inverse, applied by :func:`undo` in its transaction.
    ``tell``: the change in a few words ("新建「买牛奶」（12月1日 周二 18:00 截止）"), per locale."""

    name: str
    logged: BeforeLog
    revert: Reverter
    tell: Mapping[Locale, Teller]
    needs_before: bool = True  # a create has no task before it


_KINDS: dict[str, ChangeKind] = {}


def register_kind(kind: ChangeKind) -> None:
    """Makes a kind known to the log (a feature's own kinds, at import; the built-ins: core.kinds)."""
    if kind.name in _KINDS and _KINDS[kind.name] is not kind:
        raise ValueError(f"change kind {kind.name!r} registered twice")
    if not 0 < len(kind.name) <= 16:
        raise ValueError("a change kind's name is 1..16 characters (task_changes.kind)")
    _KINDS[kind.name] = kind


def kind_of(name: str) -> ChangeKind:
    """The registered kind ``name`` (the built-ins are always there)."""
    try:
        return _KINDS[name]
    except KeyError:
        raise ValueError(f"unknown change kind {name!r}") from None


def kinds() -> list[str]:
    return sorted(_KINDS)


def iso(value: datetime | None) -> str | None:
    return value.astimezone(UTC).isoformat() if value is not None else None


_TASK_TIMES = ("deadline_at", "urgency_threshold_at", "completed_at", "created_at", "updated_at")
_ROW_FIELDS = (
    "id",
    "user_id",
    "title",
    "title_key",
    "priority_group",
    *_TASK_TIMES,
    "is_completed",
    "source_key",
    "recurrence",
    "reminders",
    "estimate_minutes",
    "list_name",
    "list_key",
    "labels",
)


def _quoted(title: str, telling: Telling) -> str:
    return f"「{title}」" if telling.locale == "zh" else f'"{title}"'


# --- create -------------------------------------------------------------------------------------


def _revert_create(session: Session, user_id: int, change: TaskChange, now: datetime) -> tuple[Effect, dict[str, Any]]:
    task = locked_task(session, user_id, change.task_id)
    if task is None:
        return "gone", {}
    session.delete(task)
    session.flush()
    return "deleted", {}


def _tell_create(change: ChangeRow, telling: Telling) -> str:
    title, deadline = _quoted(change.after["title"], telling), change.after.get("deadline_at")
    if telling.locale == "zh":
        return f"新建{title}（{telling.when(deadline)} 截止）" if deadline else f"新建{title}"
    return f"created {title} (due {telling.when(deadline)})" if deadline else f"created {title}"


CREATE = ChangeKind(
    "create",
    logged=lambda before, _after: None,
    revert=_revert_create,
    tell={"zh": _tell_create, "en": _tell_create},
    needs_before=False,
)


# --- occurrence: one occurrence of a repeating task, completed --------------------------------


def _tell_occurrence(change: ChangeRow, telling: Telling) -> str:
    title, deadline = _quoted(change.after["title"], telling), change.after.get("deadline_at")
    if telling.locale == "zh":
        return f"完成{title}的一次（{telling.when(deadline)}）" if deadline else f"完成{title}的一次"
    return f"completed {title} once (the one due {telling.when(deadline)})" if deadline else f"completed {title} once"


# The completed copy a repeating task leaves (core.writes.Writer.advance): undone, it goes, as a
# created task does; the series' own move is an ``update`` of the same attempt, undone with it.
OCCURRENCE = ChangeKind(
    "occurrence",
    logged=lambda before, _after: None,
    revert=_revert_create,
    tell={"zh": _tell_occurrence, "en": _tell_occurrence},
    needs_before=False,
)


# --- complete, reopen, update: fields ---------------------------------------------------------


def _revert_fields(session: Session, user_id: int, change: TaskChange, now: datetime) -> tuple[Effect, dict[str, Any]]:
    task = locked_task(session, user_id, change.task_id)
    if task is None:
        return "gone", {}
    after = json.loads(change.after)
    before = touched(json.loads(change.before) if change.before else {}, after)
    title = task.title
    kept = restore_fields(task, before, after)
    if before and set(kept) == set(before):
        return "kept", kept
    task.updated_at = now
    session.add(task)
    session.flush()
    if task.title != title:
        assert task.id is not None
        titlegrams.reindex_task(session, user_id, task.id, task.title)
    refresh_derived(session, task)
    return "restored", kept


def _logged_fields(before: dict[str, Any] | None, after: dict[str, Any]) -> dict[str, Any] | None:
    return touched(before, after) if before is not None else None


def _tell_state(done: bool) -> Any:
    def tell(change: ChangeRow, telling: Telling) -> str:
        title = _quoted((change.before or {}).get("title", change.after["title"]), telling)
        if telling.locale == "zh":
            return f"把{title}标记为完成" if done else f"把{title}改回未完成"
        return f"marked {title} as done" if done else f"reopened {title}"

    return tell


# What an undo of an update puts back, per field: (zh, en) of "back to <value>".
_BACK: dict[str, tuple[str, str]] = {
    "title": ("标题改回{value}", "title back to {value}"),
    "priority_group": ("改回{value}", "back to {value}"),
    "deadline_at": ("截止改回 {value}", "deadline back to {value}"),
    "urgency_threshold_at": ("紧急时间改回 {value}", "urgent-from back to {value}"),
    "estimate_minutes": ("预计用时改回{value}", "estimate back to {value}"),
    "list_name": ("清单改回{value}", "list back to {value}"),
    "labels": ("标签改回{value}", "labels back to {value}"),
}


def _shown(name: str, value: Any, telling: Telling) -> str:
    if name == "priority_group":
        return group_label(int(value), telling.locale) if value is not None else telling.when(None)
    if name == "title":
        return _quoted(str(value), telling)
    if name in ("list_name", "labels"):
        names = listnames.label_list(value) if name == "labels" else ([value] if value else [])
        return "、".join(names) if names else ("无" if telling.locale == "zh" else "none")
    if name == "estimate_minutes":
        return (
            estimates.text_of(int(value), telling.locale) if value else ("未设" if telling.locale == "zh" else "none")
        )
    return telling.when(value)


def _tell_update(change: ChangeRow, telling: Telling) -> str:
    before, after = change.before or {}, change.after
    fields = [
        _BACK[name][telling.locale == "en"].format(value=_shown(name, before[name], telling))
        for name in _BACK
        if name in before and before[name] != after.get(name) and name not in change.kept
    ]
    title = _quoted(after["title"], telling)
    joiner = "，" if telling.locale == "zh" else ", "
    if telling.locale == "zh":
        return f"修改{title}（{joiner.join(fields)}）" if fields else f"修改{title}"
    return f"changed {title} ({joiner.join(fields)})" if fields else f"changed {title}"


FIELD_KINDS = tuple(
    ChangeKind(name, logged=_logged_fields, revert=_revert_fields, tell={"zh": tell, "en": tell})
    for name, tell in (("complete", _tell_state(True)), ("reopen", _tell_state(False)), ("update", _tell_update))
)


# --- delete -------------------------------------------------------------------------------------


def row_of(task: Task) -> dict[str, Any]:
    """Every column of ``task``, JSON-ready: what undoing its deletion puts back."""
    out: dict[str, Any] = {}
    for name in _ROW_FIELDS:
        value = getattr(task, name)
        out[name] = value.isoformat() if isinstance(value, datetime) else value
    return out


def _revert_delete(session: Session, user_id: int, change: TaskChange, now: datetime) -> tuple[Effect, dict[str, Any]]:
    row = json.loads(change.before or "{}")
    if row.get("user_id") != user_id or session.get(Task, row.get("id")) is not None:
        return "gone", {}  # not this user's row, or its id is taken again: nothing to put back
    values = {name: row.get(name) for name in _ROW_FIELDS}
    for name in _TASK_TIMES:
        values[name] = datetime.fromisoformat(values[name]) if values[name] else None
    taken = (
        values["source_key"]
        and session.exec(
            select(Task.id).where(col(Task.user_id) == user_id, col(Task.source_key) == values["source_key"])
        ).first()
    )
    if taken:
        values["source_key"] = None  # a later attempt under that key wrote a task of its own
    restored = Task(**values)
    session.add(restored)
    session.flush()
    titlegrams.reindex_task(session, user_id, values["id"], values["title"])
    refresh_derived(session, restored)
    # The task's history, this deletion included, names it again.
    links = [int(i) for i in json.loads(change.after).get("links", [])] + [change.id]
    table = TaskChange.__table__  # type: ignore[attr-defined]
    if links:
        session.execute(
            sa.update(table)
            .where(table.c.user_id == user_id, table.c.id.in_(links), table.c.task_id.is_(None))
            .values(task_id=values["id"])
        )
    return "restored", {}


def _tell_delete(change: ChangeRow, telling: Telling) -> str:
    row = change.before or {}
    title, deadline = _quoted(str(row.get("title", "")), telling), row.get("deadline_at")
    when = telling.when(deadline) if deadline else None
    if telling.locale == "zh":
        return f"删除{title}（原定 {when} 截止）" if when else f"删除{title}"
    return f"deleted {title} (was due {when})" if when else f"deleted {title}"


DELETE = ChangeKind(
    "delete",
    logged=lambda before, _after: before,
    revert=_revert_delete,
    tell={"zh": _tell_delete, "en": _tell_delete},
)


for _kind in (CREATE, OCCURRENCE, *FIELD_KINDS, DELETE):
    register_kind(_kind)
