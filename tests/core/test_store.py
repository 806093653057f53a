"""core.store on SQLite and PostgreSQL: promotion in SQL, filters, ordering, paging, isolation,
idempotent creation."""

from __future__ import annotations

import dataclasses
import itertools
import threading
from collections.abc import Callable
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from core import store
from core.accounts import ensure_user
from core.models import Task, TaskCreate, TaskUpdate
from core.store import (
    TaskFilter,
    TaskPage,
    complete_task,
    create_task,
    delete_task,
    effective_group,
    get_task,
    group_terms,
    query_tasks,
    task_row,
    update_task,
)

NOW = datetime(2026, 3, 10, 9, 0, tzinfo=UTC)
DAY = timedelta(days=1)
CST = timezone(timedelta(hours=8))


def _user(session: Session, name: str = "alice") -> int:
    user = ensure_user(session, name, now=NOW)
    assert user.id is not None
    return user.id


def _add(
    session: Session,
    user_id: int,
    title: str,
    group: int = 2,
    *,
    deadline: datetime | None = None,
    threshold: datetime | None = None,
    created: datetime = NOW - 30 * DAY,
    completed_at: datetime | None = None,
) -> int:
    task, created_flag = create_task(
        session,
        user_id,
        TaskCreate(title=title, priority_group=group, deadline_at=deadline, urgency_threshold_at=threshold),
        now=created,
    )
    assert created_flag
    assert task.id is not None
    if completed_at is not None:
        complete_task(session, user_id, task.id, now=completed_at)
    session.commit()
    return task.id


def _titles(page: TaskPage) -> list[str]:
    return [row.title for row in page.items]


def _q(session: Session, user_id: int, now: datetime = NOW, **kwargs: Any) -> TaskPage:
    return query_tasks(session, user_id, TaskFilter.model_validate(kwargs), now=now)


# ---------------------------------------------------------------------------------------------
# promotion


@pytest.fixture
def promo(session: Session) -> int:
    uid = _user(session)
    _add(session, uid, "A g2 promoted", 2, deadline=NOW + 5 * DAY, threshold=NOW - DAY)
    _add(session, uid, "B g1", 1, deadline=NOW + 3 * DAY)
    _add(session, uid, "C g2", 2, deadline=NOW + 1 * DAY)
    _add(session, uid, "D g4 promoted", 4, deadline=NOW + 2 * DAY, threshold=NOW)  # == now counts
    _add(session, uid, "E g2 threshold later", 2, deadline=NOW + 4 * DAY, threshold=NOW + DAY)
    _add(session, uid, "F g2 done", 2, deadline=NOW + 6 * DAY, threshold=NOW - DAY, completed_at=NOW - DAY)
    _add(session, uid, "G g3 threshold", 3, deadline=NOW + 7 * DAY, threshold=NOW - DAY)
    return uid


def test_promotion_changes_quadrant_filter_and_total(session: Session, promo: int) -> None:
    page = _q(session, promo, quadrants=[1])
    assert page.total == 2
    assert _titles(page) == ["B g1", "A g2 promoted"]  # deadline order
    a = next(r for r in page.items if r.title.startswith("A"))
    assert (a.priority_group, a.effective_group, a.promoted) == (2, 1, True)

    assert _titles(_q(session, promo, quadrants=[2])) == ["C g2", "E g2 threshold later"]
    assert _titles(_q(session, promo, quadrants=[3])) == ["D g4 promoted", "G g3 threshold"]
    assert _q(session, promo, quadrants=[4]).total == 0


def test_promotion_is_read_time_only(session: Session, promo: int) -> None:
    stored = {t.title: t.priority_group for t in session.exec(select(Task)).all()}
    assert stored["A g2 promoted"] == 2
    assert stored["D g4 promoted"] == 4
    # Before the threshold the same task reads as its stored group.
    page = _q(session, promo, now=NOW - 2 * DAY, quadrants=[1])
    assert _titles(page) == ["B g1"]


def test_completed_tasks_are_not_promoted(session: Session, promo: int) -> None:
    page = _q(session, promo, include_completed=True, quadrants=[2])
    assert "F g2 done" in _titles(page)
    f = next(r for r in page.items if r.title == "F g2 done")
    assert f.effective_group == 2 and not f.promoted and f.is_completed


def test_priority_sort_and_paging_see_effective_group(session: Session, promo: int) -> None:
    first = _q(session, promo, sort_by="priority", limit=2)
    assert first.total == 6
    assert _titles(first) == ["B g1", "A g2 promoted"]  # both effective 1, deadline order
    second = _q(session, promo, sort_by="priority", limit=2, offset=2)
    assert second.total == 6
    assert _titles(second) == ["C g2", "E g2 threshold later"]
    third = _q(session, promo, sort_by="priority", limit=2, offset=4)
    assert _titles(third) == ["D g4 promoted", "G g3 threshold"]
    assert _q(session, promo, sort_by="priority", limit=2, offset=6).items == []

    desc = _q(session, promo, sort_by="priority", order="desc", limit=2)
    assert [r.effective_group for r in desc.items] == [3, 3]


