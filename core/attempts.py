"""Exactly-once writes: every copy of one attempt writes once, and every copy answers the same.

A chat turn can arrive more than once — a client's retry, a regenerate, a double click, the same
request on two replicas at the same moment. Each write action therefore claims its attempt first,
in the transaction that will write::

    claim = attempts.claim(session, user_id=..., keys=turn.attempt_keys(), now=turn.now)
    if not claim.owner:
        ...answer from claim.result (what the first copy did), write nothing...
    ...decide and write (source keys from claim.write_key)...
    attempts.finish(session, claim, {"changes": change_ids})
    session.commit()          # or roll back when nothing was written: the claim goes with it

The claim is one row of ``write_attempts`` (:class:`core.models.WriteAttempt`), unique per
``(user_id, key)``: ``INSERT ... ON CONFLICT DO NOTHING`` lets exactly one copy in. A concurrent
copy waits for the winner's transaction (PostgreSQL's unique index; SQLite's write lock) and then
reads its committed ``result``. Only an attempt that wrote keeps its row, so a copy of one that
wrote nothing decides again and finds the same.

The attempt key names the words, not the moment (``core.turn.AttemptKeys``), so there is no window
boundary to race across. A claim goes stale — the same key starts a new attempt, with its
``generation`` bumped by a conditional UPDATE that only one copy can win — when it is older than
the retry window (the same words said again next week) or when everything it wrote has since been
undone or deleted (a resend after "撤销" does it again rather than answering for a write that is
gone). A client's own message id never goes stale by time.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlmodel import Session

from core.models import TaskChange, WriteAttempt
from core.turn import AttemptKeys

_ATTEMPTS = WriteAttempt.__table__  # type: ignore[attr-defined]
_CHANGES = TaskChange.__table__  # type: ignore[attr-defined]


# Room in ``tasks.source_key`` (128) for what :meth:`Claim.write_key` appends ("/<generation>#<part>").
MAX_KEY = 100


class KeyReused(Exception):
    """The attempt's key was first used for a different request (another route, another body)."""


def stored_key(raw: str) -> str:
    """An attempt key as stored: as given when short, else its head and a digest (a plain cut would
    make two long keys that share a prefix one attempt)."""
    if len(raw) <= MAX_KEY:
        return raw
    return f"{raw[:24]}~{hashlib.sha256(raw.encode('utf-8', 'surrogatepass')).hexdigest()}"


@dataclass(frozen=True)
class Claim:
    """One copy's standing in its attempt. ``owner``: this copy writes; otherwise ``result`` is
    what the copy that wrote recorded."""

    id: int
    key: str
    owner: bool
    generation: int
    result: dict[str, Any]

    def write_key(self, part: int | str | None = None) -> str:
        """The source key of a task this attempt creates (``part``: the n-th of several)."""
        base = f"{self.key}/{self.generation}"
        return base if part is None else f"{base}#{part}"

    @property
    def change_ids(self) -> list[int]:
        return [int(i) for i in self.result.get("changes", [])]


def _insert(session: Session) -> Any:
    return pg_insert if session.get_bind().dialect.name == "postgresql" else sqlite_insert


def _row(session: Session, user_id: int, key: str) -> sa.Row[Any]:
    columns = (_ATTEMPTS.c.id, _ATTEMPTS.c.generation, _ATTEMPTS.c.claimed_at, _ATTEMPTS.c.result)
    where = (_ATTEMPTS.c.user_id == user_id, _ATTEMPTS.c.key == key)
    return session.execute(sa.select(*columns).where(*where)).one()


def _result(raw: str | None) -> dict[str, Any]:
    loaded = json.loads(raw) if raw else {}
    return loaded if isinstance(loaded, dict) else {}


def _undone_or_gone(session: Session, user_id: int, change_ids: list[int]) -> bool:
    """Every change is undone, or its task no longer exists (``task_id`` is set NULL on delete), but
    for a deletion's own change."""
    live = session.execute(
        sa.select(sa.func.count())
        .select_from(_CHANGES)
        .where(
            _CHANGES.c.user_id == user_id,
            _CHANGES.c.id.in_(change_ids),
            _CHANGES.c.undone_at.is_(None),
            # A deletion's task is gone by design: the attempt that deleted it still stands.
            sa.or_(_CHANGES.c.task_id.is_not(None), _CHANGES.c.kind == "delete"),
        )
    ).scalar_one()
    return int(live) == 0


def _live(session: Session, user_id: int, keys: AttemptKeys, row: sa.Row[Any], now: datetime) -> bool:
    """The claim still stands for this attempt (see the module docstring)."""
    if keys.window is not None and row.claimed_at < now - keys.window:
        return False
    changes = [int(i) for i in _result(row.result).get("changes", [])]
    return not (changes and _undone_or_gone(session, user_id, changes))


def claim(session: Session, *, user_id: int, keys: AttemptKeys, now: datetime) -> Claim:
    """Claims this attempt for this copy, or finds the copy that wrote it. Flushes, never commits.

    Call it first in the transaction that writes (before reading what to change): a copy that has
    to wait for another then reads what that one committed."""
    key = stored_key(keys.key)
    inserted = session.execute(
        _insert(session)(_ATTEMPTS)
        .values(user_id=user_id, key=key, generation=0, claimed_at=now, result=None)
        .on_conflict_do_nothing(index_elements=["user_id", "key"])
        .returning(_ATTEMPTS.c.id)
    ).scalar_one_or_none()
    if inserted is not None:
        return Claim(inserted, key, True, 0, {})
    row = _row(session, user_id, key)
    if _live(session, user_id, keys, row, now):
        return Claim(row.id, key, False, row.generation, _result(row.result))
    # Stale: a new attempt under the same key. Only one copy's conditional update wins.
    taken = session.execute(
        sa.update(_ATTEMPTS)
        .where(_ATTEMPTS.c.id == row.id, _ATTEMPTS.c.generation == row.generation)
        .values(generation=row.generation + 1, claimed_at=now, result=None)
        .returning(_ATTEMPTS.c.generation)
    ).scalar_one_or_none()
    if taken is not None:
        return Claim(row.id, key, True, int(taken), {})
    row = _row(session, user_id, key)
    return Claim(row.id, key, False, row.generation, _result(row.result))


def finish(session: Session, claim: Claim, result: dict[str, Any]) -> None:
    """Records what the owner did, in its transaction (so a copy answers the same)."""
    if not claim.owner:
        raise ValueError("only the owner of an attempt records its result")
    session.execute(
        sa.update(_ATTEMPTS)
        .where(_ATTEMPTS.c.id == claim.id)
        .values(result=json.dumps(result, ensure_ascii=False, separators=(",", ":")))
    )


def peek(session: Session, *, user_id: int, keys: AttemptKeys, now: datetime) -> Claim | None:
    """The standing claim of an earlier copy of this attempt, without claiming anything (a cheap
    check before the model calls of a note); None when this attempt is still to be made."""
    key = stored_key(keys.key)
    columns = (_ATTEMPTS.c.id, _ATTEMPTS.c.generation, _ATTEMPTS.c.claimed_at, _ATTEMPTS.c.result)
    row = session.execute(
        sa.select(*columns).where(_ATTEMPTS.c.user_id == user_id, _ATTEMPTS.c.key == key)
    ).one_or_none()
    if row is None or not _live(session, user_id, keys, row, now):
        return None
    return Claim(row.id, key, False, row.generation, _result(row.result))


__all__ = ["MAX_KEY", "Claim", "KeyReused", "claim", "finish", "peek", "stored_key"]
