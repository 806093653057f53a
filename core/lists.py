"""A user's lists and labels in the database (names: :mod:`core.listnames`).

A task's list is on its row (``list_name`` as written, ``list_key`` as compared); ``task_lists`` holds
every list of a user, empty ones too, and is written here when a task names a list it doesn't have
(:func:`ensure_list`, called from :func:`core.store.refresh_derived`, so an undo that puts a task
back into a deleted list brings the list back). A task's labels are a JSON array on its row;
``task_labels`` indexes them (:func:`sync_labels`, after every write to the task).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import sqlalchemy as sa
from sqlmodel import Session, col, delete, func, select

from core import listnames
from core.models import Task, TaskLabel, TaskListRecord

__all__ = [
    "Named",
    "Resolved",
    "close_names",
    "ensure_list",
    "find_list",
    "has_any",
    "has_label",
    "label_counts",
    "list_counts",
    "resolve_list",
    "sync_labels",
    "variants",
]


@dataclass(frozen=True)
class Named:
    """A list or a label as people see it: its name, how many open tasks and how many in all."""

    name: str
    open: int
    total: int
    id: int | None = None  # a list's row id (labels have none)


def find_list(session: Session, user_id: int, name: str) -> TaskListRecord | None:
    """The user's list called ``name`` (compared by key), or None."""
    stmt = select(TaskListRecord).where(
        col(TaskListRecord.user_id) == user_id, col(TaskListRecord.key) == listnames.key(name)
    )
    return session.exec(stmt).first()


def ensure_list(session: Session, user_id: int, name: str, *, now: datetime) -> TaskListRecord:
    """The user's list called ``name``, made if it doesn't exist (as a savepoint, so a concurrent
    maker of the same list loses nothing but the race)."""
    found = find_list(session, user_id, name)
    if found is not None:
        return found
    try:
        with session.begin_nested():
            record = TaskListRecord(user_id=user_id, name=name, key=listnames.key(name), created_at=now)
            session.add(record)
            session.flush()
        return record
    except sa.exc.IntegrityError:
        found = find_list(session, user_id, name)
        assert found is not None
        return found


def sync_labels(session: Session, task: Task) -> None:
    """``task_labels`` for ``task`` as its row says."""
    assert task.id is not None
    keys = {listnames.key(name) for name in listnames.label_list(task.labels)}
    held = set(session.exec(select(TaskLabel.key).where(col(TaskLabel.task_id) == task.id)).all())
    if held - keys:
        session.exec(delete(TaskLabel).where(col(TaskLabel.task_id) == task.id, col(TaskLabel.key).in_(held - keys)))
    for key in sorted(keys - held):
        session.add(TaskLabel(user_id=task.user_id, key=key, task_id=task.id))
    session.flush()


def list_counts(session: Session, user_id: int) -> list[Named]:
    """The user's lists with their open and total task counts, by name."""
    done = col(Task.is_completed)
    counts = (
        select(
            col(Task.list_key),
            func.count(),
            func.sum(sa.case((done == sa.false(), 1), else_=0)),
        )
        .where(col(Task.user_id) == user_id, col(Task.list_key).is_not(None))
        .group_by(col(Task.list_key))
    )
    by_key = {k: (int(o or 0), int(n)) for k, n, o in session.exec(counts).all()}
    records = session.exec(select(TaskListRecord).where(col(TaskListRecord.user_id) == user_id)).all()
    out = [Named(r.name, *by_key.get(r.key, (0, 0)), id=r.id) for r in records]
    return sorted(out, key=lambda n: n.name)


def label_counts(session: Session, user_id: int) -> list[Named]:
    """The user's labels (those some task has) with open and total counts, by name."""
    rows = session.exec(
        select(col(Task.labels), col(Task.is_completed)).where(
            col(Task.user_id) == user_id, col(Task.labels).is_not(None)
        )
    ).all()
    names: dict[str, str] = {}
    counts: dict[str, list[int]] = {}
    for stored, completed in rows:
        for name in listnames.label_list(stored):
            key = listnames.key(name)
            names.setdefault(key, name)
            tally = counts.setdefault(key, [0, 0])
            tally[0] += 0 if completed else 1
            tally[1] += 1
    return sorted((Named(names[k], o, n) for k, (o, n) in counts.items()), key=lambda n: n.name)


LIST_WORDS = ("清单", "列表", "单子", " list")


def variants(name: str) -> list[str]:
    """The names ``name`` may mean a list by: itself, without a list word ("购物清单" → "购物"),
    with one ("家务" → "家务清单")."""
    out = [name]
    for word in LIST_WORDS:
        if name.lower().endswith(word) and len(name) > len(word):
            out.append(name[: -len(word)].strip())
    if not any(name.lower().endswith(w) for w in LIST_WORDS):
        out += [name + "清单", name + " list"]
    return out


@dataclass(frozen=True)
class Resolved:
    """A list name as said, read against the user's lists: the one it names (``name``; a new one
    when ``new``), or near misses to ask about."""

    name: str | None
    new: bool = False
    near: tuple[str, ...] = ()


def resolve_list(session: Session, user_id: int, said: str) -> Resolved:
    """The user's list ``said`` names (by :func:`variants`); else near misses; else a new list."""
    for name in variants(said):
        found = find_list(session, user_id, name)
        if found is not None:
            return Resolved(found.name)
    known = [r.name for r in session.exec(select(TaskListRecord).where(col(TaskListRecord.user_id) == user_id))]
    near = tuple(close_names(said, known))
    return Resolved(None, near=near) if near else Resolved(said, new=True)


def has_any(session: Session, user_id: int) -> bool:
    """The user has a list or a label."""
    made = select(TaskListRecord.id).where(col(TaskListRecord.user_id) == user_id).limit(1)
    tagged = select(TaskLabel.task_id).where(col(TaskLabel.user_id) == user_id).limit(1)
    return session.exec(made).first() is not None or session.exec(tagged).first() is not None


def has_label(session: Session, user_id: int, name: str) -> bool:
    stmt = select(TaskLabel.task_id).where(col(TaskLabel.user_id) == user_id, col(TaskLabel.key) == listnames.key(name))
    return session.exec(stmt.limit(1)).first() is not None


def close_names(name: str, known: list[str]) -> list[str]:
    """Known names that ``name`` nearly is ("购物单" for 购物清单; "work" for "Work stuff"): one holds
    the other, or they share all but one character. Exact matches are not near misses."""
    key = listnames.key(name)
    out = []
    for other in known:
        other_key = listnames.key(other)
        if other_key == key:
            continue
        short, long = sorted((key, other_key), key=len)
        if len(short) >= 2 and (short in long or _one_apart(short, long)):
            out.append(other)
    return out


def _one_apart(a: str, b: str) -> bool:
    """``a`` is ``b`` with at most one character dropped or changed, or all of ``a`` in ``b``'s order."""
    if len(b) - len(a) > 1:
        it = iter(b)
        return len(a) >= 2 and all(ch in it for ch in a) and len(a) * 2 >= len(b)
    if len(a) == len(b):
        return sum(x != y for x, y in zip(a, b, strict=True)) <= 1
    return any(b[:i] + b[i + 1 :] == a for i in range(len(b)))
