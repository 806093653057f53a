"""Unit tests for the task-query graph's nodes and steps, one step at a time (no database)."""

from __future__ import annotations

import contextlib
import threading
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from core.countlock import CountLock
from core.llm import ModelHub
from core.store import TaskFacts, TaskFilter, TaskPage, TaskRow
from core.timeanchor import TimeWindow
from core.trace import Trace
from core.turn import Turn, TurnConfig
from support.rows import task_row
from taskquery import steps
from taskquery.boundary import Grounds, settle_plan
from taskquery.graph import task_query_graph
from taskquery.offline import offline_plan
from taskquery.plan import QueryPlan
from taskquery.reflection import PlanPatch, Reflection, apply_patch
from taskquery.rendering import MAX_PREFIX_CHARS, clean_prefix, render_answer, render_list, task_line
from taskquery.state import QueryState

TZ = "Asia/Shanghai"
NOW = datetime(2026, 11, 30, 10, 0, tzinfo=ZoneInfo(TZ))  # Monday


def at(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=ZoneInfo(TZ))


def make_turn(**config: Any) -> Turn:
    def no_db() -> Any:
        raise AssertionError("these tests never touch the database")

    return Turn(
        user_id=1,
        messages=[],
        now=NOW,
        tz=TZ,
        turn_key="t",
        hub=ModelHub(),
        trace=Trace(),
        sessions=no_db,
        config=TurnConfig(**config),
    )


def make_state(
    plan: QueryPlan | None = None,
    *,
    explicit: int | None = None,
    wants_all: bool = False,
    sentence: str = "x",
    rules: QueryPlan | None = None,
) -> QueryState:
    """A state as plan_step leaves it; `rules` is the offline reading of `sentence` unless given."""
    state = QueryState(sentence=sentence, now=NOW, tz=TZ)
    state.lock = CountLock(explicit=explicit, wants_all=wants_all)
    state.plan = plan or QueryPlan()
    rules = rules if rules is not None else offline_plan(sentence, NOW, TZ)
    state.grounds = Grounds(sentence, rules, state.lock, NOW, TZ)
    return state


def row(
    title: str,
    group: int = 2,
    deadline: str | None = "2026-12-01 15:00",
    *,
    effective: int | None = None,
    completed: bool = False,
    task_id: int = 1,
) -> TaskRow:
    due = at(deadline) if deadline else None
    return task_row(title, group, due, effective=effective, completed=completed, task_id=task_id)


# --- quadrant -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (None, None),
        ([3], [3]),
        ([4, 1], [1, 4]),
        ([2, 2, 1, 2], [1, 2]),
        ([0, 3, 3, 9], [3]),
        ([-1, 5], None),  # nothing valid: no filter rather than an empty one
        ([], None),
        ([1, 2, 3, 4], None),  # all four is no filter
        ([4, 3, 2, 1, 1], None),
    ],
)
def test_normalise_quadrants(raw: list[int] | None, expected: list[int] | None) -> None:
    assert steps.normalise_quadrants(raw) == expected


def test_quadrant_step_reports_what_it_kept() -> None:
    # The schema refuses 7; the step still normalises whatever it is handed (defence in depth).
    state = make_state(QueryPlan.model_construct(quadrants=[7, 3, 3]))
    message = steps.quadrant_step(state)
    assert state.quadrants == [3]
    assert "[3]" in message


# --- time_anchor ------------------------------------------------------------------------------


def test_anchor_window_resolves_the_phrase_in_code() -> None:
    # Bounds beside a phrase code can read (this Wednesday) lose to the phrase (next Wednesday).
    plan = QueryPlan(time_text="下周三", time_after=at("2026-12-02 00:00"), time_before=at("2026-12-02 23:59"))
    window = steps.anchor_window(plan, NOW, TZ)
    assert window is not None and window.start is not None
    assert window.start.date().isoformat() == "2026-12-09"


def test_anchor_window_uses_settled_bounds_for_a_phrase_code_cannot_read() -> None:
    plan = QueryPlan(time_text="发薪日前后", time_after=at("2026-12-04 00:00"), time_before=at("2026-12-05 23:59"))
    window = steps.anchor_window(plan, NOW, TZ)
    assert window is not None
    assert (window.start, window.end) == (at("2026-12-04 00:00"), at("2026-12-05 23:59"))


def test_anchor_window_without_any_time_is_none() -> None:
    assert steps.anchor_window(QueryPlan(), NOW, TZ) is None
    assert steps.anchor_window(QueryPlan(time_text="那个时候"), NOW, TZ) is None


