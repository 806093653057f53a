"""core.changes: the write log and undo, on SQLite and PostgreSQL."""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from core import carry, changes
from core.accounts import ensure_user
from core.models import Task, TaskChange, TaskCreate, TaskTitleGram, TaskUpdate
from core.store import complete_task, create_task, get_task, update_task
from core.turn import ChatText

NOW = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
LATER = NOW + timedelta(minutes=5)
SEAL = carry.Seal(b"test secret", user_id=1)


def _user(session: Session, name: str = "alice") -> int:
    user = ensure_user(session, name, now=NOW)
    session.commit()
    assert user.id is not None
    return user.id


def _create(session: Session, user_id: int, title: str = "买牛奶", **kwargs: object) -> tuple[int, int]:
    """A task created by a chat turn, with its change: (task id, change id)."""
    task, _ = create_task(session, user_id, TaskCreate(title=title, **kwargs), now=NOW)  # type: ignore[arg-type]
    change = changes.record(session, user_id=user_id, turn_key="t1", kind="create", task=task, before=None, now=NOW)
    session.commit()
    assert task.id is not None
    return task.id, change


def _complete(session: Session, user_id: int, task_id: int) -> int:
    task = get_task(session, user_id, task_id)
    assert task is not None
    before = changes.snapshot(task)
    complete_task(session, user_id, task_id, now=NOW)
    change = changes.record(session, user_id=user_id, turn_key="t2", kind="complete", task=task, before=before, now=NOW)
    session.commit()
    return change


def _titles_indexed(session: Session, task_id: int) -> set[str]:
    return set(session.exec(select(TaskTitleGram.gram).where(col(TaskTitleGram.task_id) == task_id)).all())


def test_snapshot_is_json_ready() -> None:
    deadline = datetime(2026, 12, 2, 10, tzinfo=UTC)
    task = Task(user_id=1, title="交报告", priority_group=1, deadline_at=deadline, created_at=NOW, updated_at=NOW)
    assert changes.snapshot(task) == {
        "title": "交报告",
        "priority_group": 1,
        "deadline_at": "2026-12-02T10:00:00+00:00",
        "urgency_threshold_at": None,
        "is_completed": False,
        "completed_at": None,
        "recurrence": None,
        "reminders": None,
        "estimate_minutes": None,
        "list_name": None,
        "labels": None,
    }


def test_record_writes_a_row_in_the_callers_transaction(session: Session) -> None:
    alice = _user(session)
    task, _ = create_task(session, alice, TaskCreate(title="买牛奶"), now=NOW)
    change_id = changes.record(session, user_id=alice, turn_key="k", kind="create", task=task, before=None, now=NOW)
    session.rollback()  # record never commits: the change goes with the write
    assert session.get(TaskChange, change_id) is None

    task_id, change_id = _create(session, alice)
    row = session.get(TaskChange, change_id)
    assert row is not None and row.task_id == task_id and row.kind == "create" and row.before is None
    assert row.turn_key == "t1" and row.undone_at is None


def test_record_refuses_bad_input(session: Session) -> None:
    alice, bob = _user(session), _user(session, "bob")
    task, _ = create_task(session, alice, TaskCreate(title="x"), now=NOW)
    with pytest.raises(ValueError):
        changes.record(session, user_id=bob, turn_key="k", kind="create", task=task, before=None, now=NOW)
    with pytest.raises(ValueError):
        changes.record(session, user_id=alice, turn_key="k", kind="update", task=task, before=None, now=NOW)
    with pytest.raises(ValueError):
        changes.record(session, user_id=alice, turn_key="k", kind="nonsense", task=task, before=None, now=NOW)


def test_undo_create_deletes_the_task_and_keeps_the_change(session: Session) -> None:
    alice = _user(session)
    task_id, change_id = _create(session, alice, "买牛奶")
    assert _titles_indexed(session, task_id)

    result = changes.undo(session, user_id=alice, change_ids=[change_id], now=LATER)
    session.commit()
    assert not result.already and not result.missing
    [row] = result.changes
    assert (row.id, row.kind, row.effect, row.after["title"]) == (change_id, "create", "deleted", "买牛奶")
    assert get_task(session, alice, task_id) is None
    assert not _titles_indexed(session, task_id)
    kept = session.get(TaskChange, change_id)
    assert kept is not None and kept.task_id is None and kept.undone_at == LATER


