"""A question about a day its month does not have is answered so, not with the date dropped."""

from __future__ import annotations

import pytest

from core.timeanchor.missing import missing_day
from support.harness import Harness


@pytest.mark.parametrize(
    ("question", "says"),
    [
        ("2019年2月29日完成了什么", "2019年2月只有 28 天"),
        ("4月31日有什么要做的", "4月最多 30 天"),
        ("二零二七年六月三十一号要交什么", "2027年6月只有 30 天"),
    ],
)
async def test_a_missing_day_is_said_and_nothing_is_listed(harness: Harness, question: str, says: str) -> None:
    harness.add("交报告", 1, "2026-12-01 15:00")
    answer = await harness.ask(question)
    assert answer.action == "task_query"
    assert says in answer.content and "交报告" not in answer.content


async def test_a_real_leap_day_is_read(harness: Harness) -> None:
    harness.add("交报告", 1, "2028-02-29 15:00")
    answer = await harness.ask("2028年2月29日有什么要做的")
    assert "交报告" in answer.content


@pytest.mark.parametrize(
    ("text", "found"),
    [("2019年2月29日完成了什么", "2019年2月29日"), ("4月31号", "4月31号"), ("2月28日", None), ("13月5日", None)],
)
def test_missing_day(text: str, found: str | None) -> None:
    got = missing_day(text)
    assert (got.phrase if got else None) == found
