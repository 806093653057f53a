"""A number pair ("4/5", "9/11", "12.25") is a month/day only on its own: a unit after it makes it a
count, a fraction or a size ("打印4/5页", "3/4 cup"), and a name around it keeps it ("The 9/11
Report"); "N号" before a thing it sizes is not a day ("5号电池")."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from core.timeanchor import resolve_time

NOW = datetime(2026, 11, 30, 10, 0, tzinfo=ZoneInfo("Asia/Shanghai"))

NOT_DATES = [
    "打印4/5页",
    "复印3/4张",
    "加1/2杯牛奶",
    "看完2/3本",
    "print 4/5 pages",
    "add 3/4 cup sugar",
    "eat 1/2 of the cake",
    "read The 9/11 Report",
    "file Form 4/5 Draft",
    "买5号电池",
    "换7号干电池",
]


@pytest.mark.parametrize("text", NOT_DATES)
def test_not_a_date(text: str) -> None:
    assert resolve_time(text, NOW, prefer="future") is None


DATES = [
    ("4/5交报告", "4/5", (4, 5)),
    ("send invoice 12/24", "12/24", (12, 24)),
    ("meet Bob 4/5 Monday", "4/5", (4, 5)),
    ("call mom 4/5 in the morning", "4/5", (4, 5)),
    ("12.25前交", "12.25", (12, 25)),
    ("5号交电费", "5号", (12, 5)),
]


@pytest.mark.parametrize(("text", "phrase", "month_day"), DATES)
def test_still_a_date(text: str, phrase: str, month_day: tuple[int, int]) -> None:
    window = resolve_time(text, NOW, prefer="future")
    assert window is not None and phrase in window.phrase
    moment = window.end or window.start
    assert moment is not None and (moment.month, moment.day) == month_day