def test_anchor_window_prefers_the_past_for_completed_and_created() -> None:
    future = steps.anchor_window(QueryPlan(time_text="周五"), NOW, TZ)
    past = steps.anchor_window(QueryPlan(time_text="周五", time_field="completed"), NOW, TZ)
    assert future is not None and future.start is not None and future.start.date().isoformat() == "2026-12-04"
    assert past is not None and past.start is not None and past.start.date().isoformat() == "2026-11-27"


def test_time_anchor_step_overdue_filter() -> None:
    state = make_state(QueryPlan(time_text="逾期", include_completed=True))
    steps.quadrant_step(state)
    steps.time_anchor_step(state, make_turn())
    assert state.filter is not None
    assert state.filter.only_overdue is True
    assert state.filter.time_before == NOW
    assert state.filter.include_completed is False  # overdue means not completed


def test_time_anchor_step_completed_window_includes_completed() -> None:
    state = make_state(QueryPlan(time_text="上周", time_field="completed"))
    steps.quadrant_step(state)
    steps.time_anchor_step(state, make_turn())
    flt = state.filter
    assert flt is not None
    assert flt.include_completed is True
    assert (flt.time_after, flt.time_before) == (at("2026-11-23 00:00"), at("2026-11-29 23:59:59"))


# --- effective limit ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("explicit", "wants_all", "inherited", "expected"),
    [
        (None, False, None, 5),  # default
        (None, False, 0, 5),  # a nonsense count is ignored
        (None, False, 7, 7),  # "还有吗" keeps the count the continued question said
        (None, False, 99, 20),  # clamped to the maximum
        (3, False, None, 3),  # locked
        (1, False, 10, 1),  # nothing changes a locked count
        (30, False, None, 20),  # a locked count above the maximum still respects the page size
        (None, True, None, 20),  # "全部": as many as the page allows
        (None, True, 3, 20),
    ],
)
def test_effective_limit(explicit: int | None, wants_all: bool, inherited: int | None, expected: int) -> None:
    state = make_state(explicit=explicit, wants_all=wants_all, rules=QueryPlan(limit=inherited))
    assert steps.effective_limit(state, make_turn()) == expected


def test_effective_limit_never_takes_a_model_count() -> None:
    # "给我一些任务" → a model that says 1 is not a count the user gave.
    state = make_state(QueryPlan(limit=1), sentence="给我一些任务")
    assert steps.effective_limit(state, make_turn()) == 5


def test_effective_limit_follows_configuration() -> None:
    turn = make_turn(default_limit=3, max_limit=8)
    assert steps.effective_limit(make_state(), turn) == 3
    assert steps.effective_limit(make_state(wants_all=True), turn) == 8
    assert steps.effective_limit(make_state(explicit=12), turn) == 8


# --- broadening -------------------------------------------------------------------------------


class FakeQuery:
    """Stands in for the query tool: records each filter, matches only when `matches(flt)`."""

    def __init__(self, matches: Any) -> None:
        self.matches = matches
        self.filters: list[TaskFilter] = []

    async def __call__(self, turn: Turn, flt: TaskFilter, now: datetime) -> TaskPage:
        self.filters.append(flt)
        if self.matches(flt):
            return TaskPage(total=3, items=[row("a"), row("b"), row("c")][: flt.limit])
        return TaskPage(total=0, items=[])


def broadenable_state(explicit: int | None = 1) -> QueryState:
    state = make_state(
        QueryPlan(quadrants=[3], time_text="明天", keyword="发票"), explicit=explicit, sentence="来一个明天的发票任务"
    )
    steps.quadrant_step(state)
    steps.time_anchor_step(state, make_turn())
    state.page = TaskPage(total=0, items=[])
    return state


async def test_broaden_relaxes_keyword_then_looks_outside_the_window_then_completed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    fake = FakeQuery(lambda flt: flt.include_completed)
    monkeypatch.setattr(steps, "run_query", fake)
    state = broadenable_state()
    window = state.window
    assert window is not None and window.start is not None and window.end is not None
    await steps.broaden(state, make_turn())
    assert state.broadened == ["keyword", "nearest", "include_completed"]
    assert [f.keyword for f in fake.filters] == [None, None, None, None]
    # the window as said; after it (soonest first); before it (latest first); the window again
    assert [(f.time_after, f.time_before, f.order) for f in fake.filters] == [
        (window.start, window.end, "asc"),
        (window.end, None, "asc"),
        (None, window.start, "desc"),
        (window.start, window.end, "asc"),
    ]
    assert [f.include_completed for f in fake.filters] == [False, False, False, True]
    # never the quadrants, never the locked limit
    assert all(f.quadrants == [3] and f.limit == 1 for f in fake.filters)
    assert state.retries == 1
    assert state.page is not None and state.page.total == 3
    assert state.empty_window == window


