"""core.occurrences: the occurrence index stays what the series are, and windows read from it list
exactly what walking every rule lists (both backends)."""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest
import sqlalchemy as sa
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from core import occurrences, recurrence, series, writes
from core.accounts import ensure_user
from core.db import migrate
from core.models import Task, TaskChange, TaskCreate, TaskOccurrence, TaskUpdate
from core.store import TaskFilter, query_tasks

SH = ZoneInfo("Asia/Shanghai")
NOW = datetime(2026, 11, 30, 10, 0, tzinfo=SH)  # Monday
RULES = [
    "FREQ=WEEKLY;BYDAY=MO",
    "FREQ=WEEKLY;INTERVAL=2;BYDAY=FR",
    "FREQ=WEEKLY;BYDAY=MO,WE,FR",
    "FREQ=DAILY",
    "FREQ=DAILY;INTERVAL=3",
    "FREQ=MONTHLY;BYMONTHDAY=15",
    "FREQ=MONTHLY;BYMONTHDAY=28,29,30,31;BYSETPOS=-1",
    "FREQ=MONTHLY;BYDAY=1MO",
    "FREQ=YEARLY;BYMONTH=3;BYMONTHDAY=8",
    "RSCALE=CHINESE;FREQ=MONTHLY;BYMONTHDAY=1",
    "FREQ=YEARLY;X-TERM=DONGZHI",
    "FREQ=DAILY;X-DAYS=CN-WORKDAY",  # never indexed: walked at query time
    "FREQ=WEEKLY;BYDAY=TU;COUNT=3",
    "FREQ=DAILY;UNTIL=20270315T235959",
]


def _user(session: Session, name: str = "alice") -> int:
    user = ensure_user(session, name, now=NOW)
    session.commit()
    assert user.id is not None
    return user.id


def _rule(rule: str, start: datetime) -> str:
    return recurrence.make(rule, start=start, tz="Asia/Shanghai").to_ical()


def _create(sessions: Callable[[], Session], user: int, title: str, rule: str, due: datetime, **kw: Any) -> int:
    rec = recurrence.make(rule, start=due, tz="Asia/Shanghai")
    first = recurrence.next_after(rec, due, inclusive=True)
    assert first is not None
    with writes.writing(sessions, writes.author(user, NOW, "rest")) as w:
        task = w.create(TaskCreate(title=title, deadline_at=first, recurrence=rec.rebased(first).to_ical(), **kw))
    assert task.id is not None
    return task.id


def _stored(session: Session, task_id: int) -> list[tuple[datetime, datetime, datetime | None]]:
    rows = session.exec(
        select(TaskOccurrence).where(col(TaskOccurrence.task_id) == task_id).order_by(col(TaskOccurrence.at))
    ).all()
    return [(r.at, r.prev_at, r.threshold_at) for r in rows]


def _expected(task: Task) -> tuple[datetime | None, list[tuple[datetime, datetime, datetime | None]]]:
    assert task.id is not None
    until, rows = occurrences.rows_for(
        task.id, task.user_id, task.recurrence, task.deadline_at, task.urgency_threshold_at, task.priority_group,
        task.is_completed,
    )  # fmt: skip
    return until, [(r["at"], r["prev_at"], r["threshold_at"]) for r in rows]


def _check(sessions: Callable[[], Session], task_id: int) -> list[tuple[datetime, datetime, datetime | None]]:
    with sessions() as session:
        task = session.get(Task, task_id)
        stored = _stored(session, task_id)
        if task is None:
            assert stored == []
            return stored
        assert (task.occurrences_until, stored) == _expected(task)
    return stored