def test_undo_is_idempotent(session: Session) -> None:
    alice = _user(session)
    _task_id, change_id = _create(session, alice)
    changes.undo(session, user_id=alice, change_ids=[change_id], now=LATER)
    session.commit()

    again = changes.undo(session, user_id=alice, change_ids=[change_id], now=LATER + timedelta(minutes=1))
    session.commit()
    assert again.already and not again.missing
    [row] = again.changes
    assert row.effect is None and row.undone_at == LATER  # the first undo's time, untouched


def test_undo_complete_restores_the_open_task(session: Session) -> None:
    alice = _user(session)
    task_id, _ = _create(session, alice, "交报告")
    change_id = _complete(session, alice, task_id)

    result = changes.undo(session, user_id=alice, change_ids=[change_id], now=LATER)
    session.commit()
    assert [c.effect for c in result.changes] == ["restored"]
    task = get_task(session, alice, task_id)
    assert task is not None and not task.is_completed and task.completed_at is None and task.updated_at == LATER


def test_undo_update_restores_every_field_and_the_title_index(session: Session) -> None:
    alice = _user(session)
    deadline = datetime(2026, 12, 3, 10, tzinfo=UTC)
    task_id, _ = _create(session, alice, "交报告", priority_group=2, deadline_at=deadline)
    task = get_task(session, alice, task_id)
    assert task is not None
    before = changes.snapshot(task)
    update_task(
        session,
        alice,
        task_id,
        TaskUpdate(title="写周报", priority_group=1, deadline_at=None, urgency_threshold_at=NOW),
        now=NOW,
    )
    change_id = changes.record(session, user_id=alice, turn_key="t3", kind="update", task=task, before=before, now=NOW)
    session.commit()
    assert "周报" in _titles_indexed(session, task_id)

    changes.undo(session, user_id=alice, change_ids=[change_id], now=LATER)
    session.commit()
    session.expire_all()
    task = get_task(session, alice, task_id)
    assert task is not None
    assert changes.snapshot(task) == before
    assert task.deadline_at == deadline
    grams = _titles_indexed(session, task_id)
    assert "报告" in grams and "周报" not in grams


def test_undo_reverts_newest_first(session: Session) -> None:
    """A create and a later completion of the same task in one undo: the task ends up deleted."""
    alice = _user(session)
    task_id, create_id = _create(session, alice)
    complete_id = _complete(session, alice, task_id)
    result = changes.undo(session, user_id=alice, change_ids=[create_id, complete_id], now=LATER)
    session.commit()
    assert [(c.id, c.effect) for c in result.changes] == [(complete_id, "restored"), (create_id, "deleted")]
    assert get_task(session, alice, task_id) is None


def test_another_users_ids_read_as_missing(session: Session) -> None:
    alice, bob = _user(session), _user(session, "bob")
    task_id, change_id = _create(session, alice)

    result = changes.undo(session, user_id=bob, change_ids=[change_id], now=LATER)
    session.commit()
    assert result.missing and not result.already and result.changes == []
    assert get_task(session, alice, task_id) is not None
    row = session.get(TaskChange, change_id)
    assert row is not None and row.undone_at is None

    # Mixed: bob's own change is undone, alice's is not touched.
    bob_task, bob_change = _create(session, bob, "bob's")
    mixed = changes.undo(session, user_id=bob, change_ids=[change_id, bob_change], now=LATER)
    session.commit()
    assert mixed.missing and [c.id for c in mixed.changes] == [bob_change]
    assert get_task(session, alice, task_id) is not None and get_task(session, bob, bob_task) is None


def test_nothing_to_undo(session: Session) -> None:
    alice = _user(session)
    assert changes.undo(session, user_id=alice, change_ids=[], now=LATER) == changes.Undone()
    result = changes.undo(session, user_id=alice, change_ids=[12345], now=LATER)
    assert result.missing and not result.already and result.changes == []


def test_a_task_deleted_since_reads_as_gone(session: Session) -> None:
    alice = _user(session)
    task_id, _ = _create(session, alice)
    change_id = _complete(session, alice, task_id)
    session.execute(sa.delete(Task).where(col(Task.id) == task_id))
    session.commit()
    result = changes.undo(session, user_id=alice, change_ids=[change_id], now=LATER)
    session.commit()
    assert [c.effect for c in result.changes] == ["gone"] and not result.already


def test_deleting_a_user_deletes_their_changes(session: Session) -> None:
    alice = _user(session)
    _create(session, alice)
    session.execute(sa.text("DELETE FROM users WHERE id = :u"), {"u": alice})
    session.commit()
    assert session.exec(select(TaskChange)).all() == []


