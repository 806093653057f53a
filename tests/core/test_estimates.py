"""Estimates: the minutes an amount says, and minutes said back."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.estimates import ESTIMATE_MAX, minutes_of, text_of


@pytest.mark.parametrize(
    ("amount", "minutes"),
    [
        ("一个小时", 60), ("半小时", 30), ("半个钟头", 30), ("15分钟", 15), ("十五分钟", 15), ("一个半小时", 90),
        ("1个半小时", 90), ("1.5小时", 90), ("两个钟头", 120), ("三天", 1440), ("一个半工作日", 720),
        ("2h", 120), ("2 hrs", 120), ("45 min", 45), ("30 minutes", 30), ("half an hour", 30),
        ("an hour and a half", 90), ("3 hours and a half", 210), ("an hour", 60),
    ],
)  # fmt: skip
def test_an_amount_is_read_as_minutes(amount: str, minutes: int) -> None:
    assert minutes_of(amount) == minutes


@pytest.mark.parametrize("amount", ["几个小时", "一会儿", "some hours", "0分钟", "100天", "", "小时"])
def test_an_amount_without_a_keepable_number_is_none(amount: str) -> None:
    assert minutes_of(amount) is None


@pytest.mark.parametrize(
    ("minutes", "zh", "en"),
    [(45, "45分钟", "45 min"), (60, "1小时", "1 h"), (90, "1小时30分", "1 h 30 min"), (480, "1天", "1 working day"),
     (1440, "3天", "3 working days"), (720, "1.5天", "1.5 working days"), (600, "10小时", "10 h")],
)  # fmt: skip
def test_minutes_are_said_as_people_say_them(minutes: int, zh: str, en: str) -> None:
    assert (text_of(minutes), text_of(minutes, "en")) == (zh, en)


@given(st.integers(min_value=1, max_value=ESTIMATE_MAX))
def test_what_is_said_back_reads_back_as_the_same_minutes(minutes: int) -> None:
    said = text_of(minutes)
    if "分" in said and "小时" in said:  # "1小时30分" is two amounts: each reads back
        hours, rest = said.removesuffix("分").split("小时")
        assert minutes_of(f"{hours}小时") + int(rest) == minutes  # type: ignore[operator]
    else:
        assert minutes_of(said.replace("天", "个工作日") if "天" in said else said) == minutes