def test_every_write_keeps_the_rows_what_the_series_is(new_session: Callable[[], Session]) -> None:
    s = new_session
    with s() as session:
        user = _user(session)
    due = datetime(2026, 12, 7, 9, 0, tzinfo=SH)
    task_id = _create(s, user, "交周报", "FREQ=WEEKLY;BYDAY=MO", due, urgency_threshold_at=due - timedelta(days=1))
    first = _check(s, task_id)
    assert first[0] == (due + timedelta(days=7), due, due + timedelta(days=6))  # the threshold keeps its lead
    assert len(first) == 57  # weekly, within 400 days of the open occurrence

    def write(act: Callable[[writes.Writer, Task], object]) -> list[int]:
        with writes.writing(s, writes.author(user, NOW, "rest")) as w:
            task = w.lock(task_id)
            assert task is not None
            act(w, task)
        return w.change_ids

    done = write(lambda w, t: w.complete(t, True))  # the series moves on: rows from the next one
    assert _check(s, task_id)[0][1] == due + timedelta(days=7)
    write(lambda w, t: w.update(t, TaskUpdate(recurrence=_rule("FREQ=DAILY", due + timedelta(days=7)))))
    assert len(_check(s, task_id)) == occurrences.MAX_ROWS  # daily: capped, and says how far it reaches
    write(lambda w, t: w.update(t, TaskUpdate(priority_group=4)))
    _check(s, task_id)
    ended = write(lambda w, t: w.update(t, TaskUpdate(recurrence=None)))  # a one-off now: no rows
    assert _check(s, task_id) == []
    with writes.writing(s, writes.author(user, NOW, "rest")) as w:
        w.revert(ended)  # undo puts the rule back, and its rows
    assert len(_check(s, task_id)) == occurrences.MAX_ROWS
    with writes.writing(s, writes.author(user, NOW, "rest")) as w:
        w.revert(done)
    _check(s, task_id)
    gone = write(lambda w, t: w.delete([t]))
    assert _check(s, task_id) == []
    with writes.writing(s, writes.author(user, NOW, "rest")) as w:
        w.revert(gone)  # the deleted series comes back with its rows
    assert _check(s, task_id)
    with s() as session:
        assert session.exec(select(TaskChange)).first() is not None


def test_workday_rules_and_finished_series_keep_no_rows(new_session: Callable[[], Session]) -> None:
    with new_session() as session:
        user = _user(session)
    due = datetime(2026, 12, 1, 9, 0, tzinfo=SH)
    workday = _create(new_session, user, "打卡", "FREQ=DAILY;X-DAYS=CN-WORKDAY", due)
    assert _check(new_session, workday) == []
    with new_session() as session:
        assert session.get(Task, workday).occurrences_until is None  # type: ignore[union-attr]  # walked
    last = _create(new_session, user, "复诊", "FREQ=WEEKLY;BYDAY=TU;COUNT=1", due)
    assert _check(new_session, last) == []  # one occurrence: only the open one, and nothing after it


def _page(conn: sa.Connection, user: int, flt: TaskFilter) -> tuple[int, list[tuple[int, datetime | None, int]]]:
    page = query_tasks(conn, user, flt, now=NOW)
    return page.total, [(r.id, r.deadline_at, r.effective_group) for r in page.items]


