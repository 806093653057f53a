"""core.recurrence.rule: what make() keeps and what it refuses, the stored form, and hostile rules."""

from __future__ import annotations

import time
from datetime import datetime
from itertools import pairwise
from zoneinfo import ZoneInfo

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.recurrence import MAX_COUNT, MAX_RULE_CHARS, Recurrence, RuleError, make, occurrences

TZ = "Asia/Shanghai"
SH = ZoneInfo(TZ)
START = datetime(2026, 12, 1, 9, 0)  # naive: wall-clock time in TZ


def _make(rule: str) -> Recurrence:
    return make(rule, start=START, tz=TZ)


@pytest.mark.parametrize(
    ("rule", "why"),
    [
        ("FREQ=HOURLY", "nothing finer than a day"),
        ("FREQ=MINUTELY;INTERVAL=5", "nothing finer than a day"),
        ("FREQ=SECONDLY", "nothing finer than a day"),
        ("BYDAY=MO", "FREQ must be"),
        ("FREQ=DAILY;INTERVAL=0", "INTERVAL"),
        ("FREQ=DAILY;INTERVAL=401", "INTERVAL"),
        ("FREQ=DAILY;INTERVAL=-2", "INTERVAL"),
        (f"FREQ=DAILY;COUNT={MAX_COUNT + 1}", "COUNT"),
        ("FREQ=DAILY;COUNT=0", "COUNT"),
        ("FREQ=DAILY;COUNT=3;UNTIL=20270101", "COUNT and UNTIL"),
        ("FREQ=DAILY;BYHOUR=9", "unknown rule part BYHOUR"),
        ("FREQ=DAILY;X-COLOR=RED", "unknown rule part"),
        ("FREQ=DAILY;FREQ=WEEKLY", "given twice"),
        ("FREQ=WEEKLY;BYDAY=MO;BYDAY=TU", "given twice"),
        ("FREQ=DAILY;;COUNT", "NAME=VALUE"),
        ("FREQ=DAILY;COUNT=", "NAME=VALUE"),
        ("FREQ=WEEKLY;BYDAY=XX", "BYDAY"),
        ("FREQ=WEEKLY;BYDAY=MO;WKST=ZZ", "WKST"),
        ("FREQ=MONTHLY;BYMONTHDAY=0", "BYMONTHDAY"),
        ("FREQ=MONTHLY;BYMONTHDAY=32", "BYMONTHDAY"),
        ("FREQ=YEARLY;BYMONTH=13", "BYMONTH"),
        ("FREQ=YEARLY;BYMONTH=one", "BYMONTH"),
        ("FREQ=YEARLY;BYYEARDAY=400", "BYYEARDAY"),
        ("FREQ=YEARLY;BYWEEKNO=60", "BYWEEKNO"),
        ("FREQ=MONTHLY;BYDAY=MO;BYSETPOS=0", "BYSETPOS"),
        ("FREQ=DAILY;BYDAY=1MO", "numbered BYDAY"),
        ("FREQ=WEEKLY;BYMONTHDAY=3", "cannot be used with FREQ=WEEKLY"),
        ("FREQ=MONTHLY;BYYEARDAY=100", "cannot be used"),
        ("FREQ=DAILY;UNTIL=tomorrow", "UNTIL"),
        ("FREQ=DAILY;UNTIL=20261399", "not a real date"),
        ("FREQ=DAILY;X-DAYS=CN-HOLIDAY", "X-DAYS must be one of"),
        ("FREQ=YEARLY;X-TERM=MIDSUMMER", "X-TERM"),
        ("FREQ=MONTHLY;X-TERM=DONGZHI", "X-TERM"),
        ("RSCALE=HEBREW;FREQ=YEARLY", "RSCALE must be one of"),
        ("RSCALE=CHINESE;FREQ=WEEKLY", "lunar rule"),
        ("RSCALE=CHINESE;FREQ=MONTHLY;BYDAY=MO", "lunar rule"),
        ("RSCALE=CHINESE;FREQ=MONTHLY;BYMONTHDAY=31", "lunar BYMONTHDAY"),
        ("RSCALE=CHINESE;FREQ=YEARLY;INTERVAL=2;BYMONTH=8;BYMONTHDAY=15", "INTERVAL"),
        ("FREQ=MONTHLY;SKIP=OMIT", "SKIP needs RSCALE"),
        ("FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30", "never occurs"),
        ("FREQ=YEARLY;BYMONTH=4,6,9,11;BYMONTHDAY=31", "never occurs"),
    ],
)
def test_make_refuses_and_names_the_problem(rule: str, why: str) -> None:
    with pytest.raises(RuleError, match=why):
        _make(rule)


def test_an_over_long_rule_is_refused_before_it_is_read() -> None:
    rule = "FREQ=WEEKLY;BYDAY=" + ",".join(["MO"] * 100)
    assert len(rule) > MAX_RULE_CHARS
    with pytest.raises(RuleError, match=f"longer than {MAX_RULE_CHARS}"):
        _make(rule)