def test_deadline_sort_uses_effective_group_as_tiebreak(session: Session) -> None:
    uid = _user(session)
    same = NOW + DAY
    _add(session, uid, "plain g2", 2, deadline=same)
    _add(session, uid, "g1", 1, deadline=same)
    _add(session, uid, "promoted g2", 2, deadline=same, threshold=NOW - DAY)
    assert _titles(_q(session, uid, limit=3)) == ["g1", "promoted g2", "plain g2"]


def test_effective_group_python_matches_sql(session: Session, promo: int) -> None:
    page = _q(session, promo, include_completed=True, limit=20)
    for row in page.items:
        task = get_task(session, promo, row.id)
        assert task is not None
        assert effective_group(task, now=NOW) == row.effective_group
        assert task_row(task, now=NOW) == row


# ---------------------------------------------------------------------------------------------
# promotion edge cases, and the query shapes behind the quadrant filter and the priority order
# (group_terms' index ranges for counts, per-group paging), checked against a plain reference

THRESHOLDS = {"none": None, "past": NOW - DAY, "now": NOW, "future": NOW + DAY}
DEADLINES = {"nodl": None, "late": NOW - 2 * DAY, "soon": NOW + 2 * DAY, "tie": NOW + 3 * DAY}


@pytest.fixture
def grid(session: Session) -> int:
    """One task per (stored group, threshold vs now, completed, deadline), 128 in all."""
    uid = _user(session)
    combos = itertools.product((1, 2, 3, 4), THRESHOLDS.items(), (False, True), DEADLINES.items())
    for i, (group, (tname, threshold), done, (dname, deadline)) in enumerate(combos):
        word = ("报告", "Review", "misc")[i % 3]
        _add(
            session,
            uid,
            f"g{group} {tname} {'done' if done else 'open'} {dname} {word}",
            group,
            deadline=deadline,
            threshold=threshold,
            created=NOW - (i % 9) * DAY,
            completed_at=NOW - (i % 5) * DAY if done else None,
        )
    return uid


def _expected_group(title: str) -> int:
    group, threshold, state = title.split()[:3]
    stored = int(group[1])
    if stored in (2, 4) and state == "open" and threshold in ("past", "now"):
        return stored - 1
    return stored


def test_promotion_edge_cases(session: Session, grid: int) -> None:
    rows = _q(session, grid, include_completed=True, limit=500).items
    assert len(rows) == 128
    for row in rows:
        assert row.effective_group == _expected_group(row.title), row.title
        assert row.promoted == (row.effective_group != row.priority_group)
    promoted = {r.title.rsplit(" ", 2)[0] for r in rows if r.promoted}
    # exactly: stored 2/4, open, threshold at or before now ("now" == now counts)
    assert {t.split()[0] + " " + t.split()[1] for t in promoted} == {"g2 past", "g2 now", "g4 past", "g4 now"}
    assert all("open" in t for t in promoted)

    for quadrant in (1, 2, 3, 4):
        for extra in ({}, {"include_completed": True}, {"time_field": "completed"}):
            page = _q(session, grid, quadrants=[quadrant], limit=500, **extra)
            assert {r.effective_group for r in page.items} <= {quadrant}
            want = [r for r in rows if _expected_group(r.title) == quadrant]
            if "include_completed" not in extra:
                want = [r for r in want if r.is_completed == (extra.get("time_field") == "completed")]
            assert page.total == len(want) == len(page.items), (quadrant, extra)
    # completed tasks, groups 1/3 and NULL thresholds are never promoted, whatever the filter
    done = _q(session, grid, time_field="completed", limit=500).items
    assert done and not any(r.promoted for r in done)
    assert not any(r.promoted for r in rows if r.priority_group in (1, 3) or r.urgency_threshold_at is None)


@pytest.mark.parametrize("completed", [None, False, True])
def test_group_terms_are_disjoint_and_exact(session: Session, grid: int, completed: bool | None) -> None:
    """Each task matches exactly one term of group_terms(Q) if its effective group is in Q, else none."""
    tasks = session.exec(select(Task).where(col(Task.user_id) == grid)).all()
    if completed is not None:  # the terms rely on the query's own is_completed condition
        tasks = [t for t in tasks if t.is_completed == completed]
    subsets = [list(c) for n in range(1, 5) for c in itertools.combinations((1, 2, 3, 4), n)] + [[5], [0, 2]]
    for wanted in subsets:
        terms = group_terms(wanted, now=NOW, completed=completed)
        if not terms:
            assert not any(effective_group(t, now=NOW) in wanted for t in tasks)
            continue
        flags = [sa.case((term, 1), else_=0) for term in terms]
        stmt = sa.select(col(Task.id), sum(flags[1:], flags[0])).where(col(Task.user_id) == grid)
        hits = {task_id: n for task_id, n in session.execute(stmt)}
        for task in tasks:
            assert task.id is not None
            assert hits[task.id] == (1 if effective_group(task, now=NOW) in wanted else 0), (wanted, task.title)


