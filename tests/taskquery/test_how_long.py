"""How long a named task takes ("写周报大概要多久", "how long will the report take"): answered from its
estimate, first, in a sentence (issue 27). NOW is Monday 2026-11-30 10:00 Asia/Shanghai."""

from __future__ import annotations

import pytest

from core.lexicon import how_long_subject
from route.offline import offline_route
from support.harness import Harness

ASKED = [
    ("写周报大概要多久", "写周报"),
    ("写周报要多长时间", "写周报"),
    ("交报告要花多长时间？", "交报告"),
    ("整理发票估计要几个小时", "整理发票"),
    ("做PPT一般要多少时间呢", "做PPT"),
    ("how long will the report take", "report"),
    ("How long does it take to clean the garage?", "clean the garage"),
    ("how much time will my taxes take?", "taxes"),
]
NOT_ASKED = [
    "记一下问问装修要多久",  # a note about finding out
    "提醒我查一下签证要多长时间",
    "这个要多久",  # which task is not said
    "明天有什么任务",
    "how long is the meeting tomorrow on the calendar? no, add it",
]


@pytest.mark.parametrize(("sentence", "subject"), ASKED)
def test_the_task_words_of_a_how_long_question(sentence: str, subject: str) -> None:
    assert how_long_subject(sentence) == subject


@pytest.mark.parametrize("sentence", NOT_ASKED)
def test_not_a_how_long_question(sentence: str) -> None:
    assert how_long_subject(sentence) is None


@pytest.mark.parametrize(("sentence", "_subject"), ASKED)
def test_how_long_questions_route_to_the_query(sentence: str, _subject: str) -> None:
    assert offline_route(sentence, [])[0] == "query", sentence


async def test_the_estimate_is_the_answer(harness: Harness) -> None:
    harness.add("写周报", 2, "2026-12-04 17:00", estimate=90)
    harness.add("交报告", 1, "2026-12-02 18:00")
    harness.add("写周报 bob", 2, user="bob", estimate=5)
    assert (await harness.ask("写周报大概要多久")).visible == "「写周报」预计1小时30分。"
    assert (await harness.ask("交报告要花多长时间？")).visible == "「交报告」还没有预计用时。"
    harness.add("send the quarterly report", 1, estimate=45)
    english = await harness.ask("how long will the quarterly report take?")
    assert english.visible == '"send the quarterly report" takes about 45 min.'
    missing = await harness.ask("买菜要多久")
    assert missing.visible.startswith("没有标题含「买菜」的任务")


async def test_several_matches_are_counted_then_listed_with_their_estimates(harness: Harness) -> None:
    harness.add("写周报", 2, "2026-12-04 17:00", estimate=60)
    harness.add("写周报附录", 2, "2026-12-05 17:00", estimate=180)
    answer = await harness.ask("写周报大概要多久")
    lines = answer.visible.splitlines()
    assert lines[0] == "有 2 条相关的任务，各自的预计用时在下面。"
    assert any(line.endswith("预计1小时）") for line in lines) and any(line.endswith("预计3小时）") for line in lines)
