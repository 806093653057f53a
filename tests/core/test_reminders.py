"""core.reminders: when reminders fire (one-off, moment, every occurrence of a series), that a firing
is recorded once, late or missed after an outage, never twice, and that writes and undo move them.
Both backends."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from sqlmodel import Session, col, select

from core import recurrence, reminders, writes
from core.accounts import ensure_user
from core.models import Delivery, Event, Task, TaskCreate, TaskReminder, TaskUpdate, Webhook
from core.reminderspec import Spec, duration_text, parse_duration, specs_of, stored

SH = ZoneInfo("Asia/Shanghai")
NOW = datetime(2026, 11, 30, 10, 0, tzinfo=SH)
HOUR = timedelta(hours=1)
WINDOW = timedelta(hours=1)


def _user(session: Session) -> int:
    user = ensure_user(session, "alice", now=NOW)
    session.commit()
    assert user.id is not None
    return user.id


def _create(s: Callable[[], Session], user: int, *specs: Spec, due: datetime | None, rule: str | None = None) -> int:
    ical = recurrence.make(rule, start=due, tz="Asia/Shanghai").to_ical() if rule and due else None
    with writes.writing(s, writes.author(user, NOW, "rest")) as w:
        task = w.create(TaskCreate(title="交报告", deadline_at=due, recurrence=ical, reminders=stored(list(specs))))
    assert task.id is not None
    return task.id


def _fire(s: Callable[[], Session], at: datetime) -> list[reminders.Fired]:
    with s() as session:
        fired = reminders.fire_due(session, now=at, late_window=WINDOW)
        session.commit()
    return fired


def _events(s: Callable[[], Session]) -> list[dict[str, object]]:
    with s() as session:
        rows = session.exec(select(Event).where(col(Event.type) == "reminder.due").order_by(col(Event.id)))
        return [json.loads(e.payload) for e in rows]


def _next_at(s: Callable[[], Session], task_id: int) -> list[datetime | None]:
    with s() as session:
        rows = session.exec(
            select(TaskReminder).where(col(TaskReminder.task_id) == task_id).order_by(col(TaskReminder.id))
        )
        return [r.next_at for r in rows]


def test_the_stored_form_and_iso_durations() -> None:
    value = stored([Spec(at=NOW), Spec(before=timedelta(minutes=30)), Spec(before=timedelta(minutes=30))])
    assert value is not None and len(json.loads(value)) == 2  # duplicates dropped
    assert specs_of(value) == [Spec(before=timedelta(minutes=30)), Spec(at=NOW)]
    assert [duration_text(timedelta(d)) for d in (0, 1)] == ["PT0S", "P1D"]
    assert duration_text(timedelta(hours=1, minutes=30)) == "PT1H30M"
    assert parse_duration("pt1h30m") == timedelta(minutes=90) and parse_duration("P1DT2H") == timedelta(hours=26)
    for bad in ("P", "PT", "30M", "P1W", "P1DT"):
        try:
            parse_duration(bad)
        except ValueError:
            continue
        raise AssertionError(bad)


def test_a_lead_fires_once_before_the_deadline(new_session: Callable[[], Session]) -> None:
    with new_session() as session:
        user = _user(session)
    due = datetime(2026, 12, 3, 15, 0, tzinfo=SH)
    task = _create(new_session, user, Spec(before=timedelta(minutes=30)), due=due)
    assert _next_at(new_session, task) == [due - timedelta(minutes=30)]
    assert _fire(new_session, due - timedelta(minutes=31)) == []
    [fired] = _fire(new_session, due - timedelta(minutes=29))
    assert (fired.late, fired.missed) == (False, False)
    assert _fire(new_session, due) == []  # never twice
    [event] = _events(new_session)
    assert event["reminder"] == {
        "at": "2026-12-03T06:30:00+00:00",
        "before": "PT30M",
        "for": "2026-12-03T07:00:00+00:00",
    }
    assert event["task"]["title"] == "交报告"  # type: ignore[index]
    assert _next_at(new_session, task) == [None]


def test_a_moved_deadline_moves_a_lead_and_arms_it_again(new_session: Callable[[], Session]) -> None:
    with new_session() as session:
        user = _user(session)
    due = datetime(2026, 12, 3, 15, 0, tzinfo=SH)
    task = _create(new_session, user, Spec(before=HOUR), due=due)
    _fire(new_session, due - HOUR)
    later = due + timedelta(days=1)
    with writes.writing(new_session, writes.author(user, NOW, "rest")) as w:
        row = w.lock(task)
        assert row is not None
        w.update(row, TaskUpdate(deadline_at=later))
    assert _next_at(new_session, task) == [later - HOUR]


def test_a_repeating_task_reminds_for_every_occurrence_done_or_not(new_session: Callable[[], Session]) -> None:
    with new_session() as session:
        user = _user(session)
    first = datetime(2026, 12, 1, 8, 0, tzinfo=SH)
    task = _create(new_session, user, Spec(before=timedelta(minutes=10)), due=first, rule="FREQ=DAILY")
    for day in range(3):  # never ticked: each morning's reminder still comes
        at = first + timedelta(days=day) - timedelta(minutes=10)
        assert len(_fire(new_session, at)) == 1
    assert _next_at(new_session, task) == [first + timedelta(days=3) - timedelta(minutes=10)]
    assert [e["reminder"]["for"] for e in _events(new_session)] == [  # type: ignore[index]
        (first + timedelta(days=d)).astimezone(ZoneInfo("UTC")).isoformat() for d in range(3)
    ]


def test_after_an_outage_one_is_late_and_older_ones_are_missed_never_lost(new_session: Callable[[], Session]) -> None:
    with new_session() as session:
        user = _user(session)
        session.add(Webhook(user_id=user, url="https://example.com/h", kind="generic", events='["*"]',
                            secret="k", timezone="Asia/Shanghai", created_at=NOW))  # fmt: skip
        session.commit()
    first = datetime(2026, 12, 1, 8, 0, tzinfo=SH)
    _create(new_session, user, Spec(before=timedelta(0)), due=first, rule="FREQ=DAILY")
    # Down from before the 1st's reminder until 08:30 on the 4th.
    fired = _fire(new_session, datetime(2026, 12, 4, 8, 30, tzinfo=SH))
    assert [(f.due.day, f.late, f.missed) for f in fired] == [
        (1, False, True),
        (2, False, True),
        (3, False, True),
        (4, True, False),
    ]
    with new_session() as session:
        found = session.exec(
            select(Delivery).join(Event).where(col(Event.type) == "reminder.due").order_by(col(Event.id))
        )
        statuses = [d.status for d in found]
    assert statuses == ["missed", "missed", "missed", "pending"]  # missed ones are recorded, never sent
    assert _fire(new_session, datetime(2026, 12, 4, 8, 31, tzinfo=SH)) == []


def test_a_moment_fires_once_and_one_set_in_the_past_never(new_session: Callable[[], Session]) -> None:
    with new_session() as session:
        user = _user(session)
    at = NOW + timedelta(minutes=1)
    task = _create(new_session, user, Spec(at=at), Spec(at=NOW - HOUR), due=None)
    assert _next_at(new_session, task) == [None, at]  # moments in time order: the past one is not armed
    assert len(_fire(new_session, at + timedelta(seconds=5))) == 1
    assert _fire(new_session, at + HOUR) == []


def test_two_workers_firing_at_once_record_each_firing_once(new_session: Callable[[], Session]) -> None:
    with new_session() as session:
        user = _user(session)
    due = datetime(2026, 12, 3, 15, 0, tzinfo=SH)
    for _ in range(20):
        _create(new_session, user, Spec(before=timedelta(0)), due=due)
    barrier = threading.Barrier(2)
    results: list[int] = []
    errors: list[BaseException] = []

    def worker() -> None:
        try:
            barrier.wait(timeout=10)
            results.append(len(_fire(new_session, due + timedelta(seconds=1))))
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert not errors and sum(results) == 20
    assert len(_events(new_session)) == 20


def test_undo_of_an_edit_puts_the_reminders_back(new_session: Callable[[], Session]) -> None:
    with new_session() as session:
        user = _user(session)
    due = datetime(2026, 12, 3, 15, 0, tzinfo=SH)
    task = _create(new_session, user, Spec(before=HOUR), due=due)
    with writes.writing(new_session, writes.author(user, NOW, "rest")) as w:
        row = w.lock(task)
        assert row is not None
        w.update(row, TaskUpdate(reminders=None))
    assert _next_at(new_session, task) == []
    with writes.writing(new_session, writes.author(user, NOW, "rest")) as w:
        w.revert(w.change_ids or [c for c in _changes(new_session)][-1:])
    assert _next_at(new_session, task) == [due - HOUR]
    with new_session() as session:
        row = session.get(Task, task)
        assert row is not None and specs_of(row.reminders) == [Spec(before=HOUR)]


def _changes(s: Callable[[], Session]) -> list[int]:
    from core.models import TaskChange

    with s() as session:
        return [c.id for c in session.exec(select(TaskChange).order_by(col(TaskChange.id))) if c.id is not None]