def _reference(session: Session, user_id: int, flt: TaskFilter, now: datetime = NOW) -> TaskPage:
    """query_tasks' contract in plain Python over all of the user's tasks."""
    tasks = session.exec(select(Task).where(col(Task.user_id) == user_id)).all()
    attr = {"deadline": "deadline_at", "completed": "completed_at", "created": "created_at"}[flt.time_field]
    keyword = (flt.keyword or "").strip().lower()
    matches = []
    for task in tasks:
        eff = effective_group(task, now=now)
        if flt.time_field == "completed":
            if not task.is_completed:
                continue
        elif (not flt.include_completed or flt.only_overdue) and task.is_completed:
            continue
        if flt.only_overdue and (task.deadline_at is None or task.deadline_at >= now):
            continue
        if flt.no_deadline and task.deadline_at is not None:
            continue
        if flt.quadrants and eff not in flt.quadrants:
            continue
        value = getattr(task, attr)
        if flt.time_after is not None and (value is None or value < flt.time_after):
            continue
        if flt.time_before is not None and (value is None or value > flt.time_before):
            continue
        if keyword and keyword not in task.title.lower():
            continue
        matches.append((task, eff))
    desc = flt.order == "desc"

    def ts(d: datetime | None) -> float:
        return d.timestamp() if d is not None else 0.0

    if flt.sort_by == "id":
        matches.sort(key=lambda m: m[0].id or 0, reverse=desc)
    elif flt.sort_by == "priority":
        matches.sort(key=lambda m: (-m[1] if desc else m[1], m[0].deadline_at is None, ts(m[0].deadline_at), m[0].id))
    else:
        matches.sort(
            key=lambda m: (
                m[0].deadline_at is None,
                -ts(m[0].deadline_at) if desc else ts(m[0].deadline_at),
                m[1],
                m[0].id,
            )
        )
    page = matches[flt.offset : flt.offset + flt.limit]
    return TaskPage(total=len(matches), items=[task_row(t, now=now) for t, _ in page])


QUADRANT_SETS: list[list[int] | None] = [None, [1], [2], [3], [4], [1, 2], [2, 3], [1, 4], [3, 4], [1, 2, 3, 4], [5]]
MODES: dict[str, dict[str, Any]] = {
    "open": {},
    "with completed": {"include_completed": True},
    "finished this week": {"time_field": "completed", "time_after": NOW - 3 * DAY, "time_before": NOW},
    "created, with completed": {"time_field": "created", "time_after": NOW - 4 * DAY, "include_completed": True},
    "deadline window": {"time_after": NOW, "time_before": NOW + 3 * DAY},
    "overdue": {"only_overdue": True},
    "keyword cjk": {"keyword": "报告", "include_completed": True},
    "keyword ascii": {"keyword": "REVIEW"},
    "no deadline": {"no_deadline": True},
    "no deadline, with completed": {"no_deadline": True, "include_completed": True},
    "no deadline, created window": {"no_deadline": True, "time_field": "created", "time_after": NOW - 4 * DAY},
    "no deadline, keyword": {"no_deadline": True, "keyword": "报告"},
}


@pytest.mark.parametrize("mode", list(MODES))
def test_query_matches_reference(session: Session, grid: int, mode: str) -> None:
    """Every quadrant set x ordering x page, per filter mode: same total and page as the reference."""
    for quadrants, sort_by, order, (limit, offset) in itertools.product(
        QUADRANT_SETS, ("deadline", "priority", "id"), ("asc", "desc"), [(7, 0), (5, 13), (500, 0), (3, 200)]
    ):
        flt = TaskFilter(quadrants=quadrants, sort_by=sort_by, order=order, limit=limit, offset=offset, **MODES[mode])
        got = query_tasks(session, grid, flt, now=NOW)
        assert got == _reference(session, grid, flt), flt


