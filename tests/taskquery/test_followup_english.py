"""English follow-ups to a task list ("5 more", "more", "the rest", "all", "what about next week?"):
whole turns through the offline pipeline, plus the count lock, follow-up detection and routing rules.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from core.countlock import extract_count
from core.turn import HistoryTurn
from route.offline import offline_route
from support.harness import NOW, TZ, Answer, Harness
from taskquery.followup import FollowUp, english_quadrants, find_followup, looks_like_followup
from taskquery.offline import MORE_RE, offline_plan_followup

# title, group, deadline (NOW is Monday 2026-11-30 10:00; "next week" is Dec 7–13)
TASKS: list[tuple[str, int, str]] = [
    ("Pay rent", 1, "2026-12-01 09:00"),
    ("Email the landlord", 3, "2026-12-01 18:00"),
    ("Draft the budget", 2, "2026-12-02 15:00"),
    ("Book a dentist", 4, "2026-12-03 10:00"),
    ("Renew passport", 2, "2026-12-04 12:00"),
    ("Water the plants", 3, "2026-12-05 08:00"),
    ("Quarterly review", 1, "2026-12-08 10:00"),
    ("Team offsite plan", 4, "2026-12-09 16:00"),
]
TITLES = [title for title, _, _ in TASKS]
_LINE = re.compile(r"^(\d+)\. (.+?)(?: \(|（)")


@pytest.fixture
def seeded(harness: Harness) -> Harness:
    for title, group, deadline in TASKS:
        harness.add(title, group, deadline)
    return harness


def numbered(answer: Answer) -> list[tuple[int, str]]:
    """(number, title) of every listed task, in either language."""
    return [(int(m.group(1)), m.group(2)) for m in map(_LINE.match, answer.content.splitlines()) if m]


def plan_data(answer: Answer) -> dict[str, Any]:
    return next(e.data for e in answer.events if e.stage == "plan" and e.status == "end")


def anchor_data(answer: Answer) -> dict[str, Any]:
    return next(e.data for e in answer.events if e.stage == "time_anchor" and e.status == "end")


# --- whole turns -----------------------------------------------------------------------------------


async def test_first_page_offers_more(seeded: Harness) -> None:
    first = await seeded.ask("show me my tasks")
    assert first.action == "task_query"
    assert numbered(first) == list(enumerate(TITLES[:5], start=1))
    assert "Here's what I found (8 matches):\n\n1. " in first.content
    assert first.visible.endswith('3 more not listed — say "3 more" or "all" to see them.')


async def test_two_more_continues_the_numbering(seeded: Harness) -> None:
    _, more = await seeded.converse("show me my tasks", "2 more")
    assert more.action == "task_query"
    assert numbered(more) == [(6, "Water the plants"), (7, "Quarterly review")]
    assert "Here's what I found (8 matches):\n\n6. " in more.content
    assert more.visible.endswith('1 more not listed — say "1 more" or "all" to see them.')
    assert plan_data(more)["explicit_limit"] == 2
    assert anchor_data(more)["limit"] == 2
    assert (more.requests, more.offline_steps) == (0, 3)


async def test_a_chain_of_more_keeps_paging(seeded: Harness) -> None:
    _, two, rest = await seeded.converse("show me my tasks", "2 more", "more")
    assert [n for n, _ in numbered(two)] == [6, 7]
    assert numbered(rest) == [(8, "Team offsite plan")]
    assert "more not listed" not in rest.content


@pytest.mark.parametrize("message", ["3 more please", "three more", "ok, 3 more"])
async def test_n_more_in_other_words(seeded: Harness, message: str) -> None:
    _, more = await seeded.converse("show me my tasks", message)
    assert numbered(more) == [(6, "Water the plants"), (7, "Quarterly review"), (8, "Team offsite plan")]
    assert plan_data(more)["explicit_limit"] == 3


@pytest.mark.parametrize("message", ["more", "next", "next page", "show more", "any more?", "anything else?"])
async def test_more_keeps_the_previous_count(seeded: Harness, message: str) -> None:
    first, more = await seeded.converse("show me 3 tasks", message)
    assert [n for n, _ in numbered(first)] == [1, 2, 3]
    assert more.action == "task_query"
    assert numbered(more) == [(4, "Book a dentist"), (5, "Renew passport"), (6, "Water the plants")]
    assert plan_data(more)["explicit_limit"] is None
    assert anchor_data(more)["limit"] == 3


async def test_more_keeps_the_previous_filters(seeded: Harness) -> None:
    first, more = await seeded.converse("show me 2 tasks due this week", "more")
    assert numbered(first) == [(1, "Pay rent"), (2, "Email the landlord")]
    assert numbered(more) == [(3, "Draft the budget"), (4, "Book a dentist")]
    assert "(6 matches)" in more.content  # this week only: Nov 30 – Dec 6
    assert anchor_data(more)["time_before"] == "2026-12-06T23:59:59+08:00"


async def test_the_rest_lists_everything_after_what_was_shown(seeded: Harness) -> None:
    _, rest = await seeded.converse("show me 2 tasks", "the rest")
    assert [n for n, _ in numbered(rest)] == [3, 4, 5, 6, 7, 8]
    assert plan_data(rest)["wants_all"] is True
    assert anchor_data(rest)["limit"] == 20


@pytest.mark.parametrize("message", ["all", "show all", "all of them"])
async def test_all_lists_the_whole_match_from_the_top(seeded: Harness, message: str) -> None:
    _, everything = await seeded.converse("show me my tasks", message)
    assert everything.action == "task_query"
    assert numbered(everything) == list(enumerate(TITLES, start=1))
    assert plan_data(everything)["wants_all"] is True
    assert "Here's what I found (8 tasks):" in everything.content  # the conversation's language, even for "all"


async def test_all_keeps_the_previous_filters(seeded: Harness) -> None:
    _, everything = await seeded.converse("what's due this week?", "show all")
    assert [title for _, title in numbered(everything)] == TITLES[:6]


async def test_what_about_next_week_switches_the_time(seeded: Harness) -> None:
    _, week = await seeded.converse("show me my tasks", "what about next week?")
    assert week.action == "task_query"
    assert numbered(week) == [(1, "Quarterly review"), (2, "Team offsite plan")]
    anchor = anchor_data(week)
    assert (anchor["time_after"], anchor["time_before"]) == ("2026-12-07T00:00:00+08:00", "2026-12-13T23:59:59+08:00")


async def test_and_tomorrow_switches_the_time(seeded: Harness) -> None:
    _, tomorrow = await seeded.converse("show me my tasks", "and tomorrow?")
    assert numbered(tomorrow) == [(1, "Pay rent"), (2, "Email the landlord")]


async def test_time_switch_keeps_the_priority_filter(seeded: Harness) -> None:
    # The first question's priority words (Chinese, read offline) survive an English time switch.
    _, week = await seeded.converse("重要的任务有哪些", "what about next week?")
    assert numbered(week) == [(1, "Quarterly review")]
    assert next(e.data for e in week.events if e.stage == "quadrant" and e.status == "end")["quadrants"] == [1, 2]


async def test_how_about_the_important_ones_switches_the_priority(seeded: Harness) -> None:
    _, important = await seeded.converse("show me my tasks", "how about the important ones?")
    assert important.action == "task_query"
    assert [title for _, title in numbered(important)] == [
        "Pay rent",
        "Draft the budget",
        "Renew passport",
        "Quarterly review",
    ]
    assert next(e.data for e in important.events if e.stage == "quadrant" and e.status == "end")["quadrants"] == [1, 2]


async def test_english_more_after_a_chinese_list(seeded: Harness) -> None:
    first, more = await seeded.converse("这周有什么任务", "1 more")
    assert [n for n, _ in numbered(first)] == [1, 2, 3, 4, 5]
    assert numbered(more) == [(6, "Water the plants")]
    assert "(6 matches):\n\n6. Water the plants" in more.content


async def test_chinese_more_after_an_english_list_still_works(seeded: Harness) -> None:
    _, more = await seeded.converse("show me my tasks", "再来两个")
    assert more.action == "task_query"
    assert numbered(more) == [(6, "Water the plants"), (7, "Quarterly review")]


@pytest.mark.parametrize("message", ["5 more", "more", "next", "the rest", "all"])
async def test_without_task_history_a_followup_stays_chat(seeded: Harness, message: str) -> None:
    assert (await seeded.ask(message)).action == "chat"
    after_chat = await seeded.ask(message, history=[("user", "hello"), ("assistant", "Hi! How can I help?")])
    assert after_chat.action == "chat"


async def test_a_cold_question_about_a_time_is_a_task_query(seeded: Harness) -> None:
    # It names a time and asks about it: in a task app that asks what is planned then, not for the
    # help text (docs/fdr/0026). Bare "more" / "the rest" name nothing and stay chat without a list.
    assert (await seeded.ask("what about next week?")).action == "task_query"


# --- the count lock --------------------------------------------------------------------------------

EN_LOCKED: list[tuple[str, int]] = [
    ("5 more", 5),
    ("3 more please", 3),
    ("two more tasks", 2),
    ("one more", 1),
    ("another 3", 3),
    ("top 3", 3),
    ("Top three", 3),
    ("first three tasks", 3),
    ("give me 2 tasks", 2),
    ("show me five", 5),
    ("three tasks", 3),
    ("one task", 1),
    ("3 tasks due in 2 days", 3),
    ("in 3 days, give me 2", 2),
]
EN_NOT_LOCKED: list[str] = [
    "in 3 days",
    "next 2 weeks",
    "tasks for the next 2 weeks",
    "Dec 5",
    "tasks due Dec 5",
    "Dec 5 tasks",
    "3pm",
    "what's due at 3pm",
    "show me 3pm tasks",
    "2 days ago",
    "first 2 weeks of December",
    "first one",
    "5 more minutes",
    "one more thing",
    "give me 2 days",
    "these 3 tasks",
    "I have 3 tasks",
    "more",
    "next",
    "a few more",
    "someone tasks",
]


@pytest.mark.parametrize(("text", "count"), EN_LOCKED)
def test_english_counts_lock(text: str, count: int) -> None:
    lock = extract_count(text)
    assert (lock.explicit, lock.wants_all) == (count, False)
    assert lock.phrase is not None and lock.span is not None
    assert text[lock.span[0] : lock.span[1]] == lock.phrase


@pytest.mark.parametrize("text", EN_NOT_LOCKED)
def test_english_numbers_that_are_no_count_do_not_lock(text: str) -> None:
    assert extract_count(text).explicit is None


@pytest.mark.parametrize("text", ["all", "show all", "all of them", "the rest", "rest of them", "the rest of my tasks"])
def test_english_all(text: str) -> None:
    lock = extract_count(text)
    assert (lock.explicit, lock.wants_all) == (None, True)


def test_the_rest_of_the_week_is_a_time_not_all() -> None:
    assert extract_count("tasks for the rest of the week").wants_all is False


# --- follow-up detection ---------------------------------------------------------------------------

CONTINUE = [
    "5 more",
    "3 more please",
    "more",
    "next",
    "next page",
    "show more",
    "Show me more",
    "any more?",
    "anything else?",
    "the rest",
    "ok, 2 more please",
    "another 3",
    "keep going",
]
SWITCH = [
    "all",
    "show all",
    "all of them",
    "what about next week?",
    "and tomorrow?",
    "how about the important ones?",
    "So what about Friday?",
]
NOT_FOLLOWUP = [
    "show me my tasks",
    "what's due tomorrow",
    "what tasks are due next week?",
    "remind me to buy more milk",
    "I need more time",
    "next week",
    "that's all",
    "all right",
    "is that all?",
    "more important tasks?",
    "5 more minutes",
    "one more thing",
    "no more",
    "tell me a joke",
    "top 3",
]


@pytest.mark.parametrize("text", CONTINUE)
def test_continuations_page_on(text: str) -> None:
    assert looks_like_followup(text)
    assert MORE_RE.search(text)


@pytest.mark.parametrize("text", SWITCH)
def test_switches_are_followups_that_start_over(text: str) -> None:
    assert looks_like_followup(text)
    assert not MORE_RE.search(text)


@pytest.mark.parametrize("text", NOT_FOLLOWUP)
def test_questions_of_their_own_are_no_followups(text: str) -> None:
    assert not looks_like_followup(text)


def test_chinese_followups_are_unchanged() -> None:
    for text in ("再来两个", "还有吗", "那下周的呢", "换一批"):
        assert looks_like_followup(text)
    assert not looks_like_followup("这周有什么任务")
    assert not MORE_RE.search("那下周的呢")


ENGLISH_LIST = (
    "Here's what I found:\nHere are 5 tasks (8 matches):\n"
    + "\n".join(f"{i}. Task {i} (important & urgent; due Tue Dec 1, 15:00)" for i in range(1, 6))
    + '\n3 more not listed — say "3 more" or "all" to see them.'
)


@pytest.mark.parametrize(
    ("text", "wants_more"),
    [("2 more", True), ("more", True), ("the rest", True), ("all", False), ("what about next week?", False)],
)
def test_find_followup_after_an_english_list(text: str, wants_more: bool) -> None:
    history = [HistoryTurn("user", "show me my tasks"), HistoryTurn("assistant", ENGLISH_LIST)]
    assert find_followup(text, history) == FollowUp("show me my tasks", 5, wants_more)


def test_find_followup_skips_earlier_followups() -> None:
    second = ENGLISH_LIST.replace("1. Task 1", "6. Task 6").replace("2. Task 2", "7. Task 7")
    history = [
        HistoryTurn("user", "show me my tasks"),
        HistoryTurn("assistant", ENGLISH_LIST),
        HistoryTurn("user", "2 more"),
        HistoryTurn("assistant", second),
    ]
    assert find_followup("more", history) == FollowUp("show me my tasks", 7, True)


def test_no_followup_without_a_list() -> None:
    history = [HistoryTurn("user", "hello"), HistoryTurn("assistant", "Hi! How can I help?")]
    assert find_followup("5 more", history) is None


# --- the merge -------------------------------------------------------------------------------------


def test_merge_counts() -> None:
    assert offline_plan_followup("5 more", "show me 3 tasks", NOW, TZ).limit == 5
    assert offline_plan_followup("more", "show me 3 tasks", NOW, TZ).limit == 3
    assert offline_plan_followup("next page", "show me 3 tasks", NOW, TZ).limit == 3
    assert offline_plan_followup("all", "show me 3 tasks", NOW, TZ).limit is None
    assert offline_plan_followup("the rest", "show me 3 tasks", NOW, TZ).limit is None


def test_merge_switches_time_and_keeps_the_rest() -> None:
    p = offline_plan_followup("what about next week?", "重要的任务有哪些", NOW, TZ)
    assert (p.time_text, p.quadrants) == ("next week", [1, 2])
    p = offline_plan_followup("how about the important ones?", "what's due this week?", NOW, TZ)
    assert (p.time_text, p.quadrants) == ("this week", [1, 2])


@pytest.mark.parametrize(
    ("text", "groups"),
    [
        ("how about the important ones?", [1, 2]),
        ("the urgent ones?", [1]),
        ("important and urgent", [1]),
        ("important but not urgent", [2]),
        ("the easy ones", [3]),
        ("not important ones", [3, 4]),
        ("the hard ones that don't matter", [4]),
        ("non-urgent", [2, 4]),
        ("what about next week?", None),
        ("重要的呢", None),
    ],
)
def test_english_quadrants(text: str, groups: list[int] | None) -> None:
    assert english_quadrants(text) == groups


# --- routing ---------------------------------------------------------------------------------------

QUERY_HISTORY = [HistoryTurn("user", "show me my tasks"), HistoryTurn("assistant", ENGLISH_LIST)]
LAST_PAGE = [
    HistoryTurn("user", "show me my tasks"),
    HistoryTurn("assistant", ENGLISH_LIST),
    HistoryTurn("user", "3 more"),
    HistoryTurn("assistant", "No more.\nThat's all: 8 in total, all listed above."),
]


@pytest.mark.parametrize("text", CONTINUE + SWITCH)
def test_router_reads_followups_after_a_task_query(text: str) -> None:
    assert offline_route(text, QUERY_HISTORY)[0] == "query"
    assert offline_route(text, [HistoryTurn("user", "what's due tomorrow?")])[0] == "query"
    assert offline_route(text, LAST_PAGE)[0] == "query"


@pytest.mark.parametrize("text", CONTINUE + SWITCH)
def test_router_keeps_followups_chat_without_a_task_query(text: str) -> None:
    assert offline_route(text, [])[0] == "chat"
    assert offline_route(text, [HistoryTurn("user", "tell me a joke"), HistoryTurn("assistant", "Why…")])[0] == "chat"


@pytest.mark.parametrize("text", ["three tasks", "give me one task"])
def test_router_reads_word_counts_as_task_questions(text: str) -> None:
    assert offline_route(text, [])[0] == "query"
