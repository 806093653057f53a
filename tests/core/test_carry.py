"""core.carry: the invisible line an answer carries for the next turn, both ways."""

from __future__ import annotations

import re

import pytest

from core import carry

PAYLOAD = {"plan": {"quadrants": [1, 2], "time_text": "下周"}, "words": "那下周的呢\n重要的任务", "offset": 5}


def test_round_trip() -> None:
    text = carry.attach("给你整理了 1 条任务：\n1. 交周报（重要且紧急）", "q1", PAYLOAD)
    assert carry.read(text, "q1") == PAYLOAD
    assert carry.strip(text) == "给你整理了 1 条任务：\n1. 交周报（重要且紧急）"


def test_the_line_is_a_commonmark_link_reference_definition() -> None:
    """A blank line, then `[label]: destination "title"`: Markdown renderers show nothing for it."""
    text = carry.attach("answer", "q1", PAYLOAD)
    body, line = text.rsplit("\n\n", 1)
    assert body == "answer"
    assert re.fullmatch(r'\[suikou\]: # "q1\.[A-Za-z0-9_-]+"', line)


def test_attaching_again_replaces_the_old_line() -> None:
    once = carry.attach("answer", "q1", {"a": 1})
    twice = carry.attach(once, "q1", {"a": 2})
    assert carry.read(twice, "q1") == {"a": 2}
    assert twice.count("[suikou]:") == 1


@pytest.mark.parametrize(
    "text",
    [
        "no line at all",
        '[suikou]: # "q1.!!!"',  # not base64url
        '[suikou]: # "q1.bm90IGpzb24"',  # base64 of "not json"
        '[suikou]: # "q1.WzEsMl0"',  # JSON, but not an object
        '[suikou]: # "q1.' + "A" * 5000 + '"',  # longer than anything we write
        "text\n[suikou]: # q1.eyJhIjoxfQ",  # no quotes: not our line
    ],
)
def test_anything_else_reads_as_nothing(text: str) -> None:
    assert carry.read(text, "q1") is None


def test_another_kind_is_not_read() -> None:
    text = carry.attach("answer", "n1", {"a": 1})
    assert carry.read(text, "q1") is None
    assert carry.read(text, "n1") == {"a": 1}


def test_quoted_text_inside_a_message_is_not_a_line() -> None:
    # The marker must be a whole line of its own; text that merely mentions it is left alone.
    text = 'he said [suikou]: # "q1.eyJhIjoxfQ" yesterday'
    assert carry.read(text, "q1") is None
    assert carry.strip(text) == text