@pytest.mark.parametrize("mode", ["open", "with completed", "keyword cjk", "overdue"])
def test_capped_totals_keep_pages_exact(
    session: Session, grid: int, mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Counting stops at max(cap, offset + limit) + 1 matches: past it the total is that bound
    minus one and marked inexact, and every page (priority pages located by capped per-group
    counts included) is still exactly the reference's."""
    monkeypatch.setattr(store, "TOTAL_CAP", 10)
    capped = 0
    for quadrants, sort_by, order, (limit, offset) in itertools.product(
        QUADRANT_SETS[:6], ("deadline", "priority"), ("asc", "desc"), [(7, 0), (5, 13), (3, 30), (40, 0)]
    ):
        flt = TaskFilter(quadrants=quadrants, sort_by=sort_by, order=order, limit=limit, offset=offset, **MODES[mode])
        got = query_tasks(session, grid, flt, now=NOW)
        want = _reference(session, grid, flt)
        bound = max(10, offset + limit)
        assert got.items == want.items, flt
        if want.total <= bound:
            assert (got.total, got.total_exact) == (want.total, True), flt
        elif not got.total_exact:
            capped += 1
            assert got.total == bound and got.total_label == f"{bound}+", flt
        else:  # priority: every group under the cap, so their sum is exact
            assert sort_by == "priority" and got.total == want.total, flt
    assert capped > 0


def test_priority_pages_span_groups(session: Session, grid: int) -> None:
    """Walking the priority order page by page yields the whole ordered list once."""
    everything = _q(session, grid, sort_by="priority", limit=500)
    for order in ("asc", "desc"):
        full = _q(session, grid, sort_by="priority", order=order, limit=500).items
        assert len(full) == everything.total
        walked = []
        for offset in range(0, everything.total + 6, 6):
            page = _q(session, grid, sort_by="priority", order=order, limit=6, offset=offset)
            assert page.total == everything.total
            walked += page.items
        assert walked == full
        groups = [r.effective_group for r in full]
        assert groups == sorted(groups, reverse=order == "desc")


def test_keyword_case_folding_on_both_paths(session: Session) -> None:
    """A keyword without cased characters may use plain LIKE on PostgreSQL; one with them must not."""
    uid = _user(session)
    for title in ["ABC报告", "abc报告", "周报 Review", "100%"]:
        _add(session, uid, title)
    assert sorted(_titles(_q(session, uid, keyword="C报"))) == ["ABC报告", "abc报告"]
    assert sorted(_titles(_q(session, uid, keyword="报告"))) == ["ABC报告", "abc报告"]
    assert _titles(_q(session, uid, keyword="报 r")) == ["周报 Review"]
    assert _titles(_q(session, uid, keyword="0%")) == ["100%"]


# ---------------------------------------------------------------------------------------------
# ordering, filters


def test_null_deadlines_sort_last_both_directions(session: Session) -> None:
    uid = _user(session)
    _add(session, uid, "none-1", 1)
    _add(session, uid, "late", 2, deadline=NOW + 9 * DAY)
    _add(session, uid, "early", 2, deadline=NOW + DAY)
    _add(session, uid, "none-2", 2)
    assert _titles(_q(session, uid)) == ["early", "late", "none-1", "none-2"]
    assert _titles(_q(session, uid, order="desc")) == ["late", "early", "none-1", "none-2"]
    # priority: group first, then deadline with NULLs last
    assert _titles(_q(session, uid, sort_by="priority")) == ["none-1", "early", "late", "none-2"]


def test_sort_by_id(session: Session) -> None:
    uid = _user(session)
    ids = [_add(session, uid, f"t{i}", 2, deadline=NOW + (5 - i) * DAY) for i in range(4)]
    assert [r.id for r in _q(session, uid, sort_by="id").items] == ids
    assert [r.id for r in _q(session, uid, sort_by="id", order="desc").items] == ids[::-1]


def test_keyword_is_literal_and_case_insensitive(session: Session) -> None:
    uid = _user(session)
    for title in ["100% done", "100 done", "a_b", "axb", "Report ABC", "写周报", "back\\slash"]:
        _add(session, uid, title)
    assert _titles(_q(session, uid, keyword="%")) == ["100% done"]
    assert _titles(_q(session, uid, keyword="_")) == ["a_b"]
    assert _titles(_q(session, uid, keyword="0% d")) == ["100% done"]
    assert _titles(_q(session, uid, keyword="abc")) == ["Report ABC"]
    assert _titles(_q(session, uid, keyword="周报")) == ["写周报"]
    assert _titles(_q(session, uid, keyword="\\")) == ["back\\slash"]
    assert _q(session, uid, keyword="  ").total == 7  # blank keyword = no keyword


def test_only_overdue(session: Session) -> None:
    uid = _user(session)
    _add(session, uid, "overdue", 2, deadline=NOW - DAY)
    _add(session, uid, "overdue done", 2, deadline=NOW - DAY, completed_at=NOW - 2 * DAY)
    _add(session, uid, "due now", 2, deadline=NOW)  # not strictly before now
    _add(session, uid, "future", 2, deadline=NOW + DAY)
    _add(session, uid, "no deadline", 2)
    assert _titles(_q(session, uid, only_overdue=True)) == ["overdue"]
    # overdue means not completed even when completed tasks are requested
    assert _titles(_q(session, uid, only_overdue=True, include_completed=True)) == ["overdue"]


def test_no_deadline(session: Session) -> None:
    uid = _user(session)
    _add(session, uid, "overdue", 2, deadline=NOW - DAY)
    _add(session, uid, "future", 1, deadline=NOW + DAY)
    _add(session, uid, "undated b", 3)
    _add(session, uid, "undated a", 1)
    _add(session, uid, "undated done", 2, completed_at=NOW - DAY)
    assert _titles(_q(session, uid, no_deadline=True)) == ["undated a", "undated b"]  # group, then id
    assert _q(session, uid, no_deadline=True).total == 2
    assert _titles(_q(session, uid, no_deadline=True, include_completed=True)) == [
        "undated a",
        "undated done",
        "undated b",
    ]
    assert _titles(_q(session, uid, no_deadline=True, sort_by="priority", order="desc")) == ["undated b", "undated a"]
    # a deadline window holds no task without a deadline
    assert _q(session, uid, no_deadline=True, time_after=NOW - 9 * DAY, time_before=NOW + 9 * DAY).total == 0
    assert _q(session, uid, no_deadline=True, only_overdue=True).total == 0


def test_no_deadline_costs_nothing_when_unused() -> None:
    """The flag is the shape's last, defaulted field: a filter without it keeps its shape and its
    compiled statements, and only a filter with it says IS NULL."""
    plain = store._shape(TaskFilter(quadrants=[1, 2]), "sqlite")
    undated = store._shape(TaskFilter(quadrants=[1, 2], no_deadline=True), "sqlite")
    assert plain == dataclasses.replace(undated, no_deadline=False)
    # The flags added since are last and defaulted too (repeating: recurrence IS NOT NULL; fits: the
    # estimate, else the group's default, within the free time).
    added = ("no_deadline", "repeating", "fits", "in_list", "labeled")
    assert set(added).isdisjoint(f.name for f in dataclasses.fields(plain)[: -len(added)])
    repeating = store._shape(TaskFilter(quadrants=[1, 2], repeating=True), "sqlite")
    assert plain == dataclasses.replace(repeating, repeating=False)
    fits = store._shape(TaskFilter(quadrants=[1, 2], fits_minutes=30), "sqlite")
    assert plain == dataclasses.replace(fits, fits=False)


def test_no_deadline_reads_the_deadline_index(session: Session) -> None:
    uid = _user(session)
    for i in range(30):
        _add(session, uid, f"t{i}", 1 + i % 4, deadline=None if i % 3 else NOW + i * DAY)
    conn = session.connection()
    if conn.dialect.name != "sqlite":
        pytest.skip("EXPLAIN QUERY PLAN is SQLite's; PostgreSQL picks by statistics")
    shape = store._shape(TaskFilter(no_deadline=True), "sqlite")
    store._connection(conn)
    for kind in ("count", "page"):
        prepared = store._prepared(kind, shape)
        values = {**store._values(TaskFilter(no_deadline=True), uid, NOW, "sqlite"), "cap": 1001}
        values.update(limit=5, offset=0, window=5)
        rows = conn.exec_driver_sql("EXPLAIN QUERY PLAN " + prepared.sql, tuple(prepared.args(values))).all()
        detail = " ".join(str(row[-1]) for row in rows)
        # SQLite prints "deadline_at IS NULL" as "deadline_at=?": a seek, not a scan of the user's rows
        assert "ix_tasks_user_open_deadline (user_id=? AND is_completed=? AND deadline_at=?)" in detail, detail
        assert "SCAN tasks" not in detail, detail


def test_deadline_window_is_inclusive_and_timezone_correct(session: Session) -> None:
    uid = _user(session)
    start = datetime(2026, 3, 11, 0, 0, tzinfo=CST)  # 2026-03-10 16:00 UTC
    end = datetime(2026, 3, 11, 23, 59, 59, tzinfo=CST)
    _add(session, uid, "at start", deadline=start.astimezone(UTC))
    _add(session, uid, "at end", deadline=end)
    _add(session, uid, "just before", deadline=start - timedelta(seconds=1))
    _add(session, uid, "just after", deadline=end + timedelta(seconds=1))
    _add(session, uid, "no deadline")
    page = _q(session, uid, time_after=start, time_before=end)
    assert _titles(page) == ["at start", "at end"]
    assert _titles(_q(session, uid, time_before=start)) == ["just before", "at start"]
    assert _titles(_q(session, uid, time_after=end)) == ["at end", "just after"]


def test_completed_window_implies_completed(session: Session) -> None:
    uid = _user(session)
    _add(session, uid, "done last week", deadline=NOW - 9 * DAY, completed_at=NOW - 6 * DAY)
    _add(session, uid, "done today", completed_at=NOW - timedelta(hours=1))
    _add(session, uid, "done long ago", completed_at=NOW - 60 * DAY)
    _add(session, uid, "open", deadline=NOW - 6 * DAY)
    page = _q(session, uid, time_field="completed", time_after=NOW - 7 * DAY, time_before=NOW)
    assert page.total == 2
    assert set(_titles(page)) == {"done last week", "done today"}
    assert all(r.is_completed and r.completed_at is not None for r in page.items)
    # without a window: every completed task, but no open ones
    assert _q(session, uid, time_field="completed").total == 3


def test_created_window(session: Session) -> None:
    uid = _user(session)
    _add(session, uid, "new", created=NOW - DAY)
    _add(session, uid, "old", created=NOW - 20 * DAY)
    _add(session, uid, "new done", created=NOW - 2 * DAY, completed_at=NOW - DAY)
    page = _q(session, uid, time_field="created", time_after=NOW - 3 * DAY)
    assert _titles(page) == ["new"]
    page = _q(session, uid, time_field="created", time_after=NOW - 3 * DAY, include_completed=True)
    assert set(_titles(page)) == {"new", "new done"}


def test_include_completed(session: Session) -> None:
    uid = _user(session)
    _add(session, uid, "open")
    _add(session, uid, "done", completed_at=NOW)
    assert _titles(_q(session, uid)) == ["open"]
    assert sorted(_titles(_q(session, uid, include_completed=True))) == ["done", "open"]


def test_total_counts_all_matches_not_the_page(session: Session) -> None:
    uid = _user(session)
    for i in range(7):
        _add(session, uid, f"t{i}", deadline=NOW + i * DAY)
    page = _q(session, uid, limit=3)
    assert page.total == 7 and len(page.items) == 3
    page = _q(session, uid, limit=3, offset=6)
    assert page.total == 7 and _titles(page) == ["t6"]
    assert _q(session, uid, limit=0).total == 7


def test_empty_quadrant_list_means_all(session: Session) -> None:
    uid = _user(session)
    _add(session, uid, "x", 4)
    assert _q(session, uid, quadrants=[]).total == 1


# ---------------------------------------------------------------------------------------------
# datetimes


def test_datetimes_round_trip_as_aware_utc(session: Session, new_session: Callable[[], Session]) -> None:
    uid = _user(session)
    deadline = datetime(2026, 3, 11, 15, 30, 0, 123456, tzinfo=CST)
    tid = _add(session, uid, "tz", deadline=deadline, threshold=deadline - DAY)
    with new_session() as fresh:
        task = get_task(fresh, uid, tid)
        assert task is not None
        assert task.deadline_at == deadline
        assert task.deadline_at is not None and task.deadline_at.utcoffset() == timedelta(0)
        assert task.created_at.tzinfo is not None
        row = _q(fresh, uid).items[0]
        assert row.deadline_at == deadline and row.deadline_at is not None
        assert row.deadline_at.tzinfo is not None


def test_naive_datetimes_are_refused(session: Session) -> None:
    uid = _user(session)
    with pytest.raises(ValueError):
        TaskCreate(title="x", deadline_at=datetime(2026, 1, 1))
    with pytest.raises(ValueError, match="naive datetime"):  # the store binds its own query values
        _q(session, uid, now=datetime(2026, 1, 1), only_overdue=True)


def test_priority_group_check_constraint(session: Session) -> None:
    uid = _user(session)
    session.commit()
    with pytest.raises(IntegrityError):
        session.execute(
            sa.insert(Task).values(
                user_id=uid, title="bad", priority_group=5, is_completed=False, created_at=NOW, updated_at=NOW
            )
        )
    session.rollback()


# ---------------------------------------------------------------------------------------------
# isolation and writes


def test_user_isolation(session: Session) -> None:
    alice = _user(session, "alice")
    bob = _user(session, "bob")
    a1 = _add(session, alice, "alice task", 1, deadline=NOW - DAY)
    b1 = _add(session, bob, "bob task", 1, deadline=NOW - DAY)
    _add(session, bob, "bob done", 1, completed_at=NOW)

    filters: list[dict[str, Any]] = [
        {},
        {"include_completed": True},
        {"only_overdue": True},
        {"keyword": "task"},
        {"quadrants": [1]},
        {"time_field": "completed"},
        {"time_field": "created"},
    ]
    for flt in filters:
        page = _q(session, alice, **flt)
        assert all(r.id == a1 for r in page.items), flt
        assert page.total <= 1

    assert get_task(session, alice, b1) is None
    assert update_task(session, alice, b1, TaskUpdate(title="hijack"), now=NOW) is None
    assert complete_task(session, alice, b1, now=NOW) is None
    assert delete_task(session, alice, b1) is False
    session.commit()
    task = get_task(session, bob, b1)
    assert task is not None and task.title == "bob task" and not task.is_completed


def test_update_complete_delete(session: Session) -> None:
    uid = _user(session)
    tid = _add(session, uid, "write report", 2, deadline=NOW + DAY)
    later = NOW + timedelta(hours=1)

    task = update_task(
        session, uid, tid, TaskUpdate(title="write the report", deadline_at=None, priority_group=1), now=later
    )
    assert task is not None
    assert (task.title, task.deadline_at, task.priority_group) == ("write the report", None, 1)
    assert task.updated_at == later
    # fields not set are left alone
    task = update_task(session, uid, tid, TaskUpdate(urgency_threshold_at=NOW), now=later)
    assert task is not None and task.title == "write the report" and task.priority_group == 1

    done = complete_task(session, uid, tid, now=later)
    assert done is not None and done.is_completed and done.completed_at == later
    again = complete_task(session, uid, tid, now=later + DAY)
    assert again is not None and again.completed_at == later  # idempotent
    undone = complete_task(session, uid, tid, now=later, completed=False)
    assert undone is not None and not undone.is_completed and undone.completed_at is None
    via_update = update_task(session, uid, tid, TaskUpdate(is_completed=True), now=later)
    assert via_update is not None and via_update.completed_at == later
    session.commit()

    assert delete_task(session, uid, tid) is True
    session.commit()
    assert get_task(session, uid, tid) is None
    assert delete_task(session, uid, tid) is False
    assert update_task(session, uid, 999_999, TaskUpdate(title="x"), now=NOW) is None


# ---------------------------------------------------------------------------------------------
# idempotent creation


def test_create_is_idempotent_on_source_key(session: Session) -> None:
    uid = _user(session)
    other = _user(session, "bob")
    data = TaskCreate(title="交报告", priority_group=1, deadline_at=NOW + DAY)
    first, created = create_task(session, uid, data, now=NOW, source_key="turn-1")
    session.commit()
    assert created
    second, created_again = create_task(
        session, uid, TaskCreate(title="something else"), now=NOW + DAY, source_key="turn-1"
    )
    assert not created_again and second.id == first.id and second.title == "交报告"
    # the key is per user
    bobs, bob_created = create_task(session, other, data, now=NOW, source_key="turn-1")
    assert bob_created and bobs.id != first.id
    # no key: every call creates
    create_task(session, uid, data, now=NOW)
    create_task(session, uid, data, now=NOW)
    session.commit()
    count = session.execute(sa.select(sa.func.count()).select_from(Task).where(col(Task.user_id) == uid)).scalar_one()
    assert count == 3


def test_concurrent_duplicates_create_one_row(session: Session, new_session: Callable[[], Session]) -> None:
    uid = _user(session)
    session.commit()
    copies = 5
    barrier = threading.Barrier(copies)
    results: list[tuple[int, bool]] = []
    errors: list[BaseException] = []
    lock = threading.Lock()

    def worker() -> None:
        try:
            with new_session() as s:
                barrier.wait(timeout=10)
                task, created = create_task(
                    s, uid, TaskCreate(title="交报告", priority_group=1), now=NOW, source_key="turn-42"
                )
                s.commit()
                assert task.id is not None
                with lock:
                    results.append((task.id, created))
        except BaseException as exc:  # pragma: no cover - reported below
            with lock:
                errors.append(exc)

    threads = [threading.Thread(target=worker) for _ in range(copies)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert not errors, errors
    assert len(results) == copies
    assert len({task_id for task_id, _ in results}) == 1
    assert sum(created for _, created in results) == 1
    rows = session.exec(select(Task).where(col(Task.source_key) == "turn-42")).all()
    assert len(rows) == 1


def test_the_deepest_page_counts_past_32_bits(session: Session) -> None:
    """offset + limit + 1 (the count's bound) can pass 2**31 - 1: PostgreSQL must not see an int4."""
    uid = _user(session)
    _add(session, uid, "只有一条")
    for sort_by in ("deadline", "priority"):
        page = _q(session, uid, offset=2**31 - 1, limit=200, include_completed=True, sort_by=sort_by)
        assert (page.total, page.total_exact, page.items) == (1, True, [])


# ---------------------------------------------------------------------------------------------
# task_facts: what explains an empty answer


@pytest.fixture
def facts_user(session: Session) -> int:
    """Open: 2 overdue, 3 without a deadline, 2 due later; done: 2 due in the window, 1 outside."""
    uid = _user(session)
    other = _user(session, "bob")
    _add(session, uid, "overdue a", 1, deadline=NOW - 2 * DAY)
    _add(session, uid, "overdue b", 3, deadline=NOW - DAY)
    for title in ("undated a", "undated b", "undated c"):
        _add(session, uid, title, 2)
    _add(session, uid, "due later", 2, deadline=NOW + 10 * DAY)
    _add(session, uid, "due soon", 4, deadline=NOW + 3 * DAY)
    _add(session, uid, "done in window", 1, deadline=NOW + DAY, completed_at=NOW - DAY)
    _add(session, uid, "done in window 2", 2, deadline=NOW + 2 * DAY, completed_at=NOW - DAY)
    _add(session, uid, "done before", 3, deadline=NOW - 5 * DAY, completed_at=NOW - 6 * DAY)
    for i in range(4):  # another user's tasks never count
        _add(session, other, f"bob {i}", 1, deadline=NOW - DAY)
    return uid


def test_task_facts_counts_what_explains_an_empty_answer(session: Session, facts_user: int) -> None:
    window = (NOW, NOW + 2 * DAY + timedelta(hours=1))  # the next two days: open tasks none
    facts = store.task_facts(session, facts_user, now=NOW, window_start=window[0], window_end=window[1])
    assert (facts.open, facts.done, facts.overdue, facts.undated) == (7, 3, 2, 3)
    assert facts.total == 10
    assert facts.done_in_window == 2
    assert facts.next_deadline == NOW + 3 * DAY  # the soonest open deadline after the window
    assert facts.label(facts.open) == "7"


def test_task_facts_without_a_window_looks_after_now(session: Session, facts_user: int) -> None:
    facts = store.task_facts(session, facts_user, now=NOW)
    assert facts.next_deadline == NOW + 3 * DAY
    assert facts.done_in_window == 0  # no window, nothing "in" it


def test_task_facts_one_sided_window(session: Session, facts_user: int) -> None:
    facts = store.task_facts(session, facts_user, now=NOW, window_end=NOW + 5 * DAY)
    assert facts.done_in_window == 3  # no start: every done task due before the end
    assert facts.next_deadline == NOW + 10 * DAY


def test_task_facts_of_a_user_with_nothing(session: Session) -> None:
    facts = store.task_facts(session, _user(session, "carol"), now=NOW)
    assert (facts.total, facts.open, facts.done, facts.overdue, facts.undated) == (0, 0, 0, 0, 0)
    assert facts.next_deadline is None


def test_task_facts_are_capped_like_the_totals(
    session: Session, facts_user: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(store, "TOTAL_CAP", 4)
    facts = store.task_facts(session, facts_user, now=NOW)
    assert facts.open == 5 and facts.label(facts.open) == "4+"  # counting stopped past the cap
    assert facts.label(facts.overdue) == "2" and facts.label(facts.undated) == "3"
    assert facts.label(facts.total) == "4+"


def test_task_facts_is_one_round_trip(session: Session, facts_user: int, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    real = store.fetch

    def counting(conn: Any, prepared: Any, values: Any) -> Any:
        calls.append(prepared.sql)
        return real(conn, prepared, values)

    monkeypatch.setattr(store, "fetch", counting)
    store.task_facts(session, facts_user, now=NOW, window_start=NOW, window_end=NOW + DAY)
    assert len(calls) == 1


def test_a_window_reads_the_series_through_their_own_index(session: Session) -> None:
    # Without it, a window would visit every open task due before it to find the few that repeat.
    uid = _user(session)
    conn = session.connection()
    if conn.dialect.name != "sqlite":
        pytest.skip("EXPLAIN QUERY PLAN is SQLite's; PostgreSQL picks by statistics")
    stmt = (
        sa.select(Task.id)
        .where(col(Task.user_id) == uid, col(Task.is_completed).is_(False), col(Task.recurrence).is_not(None))
        .where(col(Task.deadline_at) < NOW)
    )
    compiled = stmt.compile(conn, compile_kwargs={"literal_binds": True})
    detail = " ".join(str(r[-1]) for r in conn.exec_driver_sql(f"EXPLAIN QUERY PLAN {compiled}").all())
    assert "ix_tasks_user_series" in detail, detail


def test_free_time_keeps_what_fits_by_estimate_or_group_default(session: Session) -> None:
    """fits_minutes: the estimate, else core.estimates.DEFAULT_MINUTES by group, within the time; in
    the count as in the page, with the other filters, one user's tasks only."""
    uid, other = _user(session), _user(session, "bob")
    for title, group, minutes in [
        ("a", 1, 90),
        ("b", 1, 20),
        ("c", 2, None),
        ("d", 3, None),
        ("e", 4, 30),
        ("f", 3, 45),
    ]:
        task_id = _add(session, uid, title, group, deadline=NOW + DAY)
        session.get_one(Task, task_id).estimate_minutes = minutes
    _add(session, other, "bob's", 3)
    session.flush()

    def fits(minutes: int, **more: Any) -> tuple[int, list[str]]:
        flt = TaskFilter(fits_minutes=minutes, sort_by="priority", limit=10, **more)
        page = query_tasks(session, uid, flt, now=NOW)
        return page.total, [r.title for r in page.items]

    assert fits(30) == (3, ["b", "d", "e"])  # d: easy, no estimate = 15 min
    assert fits(60) == (5, ["b", "c", "d", "f", "e"])  # c: group 2, no estimate = 1 h; by group
    assert fits(10) == (0, [])
    assert fits(60, quadrants=[3, 4]) == (3, ["d", "f", "e"])
    assert fits(120, keyword="a") == (1, ["a"])
