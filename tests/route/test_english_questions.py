"""Everyday English questions about one's tasks are task queries, never the self-introduction.

Fixed now: Monday 2026-11-30 10:00 Asia/Shanghai.
"""

from __future__ import annotations

import pytest

from support.harness import Harness


@pytest.fixture
def seeded(harness: Harness) -> Harness:
    harness.add("Renew library card", 2, "2026-11-27 18:00")  # overdue
    harness.add("Water the ferns", 3, "2026-12-01 09:00")  # tomorrow
    harness.add("Book dentist", 1, "2026-12-04 12:00")
    return harness


@pytest.mark.parametrize(
    "question",
    [
        "what's overdue?",
        "What\u2019s overdue?",
        "anything overdue",
        "what's late?",
        "what am I behind on?",
        "did I miss any deadlines?",
        "anything I missed?",
    ],
)
async def test_overdue_in_other_words_lists_the_overdue(seeded: Harness, question: str) -> None:
    answer = await seeded.ask(question)
    assert answer.action == "task_query"
    assert "Renew library card" in answer.visible
    assert "Book dentist" not in answer.visible


@pytest.mark.parametrize(
    "question",
    ["what do I have tomorrow?", "what have I got tomorrow", "anything for tomorrow?", "what's on tomorrow"],
)
async def test_tomorrow_in_other_words_lists_tomorrow(seeded: Harness, question: str) -> None:
    answer = await seeded.ask(question)
    assert answer.action == "task_query"
    assert "Water the ferns" in answer.visible
    assert "Book dentist" not in answer.visible


@pytest.mark.parametrize(
    "question", ["what's coming up?", "what's pending?", "what should I do now?", "what's still open?"]
)
async def test_open_ended_questions_are_queries(seeded: Harness, question: str) -> None:
    answer = await seeded.ask(question)
    assert answer.action == "task_query"
    assert "Book dentist" in answer.visible