async def test_broaden_stops_at_the_first_relaxation_that_finds_something(monkeypatch: pytest.MonkeyPatch) -> None:
    fake = FakeQuery(lambda flt: flt.keyword is None)
    monkeypatch.setattr(steps, "run_query", fake)
    state = broadenable_state()
    await steps.broaden(state, make_turn())
    assert state.broadened == ["keyword"]
    assert len(fake.filters) == 1
    assert state.filter is not None and state.filter.time_after is not None  # the window stayed


async def test_broaden_carries_into_the_plan_so_a_retry_keeps_it(monkeypatch: pytest.MonkeyPatch) -> None:
    # No count in the words (a count's order is the code's): the reflect patch may reorder.
    state = broadenable_state(explicit=None)
    assert state.window is not None and state.window.end is not None
    end = state.window.end
    monkeypatch.setattr(steps, "run_query", FakeQuery(lambda flt: flt.time_after == end))
    turn = make_turn()
    await steps.broaden(state, turn)
    assert state.broadened == ["keyword", "nearest"]
    reflection = Reflection(need_retry=True, patch=PlanPatch(sort_by="priority", limit=9))
    steps.apply_reflection(state, reflection, turn)
    flt = state.filter
    assert flt is not None
    assert (flt.keyword, flt.time_after, flt.time_before) == (None, end, None)  # still the nearest after
    assert flt.sort_by == "priority"
    assert flt.limit == 1


async def test_broaden_with_nothing_to_relax_but_completed(monkeypatch: pytest.MonkeyPatch) -> None:
    fake = FakeQuery(lambda flt: False)
    monkeypatch.setattr(steps, "run_query", fake)
    state = make_state(QueryPlan(quadrants=[2]))
    steps.quadrant_step(state)
    steps.time_anchor_step(state, make_turn())
    state.page = TaskPage(total=0, items=[])
    await steps.broaden(state, make_turn())
    assert state.broadened == ["include_completed"]
    assert state.page.total == 0
    assert steps.default_prefix(state) == "没有找到符合条件的任务。"


# --- reflect patches ---------------------------------------------------------------------------


def test_apply_patch_never_changes_a_count() -> None:
    plan = QueryPlan(quadrants=[1, 2], limit=1)
    patched, notes = apply_patch(plan, PlanPatch(limit=10, quadrants=[1]))
    assert patched.limit == 1
    assert patched.quadrants == [1]
    assert any("忽略了把条数改成 10" in note for note in notes)
    patched, notes = apply_patch(QueryPlan(), PlanPatch(limit=10))
    assert patched.limit is None
    assert any("忽略了把条数改成 10" in note for note in notes)


def test_patch_schema_offers_no_count_and_only_real_groups() -> None:
    schema = PlanPatch.model_json_schema()
    assert "limit" not in schema["properties"]
    assert "limit" not in QueryPlan.model_json_schema()["properties"]
    with pytest.raises(ValidationError):
        PlanPatch(quadrants=[7])


def test_apply_patch_clears_and_replaces() -> None:
    plan = QueryPlan(quadrants=[3], time_text="明天", time_after=NOW, keyword="发票")
    patched, _ = apply_patch(plan, PlanPatch(clear_quadrants=True, clear_time=True, clear_keyword=True))
    assert (patched.quadrants, patched.time_text, patched.time_after, patched.keyword) == (None, None, None, None)
    patched, _ = apply_patch(plan, PlanPatch(time_text="下周", include_completed=True))
    assert (patched.time_text, patched.time_after, patched.include_completed) == ("下周", None, True)
    assert patched.keyword == "发票"  # absent fields stay


