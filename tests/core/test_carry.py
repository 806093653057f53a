"""core.carry: the invisible line an answer carries for the next turn, both ways."""

from __future__ import annotations

import re

import pytest

from core import carry

PAYLOAD = {"plan": {"quadrants": [1, 2], "time_text": "下周"}, "words": "那下周的呢\n重要的任务", "offset": 5}
SEAL = carry.Seal(b"a deployment's secret", user_id=7)


def test_round_trip() -> None:
    text = carry.attach("给你整理了 1 条任务：\n1. 交周报（重要且紧急）", "q1", PAYLOAD, SEAL)
    assert carry.read(text, "q1", SEAL) == PAYLOAD
    assert carry.strip(text) == "给你整理了 1 条任务：\n1. 交周报（重要且紧急）"


def test_the_line_is_a_commonmark_link_reference_definition() -> None:
    """A blank line, then `[label]: destination "title"`: Markdown renderers show nothing for it."""
    text = carry.attach("answer", "q1", PAYLOAD, SEAL)
    body, line = text.rsplit("\n\n", 1)
    assert body == "answer"
    assert re.fullmatch(r'\[suikou\]: # "q1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{22}"', line)


@pytest.mark.parametrize("appended", ["OK", " OK", "继续说明一下。"])
def test_a_record_is_still_read_when_a_client_appended_text_to_its_line(appended: str) -> None:
    # Open WebUI's "Continue" appends the reply right after the closing quote (no newline).
    text = carry.attach("answer", "w1", PAYLOAD, SEAL) + appended
    assert carry.read(text, "w1", SEAL) == PAYLOAD
    assert carry.strip(text) == "answer"


def test_attaching_again_replaces_the_old_line() -> None:
    once = carry.attach("answer", "q1", {"a": 1}, SEAL)
    twice = carry.attach(once, "q1", {"a": 2}, SEAL)
    assert carry.read(twice, "q1", SEAL) == {"a": 2}
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
    assert carry.read(text, "q1", SEAL) is None


def test_another_kind_is_not_read() -> None:
    text = carry.attach("answer", "n1", {"a": 1}, SEAL)
    assert carry.read(text, "q1", SEAL) is None
    assert carry.read(text, "n1", SEAL) == {"a": 1}


def test_quoted_text_inside_a_message_is_not_a_line() -> None:
    # The marker must be a whole line of its own; text that merely mentions it is left alone.
    text = 'he said [suikou]: # "q1.eyJhIjoxfQ" yesterday'
    assert carry.read(text, "q1", SEAL) is None
    assert carry.strip(text) == text


# --- the signature: a record is client input ------------------------------------------------


def _resigned(text: str, payload: dict[str, object], seal: carry.Seal) -> str:
    return carry.strip(text) + "\n\n" + carry.line("q1", payload, seal)


def test_an_unsigned_record_reads_as_absent() -> None:
    """What the release before signing wrote (and what anyone can forge): ignored, never trusted."""
    text = 'answer\n\n[suikou]: # "q1.eyJhIjoxfQ"'
    assert carry.read(text, "q1", SEAL) is None
    assert carry.strip(text) == "answer"  # still never shown or passed to a model


@pytest.mark.parametrize(
    "other",
    [
        carry.Seal(b"a deployment's secret", user_id=8),  # another user's record, copied over
        carry.Seal(b"another deployment", user_id=7),  # another deployment's (or a rotated key)
    ],
    ids=["other-user", "other-secret"],
)
def test_a_record_signed_for_someone_else_reads_as_absent(other: carry.Seal) -> None:
    assert carry.read(carry.attach("answer", "q1", PAYLOAD, other), "q1", SEAL) is None


def test_an_edited_payload_or_kind_reads_as_absent() -> None:
    text = carry.attach("answer", "q1", {"offset": 5}, SEAL)
    _body, line = text.rsplit("\n\n", 1)
    kind_data, tag = line.removeprefix('[suikou]: # "').removesuffix('"').rsplit(".", 1)
    forged_data = carry.line("q1", {"offset": 2**63}, SEAL).split(".")[1]
    assert carry.read(f'x\n\n[suikou]: # "q1.{forged_data}.{tag}"', "q1", SEAL) is None
    assert carry.read(f'x\n\n[suikou]: # "n1.{kind_data.split(".")[1]}.{tag}"', "n1", SEAL) is None
    flipped = tag[:-1] + ("B" if tag[-1] == "A" else "A")
    assert carry.read(f'x\n\n[suikou]: # "{kind_data}.{flipped}"', "q1", SEAL) is None


def test_depth_is_bounded_even_when_signed() -> None:
    deep: dict[str, object] = {"a": 1}
    for _ in range(carry.MAX_DEPTH):
        deep = {"a": deep}
    assert carry.read(_resigned("x", deep, SEAL), "q1", SEAL) is None
    shallow: dict[str, object] = {"a": [1, {"b": [2]}]}
    assert carry.read(_resigned("x", shallow, SEAL), "q1", SEAL) == shallow


def test_thousand_deep_nesting_is_no_error() -> None:
    """json's own recursion limit is an error, not a 500: the record reads as absent."""
    raw = "[" * 1200 + "]" * 1200
    data = __import__("base64").urlsafe_b64encode(raw.encode()).decode().rstrip("=")
    text = f'x\n\n[suikou]: # "q1.{data}.{SEAL.tag("q1", data)}"'
    assert carry.read(text, "q1", SEAL) is None
