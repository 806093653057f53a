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


OVERDUE = ("Renew library card", "Book dentist")  # what must be listed, what must not
TOMORROW = ("Water the ferns", "Book dentist")
QUESTIONS = [
    *[(q, OVERDUE) for q in ("what's overdue?", "What\u2019s overdue?", "anything overdue", "what's late?")],
    *[(q, OVERDUE) for q in ("what am I behind on?", "did I miss any deadlines?", "anything I missed?")],
    *[(q, TOMORROW) for q in ("what do I have tomorrow?", "what have I got tomorrow", "anything for tomorrow?")],
    ("what's on tomorrow", TOMORROW),
]


@pytest.mark.parametrize(("question", "listed"), QUESTIONS)
async def test_a_question_in_other_words_lists_what_it_asks_for(
    seeded: Harness, question: str, listed: tuple[str, str]
) -> None:
    shown, left_out = listed
    answer = await seeded.ask(question)
    assert answer.action == "task_query"
    assert shown in answer.visible
    assert left_out not in answer.visible


@pytest.mark.parametrize(
    "question", ["what's coming up?", "what's pending?", "what should I do now?", "what's still open?"]
)
async def test_open_ended_questions_are_queries(seeded: Harness, question: str) -> None:
    answer = await seeded.ask(question)
    assert answer.action == "task_query"
    assert "Book dentist" in answer.visible