def test_apply_reflection_keeps_the_count_and_the_users_time() -> None:
    sentence = "来一个明天的任务"
    state = make_state(QueryPlan(time_text="明天"), explicit=1, sentence=sentence)
    turn = make_turn()
    steps.quadrant_step(state)
    steps.time_anchor_step(state, turn)
    reflection = Reflection(need_retry=True, patch=PlanPatch(limit=10, quadrants=[1], time_text="下周"))
    notes = steps.apply_reflection(state, reflection, turn)
    assert notes is not None
    assert state.filter is not None
    assert state.filter.limit == 1
    assert state.filter.quadrants == [1]  # the rules were silent on groups: the patch may set them
    assert state.filter.time_after == at("2026-12-01 00:00")  # 明天, as said; not the patch's 下周
    assert state.retries == 1
    assert any("忽略了把条数改成 10" in note for note in notes)
    assert any("明天" in note and "下周" in note for note in notes)


def test_apply_reflection_that_changes_nothing_allowed_does_not_retry() -> None:
    state = make_state(explicit=1, sentence="来一个明天的任务")
    assert state.grounds is not None
    state.plan = settle_plan(QueryPlan(time_text="明天"), state.grounds).plan  # as plan_step leaves it
    turn = make_turn()
    steps.quadrant_step(state)
    steps.time_anchor_step(state, turn)
    before = state.filter
    reflection = Reflection(need_retry=True, patch=PlanPatch(time_text="下周", limit=3))
    assert steps.apply_reflection(state, reflection, turn) is None
    assert state.retries == 0 and state.filter == before


# --- prefixes ---------------------------------------------------------------------------------


TITLES = ["交季度报告", "回复客户邮件"]


@pytest.mark.parametrize(
    "candidate",
    [
        pytest.param("好的\n看看这些", id="newline"),
        pytest.param("1. 交报告", id="numbered"),
        pytest.param("1、先做这个", id="numbered-cn"),
        pytest.param("- 先看这些", id="dash"),
        pytest.param("• 重点", id="bullet"),
        pytest.param("# 任务", id="heading"),
        pytest.param("以下是你的任务", id="yixia-shi"),
        pytest.param("先把交季度报告做了", id="task-title"),
        pytest.param("先把回复客户邮件做了", id="another-title"),
        pytest.param("好" * (MAX_PREFIX_CHARS + 1), id="too-long"),
        pytest.param("", id="empty"),
        pytest.param("   ", id="blank"),
        pytest.param(None, id="none"),
    ],
)
def test_clean_prefix_rejects(candidate: str | None) -> None:
    assert clean_prefix(candidate, TITLES) is None


@pytest.mark.parametrize(
    "candidate",
    ["这几件值得先做：", "今天有两件事，晚上前搞定", "好" * MAX_PREFIX_CHARS, "  前后有空格也行  "],
)
def test_clean_prefix_keeps_one_short_plain_line(candidate: str) -> None:
    assert clean_prefix(candidate, TITLES) == candidate.strip()


def test_default_prefix_variants() -> None:
    state = make_state(explicit=1)
    state.page = TaskPage(total=8, items=[row("a")])
    assert steps.default_prefix(state) == "给你挑了一个："
    state = make_state()
    state.page = TaskPage(total=1, items=[row("a")])
    assert steps.default_prefix(state) == "只找到这一条："
    state.broadened = ["time_window", "include_completed"]  # no keyword and no time said
    assert steps.default_prefix(state) == "没有未完成的符合条件的任务。\n不限时间、含已完成，找到这些："
    state = make_state()
    state.page = TaskPage(total=0, items=[])
    assert steps.default_prefix(state) == "没有找到符合条件的任务。"


# --- broadened pages name what found nothing and what is shown instead -------------------------


def broadened_state(
    broadened: list[str], *, keyword: str | None = None, time: str | None = None, locale: str = "zh"
) -> QueryState:
    """A state as broaden leaves it when its last relaxation found 3 tasks."""
    sentence = "x" if time is None else f"{time}的任务"
    state = make_state(QueryPlan(time_text=time), sentence=sentence)
    state.locale = locale  # type: ignore[assignment]
    steps.quadrant_step(state)
    steps.time_anchor_step(state, make_turn())
    state.broadened, state.dropped_keyword = broadened, keyword
    if {"time_window", "nearest"} & set(broadened):
        state.empty_window, state.window = state.window, None
    state.page = TaskPage(total=3, items=[row("a"), row("b"), row("c")])
    return state


