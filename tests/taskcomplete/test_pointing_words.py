""" "mark it done" / "这个做完了" right after a write completes the task that answer wrote, and
nothing else: "it" is never a title search (it is inside "write report"). Fixed now (the harness's)."""

from __future__ import annotations

import pytest

from support.harness import Harness


async def converse(h: Harness, *said: str) -> list[object]:
    history: list[tuple[str, str]] = []
    answers = []
    for text in said:
        answer = await h.ask(text, history=history)
        history += [("user", text), ("assistant", answer.content)]
        answers.append(answer)
    return answers


@pytest.mark.parametrize(
    ("note", "pointer", "title"),
    [
        ("remind me to call mom at 8am tomorrow", "mark it done", "call mom"),
        ("remind me to buy stamps for friday", "mark that as done", "buy stamps"),
        ("帮我记一下明天早上8点给妈妈打电话", "这个做完了", "给妈妈打电话"),
        ("记一下周五前取护照", "标记完成", "取护照"),
    ],
)
async def test_a_pointer_after_a_note_completes_that_note(
    harness: Harness, note: str, pointer: str, title: str
) -> None:
    other = harness.add("write report", 1, "2026-12-03 18:00")
    _, done = await converse(harness, note, pointer)
    assert done.action == "task_complete"  # type: ignore[attr-defined]
    assert harness.task(other).is_completed is False
    [written] = [t for t in harness.tasks() if t.title == title]
    assert written.is_completed is True


@pytest.mark.parametrize("pointer", ["mark it done", "这个做完了"])
async def test_a_pointer_with_nothing_just_written_asks_and_changes_nothing(harness: Harness, pointer: str) -> None:
    other = harness.add("write report", 1, "2026-12-03 18:00")
    _, answer = await converse(harness, "这周有什么", pointer)
    assert answer.action == "task_complete"  # type: ignore[attr-defined]
    assert harness.task(other).is_completed is False
    assert not harness.changes()
