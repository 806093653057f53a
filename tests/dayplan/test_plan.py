"""The plan as code computes it (dayplan/plan.py), without a database: the window, the bands and their
order, fitting, the far-future rule, another order. NOW is Monday 2026-11-30 10:00 Asia/Shanghai.
"""

from __future__ import annotations

from datetime import date, datetime, time, timedelta

import pytest

from core.store import TaskRow
from dayplan.plan import (
    WORK_HOURS,
    Candidate,
    Window,
    WorkHours,
    build_plan,
    candidates,
    day_load,
    lightest,
    minutes_for,
    plan_window,
    week_days,
)
from support.harness import NOW, TZ, local

TODAY = NOW.date()


def row(
    task_id: int,
    title: str,
    group: int = 2,
    deadline: str | None = None,
    *,
    estimate: int | None = None,
    promoted: bool = False,
    done: bool = False,
) -> TaskRow:
    effective = group - 1 if promoted else group
    return TaskRow(
        id=task_id,
        title=title,
        priority_group=group,
        effective_group=effective,
        deadline_at=local(deadline) if deadline else None,
        urgency_threshold_at=None,
        is_completed=done,
        completed_at=None,
        created_at=NOW - timedelta(days=3),
        promoted=promoted,
        estimate_minutes=estimate,
    )


def today_window() -> Window:
    return plan_window(NOW, TZ, TODAY)


def titles(queue: list[Candidate]) -> list[str]:
    return [c.task.title for c in queue]


# --- the window -------------------------------------------------------------------------------------


def test_today_starts_now_and_ends_with_working_hours() -> None:
    w = today_window()
    assert (w.start, w.end, w.ref) == (local("2026-11-30 10:00"), local("2026-11-30 18:00"), NOW)
    assert w.minutes == 8 * 60 and w.today


def test_a_start_between_minutes_is_rounded_up_to_five() -> None:
    w = plan_window(NOW + timedelta(minutes=7, seconds=3), TZ, TODAY)
    assert w.start == local("2026-11-30 10:10")


def test_before_working_hours_the_plan_starts_at_their_start() -> None:
    w = plan_window(local("2026-11-30 07:20"), TZ, TODAY)
    assert w.start == local("2026-11-30 09:00") and w.minutes == 9 * 60


def test_after_working_hours_today_has_no_time() -> None:
    w = plan_window(local("2026-11-30 19:00"), TZ, TODAY)
    assert w.minutes == 0


def test_tomorrow_starts_at_the_start_of_working_hours_and_reads_groups_at_its_midnight() -> None:
    w = plan_window(NOW, TZ, TODAY + timedelta(days=1))
    assert w.start == local("2026-12-01 09:00") and w.end == local("2026-12-01 18:00")
    assert w.ref == local("2026-12-01 00:00") and not w.today


def test_a_day_in_the_past_is_planned_as_today() -> None:
    assert plan_window(NOW, TZ, date(2026, 11, 1)).day == TODAY


@pytest.mark.parametrize(
    ("text", "start", "end"),
    [
        ("09:00-18:00", time(9), time(18)),
        ("8:30–17:30", time(8, 30), time(17, 30)),
        ("10:00~22:00", time(10), time(22)),
    ],
)
def test_working_hours_are_read(text: str, start: time, end: time) -> None:
    assert WorkHours.parse(text) == WorkHours(start, end)


@pytest.mark.parametrize("text", ["18:00-09:00", "9-18", "nine to five", "09:00-09:00"])
def test_working_hours_that_make_no_day_are_refused(text: str) -> None:
    with pytest.raises(ValueError):
        WorkHours.parse(text)


def test_the_default_working_hours() -> None:
    assert str(WORK_HOURS) == "09:00–18:00"


# --- the bands --------------------------------------------------------------------------------------


def test_bands_in_order_overdue_due_urgent_important() -> None:
    overdue = [row(1, "逾期的小事", 3, "2026-11-29 18:00"), row(2, "逾期的要事", 1, "2026-11-28 18:00")]
    due = [row(3, "今晚截止", 4, "2026-11-30 20:00"), row(4, "中午截止", 3, "2026-11-30 12:00")]
    urgent = [
        row(5, "重要紧急无期", 1),
        row(6, "重要紧急周三", 1, "2026-12-02 18:00"),
        row(7, "提前的", 2, "2026-12-01 18:00", promoted=True),
    ]
    easy = [row(8, "不简单提前", 4, "2026-12-01 12:00", promoted=True), row(9, "普通小事", 3, "2026-12-01 12:00")]
    important = [row(10, "重要不紧急", 2, "2026-12-20 18:00"), row(11, "重要不紧急无期", 2)]
    queue = candidates(overdue, due, urgent, easy, important, window=today_window(), now=NOW)
    assert titles(queue.items) == [
        "逾期的要事",  # overdue: by group first
        "逾期的小事",
        "中午截止",  # due today: earliest deadline first
        "今晚截止",
        "提前的",  # urgent: group 1 (promoted too) by deadline, undated last, then a promoted 4 → 3
        "重要紧急周三",
        "重要紧急无期",
        "不简单提前",
        "重要不紧急",  # important: group 2, by deadline, undated last (even a far one: it is important)
        "重要不紧急无期",
    ]
    assert [c.band for c in queue.items] == ["overdue"] * 2 + ["due"] * 2 + ["urgent"] * 4 + ["important"] * 2
    assert "普通小事" not in titles(queue.items)  # easy and not promoted: not on the plan unless due


def test_a_task_is_in_its_first_band_once() -> None:
    task = row(1, "交报告", 1, "2026-11-30 15:00")
    queue = candidates([], [task], [task], [], [], window=today_window(), now=NOW)
    assert [(c.task.title, c.band) for c in queue.items] == [("交报告", "due")]