BROADENED = [
    pytest.param(["keyword"], "发票", None, "没有标题含「发票」的任务。\n不限关键词，找到这些：", id="keyword"),
    pytest.param(["nearest"], None, "明天", "「明天」没有符合条件的任务。\n这个时间之外，最近的是：", id="nearest"),
    pytest.param(
        ["keyword", "nearest"],
        "发票",
        "明天",
        "没有标题含「发票」的任务。「明天」没有符合条件的任务。\n这个时间之外，最近的是：",
        id="keyword-nearest",
    ),
    pytest.param(
        ["nearest", "include_completed"],
        None,
        "明天",
        "「明天」没有未完成的任务。\n含已完成，找到这些：",  # finished ones inside the window said
        id="nearest-then-completed-in-window",
    ),
    pytest.param(
        ["keyword", "nearest", "include_completed"],
        "发票",
        "明天",
        "没有标题含「发票」的任务。「明天」没有未完成的任务。\n不限关键词、含已完成，找到这些：",
        id="keyword-nearest-completed",
    ),
    pytest.param(["time_window"], None, "上周", "「上周」没有符合条件的任务。\n不限时间，找到这些：", id="time-window"),
    pytest.param(
        ["time_window", "include_completed"],
        None,
        "上周",
        "「上周」没有符合条件的任务。\n不限时间、含已完成，找到这些：",
        id="time-window-completed",
    ),
    pytest.param(
        ["include_completed"], None, None, "没有未完成的符合条件的任务。\n含已完成，找到这些：", id="completed"
    ),
    pytest.param(
        ["keyword", "include_completed"],
        "发票",
        None,
        "没有标题含「发票」的任务。\n不限关键词、含已完成，找到这些：",
        id="keyword-completed",
    ),
    pytest.param(["nearest"], None, "逾期", "没有逾期的任务。\n这个时间之外，最近的是：", id="overdue-nearest"),
]


@pytest.mark.parametrize(("broadened", "keyword", "time", "expected"), BROADENED)
def test_broadened_prefix_names_what_found_nothing_and_what_is_shown(
    broadened: list[str], keyword: str | None, time: str | None, expected: str
) -> None:
    prefix = steps.default_prefix(broadened_state(broadened, keyword=keyword, time=time))
    assert prefix == expected
    said, instead = prefix.split("\n")
    assert said and instead  # never an empty line


def test_broadened_prefix_without_a_phrase_still_says_the_time_found_nothing() -> None:
    state = broadened_state(["nearest"])
    state.empty_window = TimeWindow(start=NOW, end=NOW, phrase="", granularity="span", has_clock_time=False)
    assert steps.default_prefix(state) == "你说的时间内没有符合条件的任务。\n这个时间之外，最近的是："


def test_broadened_prefix_in_english() -> None:
    state = broadened_state(["keyword", "nearest", "include_completed"], keyword="invoice", time="明天", locale="en")
    assert steps.default_prefix(state) == (
        'No task titles contain "invoice". Nothing open for "明天".\nWith any keyword, finished ones included, I found these:'
    )


# --- empty answers explain themselves --------------------------------------------------------------


def facts(
    open_: int = 5,
    done: int = 1,
    overdue: int = 2,
    undated: int = 3,
    in_window: int = 0,
    next_deadline: str | None = "2026-12-09 18:00",
    cap: int = 1000,
) -> TaskFacts:
    return TaskFacts(open_, done, overdue, undated, in_window, at(next_deadline) if next_deadline else None, cap)


def empty_state(
    time: str | None = "这周", *, keyword: str | None = None, with_facts: TaskFacts | None = None, locale: str = "zh"
) -> QueryState:
    """Nothing matched, after broadening (which keeps the time said aside) or without it."""
    sentence = f"{time or ''}{keyword or ''}有什么任务"
    state = make_state(QueryPlan(time_text=time, keyword=keyword), sentence=sentence)
    state.locale = locale  # type: ignore[assignment]
    steps.quadrant_step(state)
    steps.time_anchor_step(state, make_turn())
    state.page = TaskPage(total=0, items=[])
    state.facts = with_facts
    return state


