"""`suikou demo` and the README's quick start agree: the first things a new user says right after
the demo write what they say, without a near-duplicate question. Fixed now (the harness's)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from app.demo import DEMO_TASKS, seed_demo
from support.harness import TZ, Harness

README = Path(__file__).resolve().parents[2] / "README.md"


def readme_note_examples() -> list[str]:
    """The capture sentences the README shows first: its quick start and its quick_note_create row."""
    text = README.read_text(encoding="utf-8")
    row = next(line for line in text.splitlines() if line.startswith("| `quick_note_create`"))
    quick_start = re.findall(r'"content": "(帮我记[^"]+)"', text)
    return list(dict.fromkeys([*quick_start, *re.findall(r'"([^"]+)" →', row)]))


def test_the_readme_shows_capture_examples() -> None:
    assert "帮我记一下明天下午三点交报告" in readme_note_examples()


@pytest.mark.parametrize("sentence", readme_note_examples())
async def test_a_readme_example_right_after_the_demo_is_written(harness: Harness, sentence: str) -> None:
    user = harness.user("local")
    assert seed_demo(harness.state.session, user, now=harness.now, tz=TZ) == len(DEMO_TASKS)
    answer = await harness.ask(sentence, user="local")
    assert answer.action == "quick_note_create"
    assert "还要再记" not in answer.visible and "已记下" in answer.visible