def test_an_unknown_zone_and_a_far_start_are_refused() -> None:
    with pytest.raises(RuleError, match="unknown timezone"):
        make("FREQ=DAILY", start=START, tz="Mars/Olympus_Mons")
    with pytest.raises(RuleError, match="start between"):
        make("FREQ=DAILY", start=datetime(9000, 1, 1), tz=TZ)


def test_make_normalises_case_prefix_and_stray_separators() -> None:
    rec = make("  rrule:freq=weekly; byday = mo,we;  ", start=START, tz=TZ)
    assert rec.rule == "FREQ=WEEKLY;BYDAY=MO,WE"
    assert rec.parts() == {"FREQ": "WEEKLY", "BYDAY": "MO,WE"}


def test_a_naive_start_is_wall_clock_and_an_aware_one_is_converted() -> None:
    naive = make("FREQ=DAILY", start=START, tz=TZ)
    aware = make("FREQ=DAILY", start=datetime(2026, 12, 1, 1, 0, tzinfo=ZoneInfo("UTC")), tz=TZ)
    assert naive.start == aware.start == datetime(2026, 12, 1, 9, 0, tzinfo=SH)
    assert str(aware.start.tzinfo) == TZ


@pytest.mark.parametrize(
    "rule",
    [
        "FREQ=WEEKLY;BYDAY=MO",
        "FREQ=DAILY;X-DAYS=CN-WORKDAY",
        "RSCALE=CHINESE;FREQ=YEARLY;BYMONTH=12;BYMONTHDAY=-1",
        "FREQ=YEARLY;X-TERM=DONGZHI",
        "FREQ=DAILY;INTERVAL=3;X-FROM=COMPLETION",
        "FREQ=MONTHLY;BYMONTHDAY=28,29,30,31;BYSETPOS=-1;UNTIL=20271231T235959",
    ],
)
def test_ical_round_trip(rule: str) -> None:
    rec = make(rule, start=datetime(2026, 12, 1, 9, 30, 15), tz="Europe/Berlin")
    text = rec.to_ical()
    assert text == f"DTSTART;TZID=Europe/Berlin:20261201T093015\nRRULE:{rule}"
    assert Recurrence.from_ical(text) == rec


@pytest.mark.parametrize(
    "text",
    ["", "RRULE:FREQ=DAILY", "DTSTART:20261201T090000\nRRULE:FREQ=DAILY", "DTSTART;TZID=Asia/Shanghai:2026\nRRULE:X"],
)
def test_from_ical_refuses_what_is_not_a_stored_rule(text: str) -> None:
    with pytest.raises(RuleError):
        Recurrence.from_ical(text)


@settings(max_examples=100, deadline=None)
@given(
    tz=st.sampled_from(["Asia/Shanghai", "Nowhere/X", "UTC"]),
    stamp=st.from_regex(r"\d{8}T\d{6}", fullmatch=True),
    rule=st.sampled_from(["FREQ=DAILY", "FREQ=HOURLY", "FREQ=WEEKLY;BYDAY=MO", "X"]),
)
def test_from_ical_of_any_stored_text_is_a_recurrence_or_rule_error(tz: str, stamp: str, rule: str) -> None:
    # A stored value that went bad (a hand-edited row) must not crash the series code (it catches RuleError).
    try:
        rec = Recurrence.from_ical(f"DTSTART;TZID={tz}:{stamp}\nRRULE:{rule}")
    except RuleError:
        return
    assert rec.rule == rule and rec.tz == tz


def test_from_ical_validates_the_rule_it_reads() -> None:
    with pytest.raises(RuleError, match="nothing finer"):
        Recurrence.from_ical("DTSTART;TZID=Asia/Shanghai:20261201T090000\nRRULE:FREQ=HOURLY")


def test_from_completion_flag_and_rebase() -> None:
    rec = _make("FREQ=DAILY;INTERVAL=3;X-FROM=COMPLETION")
    assert rec.from_completion and not _make("FREQ=DAILY").from_completion
    moved = rec.rebased(datetime(2026, 12, 5, 2, 0, tzinfo=ZoneInfo("UTC")))
    assert moved.start == datetime(2026, 12, 5, 10, 0, tzinfo=SH) and moved.rule == rec.rule


# --- hostile and rare rules stay bounded -------------------------------------------------------