EMPTY = [
    pytest.param(
        empty_state(with_facts=facts()),
        "「这周」没有符合条件的任务；你有 2 条逾期，3 条没有截止时间；下一个截止在 12月9日 周三。",
        "要看看逾期的吗？",
        id="week-overdue-undated-next",
    ),
    pytest.param(
        empty_state(with_facts=facts(overdue=0, next_deadline=None)),
        "「这周」没有符合条件的任务；你有 3 条没有截止时间。",
        "要看看没有截止时间的吗？",
        id="week-undated-only",
    ),
    pytest.param(
        empty_state(with_facts=facts(open_=0, done=4, overdue=0, undated=0, in_window=2, next_deadline=None)),
        "「这周」没有符合条件的任务；你的 4 条任务都已完成；这段时间内截止的 2 条已经完成。",
        None,
        id="week-all-done",
    ),
    pytest.param(
        empty_state("逾期", with_facts=facts(overdue=4)),
        "没有逾期的任务；你有 3 条没有截止时间；下一个截止在 12月9日 周三。",  # never "4 overdue" here
        "要看看没有截止时间的吗？",
        id="overdue-kind",
    ),
    pytest.param(
        empty_state(None, keyword="发票", with_facts=facts()),
        "没有标题含「发票」的任务；你一共有 6 条任务。",
        None,
        id="keyword-counts-every-task",
    ),
    pytest.param(
        empty_state(None, with_facts=facts(0, 0, 0, 0, 0, None)),
        "没有找到符合条件的任务。",
        "你还没有任何任务，说一句「帮我记一下…」就能加一条。",
        id="no-tasks-at-all",
    ),
    pytest.param(
        empty_state(with_facts=facts(open_=1001, overdue=1001, undated=0, cap=1000)),
        "「这周」没有符合条件的任务；你有 1000+ 条逾期；下一个截止在 12月9日 周三。",
        "要看看逾期的吗？",
        id="capped-count",
    ),
    pytest.param(
        empty_state(with_facts=None),
        "「这周」没有符合条件的任务。",  # no facts read: no number guessed
        None,
        id="no-facts",
    ),
    pytest.param(
        empty_state(with_facts=facts(), locale="en"),
        'Nothing matches for "这周"; you have 2 overdue, 3 without a deadline; the next deadline is Wed Dec 9.',
        "Want to see the overdue ones?",
        id="english",
    ),
    pytest.param(
        empty_state(None, with_facts=facts(0, 0, 0, 0, 0, None), locale="en"),
        "No tasks match.",
        'You have no tasks yet — say "remind me to …" to add one.',
        id="english-no-tasks",
    ),
]


@pytest.mark.parametrize(("state", "prefix", "hint"), EMPTY)
def test_empty_answer_explains_itself(state: QueryState, prefix: str, hint: str | None) -> None:
    explained = steps.explain_empty(state)
    assert (explained.prefix, explained.hint) == (prefix, hint)
    assert steps.default_prefix(state) == prefix
    assert explained.reason.startswith("没有匹配：") and "\n" not in explained.reason


def test_completed_question_counts_what_was_ever_finished() -> None:
    state = make_state(
        QueryPlan(time_text="上周", time_field="completed", quadrants=[1]), sentence="上周完成了哪些紧急的"
    )
    steps.quadrant_step(state)
    steps.time_anchor_step(state, make_turn())
    state.page, state.facts = TaskPage(total=0, items=[]), facts(done=7)
    assert steps.empty_kind(state) == "completed"
    assert steps.facts_window(state) == (None, None)  # "done in it" is about deadlines
    assert steps.explain_empty(state).prefix == "「上周」没有符合条件的任务；你一共完成过 7 条任务。"


def test_facts_window_is_the_deadline_window_said() -> None:
    state = empty_state()
    assert state.window is not None
    assert steps.facts_window(state) == (state.window.start, state.window.end)
    state.empty_window, state.window = state.window, None  # as broadening leaves it
    assert steps.facts_window(state) == (state.empty_window.start, state.empty_window.end)
    assert steps.facts_window(empty_state(None)) == (None, None)


def test_offline_reflection_of_an_empty_page_is_unsatisfied_but_never_retries() -> None:
    state = empty_state(with_facts=facts())
    reflection = steps.offline_reflection(state)
    assert (reflection.satisfied, reflection.need_retry, reflection.patch) == (False, False, None)
    assert reflection.prefix.startswith("「这周」没有符合条件的任务；你有 2 条逾期")
    full = make_state()
    full.page = TaskPage(total=3, items=[row("a")])
    assert steps.offline_reflection(full).satisfied is True