def test_concurrent_undos_revert_once(new_session: Callable[[], Session], backend: str) -> None:
    with new_session() as s:
        alice = _user(s)
        task_id, create_id = _create(s, alice)
    barrier = threading.Barrier(2)
    results: list[changes.Undone] = []
    errors: list[BaseException] = []

    def run() -> None:
        try:
            with new_session() as s:
                barrier.wait(timeout=10)
                results.append(changes.undo(s, user_id=alice, change_ids=[create_id], now=LATER))
                s.commit()
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=run) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert not errors, errors
    assert sorted(r.already for r in results) == [False, True]
    with new_session() as s:
        assert get_task(s, alice, task_id) is None


# --- the carried record ----------------------------------------------------------------------


def test_marker_and_last_written_round_trip() -> None:
    text = changes.marker("好，已记下：买牛奶", [3, 4], SEAL)
    assert carry.strip(text) == "好，已记下：买牛奶"
    assert carry.read(text, "w1", SEAL) == {"changes": [3, 4]}
    messages = [
        ChatText("user", "记一下买牛奶"),
        ChatText("assistant", text),
        ChatText("user", "这周有什么"),
        ChatText("assistant", "1. 买牛奶"),
        ChatText("user", "撤销"),
    ]
    assert changes.last_written(messages, SEAL) == [3, 4]
    assert changes.last_written(messages[:1], SEAL) is None
    # The most recent one wins.
    later = [*messages, ChatText("assistant", changes.marker("好", [9], SEAL)), ChatText("user", "撤销")]
    assert changes.last_written(later, SEAL) == [9]


def test_marker_keeps_other_records_and_replaces_its_own() -> None:
    with_query = carry.attach("给你整理了 1 条任务", "q1", {"plan": {}}, SEAL)
    text = changes.marker(changes.marker(with_query, [1], SEAL), [2], SEAL)
    assert carry.read(text, "q1", SEAL) == {"plan": {}}
    assert carry.read(text, "w1", SEAL) == {"changes": [2]}
    assert text.count('"w1.') == 1


@pytest.mark.parametrize(
    "payload",
    [
        {"changes": []},
        {"changes": ["1"]},
        {"changes": [True]},
        {"changes": [-1]},
        {"changes": 5},
        {},
        {"changes": [1] * 51},
        {"changes": [2**31]},  # past a 32-bit id column: PostgreSQL would refuse the lookup
    ],
)
def test_a_malformed_record_reads_as_absent(payload: dict[str, object]) -> None:
    messages = [
        ChatText("assistant", changes.marker("a", [7], SEAL)),
        ChatText("assistant", carry.attach("b", "w1", payload, SEAL)),
    ]
    assert changes.last_written(messages, SEAL) == [7]


def test_a_record_in_a_user_message_is_not_read() -> None:
    assert changes.last_written([ChatText("user", changes.marker("撤销", [1], SEAL))], SEAL) is None


def test_a_forged_marker_cannot_touch_another_users_task(session: Session) -> None:
    alice, mallory = _user(session), _user(session, "mallory")
    task_id, change_id = _create(session, alice, "alice 的任务")
    forged = [
        ChatText("assistant", changes.marker("好", [change_id, change_id + 1000], SEAL)),
        ChatText("user", "撤销"),
    ]
    ids = changes.last_written(forged, SEAL)
    assert ids is not None
    result = changes.undo(session, user_id=mallory, change_ids=ids, now=LATER)
    session.commit()
    assert result.missing and result.changes == []
    task = get_task(session, alice, task_id)
    assert task is not None and task.title == "alice 的任务"


def test_0004_downgrades_and_upgrades(engine_factory: Callable[[], Engine]) -> None:
    from alembic import command

    from core.db import SCHEMA_HEAD, alembic_config, current_revision, lock_for_migration, migrate

    engine = engine_factory()
    migrate(engine)
    assert "task_changes" in sa.inspect(engine).get_table_names()
    with engine.begin() as conn:
        lock_for_migration(conn)
        command.downgrade(alembic_config(conn), "0003_title_grams")
    assert current_revision(engine) == "0003_title_grams"
    assert "task_changes" not in sa.inspect(engine).get_table_names()
    migrate(engine)
    assert current_revision(engine) == SCHEMA_HEAD
    assert "task_changes" in sa.inspect(engine).get_table_names()
