"""core.attempts: one write per attempt, however many copies arrive, on SQLite and PostgreSQL."""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from sqlmodel import Session, select

from core import attempts, changes
from core.accounts import ensure_user
from core.models import Task, TaskChange, TaskCreate, WriteAttempt
from core.store import complete_task, create_task, get_task
from core.turn import AttemptKeys

NOW = datetime(2026, 12, 1, 9, 59, 59, tzinfo=UTC)
WINDOW = timedelta(minutes=10)
KEYS = AttemptKeys("h:conversation", WINDOW)


def _user(session: Session) -> int:
    user = ensure_user(session, "alice", now=NOW)
    session.commit()
    assert user.id is not None
    return user.id


def _complete_once(session: Session, user_id: int, task_id: int, now: datetime) -> tuple[bool, list[int]]:
    """What the completion action does: claim, then write and log, or answer as the copy."""
    claim = attempts.claim(session, user_id=user_id, keys=KEYS, now=now)
    if not claim.owner:
        session.rollback()
        return False, claim.change_ids
    task = get_task(session, user_id, task_id)
    assert task is not None
    before = changes.snapshot(task)
    complete_task(session, user_id, task_id, now=now)
    change = changes.record(
        session, user_id=user_id, turn_key=KEYS.key, kind="complete", task=task, before=before, now=now
    )
    attempts.finish(session, claim, {"changes": [change]})
    session.commit()
    return True, [change]


def test_the_first_copy_owns_the_attempt_and_a_later_copy_reads_its_result(session: Session) -> None:
    alice = _user(session)
    task, _ = create_task(session, alice, TaskCreate(title="交报告"), now=NOW)
    session.commit()
    assert task.id is not None
    owner, ids = _complete_once(session, alice, task.id, NOW)
    copy, same = _complete_once(session, alice, task.id, NOW + timedelta(minutes=1))
    assert (owner, copy) == (True, False)
    assert same == ids
    assert len(session.exec(select(TaskChange)).all()) == 1


def test_an_attempt_that_wrote_nothing_leaves_no_claim(session: Session) -> None:
    alice = _user(session)
    claim = attempts.claim(session, user_id=alice, keys=KEYS, now=NOW)
    assert claim.owner
    session.rollback()
    assert session.exec(select(WriteAttempt)).all() == []
    assert attempts.claim(session, user_id=alice, keys=KEYS, now=NOW).owner


def test_copies_either_side_of_any_boundary_are_one_attempt(session: Session) -> None:
    """The key names the words, not a clock window: 09:59:59 and 10:00:01 are the same attempt."""
    alice = _user(session)
    task, _ = create_task(session, alice, TaskCreate(title="交报告"), now=NOW)
    session.commit()
    assert task.id is not None
    assert _complete_once(session, alice, task.id, NOW)[0]
    assert not _complete_once(session, alice, task.id, NOW + timedelta(seconds=2))[0]


def test_past_the_window_the_same_words_are_a_new_attempt(session: Session) -> None:
    alice = _user(session)
    first = attempts.claim(session, user_id=alice, keys=KEYS, now=NOW)
    attempts.finish(session, first, {})
    session.commit()
    later = attempts.claim(session, user_id=alice, keys=KEYS, now=NOW + WINDOW + timedelta(seconds=1))
    assert later.owner and later.generation == 1
    assert later.write_key() != first.write_key()
    # A client's own message id never goes stale by time.
    named = AttemptKeys("cm:abc", None)
    attempts.finish(session, attempts.claim(session, user_id=alice, keys=named, now=NOW), {})
    session.commit()
    assert not attempts.claim(session, user_id=alice, keys=named, now=NOW + timedelta(days=30)).owner


def test_an_attempt_whose_writes_were_undone_can_be_made_again(session: Session) -> None:
    alice = _user(session)
    task, _ = create_task(session, alice, TaskCreate(title="交报告"), now=NOW)
    session.commit()
    assert task.id is not None
    _owner, ids = _complete_once(session, alice, task.id, NOW)
    changes.undo(session, user_id=alice, change_ids=ids, now=NOW + timedelta(seconds=5))
    session.commit()
    redo, new_ids = _complete_once(session, alice, task.id, NOW + timedelta(seconds=10))
    assert redo and new_ids != ids
    assert attempts.peek(session, user_id=alice, keys=KEYS, now=NOW + timedelta(seconds=11)) is not None


def test_concurrent_copies_write_once_and_all_answer_the_same(new_session: Callable[[], Session], backend: str) -> None:
    """Twenty copies of one completion at once (threads, one connection each): one change, one answer."""
    with new_session() as s:
        alice = _user(s)
        task, _ = create_task(s, alice, TaskCreate(title="交报告"), now=NOW)
        s.commit()
        assert task.id is not None
        task_id = task.id
    copies = 20
    barrier = threading.Barrier(copies)
    results: list[tuple[bool, list[int]]] = []
    errors: list[BaseException] = []

    def run() -> None:
        try:
            with new_session() as s:
                barrier.wait(timeout=20)
                results.append(_complete_once(s, alice, task_id, NOW))
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=run) for _ in range(copies)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not errors, errors
    assert sorted(owner for owner, _ in results) == [False] * (copies - 1) + [True]
    assert len({tuple(ids) for _, ids in results}) == 1
    with new_session() as s:
        assert len(s.exec(select(TaskChange).where(TaskChange.kind == "complete")).all()) == 1
        assert len(s.exec(select(WriteAttempt)).all()) == 1
        stored = s.get(Task, task_id)
        assert stored is not None and stored.is_completed
