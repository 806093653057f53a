"""detect_locale: the user's latest message picks the answer language; Chinese is the default."""

from __future__ import annotations

import pytest

from core.locale import detect_locale


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("帮我记一下明天交报告", "zh"),
        ("what do I have due this week?", "en"),
        ("remind me to call mom at 8pm", "en"),
        ("Café at 3", "en"),  # accented Latin is still Latin
        ("帮我看看 project X 的任务", "zh"),  # mixed: any CJK character wins
        ("show me the tasks。", "zh"),  # CJK punctuation means a Chinese input method
        ("ｏｋ", "zh"),  # full-width forms count as Chinese
        ("12:30 👍", "zh"),  # no letters at all
        ("2026-12-01", "zh"),
        ("🎉🎉", "zh"),
        ("top5", "zh"),  # a count idiom Chinese users type too: too few letters to tell
        ("Top 3", "zh"),
        ("todo", "en"),
        ("", "zh"),
        ("   ", "zh"),
    ],
)
def test_detect_locale(text: str, expected: str) -> None:
    assert detect_locale(text) == expected


def test_a_message_too_short_to_tell_follows_the_conversation() -> None:
    assert detect_locale("all", ["show me my tasks"]) == "en"
    assert detect_locale("top5", ["这周有什么要交的", "ok"]) == "zh"
    assert detect_locale("all", ["ok"]) == "zh"  # nothing decisive: the default
    assert detect_locale("全部", ["show me my tasks"]) == "zh"  # a decisive message wins