async def test_reflect_step_reads_facts_only_on_the_empty_path(monkeypatch: pytest.MonkeyPatch) -> None:
    reads: list[QueryState] = []

    async def fake_read(state: QueryState, turn: Turn) -> TaskFacts:
        reads.append(state)
        return facts()

    monkeypatch.setattr(steps, "read_facts", fake_read)
    full = make_state(QueryPlan(time_text="这周"), sentence="这周的任务")
    steps.time_anchor_step(full, make_turn())
    full.page = TaskPage(total=3, items=[row("a"), row("b"), row("c")])
    await steps.reflect_step(full, make_turn())
    assert reads == [] and full.facts is None and full.verdict is None
    empty = empty_state()
    reflection = await steps.reflect_step(empty, make_turn())
    assert reads == [empty]
    assert empty.prefix == "「这周」没有符合条件的任务；你有 2 条逾期，3 条没有截止时间；下一个截止在 12月9日 周三。"
    assert empty.hint == "要看看逾期的吗？"
    assert empty.verdict is not None and empty.verdict.startswith("没有匹配：「这周」")
    assert steps.verdict_line(empty, reflection) == empty.verdict
    assert steps.verdict_line(full, Reflection()) == "满意"


# --- a count above the page maximum --------------------------------------------------------------


@pytest.mark.parametrize(
    ("said", "total", "shown", "offset", "expected"),
    [
        (50, 24, 20, 0, "最多一次列 20 条，先给你前 20 条："),
        (100, 1000, 20, 0, "最多一次列 20 条，先给你前 20 条："),
        (50, 44, 20, 20, "最多一次列 20 条，先给你接下来的 20 条："),  # "再来五十个"
        (50, 12, 12, 0, "按你的问题找到这些任务："),  # everything fits: nothing was cut
        (20, 24, 20, 0, "按你的问题找到这些任务："),  # exactly the maximum: as said
        (None, 24, 20, 0, "按你的问题找到这些任务："),  # "全部": no count was said
    ],
)
def test_clamped_count_is_said(said: int | None, total: int, shown: int, offset: int, expected: str) -> None:
    state = make_state(explicit=said, wants_all=said is None)
    steps.quadrant_step(state)
    steps.time_anchor_step(state, make_turn())
    state.offset = offset
    state.filter = steps.build_filter(state, make_turn())
    assert state.filter.limit == 20
    state.page = TaskPage(total=total, items=[row(f"t{i}", task_id=i) for i in range(shown)])
    assert steps.default_prefix(state) == expected
    assert steps.clamped(state) is expected.startswith("最多")


def test_clamped_count_in_english() -> None:
    state = make_state(explicit=50)
    state.locale = "en"
    steps.time_anchor_step(state, make_turn())
    state.page = TaskPage(total=30, items=[row(f"t{i}", task_id=i) for i in range(20)])
    assert steps.default_prefix(state) == "I can list at most 20 at a time; here are the first 20:"


# --- rendering ---------------------------------------------------------------------------------


def test_render_list_header_shows_the_true_total_and_a_tail() -> None:
    page = TaskPage(total=7, items=[row("交报告", 1), row("买咖啡豆", 3), row("学习", 2)])
    text = render_list(page, TZ)
    lines = text.splitlines()
    assert lines[0] == "给你整理了 3 条任务（共 7 条匹配）："
    assert lines[1] == ""
    assert lines[2] == "1. 交报告（重要且紧急；截止 12月1日 周二 15:00）"
    assert lines[4].startswith("3. 学习（重要不紧急")
    assert lines[5:] == ["", "还有 4 条没列出，说「再来 4 个」或「全部」可以继续看。"]


def test_render_list_without_more_has_no_count_and_no_tail() -> None:
    text = render_list(TaskPage(total=2, items=[row("a"), row("b")]), TZ)
    assert text.splitlines()[0] == "给你整理了 2 条任务："
    assert "还有" not in text


def test_render_list_tail_offers_at_most_five_and_all_only_when_useful() -> None:
    items = [row(f"t{i}", task_id=i) for i in range(20)]
    assert render_list(TaskPage(total=40, items=items), TZ).endswith("说「再来 5 个」或「全部」可以继续看。")
    assert render_list(TaskPage(total=40, items=items), TZ, offer_all=False).endswith("说「再来 5 个」可以继续看。")


def test_render_list_continues_numbering_after_an_offset() -> None:
    text = render_list(TaskPage(total=8, items=[row("b"), row("c")]), TZ, offset=1)
    assert [line.split(".")[0] for line in text.splitlines()[2:4]] == ["2", "3"]
    assert text.splitlines()[-1].startswith("还有 5 条没列出")


def test_task_line_facts() -> None:
    promoted = row("审阅合同", 2, "2026-12-10 17:00", effective=1)
    assert (
        task_line(1, promoted, TZ)
        == "1. 审阅合同（重要且紧急；临近截止，由「重要不紧急」提前；截止 12月10日 周四 17:00）"
    )
    done = row("洗车", 3, None, completed=True)
    assert task_line(2, done, TZ) == "2. 洗车（简单不重要；已完成）"
    next_year = row("清理扫描件", 4, "2027-01-05 10:00")
    assert task_line(3, next_year, TZ, NOW) == "3. 清理扫描件（不简单不重要；截止 2027年1月5日 周二 10:00）"


