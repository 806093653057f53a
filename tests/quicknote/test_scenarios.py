"""随口记 scenarios through the full pipeline (router → quick-note graph → database), snapshot-tested.

Fixed now: Monday 2026-11-30 10:00 Asia/Shanghai. Each scenario checks the whole answer against its
snapshot (content, stage stream, model requests) and, explicitly, what the database holds afterwards:
the stored task's title, group, deadline and urgency threshold, or that nothing was written.

Update snapshots deliberately: `.venv/bin/pytest tests/quicknote/test_scenarios.py --snapshot-update`,
then read every changed confirmation against the sentence and the fixed now.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from sqlmodel import col, select

from core.display import group_label
from core.llm import ModelHub, offline_model
from core.models import Task
from quicknote.draft import NoteDraft
from support.harness import Answer, Harness, local, make_harness


@dataclass(frozen=True)
class Stored:
    """The task a scenario must leave in the database (local scenario times)."""

    title: str
    group: int
    deadline: str | None = None
    threshold: str | None = None


@dataclass(frozen=True)
class Scenario:
    message: str
    stored: Stored | None  # None: a clarifying question, nothing written
    extraction: NoteDraft | None = None  # a model's extraction instead of the offline rules


SCENARIOS: dict[str, Scenario] = {
    # --- time-phrase families (no priority words: the group follows the deadline) ---------------
    "tomorrow_afternoon_clock": Scenario("帮我记一下明天下午三点交报告", Stored("交报告", 1, "2026-12-01 15:00")),
    "next_weekday_morning_clock": Scenario(
        "提醒我下周一上午10点开组会", Stored("开组会", 2, "2026-12-07 10:00", "2026-12-06 10:00")
    ),
    "before_weekday": Scenario(
        "帮我记一下周五之前签合同", Stored("签合同", 2, "2026-12-04 23:59:59", "2026-12-03 23:59:59")
    ),
    "month_end_is_today": Scenario("月底前交季度总结", Stored("交季度总结", 1, "2026-11-30 23:59:59")),
    "tonight": Scenario("今晚给妈妈打电话", Stored("给妈妈打电话", 1, "2026-11-30 23:59:59")),
    "day_after_tomorrow": Scenario("后天去取快递", Stored("去取快递", 2, "2026-12-02 23:59:59", "2026-12-01 23:59:59")),
    "absolute_date": Scenario("12月5日体检", Stored("体检", 2, "2026-12-05 23:59:59", "2026-12-04 23:59:59")),
    "within_three_days": Scenario(
        "三天内提交发票", Stored("提交发票", 2, "2026-12-03 23:59:59", "2026-12-02 23:59:59")
    ),
    "next_month": Scenario(
        "帮我记一下下个月找房东续签合同", Stored("找房东续签合同", 2, "2026-12-31 23:59:59", "2026-12-30 23:59:59")
    ),
    # --- defaults ------------------------------------------------------------------------------
    "no_time_default_group": Scenario("添加待办：洗车", Stored("洗车", 2)),
    "deadline_just_inside_48h": Scenario(  # 47 h away: near enough to be urgent
        "提醒我后天上午九点去医院复查", Stored("去医院复查", 1, "2026-12-02 09:00")
    ),
    # --- explicit priority words ---------------------------------------------------------------
    "important_near_deadline": Scenario("明天下午三点交报告，很重要", Stored("交报告", 1, "2026-12-01 15:00")),
    "important_far_deadline": Scenario(
        "帮我记一下很重要的事：周五之前交房租", Stored("交房租", 2, "2026-12-04 23:59:59", "2026-12-03 23:59:59")
    ),
    "urgent_without_deadline": Scenario("帮我记一下紧急的事：回复客户邮件", Stored("回复客户邮件", 1)),
    "easy": Scenario("帮我记一下简单的事：给绿萝浇水", Stored("给绿萝浇水", 3)),
    "offhand": Scenario("记一下买瓶酱油，顺手的事", Stored("买瓶酱油", 3)),
    "unimportant_but_hard": Scenario("记一下整理旧照片，麻烦但不重要", Stored("整理旧照片", 4)),
    "unimportant_but_hard_with_deadline": Scenario(
        "记一下下个月整理旧照片，麻烦但不重要", Stored("整理旧照片", 4, "2026-12-31 23:59:59", "2026-12-30 23:59:59")
    ),
    # --- urgency thresholds the user states ----------------------------------------------------
    "threshold_from_weekday": Scenario(
        "帮我记一下周五交报告，周三开始要紧", Stored("交报告", 2, "2026-12-04 23:59:59", "2026-12-02 00:00")
    ),
    "threshold_lead_before_deadline": Scenario(
        "帮我记一下后天交报告，提前两天提醒我", Stored("交报告", 2, "2026-12-02 23:59:59", "2026-11-30 23:59:59")
    ),
    # --- repeating notes: the deadline is the first occurrence from now (docs/fdr/0037) -----------
    "repeat_weekly_with_clock": Scenario(
        "每周一早上9点交周报", Stored("交周报", 2, "2026-12-07 09:00", "2026-12-06 09:00")
    ),
    "repeat_statutory_workdays": Scenario("每个工作日下午五点半写日报", Stored("写日报", 1, "2026-11-30 17:30")),
    "repeat_lunar_birthday": Scenario(
        "我妈农历八月十二生日，每年提醒我", Stored("妈生日", 2, "2027-09-12 23:59:59", "2027-09-11 23:59:59")
    ),
    "repeat_unreadable_said": Scenario("每逢双数日给花浇水", Stored("给花浇水", 2)),
    # --- clarifying paths: a question, nothing written -----------------------------------------
    "clarify_no_content": Scenario("帮我记一下", None),
    "clarify_unresolvable_time": Scenario(
        "帮我记一下下个闰月交报告",
        None,
        # What a real model returns: the phrase verbatim, no absolute guess. The offline rules do
        # not yet flag this phrase at all (see test_offline_gaps below).
        NoteDraft(title="交报告", time_text="下个闰月", priority_group=2, priority_reason="默认"),
    ),
}


def stored_tasks(h: Harness, user: str = "alice") -> list[Task]:
    with h.state.session() as session:
        stmt = select(Task).where(col(Task.user_id) == h.user(user)).order_by(col(Task.id))
        return list(session.exec(stmt).all())


def assert_stored(h: Harness, expected: Stored) -> Task:
    tasks = stored_tasks(h)
    assert len(tasks) == 1, [t.title for t in tasks]
    task = tasks[0]
    assert task.title == expected.title
    assert task.priority_group == expected.group
    assert task.deadline_at == (local(expected.deadline) if expected.deadline else None)
    assert task.urgency_threshold_at == (local(expected.threshold) if expected.threshold else None)
    assert task.is_completed is False
    assert task.source_key  # written as this turn's idempotency key
    return task


def assert_nothing_written(h: Harness, answer: Answer) -> None:
    assert stored_tasks(h) == []
    assert answer.action == "quick_note_create"
    assert "clarify:info" in answer.stages
    assert not any(stage.startswith(("persist", "confirm")) for stage in answer.stages)
    assert "已记下" not in answer.content
    assert "？" in answer.content


def extraction_hub(draft: NoteDraft) -> ModelHub:
    return ModelHub(injected={"extract": offline_model(lambda: draft, name="scripted-extract")})


@pytest.fixture
def scenario_harness(request: pytest.FixtureRequest, database_url: str) -> Any:
    scenario: Scenario = request.param
    hub = extraction_hub(scenario.extraction) if scenario.extraction else None
    h = make_harness(database_url, hub=hub)
    yield h
    h.state.engine.dispose()


@pytest.mark.parametrize(
    ("scenario", "scenario_harness"),
    [pytest.param(s, s, id=name) for name, s in SCENARIOS.items()],
    indirect=["scenario_harness"],
)
async def test_scenario(scenario: Scenario, scenario_harness: Harness, snapshot: Any) -> None:
    h = scenario_harness
    answer = await h.ask(scenario.message)
    assert answer.snapshot() == snapshot

    if scenario.stored is None:
        assert_nothing_written(h, answer)
        return
    expected = scenario.stored
    assert answer.action == "quick_note_create"
    task = assert_stored(h, expected)
    assert answer.content.startswith(f"好，已记下：{expected.title}（{group_label(expected.group)}")
    assert ("截止" in answer.content) == (task.deadline_at is not None)
    assert [s for s in answer.stages if s.endswith(":end")] == [
        "route:end",
        "extract:end",
        "time_anchor:end",
        "priority:end",
        "persist:end",
        "confirm:end",
    ]


async def test_unresolvable_time_question_names_phrase_and_title(database_url: str) -> None:
    extraction = SCENARIOS["clarify_unresolvable_time"].extraction
    assert extraction is not None
    h = make_harness(database_url, hub=extraction_hub(extraction))
    try:
        answer = await h.ask("帮我记一下下个闰月交报告")
        assert "「下个闰月」具体是什么时候？" in answer.content
        assert "我还没记下「交报告」" in answer.content
        assert stored_tasks(h) == []
    finally:
        h.state.engine.dispose()


# --- the repeated turn -------------------------------------------------------------------------

HISTORY = [("user", "今天好累"), ("assistant", "辛苦了，要不要我帮你把待办理一理？")]
NOTE = "帮我记一下明天下午三点交报告"


async def test_scenario_repeated_turn(harness: Harness, snapshot: Any) -> None:
    """A regenerate / client retry: the same conversation again → one task, and the answer says so."""
    first = await harness.ask(NOTE, history=HISTORY)
    again = await harness.ask(NOTE, history=HISTORY)
    assert {"first": first.snapshot(), "again": again.snapshot()} == snapshot

    assert first.visible == "好，已记下：交报告（重要且紧急；截止 12月1日 周二 15:00）"
    assert again.visible == "这条消息刚才已经记下了，没有重复创建：交报告（重要且紧急；截止 12月1日 周二 15:00）"
    assert_stored(harness, Stored("交报告", 1, "2026-12-01 15:00"))
    # The repeat does not run the graph again: no extraction, no write.
    assert "persist:info" in again.stages
    assert not any(s.startswith(("extract", "persist:end")) for s in again.stages)


@pytest.fixture
def allow_duplicates(monkeypatch: pytest.MonkeyPatch) -> None:
    """Saying the same words again on purpose, with the near-duplicate policy "allow"
    (the default "ask" is tested in test_near_duplicates.py)."""
    monkeypatch.setenv("SUIKOU_NOTE_NEAR_DUPLICATES", "allow")  # read when the harness is built


@pytest.mark.usefixtures("allow_duplicates")
async def test_scenario_new_turn_same_words(harness: Harness, snapshot: Any) -> None:
    """The same words as a new turn (the earlier exchange is now history) → a second task."""
    first = await harness.ask(NOTE)
    second = await harness.ask(NOTE, history=[("user", NOTE), ("assistant", first.content)])
    assert {"first": first.snapshot(), "second": second.snapshot()} == snapshot

    tasks = stored_tasks(harness)
    assert [(t.title, t.priority_group, t.deadline_at) for t in tasks] == [
        ("交报告", 1, local("2026-12-01 15:00")),
        ("交报告", 1, local("2026-12-01 15:00")),
    ]
    assert tasks[0].source_key != tasks[1].source_key
    assert second.visible == first.visible


async def test_repeated_turn_is_per_user(harness: Harness) -> None:
    """Two users saying the same thing are two turns: each gets a task."""
    await harness.ask(NOTE, user="alice")
    await harness.ask(NOTE, user="bob")
    assert len(stored_tasks(harness, "alice")) == 1
    assert len(stored_tasks(harness, "bob")) == 1


async def test_client_message_id_makes_different_looking_retries_one_turn(harness: Harness) -> None:
    first = await harness.ask(NOTE, client_message_id="msg-42")
    # A client that re-sends with a trimmed history but the same message id.
    again = await harness.ask(NOTE, history=HISTORY, client_message_id="msg-42")
    assert again.visible == first.visible.replace("好，已记下", "这条消息刚才已经记下了，没有重复创建")
    assert len(stored_tasks(harness)) == 1


async def test_clarification_is_not_remembered_as_the_turn(harness: Harness) -> None:
    """A clarifying answer writes nothing, so answering it creates the task once."""
    question = await harness.ask("帮我记一下")
    assert stored_tasks(harness) == []
    done = await harness.ask("明天下午三点交报告", history=[("user", "帮我记一下"), ("assistant", question.content)])
    assert done.visible == "好，已记下：交报告（重要且紧急；截止 12月1日 周二 15:00）"
    assert len(stored_tasks(harness)) == 1


# --- known gaps of the offline extraction (quicknote/offline.py, core.timeanchor) --------------

GAPS = {
    "impossible_date_is_asked_about": ("帮我记一下2月30日交报告", None),
    "unknown_time_phrase_is_asked_about": ("帮我记一下下个闰月交报告", None),
    "impossible_month_is_asked_about": ("帮我记一下13月5日交报告", None),
    "impossible_clock_time_is_asked_about": ("帮我记一下明天25点交报告", None),
    "priority_label_with_colon_is_not_the_title": ("帮我记一下很重要：明天下午三点交报告", "交报告"),
    "compound_priority_label_is_not_the_title": ("帮我记一下不重要但很麻烦的事：整理旧照片", "整理旧照片"),
    "compound_priority_tail_is_not_the_title": ("帮我记一下整理旧照片，不重要但很麻烦", "整理旧照片"),
    "easy_small_label_is_not_the_title": ("记一下简单的小事：给绿萝浇水", "给绿萝浇水"),
}


@pytest.mark.parametrize(("message", "title"), [pytest.param(*case, id=name) for name, case in GAPS.items()])
async def test_offline_gaps(harness: Harness, message: str, title: str | None) -> None:
    answer = await harness.ask(message)
    if title is None:
        assert_nothing_written(harness, answer)
    else:
        assert [t.title for t in stored_tasks(harness)] == [title]
