"""Unit tests of the quick-note steps: deadline anchoring, priority and threshold, confirmation text.

Fixed now: Monday 2026-11-30 10:00 Asia/Shanghai.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from core.models import Task
from quicknote import steps
from quicknote.boundary import settle_note
from quicknote.draft import NoteDraft
from quicknote.offline import offline_extract_note
from quicknote.rendering import NO_TITLE_QUESTION, confirmation, unclear_time_question
from quicknote.state import NoteState
from support.harness import NOW, TZ, local


def state_for(draft: NoteDraft, sentence: str = "帮我记一下交报告") -> NoteState:
    return NoteState(sentence=sentence, now=NOW, tz=TZ, draft=draft)


# --- anchor_deadline ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("time_text", "deadline"),
    [
        ("明天下午三点", "2026-12-01 15:00:00"),
        ("下周一上午10点", "2026-12-07 10:00:00"),
        ("周五之前", "2026-12-04 23:59:59"),
        ("月底前", "2026-11-30 23:59:59"),  # now is the last day of November
        ("今晚", "2026-11-30 23:59:59"),
        ("后天", "2026-12-02 23:59:59"),
        ("12月5日", "2026-12-05 23:59:59"),
        ("三天内", "2026-12-03 23:59:59"),
        ("下个月", "2026-12-31 23:59:59"),
        ("明天下午3点前", "2026-12-01 15:00:00"),  # a named clock time wins over the window's end
        ("周五下午五点之前", "2026-12-04 17:00:00"),
        ("农历腊月二十三", "2027-01-30 23:59:59"),  # the lunar calendar (FDR 0014): 小年 of lunar 2026
        ("下个工作日", "2026-12-01 23:59:59"),
    ],
)
def test_anchor_deadline_resolves_the_phrase_in_code(time_text: str, deadline: str) -> None:
    # The model's absolute deadline is only a fallback: a resolvable phrase wins over it.
    wrong = local("2030-01-01 00:00")
    state = state_for(NoteDraft(title="交报告", time_text=time_text, deadline_at=wrong))
    assert steps.anchor_deadline(state) is True
    assert state.deadline_at == local(deadline)
    assert state.window is not None


def test_anchor_deadline_without_a_time_phrase_keeps_no_deadline() -> None:
    state = state_for(NoteDraft(title="洗车"), "添加待办：洗车")
    assert steps.anchor_deadline(state) is True
    assert state.deadline_at is None
    assert state.window is None


@pytest.mark.parametrize("time_text", ["下个闰月", "2月30日", "农历腊月三十一"])
def test_anchor_deadline_unresolvable_phrase_is_not_understood(time_text: str) -> None:
    state = state_for(NoteDraft(title="交报告", time_text=time_text), f"帮我记一下{time_text}交报告")
    assert steps.anchor_deadline(state) is False
    assert state.deadline_at is None


def test_anchor_deadline_unresolvable_phrase_falls_back_to_the_models_absolute_deadline() -> None:
    given = local("2027-01-20 18:00")
    state = state_for(NoteDraft(title="交报告", time_text="下个闰月", deadline_at=given))
    assert steps.anchor_deadline(state) is True
    assert state.deadline_at == given


def test_a_garbled_model_phrase_is_replaced_by_the_sentences_own() -> None:
    # A model that copied the phrase badly ("下五三点") still gets the sentence's own phrase: the
    # boundary settles the draft against the rules before the anchor runs.
    sentence = "帮我记一下明天下午三点交报告"
    proposed = NoteDraft(title="交报告", time_text="下五三点")
    settled = settle_note(proposed, offline_extract_note(sentence, NOW, TZ), sentence, NOW, TZ)
    assert settled.draft.time_text == "明天下午三点"
    assert any("下五三点" in note for note in settled.overridden)
    state = state_for(settled.draft, sentence)
    assert steps.anchor_deadline(state) is True
    assert state.deadline_at == local("2026-12-01 15:00")


def test_a_model_deadline_without_a_phrase_is_never_used() -> None:
    state = state_for(NoteDraft(title="交报告", deadline_at=local("2031-12-01 15:00")), "帮我记一下交报告")
    assert steps.anchor_deadline(state) is True
    assert state.deadline_at is None


def test_anchor_deadline_impossible_clock_time_is_not_understood() -> None:
    state = state_for(NoteDraft(title="交报告", time_text="明天25点"), "帮我记一下明天25点交报告")
    assert steps.anchor_deadline(state) is False


# --- priority_step -----------------------------------------------------------------------------


@pytest.mark.parametrize("group", [2, 4])
def test_priority_threshold_is_24h_before_the_deadline_for_groups_2_and_4(group: int) -> None:
    state = state_for(NoteDraft(title="开组会", priority_group=group, priority_reason="有截止时间但还早"))
    state.deadline_at = local("2026-12-07 10:00")
    assert steps.priority_step(state) == "有截止时间但还早"
    assert state.priority_group == group
    assert state.urgency_threshold_at == local("2026-12-06 10:00")
    assert timedelta(hours=24) == steps.URGENCY_LEAD


@pytest.mark.parametrize("group", [1, 3])
def test_priority_no_threshold_for_groups_that_cannot_be_promoted(group: int) -> None:
    state = state_for(NoteDraft(title="交报告", priority_group=group))
    state.deadline_at = local("2026-12-07 10:00")
    steps.priority_step(state)
    assert state.priority_group == group
    assert state.urgency_threshold_at is None


def test_priority_no_threshold_without_a_deadline() -> None:
    state = state_for(NoteDraft(title="洗车", priority_group=2))
    assert steps.priority_step(state) == "默认优先级"
    assert state.urgency_threshold_at is None


def test_priority_threshold_inside_the_last_day_is_already_due() -> None:
    # Due in 5 hours: the threshold (deadline − 24 h) is in the past, so reads promote it at once.
    state = state_for(NoteDraft(title="交报告", priority_group=2))
    state.deadline_at = local("2026-11-30 15:00")
    steps.priority_step(state)
    assert state.urgency_threshold_at == local("2026-11-29 15:00")
    assert state.urgency_threshold_at < NOW


def test_priority_explicit_threshold_phrase_wins_over_the_default_lead() -> None:
    draft = NoteDraft(title="交报告", priority_group=2, urgency_threshold_text="周三")
    state = state_for(draft)
    state.deadline_at = local("2026-12-04 23:59:59")
    steps.priority_step(state)
    assert state.urgency_threshold_at == local("2026-12-02 00:00")


def test_priority_unresolvable_threshold_phrase_falls_back_to_the_default_lead() -> None:
    draft = NoteDraft(title="交报告", priority_group=4, urgency_threshold_text="差不多的时候")
    state = state_for(draft)
    state.deadline_at = local("2026-12-04 23:59:59")
    steps.priority_step(state)
    assert state.urgency_threshold_at == local("2026-12-03 23:59:59")


# --- rendering ---------------------------------------------------------------------------------


def task(title: str, group: int, deadline: datetime | None = None) -> Task:
    return Task(
        id=1, user_id=1, title=title, priority_group=group, deadline_at=deadline, created_at=NOW, updated_at=NOW
    )


def test_confirmation_matches_the_brief() -> None:
    deadline = datetime(2026, 12, 1, 7, 0, tzinfo=UTC)  # stored as UTC, shown in the user's zone
    assert (
        confirmation(task("交报告", 1, deadline), TZ, NOW)
        == "好，已记下：交报告（重要且紧急；截止 12月1日 周二 15:00）"
    )


@pytest.mark.parametrize(
    ("group", "label"), [(1, "重要且紧急"), (2, "重要不紧急"), (3, "简单不重要"), (4, "不简单不重要")]
)
def test_confirmation_without_deadline_names_the_group(group: int, label: str) -> None:
    assert confirmation(task("洗车", group), TZ, NOW) == f"好，已记下：洗车（{label}）"


def test_confirmation_shows_the_year_only_when_it_differs() -> None:
    text = confirmation(task("续签合同", 2, local("2027-01-05 09:30")), TZ, NOW)
    assert text == "好，已记下：续签合同（重要不紧急；截止 2027年1月5日 周二 09:30）"


def test_confirmation_in_another_timezone() -> None:
    deadline = local("2026-12-01 15:00")
    text = confirmation(task("交报告", 1, deadline), "Europe/London", NOW)
    assert text == "好，已记下：交报告（重要且紧急；截止 12月1日 周二 07:00）"


def test_clarifying_questions() -> None:
    assert NO_TITLE_QUESTION.startswith("要记什么呢？")
    question = unclear_time_question("交报告", "下个闰月")
    assert "「下个闰月」具体是什么时候？" in question
    assert "我还没记下「交报告」" in question


@pytest.mark.parametrize("phrase", ["13月5日", "明天25点", "下个闰月5号"])
def test_anchor_deadline_partly_read_phrase_is_not_understood(phrase: str) -> None:
    state = state_for(NoteDraft(title="交报告", time_text=phrase), f"帮我记一下{phrase}交报告")
    assert steps.anchor_deadline(state) is False
    assert state.deadline_at is None


@pytest.mark.parametrize("phrase", ["今天下班前", "周五之前", "12月5日下午3点半", "明天晚上8点前"])
def test_anchor_deadline_accepts_phrases_with_non_time_words(phrase: str) -> None:
    state = state_for(NoteDraft(title="交报告", time_text=phrase), f"帮我记一下{phrase}交报告")
    assert steps.anchor_deadline(state) is True
    assert state.deadline_at is not None