def test_render_answer_no_result_and_exhausted_pages() -> None:
    assert render_answer("没有找到符合条件的任务。", TaskPage(total=0, items=[]), TZ).splitlines() == [
        "没有找到符合条件的任务。",
        "可以换个说法，或者问问「全部任务」。",
    ]
    exhausted = render_answer("没有更多了。", TaskPage(total=3, items=[]), TZ, offset=3)
    assert "一共 3 条" in exhausted


# --- the graph ---------------------------------------------------------------------------------


def test_graph_mermaid_has_the_five_nodes_and_the_one_loop() -> None:
    text = task_query_graph().render()
    for node in ("Plan", "Quadrant", "TimeAnchor", "ToolQuery", "Reflect"):
        assert node in text
    assert "Plan --> Quadrant" in text
    assert "Quadrant --> TimeAnchor" in text
    # time_anchor goes on to tool_query, or ends when the day asked about does not exist
    assert "TimeAnchor --> decision\n  decision --> ToolQuery\n  decision --> [*]" in text
    assert "ToolQuery --> Reflect" in text
    # reflect either loops back to tool_query or ends
    assert "decision_2 --> ToolQuery" in text
    assert "decision_2 --> [*]" in text


@pytest.mark.parametrize("inline", [True, False])
async def test_reads_run_on_the_loop_only_when_inline(inline: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """SQLite reads skip the worker thread (reads_inline); other databases' reads never block the loop."""
    threads: list[int] = []

    def fake_query(session: Any, user_id: int, flt: TaskFilter, *, now: datetime) -> TaskPage:
        threads.append(threading.get_ident())
        return TaskPage(total=0, items=[])

    monkeypatch.setattr(steps, "query_tasks", fake_query)
    turn = make_turn(reads_inline=inline)
    turn.sessions = contextlib.nullcontext  # type: ignore[assignment]
    await steps.run_query(turn, TaskFilter(), NOW)
    assert (threads == [threading.get_ident()]) is inline


# --- a reflect model that misbehaves on purpose -----------------------------------------------------


def _reflect_says(prefix: str, satisfied: bool) -> Any:
    from pydantic_ai import ModelResponse, ToolCallPart
    from pydantic_ai.models.function import FunctionModel

    def reply(messages: Any, info: Any) -> ModelResponse:
        args = {"satisfied": satisfied, "need_retry": False, "patch": None, "prefix": prefix}
        return ModelResponse(parts=[ToolCallPart(info.output_tools[0].name, args)])

    return FunctionModel(reply, model_name="misbehaving-reflect")


@settings(max_examples=25, deadline=None)
@given(
    invented=st.integers(min_value=0, max_value=10_000),
    satisfied=st.booleans(),
    wording=st.sampled_from(["你有 {n} 条逾期。", "找到 {n} 条任务：", "I found {n} overdue tasks.", "{n}"]),
)
async def test_a_reflect_model_never_writes_the_numbers_of_an_empty_or_clamped_answer(
    invented: int, satisfied: bool, wording: str
) -> None:
    hub = ModelHub(injected={"reflect": _reflect_says(wording.format(n=invented), satisfied)})

    async def no_db_facts(state: QueryState, turn: Turn) -> TaskFacts:
        return facts()

    empty = empty_state()
    turn = make_turn()
    turn.hub = hub
    original = steps.read_facts
    steps.read_facts = no_db_facts  # type: ignore[assignment]
    try:
        await steps.reflect_step(empty, turn)
    finally:
        steps.read_facts = original  # type: ignore[assignment]
    assert empty.prefix == "「这周」没有符合条件的任务；你有 2 条逾期，3 条没有截止时间；下一个截止在 12月9日 周三。"

    clamped = make_state(explicit=50)
    steps.quadrant_step(clamped)
    steps.time_anchor_step(clamped, turn)
    clamped.page = TaskPage(total=30, items=[row(f"t{i}", task_id=i) for i in range(20)])
    await steps.reflect_step(clamped, turn)
    assert clamped.prefix == "最多一次列 20 条，先给你前 20 条："
    assert turn.trace.usage.requests == 2  # the model was asked both times; its lines were not used
