"""core.series and Writer.advance: completing or skipping an occurrence of a repeating task."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from sqlmodel import Session, col, select

from core import recurrence, series, writes
from core.accounts import ensure_user
from core.models import Task, TaskChange, TaskCreate
from core.store import TaskFilter, query_tasks

SH = ZoneInfo("Asia/Shanghai")
THU = datetime(2026, 12, 3, 10, 0, tzinfo=SH)  # Thursday
MON = datetime(2026, 12, 7, 9, 0, tzinfo=SH)


def _weekly(rule: str = "FREQ=WEEKLY;BYDAY=MO", start: datetime = MON) -> str:
    return recurrence.make(rule, start=start, tz="Asia/Shanghai").to_ical()


def _user(session: Session) -> int:
    user = ensure_user(session, "alice", now=THU)
    session.commit()
    assert user.id is not None
    return user.id


def _series(sessions: Callable[[], Session], user: int, deadline: datetime = MON, rule: str | None = None) -> int:
    with writes.writing(sessions, writes.author(user, THU, "rest")) as w:
        task = w.create(TaskCreate(title="交周报", deadline_at=deadline, recurrence=rule or _weekly()))
    assert task.id is not None
    return task.id


def _complete(
    sessions: Callable[[], Session], user: int, task_id: int, now: datetime, attempt: str | None = None
) -> list[int]:
    with writes.writing(sessions, writes.author(user, now, "rest", attempt=attempt)) as w:
        task = w.lock(task_id)
        assert task is not None
        if w.copy:  # answered as the first copy did: nothing written again
            return [int(i) for i in w.prior["changes"]]
        w.complete(task)
    return w.change_ids


def _task(sessions: Callable[[], Session], task_id: int) -> Task:
    with sessions() as s:
        task = s.get(Task, task_id)
        assert task is not None
        s.expunge(task)
        return task


def test_completing_early_moves_once_and_keeps_a_completed_occurrence(new_session: Callable[[], Session]) -> None:
    with new_session() as s:
        alice = _user(s)
    task_id = _series(new_session, alice)
    _complete(new_session, alice, task_id, THU)  # three days early
    task = _task(new_session, task_id)
    assert task.deadline_at == MON + timedelta(days=7)  # once, not to the Monday after
    assert not task.is_completed and task.recurrence
    with new_session() as s:
        done = query_tasks(s, alice, TaskFilter(time_field="completed", time_after=THU, limit=10), now=THU)
    assert [(r.title, r.deadline_at) for r in done.items] == [("交周报", MON.astimezone(UTC))]


def test_an_overdue_occurrence_needs_one_tick(new_session: Callable[[], Session]) -> None:
    with new_session() as s:
        alice = _user(s)
    task_id = _series(new_session, alice)
    late = MON + timedelta(days=16)  # Wednesday two weeks after: two Mondays missed
    _complete(new_session, alice, task_id, late)
    assert _task(new_session, task_id).deadline_at == MON + timedelta(days=21)  # the next after now
    with new_session() as s:
        assert len(s.exec(select(Task).where(col(Task.is_completed))).all()) == 1  # missed ones not piled up


def test_a_retried_completion_writes_once(new_session: Callable[[], Session]) -> None:
    with new_session() as s:
        alice = _user(s)
    task_id = _series(new_session, alice)
    first = _complete(new_session, alice, task_id, THU, attempt="k1")
    again = _complete(new_session, alice, task_id, THU, attempt="k1")
    assert again == first
    assert _task(new_session, task_id).deadline_at == MON + timedelta(days=7)
    with new_session() as s:
        assert len(s.exec(select(Task)).all()) == 2


def test_undo_of_a_completion_takes_back_both_parts(new_session: Callable[[], Session]) -> None:
    with new_session() as s:
        alice = _user(s)
    task_id = _series(new_session, alice)
    ids = _complete(new_session, alice, task_id, THU)
    with new_session() as s:
        assert [r.kind for r in s.exec(select(TaskChange).where(col(TaskChange.id).in_(ids)))] == [
            "occurrence",
            "update",
        ]
    with writes.writing(new_session, writes.author(alice, THU, "rest")) as w:
        w.revert(ids)
    assert _task(new_session, task_id).deadline_at == MON
    with new_session() as s:
        assert len(s.exec(select(Task)).all()) == 1


def test_counted_from_completion_counts_from_now(new_session: Callable[[], Session]) -> None:
    with new_session() as s:
        alice = _user(s)
    rule = _weekly("FREQ=DAILY;INTERVAL=3;X-FROM=COMPLETION", start=MON)
    task_id = _series(new_session, alice, rule=rule)
    _complete(new_session, alice, task_id, THU)  # done Thursday 10:00
    assert _task(new_session, task_id).deadline_at == datetime(2026, 12, 6, 9, 0, tzinfo=SH)


def test_the_last_occurrence_completes_the_task(new_session: Callable[[], Session]) -> None:
    with new_session() as s:
        alice = _user(s)
    task_id = _series(new_session, alice, rule=_weekly("FREQ=WEEKLY;BYDAY=MO;COUNT=1"))
    _complete(new_session, alice, task_id, THU)
    task = _task(new_session, task_id)
    assert task.is_completed and task.deadline_at == MON


def test_the_urgency_threshold_keeps_its_lead(new_session: Callable[[], Session]) -> None:
    with new_session() as s:
        alice = _user(s)
    with writes.writing(new_session, writes.author(alice, THU, "rest")) as w:
        task = w.create(
            TaskCreate(
                title="交周报", deadline_at=MON, urgency_threshold_at=MON - timedelta(days=1), recurrence=_weekly()
            )
        )
    step = series.next_step(task, now=THU)
    assert step is not None and step.urgency_threshold_at == MON + timedelta(days=6)


def test_a_one_off_has_no_step() -> None:
    task = Task(user_id=1, title="x", deadline_at=MON, created_at=THU, updated_at=THU)
    assert series.next_step(task, now=THU) is None


# --- windows see series ------------------------------------------------------------------------


def _window(sessions: Callable[[], Session], user: int, after: datetime, before: datetime, **kw: object) -> list:  # type: ignore[type-arg]
    with sessions() as s:
        page = query_tasks(s, user, TaskFilter(time_after=after, time_before=before, **kw), now=THU)  # type: ignore[arg-type]
    return [(r.title, r.deadline_at.astimezone(SH).isoformat() if r.deadline_at else None) for r in page.items] + [
        page.total
    ]


def test_a_window_after_the_open_occurrence_shows_the_series_once(new_session: Callable[[], Session]) -> None:
    with new_session() as s:
        user = _user(s)
    _series(new_session, user)  # open occurrence Mon Dec 7
    daily = recurrence.make("FREQ=DAILY", start=datetime(2026, 12, 3, 22, 0, tzinfo=SH), tz="Asia/Shanghai")
    with writes.writing(new_session, writes.author(user, THU, "rest")) as w:
        w.create(TaskCreate(title="吃药", deadline_at=daily.start, recurrence=daily.to_ical()))
        w.create(TaskCreate(title="交房租", deadline_at=datetime(2026, 12, 15, 12, 0, tzinfo=SH)))
    week_after = (datetime(2026, 12, 14, tzinfo=SH), datetime(2026, 12, 20, 23, 59, 59, tzinfo=SH))
    assert _window(new_session, user, *week_after) == [
        ("交周报", "2026-12-14T09:00:00+08:00"),
        ("吃药", "2026-12-14T22:00:00+08:00"),
        ("交房租", "2026-12-15T12:00:00+08:00"),
        3,
    ]
    # Paged like any list: the merge keeps the order across pages, and the total counts the series.
    assert _window(new_session, user, *week_after, limit=1, offset=1) == [("吃药", "2026-12-14T22:00:00+08:00"), 3]
    # Filters apply to the series' rows too.
    assert _window(new_session, user, *week_after, keyword="周报") == [("交周报", "2026-12-14T09:00:00+08:00"), 1]
    # A window holding the open occurrence lists it as stored (once), not again as a projection.
    this_week = (datetime(2026, 12, 7, tzinfo=SH), datetime(2026, 12, 13, 23, 59, 59, tzinfo=SH))
    assert _window(new_session, user, *this_week, keyword="周报") == [("交周报", "2026-12-07T09:00:00+08:00"), 1]


def test_a_series_that_does_not_occur_in_the_window_is_not_shown(new_session: Callable[[], Session]) -> None:
    with new_session() as s:
        user = _user(s)
    _series(new_session, user, rule=_weekly("FREQ=WEEKLY;BYDAY=MO;COUNT=1"))
    after, before = datetime(2026, 12, 14, tzinfo=SH), datetime(2026, 12, 20, 23, 59, 59, tzinfo=SH)
    assert _window(new_session, user, after, before) == [0]


def test_setting_is_completed_on_a_series_completes_its_occurrence(new_session: Callable[[], Session]) -> None:
    from core.models import TaskUpdate

    with new_session() as s:
        user = _user(s)
    task_id = _series(new_session, user)
    with writes.writing(new_session, writes.author(user, THU, "rest")) as w:
        task = w.lock(task_id)
        assert task is not None
        w.update(task, TaskUpdate(title="交周报（部门）", is_completed=True))
    moved = _task(new_session, task_id)
    assert (moved.title, moved.is_completed, moved.deadline_at) == ("交周报（部门）", False, MON + timedelta(days=7))
    with new_session() as s:
        done = s.exec(select(Task).where(col(Task.is_completed).is_(True))).all()
    assert [(t.title, t.deadline_at) for t in done] == [("交周报（部门）", MON.astimezone(UTC))]


def test_counted_from_completion_with_a_count_ends_after_that_many(new_session: Callable[[], Session]) -> None:
    # "做完后每3天，共3次": three occurrences in all, each counted from the completion before it.
    with new_session() as s:
        alice = _user(s)
    rule = _weekly("FREQ=DAILY;INTERVAL=3;COUNT=3;X-FROM=COMPLETION", start=MON)
    task_id = _series(new_session, alice, rule=rule)
    _complete(new_session, alice, task_id, THU)  # the 1st, done Thursday: the 2nd is Sunday
    second = _task(new_session, task_id)
    assert second.deadline_at == datetime(2026, 12, 6, 9, 0, tzinfo=SH) and not second.is_completed
    _complete(new_session, alice, task_id, datetime(2026, 12, 6, 20, 0, tzinfo=SH))  # the 2nd: the 3rd is Wed
    third = _task(new_session, task_id)
    assert third.deadline_at == datetime(2026, 12, 9, 9, 0, tzinfo=SH) and not third.is_completed
    _complete(new_session, alice, task_id, datetime(2026, 12, 9, 8, 0, tzinfo=SH))  # the 3rd: the task is done
    assert _task(new_session, task_id).is_completed