@pytest.fixture
def many_series(engine: Engine) -> tuple[Engine, int]:
    """A user with plain tasks and series of every kind of rule, due around now."""
    from core.db import session_factory

    sessions = session_factory(engine)
    with sessions() as session:
        user = _user(session)
        other = _user(session, "bob")
    rnd = random.Random(7)
    for i in range(40):
        due = NOW + timedelta(days=rnd.randint(-40, 40), hours=rnd.randint(0, 12))
        threshold = due - timedelta(days=rnd.randint(1, 5)) if i % 3 == 0 else None
        group = rnd.randint(1, 4)
        _create(
            sessions, user, f"系列{i}", RULES[i % len(RULES)], due, priority_group=group, urgency_threshold_at=threshold
        )
        with writes.writing(sessions, writes.author(user, NOW, "rest")) as w:
            w.create(TaskCreate(title=f"任务{i}", deadline_at=due, priority_group=group))
    _create(sessions, other, "系列x", "FREQ=DAILY", NOW)  # another user's series is never listed
    return engine, user


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    start=st.integers(min_value=-50, max_value=500),
    days=st.integers(min_value=0, max_value=120),
    quadrants=st.sampled_from([None, [1], [3, 4], [2, 4]]),
    sort_by=st.sampled_from(["deadline", "priority", "id"]),
    order=st.sampled_from(["asc", "desc"]),
    offset=st.integers(min_value=0, max_value=12),
    keyword=st.sampled_from([None, "系列1", "任务"]),
    with_overdue=st.booleans(),
)
def test_a_window_from_the_index_is_the_window_from_walking(
    many_series: tuple[Engine, int],
    start: int,
    days: int,
    quadrants: list[int] | None,
    sort_by: str,
    order: str,
    offset: int,
    keyword: str | None,
    with_overdue: bool,
) -> None:
    engine, user = many_series
    after = NOW.replace(hour=0) + timedelta(days=start)
    flt = TaskFilter(
        time_after=after,
        time_before=after + timedelta(days=days, hours=23, minutes=59),
        quadrants=quadrants,
        sort_by=sort_by,
        order=order,
        limit=7,
        offset=offset,
        keyword=keyword,
        with_overdue=with_overdue,
    )
    with engine.connect() as conn:
        indexed = _page(conn, user, flt)
        # The same window with the index switched off: every series walked, as before it existed.
        conn.execute(sa.update(Task).values(occurrences_until=None))
        conn.execute(sa.delete(TaskOccurrence))
        walked = _page(conn, user, flt)
        conn.rollback()
    assert indexed == walked


def test_a_window_past_the_rows_reach_is_walked(new_session: Callable[[], Session]) -> None:
    with new_session() as session:
        user = _user(session)
    due = datetime(2026, 12, 1, 20, 0, tzinfo=SH)
    daily = _create(new_session, user, "记账", "FREQ=DAILY", due)
    with new_session() as session:
        task = session.get(Task, daily)
        assert task is not None and task.occurrences_until == due + timedelta(days=occurrences.MAX_ROWS)
    far = datetime(2027, 6, 1, 0, 0, tzinfo=SH)  # after the 120 stored days
    with new_session() as session:
        page = query_tasks(session, user, TaskFilter(time_after=far, time_before=far + timedelta(days=1)), now=NOW)
    assert [(r.title, r.deadline_at) for r in page.items] == [("记账", datetime(2027, 6, 1, 20, 0, tzinfo=SH))]


def test_reindex_all_rebuilds_rows_loaded_past_the_store(engine: Engine) -> None:
    from core.db import session_factory

    sessions = session_factory(engine)
    with sessions() as session:
        user = _user(session)
    task_id = _create(sessions, user, "交周报", "FREQ=WEEKLY;BYDAY=MO", datetime(2026, 12, 7, 9, 0, tzinfo=SH))
    before = _check(sessions, task_id)
    with engine.begin() as conn:
        conn.execute(sa.delete(TaskOccurrence))
        assert occurrences.reindex_all(conn) == len(before)
    assert _check(sessions, task_id) == before


def test_the_migration_fills_the_index_for_existing_series(engine_factory: Callable[[], Engine]) -> None:
    engine = engine_factory()
    migrate(engine, "0008_series_index")
    rule = _rule("FREQ=WEEKLY;BYDAY=MO", datetime(2026, 12, 7, 9, 0, tzinfo=SH))
    with engine.begin() as conn:
        conn.execute(sa.text("INSERT INTO users (name, created_at) VALUES ('alice', :t)"), {"t": "2026-01-01 00:00:00"})
        conn.execute(
            sa.text(
                "INSERT INTO tasks (user_id, title, title_key, priority_group, is_completed, deadline_at, created_at, "
                "updated_at, recurrence) SELECT id, '交周报', '交周报', 2, false, :due, created_at, created_at, :rule "
                "FROM users"
            ),
            {"due": "2026-12-07 01:00:00", "rule": rule},
        )
    migrate(engine)
    with engine.connect() as conn:
        count = conn.execute(sa.text("SELECT count(*) FROM task_occurrences")).scalar_one()
        until = conn.execute(sa.text("SELECT occurrences_until FROM tasks")).scalar_one()
    assert count == 57 and until is not None
    assert series.rule_of_stored(rule) is not None
