"""Splitting one message into several notes (quicknote/split.py): what splits, what stays one.

Fixed now: Monday 2026-11-30 10:00 Asia/Shanghai.
"""

from __future__ import annotations

import pytest

from quicknote.split import split_note
from support.harness import NOW, TZ
from tests.quicknote.test_scenarios import GAPS, SCENARIOS

SPLITS: dict[str, tuple[str, list[str]]] = {
    "comma_two_times": ("明天买牛奶，周五交报告", ["明天买牛奶", "周五交报告"]),
    "lead_colon_list": ("记一下：买菜、取快递和交水费", ["买菜", "取快递", "交水费"]),
    # A part that names only a time of day is on the day the part before it named.
    "short_lead_semicolon_day_carried": (
        "帮我记：明天上午开会；下午三点给张总回电话",
        ["明天上午开会", "明天下午三点给张总回电话"],
    ),
    "day_carried_from_weekday": ("周五交报告，晚上8点聚餐", ["周五交报告", "周五晚上8点聚餐"]),
    "no_day_to_carry": ("下午三点开会，晚上8点给妈妈打电话", ["下午三点开会", "晚上8点给妈妈打电话"]),
    "own_day_kept": ("明天上午开会，周五下午三点交报告", ["明天上午开会", "周五下午三点交报告"]),
    "english_and": (
        "remind me to buy milk tomorrow and send the report on Friday",
        ["buy milk tomorrow", "send the report on Friday"],
    ),
    "full_stops": ("明天买牛奶。周五交报告。", ["明天买牛奶", "周五交报告"]),
    "then": ("明天交报告然后周五开会", ["明天交报告", "周五开会"]),
    "also": ("记一下买牛奶还有取快递", ["买牛奶", "取快递"]),
    "own_time_without_verb": ("明天牙医，周五交报告", ["明天牙医", "周五交报告"]),
    "label_applies_to_every_part": (
        "帮我记一下很重要的事：明天交报告，周五交房租",
        ["很重要的事：明天交报告", "很重要的事：周五交房租"],
    ),
    "preposition_then_verb": ("明天取快递，给张总回电话", ["明天取快递", "给张总回电话"]),
}

STAYS_ONE = {
    "two_objects": "买牛奶和面包",
    "two_days_one_meeting": "明天和后天都要开会",
    "two_people_one_email": "给张总和李总发邮件",
    "and_inside_a_name": "明天去和平饭店吃饭",
    "english_two_objects": "buy milk and bread",
    "list_of_things": "记一下：牛奶、面包、鸡蛋",
    "priority_remark": "明天下午三点交报告，很重要",
    "offhand_remark": "记一下买瓶酱油，顺手的事",
    "threshold_clause": "帮我记一下周五交报告，周三开始要紧",
    "lead_clause": "帮我记一下后天交报告，提前两天提醒我",
    "short_lead_single": "帮我记：明天上午开会",
}


@pytest.mark.parametrize(("message", "parts"), [pytest.param(*case, id=name) for name, case in SPLITS.items()])
def test_splits(message: str, parts: list[str]) -> None:
    assert split_note(message, NOW, TZ) == parts


@pytest.mark.parametrize("message", [pytest.param(m, id=name) for name, m in STAYS_ONE.items()])
def test_stays_one(message: str) -> None:
    assert split_note(message, NOW, TZ) == [message]


@pytest.mark.parametrize("message", [s.message for s in SCENARIOS.values()] + [message for message, _ in GAPS.values()])
def test_every_single_note_scenario_stays_one(message: str) -> None:
    assert split_note(message, NOW, TZ) == [message]
