"""core.writes: the one write path — validate, write, log, key the attempt — on SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import pytest
from sqlmodel import Session, col, select

from core import changes, writes
from core.accounts import ensure_user
from core.kinds import ChangeKind, kinds, register_kind
from core.models import Task, TaskChange, TaskCreate, TaskTitleGram, TaskUpdate, WriteAttempt
from core.store import TaskFilter, get_task, query_tasks
from core.turn import AttemptKeys

NOW = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
LATER = NOW + timedelta(minutes=5)


def _user(session: Session, name: str = "alice") -> int:
    user = ensure_user(session, name, now=NOW)
    session.commit()
    assert user.id is not None
    return user.id


def _author(user_id: int, now: datetime = NOW, attempt: str | None = None) -> writes.Author:
    return writes.author(user_id, now, "rest", attempt=attempt)


def _create(sessions: Callable[[], Session], user_id: int, title: str = "交报告", **kw: object) -> tuple[int, int]:
    with writes.writing(sessions, _author(user_id)) as w:
        task = w.create(TaskCreate(title=title, **kw))  # type: ignore[arg-type]
    assert task.id is not None
    return task.id, w.change_ids[0]


def test_every_write_is_logged_with_what_it_touched(new_session: Callable[[], Session]) -> None:
    with new_session() as s:
        alice = _user(s)
    task_id, created = _create(new_session, alice, deadline_at=NOW + timedelta(days=1))
    with writes.writing(new_session, _author(alice)) as w:
        task = w.lock(task_id)
        assert task is not None
        updated = w.update(task, TaskUpdate(title="交季度报告"))
        completed = w.complete(task)
    with new_session() as s:
        rows = list(s.exec(select(TaskChange).order_by(col(TaskChange.id))))
    assert [r.kind for r in rows] == ["create", "update", "complete"]
    assert [r.id for r in rows] == [created, updated, completed]
    update_row, complete_row = (changes.change_row(r, None) for r in rows[1:])
    assert update_row.before == {"title": "交报告"}  # only what it touched
    assert complete_row.before == {"is_completed": False, "completed_at": None}
    assert all(r.turn_key.startswith("rest:") for r in rows)


def test_a_block_that_writes_nothing_leaves_nothing(new_session: Callable[[], Session]) -> None:
    with new_session() as s:
        alice = _user(s)
    task_id, _ = _create(new_session, alice)
    with writes.writing(new_session, _author(alice, attempt="k1")) as w:
        task = w.lock(task_id)
        assert task is not None
        assert w.update(task, TaskUpdate(title="交报告")) is None  # the same value: no change
        assert w.complete(task, completed=False) is None  # already open
    assert task.title == "交报告"  # still readable after the block
    with new_session() as s:
        assert len(s.exec(select(TaskChange)).all()) == 1  # the create only
        assert s.exec(select(WriteAttempt)).all() == []  # no claim kept for a write that wrote nothing


def test_an_error_rolls_the_whole_block_back(new_session: Callable[[], Session]) -> None:
    with new_session() as s:
        alice = _user(s)
    with pytest.raises(RuntimeError), writes.writing(new_session, _author(alice, attempt="k2")) as w:
        w.create(TaskCreate(title="买牛奶"))
        raise RuntimeError("a later step failed")
    with new_session() as s:
        assert s.exec(select(Task)).all() == [] and s.exec(select(TaskChange)).all() == []
        assert s.exec(select(WriteAttempt)).all() == []


def test_another_users_task_cannot_be_written(new_session: Callable[[], Session]) -> None:
    with new_session() as s:
        alice, bob = _user(s), _user(s, "bob")
    task_id, _ = _create(new_session, alice)
    with writes.writing(new_session, _author(bob)) as w:
        assert w.lock(task_id) is None
        with new_session() as other:
            alices = get_task(other, alice, task_id)
            assert alices is not None
            with pytest.raises(ValueError):
                w.complete(alices)  # not read in this transaction, and not bob's


def test_a_named_attempt_writes_once(new_session: Callable[[], Session]) -> None:
    with new_session() as s:
        alice = _user(s)
    with writes.writing(new_session, _author(alice, attempt="create-1")) as w:
        first = w.create(TaskCreate(title="买牛奶"))
    with writes.writing(new_session, _author(alice, LATER, attempt="create-1")) as again:
        assert again.copy and again.prior["tasks"] == [first.id] and again.prior["changes"] == w.change_ids
        with pytest.raises(RuntimeError):
            again.create(TaskCreate(title="买牛奶"))
    with new_session() as s:
        assert len(s.exec(select(Task)).all()) == 1


def test_delete_and_its_undo_bring_the_task_back_exactly(new_session: Callable[[], Session]) -> None:
    with new_session() as s:
        alice = _user(s)
    task_id, created = _create(new_session, alice, priority_group=1, deadline_at=NOW + timedelta(days=2))
    with writes.writing(new_session, _author(alice)) as w:
        task = w.lock(task_id)
        assert task is not None
        w.complete(task)
    with new_session() as s:
        before = s.exec(select(Task).where(col(Task.id) == task_id)).one().model_dump()
    with writes.writing(new_session, _author(alice, LATER)) as w:
        task = w.lock(task_id)
        assert task is not None
        [deleted] = w.delete([task])
    with new_session() as s:
        assert get_task(s, alice, task_id) is None
        assert query_tasks(s, alice, TaskFilter(include_completed=True), now=LATER).total == 0
        assert {r.task_id for r in s.exec(select(TaskChange))} == {None}  # the history lost its task
    with writes.writing(new_session, _author(alice, LATER)) as w:
        undone = w.revert([deleted])
    assert [c.effect for c in undone.changes] == ["restored"]
    with new_session() as s:
        back = s.exec(select(Task).where(col(Task.id) == task_id)).one()
        assert back.model_dump() == before  # same id, fields, times, source key
        assert {r.task_id for r in s.exec(select(TaskChange))} == {task_id}  # and its history again
        assert s.exec(select(TaskTitleGram).where(col(TaskTitleGram.task_id) == task_id)).all()
        assert query_tasks(s, alice, TaskFilter(keyword="报告", include_completed=True), now=LATER).total == 1
    # Undoing the create now deletes it (its history is whole again).
    with writes.writing(new_session, _author(alice, LATER)) as w:
        assert [c.effect for c in w.revert([created]).changes] == ["deleted"]


CALLS: list[int] = []
STAR = ChangeKind(
    "star",
    logged=lambda before, _after: before,
    revert=lambda _s, _u, change, _now: (CALLS.append(change.id or 0) or "restored", {}),  # type: ignore[func-returns-value]
    tell={"zh": lambda c, _t: f"加星「{c.after['title']}」", "en": lambda c, _t: f"starred {c.after['title']}"},
)
register_kind(STAR)  # as an action's registration does; registering the same kind again is no error
register_kind(STAR)


def test_kinds_are_data_a_feature_adds_one_without_a_migration(new_session: Callable[[], Session]) -> None:
    """A kind registered by a feature is logged, undone by its own inverse and told in its words."""
    assert "star" in kinds()
    with new_session() as s:
        alice = _user(s)
    task_id, _ = _create(new_session, alice)
    with new_session() as s:
        task = get_task(s, alice, task_id)
        assert task is not None
        star_id = changes.record(
            s, user_id=alice, turn_key="t", kind="star", task=task, before=changes.snapshot(task), now=NOW
        )
        s.commit()
    with writes.writing(new_session, _author(alice)) as w:
        undone = w.revert([star_id])
    assert CALLS[-1] == star_id
    telling = changes.Telling("zh", "Asia/Shanghai", NOW)
    assert changes.tell(undone.changes[0], telling) == "加星「交报告」"


def test_a_claim_for_a_chat_turn_is_per_attempt(new_session: Callable[[], Session]) -> None:
    with new_session() as s:
        alice = _user(s)
    keys = AttemptKeys("h:conversation", timedelta(minutes=10))
    by = writes.Author(alice, NOW, "h:conversation", keys)
    with writes.writing(new_session, by) as w:
        w.create(TaskCreate(title="买牛奶"))
    later = writes.Author(alice, NOW + timedelta(minutes=11), "h:conversation", keys)
    with writes.writing(new_session, later) as w:
        assert not w.copy  # past the window: the same words are a new attempt
        w.create(TaskCreate(title="买牛奶"))
    with new_session() as s:
        keys_written = sorted(t.source_key or "" for t in s.exec(select(Task)))
    assert keys_written == ["h:conversation/0", "h:conversation/1"]