@pytest.mark.parametrize(
    "rule",
    [
        "FREQ=DAILY;BYMONTH=2;BYMONTHDAY=29;X-DAYS=CN-WORKDAY",
        "FREQ=DAILY;BYMONTH=2;BYMONTHDAY=29;BYDAY=MO",  # a Monday 29 February: once in 28 years at best
        "FREQ=DAILY;X-DAYS=CN-AFTER-HOLIDAY;COUNT=1000",
        "FREQ=YEARLY;BYWEEKNO=53;BYDAY=TH",
        "FREQ=DAILY;INTERVAL=400;BYMONTH=2;BYMONTHDAY=29",
    ],
)
def test_rare_rules_answer_quickly_and_in_order(rule: str) -> None:
    began = time.perf_counter()
    try:
        rec = _make(rule)
    except RuleError:
        return  # "never occurs" (within the horizon) is an acceptable answer, as long as it is quick
    found = occurrences(rec, after=rec.start, limit=50, inclusive=True)
    assert time.perf_counter() - began < 1.5
    assert found == sorted(set(found)) and all(f >= rec.start for f in found)


def test_a_rule_that_never_occurs_is_refused_quickly() -> None:
    began = time.perf_counter()
    with pytest.raises(RuleError, match="never occurs"):
        _make("FREQ=DAILY;BYMONTH=4;BYMONTHDAY=31")  # dateutil alone walks every day to year 9999
    assert time.perf_counter() - began < 1.0


_VALUES = {
    "FREQ": st.sampled_from(["DAILY", "WEEKLY", "MONTHLY", "YEARLY", "HOURLY", "daily", ""]),
    "INTERVAL": st.integers(-2, 500).map(str),
    "COUNT": st.integers(-1, 1200).map(str),
    "UNTIL": st.sampled_from(["20261231", "20270615T120000", "20261201T085959Z", "20200101", "2027", "x"]),
    "BYDAY": st.lists(
        st.sampled_from(["MO", "TU", "WE", "TH", "FR", "SA", "SU", "1MO", "-1FR", "2SU", "53TH", "0MO", "XX"]),
        min_size=1,
        max_size=4,
    ).map(",".join),
    "BYMONTHDAY": st.lists(st.integers(-32, 32), min_size=1, max_size=4).map(lambda v: ",".join(map(str, v))),
    "BYMONTH": st.lists(st.integers(0, 13), min_size=1, max_size=3).map(lambda v: ",".join(map(str, v))),
    "BYSETPOS": st.lists(st.integers(-5, 5), min_size=1, max_size=2).map(lambda v: ",".join(map(str, v))),
    "BYYEARDAY": st.lists(st.integers(-367, 367), min_size=1, max_size=2).map(lambda v: ",".join(map(str, v))),
    "BYWEEKNO": st.lists(st.integers(-54, 54), min_size=1, max_size=2).map(lambda v: ",".join(map(str, v))),
    "WKST": st.sampled_from(["MO", "SU", "XX"]),
    "RSCALE": st.sampled_from(["CHINESE", "GREGORIAN", "HEBREW"]),
    "SKIP": st.sampled_from(["OMIT", "BACKWARD", "FORWARD"]),
    "X-DAYS": st.sampled_from(["CN-WORKDAY", "CN-RESTDAY", "CN-AFTER-HOLIDAY", "CN-NONE"]),
    "X-TERM": st.sampled_from(["DONGZHI", "QINGMING", "LICHUN", "NOPE"]),
    "X-FROM": st.sampled_from(["COMPLETION", "SCHEDULE"]),
}
_COMBOS = st.lists(st.sampled_from(sorted(_VALUES)), min_size=1, max_size=6, unique=True).flatmap(
    lambda names: st.tuples(*(_VALUES[n] for n in names)).map(
        lambda values: ";".join(f"{n}={v}" for n, v in zip(names, values, strict=True))
    )
)
_STARTS = st.datetimes(min_value=datetime(2000, 1, 1), max_value=datetime(2040, 12, 31))


def _check(rule: str, start: datetime) -> None:
    """Either a RuleError, or a rule whose first 50 occurrences come quickly, ascending, from start."""
    began = time.perf_counter()
    try:
        rec = make(rule, start=start, tz=TZ)
    except RuleError:
        return
    found = occurrences(rec, after=rec.start, limit=50, inclusive=True)
    later = occurrences(rec, after=datetime(2026, 11, 30, 10, 0, tzinfo=SH), limit=5)
    assert time.perf_counter() - began < 2.0, rule
    assert len(found) <= 50
    assert all(a < b for a, b in pairwise(found)), rule
    assert all(f >= rec.start for f in found), rule
    assert all(f > datetime(2026, 11, 30, 10, 0, tzinfo=SH) for f in later), rule


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rule=_COMBOS, start=_STARTS)
def test_arbitrary_part_combinations_never_raise_anything_but_rule_error(rule: str, start: datetime) -> None:
    _check("FREQ=DAILY;" + rule if "FREQ=" not in rule else rule, start)


@settings(max_examples=80, deadline=None)
@given(rule=st.text(max_size=80))
def test_arbitrary_text_never_raises_anything_but_rule_error(rule: str) -> None:
    _check(rule, START)