def test_nothing_far_off_that_is_not_important_fills_the_day() -> None:
    far_easy = row(1, "整理相册", 4, "2026-12-30 18:00", promoted=True)  # promoted, but a month away
    far_important = row(2, "写年终总结", 2, "2026-12-30 18:00")
    queue = candidates([], [], [], [far_easy], [far_important], window=today_window(), now=NOW)
    assert titles(queue.items) == ["写年终总结"]


def test_completed_rows_never_enter() -> None:
    queue = candidates(
        [row(1, "早做完了", 1, "2026-11-29 10:00", done=True)], [], [], [], [], window=today_window(), now=NOW
    )
    assert queue.items == []


def test_tomorrows_plan_leaves_what_is_due_later_today_to_today() -> None:
    tomorrow = plan_window(NOW, TZ, TODAY + timedelta(days=1))
    later_today = row(1, "今晚交电费", 1, "2026-11-30 20:00")
    due_tomorrow = row(2, "明早开会", 1, "2026-12-01 09:30")
    queue = candidates(
        [], [due_tomorrow], [later_today, due_tomorrow], [], [], window=tomorrow, now=NOW, rest_of_today=[later_today]
    )
    assert titles(queue.items) == ["明早开会"]
    assert [t.title for t in queue.left_today] == ["今晚交电费"]


# --- minutes and fitting -----------------------------------------------------------------------------


def test_minutes_are_the_estimate_else_the_groups_default() -> None:
    assert minutes_for(row(1, "a", 1, estimate=25)) == (25, True)
    assert minutes_for(row(2, "b", 3)) == (15, False)
    assert minutes_for(row(3, "c", 4, promoted=True)) == (60, False)  # the stored group's default


def _queue(*specs: tuple[str, int]) -> list[Candidate]:
    return [Candidate(row(i, title, 1, estimate=m), "urgent", m, True) for i, (title, m) in enumerate(specs, 1)]


def test_tasks_are_placed_back_to_back_from_the_start() -> None:
    plan = build_plan(today_window(), _queue(("A", 60), ("B", 30)))
    assert [(s.candidate.task.title, s.start, s.end) for s in plan.slots] == [
        ("A", local("2026-11-30 10:00"), local("2026-11-30 11:00")),
        ("B", local("2026-11-30 11:00"), local("2026-11-30 11:30")),
    ]
    assert plan.free_minutes == 8 * 60 - 90 and plan.not_fit == ()


def test_what_does_not_fit_is_set_aside_and_the_next_is_tried() -> None:
    plan = build_plan(today_window(), _queue(("半天", 300), ("一天", 480), ("一小时", 60), ("四小时", 240)))
    assert [s.candidate.task.title for s in plan.slots] == ["半天", "一小时"]
    assert titles(list(plan.not_fit)) == ["一天", "四小时"]
    assert plan.used_minutes == 360


def test_an_empty_window_places_nothing() -> None:
    window = plan_window(local("2026-11-30 19:00"), TZ, TODAY)
    plan = build_plan(window, _queue(("A", 10)))
    assert plan.slots == () and titles(list(plan.not_fit)) == ["A"]


def test_a_task_placed_after_its_deadline_is_late() -> None:
    first = Candidate(row(1, "长会", 1, estimate=150), "urgent", 150, True)
    due = Candidate(row(2, "中午交", 1, "2026-11-30 12:00", estimate=30), "due", 30, True)
    plan = build_plan(today_window(), [first, due])
    assert [s.late for s in plan.slots] == [False, True]


def test_another_order_rotates_the_queue() -> None:
    queue = _queue(("A", 60), ("B", 60), ("C", 60))
    once = build_plan(today_window(), queue, shift=1)
    assert [s.candidate.task.title for s in once.slots] == ["B", "C", "A"] and titles(list(once.moved)) == ["A"]
    twice = build_plan(today_window(), queue, shift=2)
    assert [s.candidate.task.title for s in twice.slots] == ["C", "A", "B"]
    round_trip = build_plan(today_window(), queue, shift=3)
    assert [s.candidate.task.title for s in round_trip.slots] == ["A", "B", "C"] and round_trip.moved == ()


def test_defaults_used_is_known() -> None:
    with_default = Candidate(row(1, "x", 3), "due", 15, False)
    assert build_plan(today_window(), [with_default]).used_defaults
    assert not build_plan(today_window(), _queue(("A", 60))).used_defaults


# --- the week ---------------------------------------------------------------------------------------


def test_this_week_is_today_through_sunday_and_next_week_is_whole() -> None:
    assert week_days(NOW, TZ) == [date(2026, 11, 30) + timedelta(days=i) for i in range(7)]
    thursday = datetime.combine(date(2026, 12, 3), time(10), NOW.tzinfo)
    assert week_days(thursday, TZ) == [date(2026, 12, 3), date(2026, 12, 4), date(2026, 12, 5), date(2026, 12, 6)]
    assert week_days(thursday, TZ, 1)[0] == date(2026, 12, 7) and len(week_days(thursday, TZ, 1)) == 7


def test_the_lightest_day_counts_minutes_then_tasks_and_names_ties() -> None:
    monday = day_load(date(2026, 11, 30), [row(1, "a", 3), row(2, "b", 3)])  # 2 × 15 min
    tuesday = day_load(date(2026, 12, 1), [row(3, "c", 1, estimate=30)])  # 30 min, one task
    wednesday = day_load(date(2026, 12, 2), [])
    thursday = day_load(date(2026, 12, 3), [])
    assert (monday.minutes, monday.count, monday.defaults) == (30, 2, 2)
    assert lightest([monday, tuesday]) == [tuesday]
    assert lightest([monday, tuesday, wednesday, thursday]) == [wednesday, thursday]
