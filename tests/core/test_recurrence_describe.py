"""core.recurrence.describe: a rule in words, zh and en; a rule the tables cannot say is given as is."""

from __future__ import annotations

from datetime import datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.recurrence import RuleError, describe, make, read_repeat
from support.harness import NOW

TZ = "Asia/Shanghai"


def _say(rule: str, clock: tuple[int, int, int] = (23, 59, 59)) -> tuple[str, str]:
    rec = make(rule, start=datetime(2026, 11, 30, *clock), tz=TZ)
    return describe(rec, "zh"), describe(rec, "en")


NINE = (9, 0, 0)


@pytest.mark.parametrize(
    ("rule", "clock", "zh", "en"),
    [
        ("FREQ=WEEKLY;BYDAY=MO", NINE, "每周一 09:00", "every Monday at 09:00"),
        ("FREQ=DAILY", (7, 30, 0), "每天 07:30", "every day at 07:30"),
        ("FREQ=DAILY;INTERVAL=3", None, "每3天", "every 3 days"),
        ("FREQ=WEEKLY;BYDAY=MO,WE,FR", None, "每周一三五", "every Monday, Wednesday and Friday"),
        ("FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR", NINE, "每周一到周五 09:00", "every weekday (Monday to Friday) at 09:00"),
        ("FREQ=WEEKLY;BYDAY=SA,SU", None, "每周末", "every Saturday and Sunday"),
        ("FREQ=WEEKLY;INTERVAL=2;BYDAY=FR", NINE, "每两周的周五 09:00", "every other Friday at 09:00"),
        ("FREQ=WEEKLY;INTERVAL=2", None, "每两周", "every other week"),
        ("FREQ=DAILY;X-DAYS=CN-WORKDAY", NINE, "每个工作日 09:00", "every workday (China's statutory calendar) at 09:00"),
        ("FREQ=DAILY;X-DAYS=CN-RESTDAY", None, "每个休息日", "every day off (China's statutory calendar)"),
        ("FREQ=DAILY;X-DAYS=CN-AFTER-HOLIDAY", None, "每次节后第一个工作日", "the first workday after each statutory holiday"),
        ("FREQ=WEEKLY;BYDAY=MO;X-DAYS=CN-WORKDAY", NINE, "每周一（仅法定工作日） 09:00", "every Monday (statutory workdays only) at 09:00"),
        ("FREQ=MONTHLY;BYMONTHDAY=15", None, "每月15号", "every month on the 15th"),
        ("FREQ=MONTHLY;BYMONTHDAY=1,15", None, "每月1、15号", "every month on the 1st and 15th"),
        ("FREQ=MONTHLY;BYMONTHDAY=-1", None, "每月最后一天", "the last day of every month"),
        ("FREQ=MONTHLY;BYMONTHDAY=-2", None, "每月倒数第二天", "the second-last day of every month"),
        ("FREQ=MONTHLY;BYMONTHDAY=28,29,30,31;BYSETPOS=-1", None, "每月31号（小月取最后一天）", "every month on day 31 (the last day in shorter months)"),
        ("FREQ=MONTHLY;BYDAY=1MO", (10, 0, 0), "每月第一个周一 10:00", "the first Monday of every month at 10:00"),
        ("FREQ=MONTHLY;BYDAY=-1FR", None, "每月最后一个周五", "the last Friday of every month"),
        ("FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1", None, "每月最后一个工作日（周一到周五）", "the last weekday (Monday to Friday) of every month"),
        ("FREQ=YEARLY;BYMONTH=3,6,9,12;BYMONTHDAY=-1", None, "每季度末", "the last day of every quarter"),
        ("FREQ=YEARLY;BYMONTH=1,4,7,10;BYMONTHDAY=1", None, "每季度第一天", "the first day of every quarter"),
        ("FREQ=YEARLY;BYMONTH=5;BYMONTHDAY=4", NINE, "每年5月4日 09:00", "every year on May 4 at 09:00"),
        ("FREQ=YEARLY;BYMONTH=5;BYDAY=2SU", None, "每年5月第二个周日", "every year on the second Sunday of May"),
        ("RSCALE=CHINESE;FREQ=YEARLY;BYMONTH=8;BYMONTHDAY=12", (8, 0, 0), "每年农历八月十二 08:00", "every year on the 12th of the 8th lunar month at 08:00"),
        ("RSCALE=CHINESE;FREQ=YEARLY;BYMONTH=12;BYMONTHDAY=-1", (18, 0, 0), "每年除夕 18:00", "every year on Chinese New Year's Eve at 18:00"),
        ("RSCALE=CHINESE;FREQ=YEARLY;BYMONTH=8;BYMONTHDAY=15", None, "每年中秋节（农历八月十五）", "every year on the Mid-Autumn Festival"),
        ("RSCALE=CHINESE;FREQ=MONTHLY;BYMONTHDAY=1,15", None, "每月农历初一、十五", "the 1st and the 15th of every lunar month"),
        ("FREQ=YEARLY;X-TERM=DONGZHI", None, "每年冬至", "every year on the winter solstice (Dongzhi)"),
    ],
)  # fmt: skip
def test_common_rules(rule: str, clock: tuple[int, int, int] | None, zh: str, en: str) -> None:
    assert _say(rule, clock or (23, 59, 59)) == (zh, en)


@pytest.mark.parametrize(
    ("rule", "zh", "en"),
    [
        ("FREQ=WEEKLY;BYDAY=MO;COUNT=3", "每周一 09:00，共3次", "every Monday at 09:00, 3 times"),
        ("FREQ=WEEKLY;BYDAY=WE;UNTIL=20261231T235959", "每周三 09:00，到12月31日", "every Wednesday at 09:00, until 2026-12-31"),
        # Another year's end date names its year: "到3月31日" alone would read as this year's.
        ("FREQ=WEEKLY;BYDAY=WE;UNTIL=20270331T235959", "每周三 09:00，到2027年3月31日", "every Wednesday at 09:00, until 2027-03-31"),
        ("FREQ=DAILY;INTERVAL=3;X-FROM=COMPLETION", "每3天 09:00（做完后算）", "every 3 days at 09:00 (counted from completion)"),
    ],
)  # fmt: skip
def test_bounds_and_counting_from_completion(rule: str, zh: str, en: str) -> None:
    assert _say(rule, NINE) == (zh, en)


@pytest.mark.parametrize(
    "rule",
    [
        "FREQ=MONTHLY;BYDAY=FR;BYMONTHDAY=13",  # Friday the 13th: not "every Friday"
        "FREQ=YEARLY;BYMONTHDAY=15",  # the 15th of every month, not "每年15号"
        "FREQ=DAILY;BYMONTH=2",  # every day in February, not every day
        "FREQ=MONTHLY;BYDAY=MO,WE;BYSETPOS=2",
        "FREQ=YEARLY;BYWEEKNO=20;BYDAY=MO",
        "FREQ=MONTHLY;BYMONTHDAY=-5",
    ],
)
def test_what_the_tables_cannot_say_is_given_as_the_rule(rule: str) -> None:
    zh, en = _say(rule)
    assert zh == f"按规则 {rule}" and en == f"by the rule {rule}"


def test_a_day_only_deadline_shows_no_clock_and_other_times_do() -> None:
    assert _say("FREQ=DAILY") == ("每天", "every day")
    assert _say("FREQ=DAILY", (23, 59, 0)) == ("每天 23:59", "every day at 23:59")


def test_every_described_rule_reads_back_from_its_phrase() -> None:
    # The confirmation quotes describe(); a user who repeats it gets the same rule.
    for rule in (
        "FREQ=WEEKLY;BYDAY=MO",
        "FREQ=MONTHLY;BYMONTHDAY=-1",
        "FREQ=YEARLY;X-TERM=DONGZHI",
        "FREQ=WEEKLY;INTERVAL=2;BYDAY=FR",
        "FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR",
        "FREQ=DAILY;X-DAYS=CN-WORKDAY",
        "FREQ=DAILY;X-DAYS=CN-AFTER-HOLIDAY",
        "FREQ=MONTHLY;BYDAY=-1FR",
        "FREQ=MONTHLY;BYMONTHDAY=28,29,30,31;BYSETPOS=-1",
        "FREQ=YEARLY;BYMONTH=3,6,9,12;BYMONTHDAY=-1",
        "FREQ=YEARLY;BYMONTH=1,4,7,10;BYMONTHDAY=1",
        "FREQ=YEARLY;BYMONTH=5;BYMONTHDAY=4",
        "RSCALE=CHINESE;FREQ=YEARLY;BYMONTH=12;BYMONTHDAY=-1",
        "RSCALE=CHINESE;FREQ=YEARLY;BYMONTH=8;BYMONTHDAY=12",
        "RSCALE=CHINESE;FREQ=YEARLY;BYMONTH=8;BYMONTHDAY=15",
        "RSCALE=CHINESE;FREQ=MONTHLY;BYMONTHDAY=1,15",
        "FREQ=MONTHLY;BYMONTHDAY=-2",
        "FREQ=YEARLY;BYMONTH=5;BYDAY=2SU",
    ):
        zh, _ = _say(rule)
        found = read_repeat(zh + "交材料", now=NOW)
        assert found is not None and found.rule == rule, zh


@pytest.mark.parametrize(
    "rule",
    [
        "FREQ=WEEKLY;BYDAY=MO",
        "FREQ=WEEKLY;INTERVAL=2;BYDAY=FR",
        "FREQ=WEEKLY;BYDAY=MO,WE,FR",
        "FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR",
        "FREQ=DAILY;INTERVAL=3",
        "FREQ=MONTHLY;BYMONTHDAY=-1",
        "FREQ=MONTHLY;BYMONTHDAY=15",
        "FREQ=MONTHLY;BYMONTHDAY=1,15",
        "FREQ=MONTHLY;BYDAY=1MO",
        "FREQ=YEARLY;BYMONTH=5;BYMONTHDAY=4",
        "FREQ=YEARLY;BYMONTH=3,6,9,12;BYMONTHDAY=-1",
    ],
)
def test_the_english_description_reads_back_too(rule: str) -> None:
    _, en = _say(rule, NINE)
    found = read_repeat("call the bank " + en, now=NOW)
    assert found is not None and found.rule == rule, en
    assert found.rest == "call the bank at 09:00"


_PARTS = {
    "INTERVAL": st.sampled_from(["1", "2", "3", "12"]),
    "COUNT": st.sampled_from(["1", "5", "1000"]),
    "UNTIL": st.sampled_from(["20271231T235959", "20280101", "20270601T000000Z"]),
    "BYDAY": st.sampled_from(["MO", "SA,SU", "MO,TU,WE,TH,FR", "1MO", "-1FR", "2SU", "MO,WE"]),
    "BYMONTHDAY": st.sampled_from(["1", "15", "-1", "-2", "-5", "1,15", "28,29,30,31", "30"]),
    "BYMONTH": st.sampled_from(["1", "5", "12", "3,6,9,12", "1,4,7,10", "5,6"]),
    "BYSETPOS": st.sampled_from(["1", "-1", "2"]),
    "BYYEARDAY": st.sampled_from(["1", "-1", "100"]),
    "BYWEEKNO": st.sampled_from(["1", "20", "-1"]),
    "WKST": st.sampled_from(["MO", "SU"]),
    "RSCALE": st.sampled_from(["CHINESE", "GREGORIAN"]),
    "SKIP": st.sampled_from(["OMIT", "FORWARD"]),
    "X-DAYS": st.sampled_from(["CN-WORKDAY", "CN-RESTDAY", "CN-AFTER-HOLIDAY"]),
    "X-TERM": st.sampled_from(["DONGZHI", "GUYU"]),
    "X-FROM": st.just("COMPLETION"),
}
_RULES = st.tuples(
    st.sampled_from(["DAILY", "WEEKLY", "MONTHLY", "YEARLY"]),
    st.lists(st.sampled_from(sorted(_PARTS)), max_size=4, unique=True).flatmap(
        lambda names: st.tuples(*(_PARTS[n].map(lambda v, n=n: f"{n}={v}") for n in names))
    ),
).map(lambda fp: ";".join([f"FREQ={fp[0]}", *fp[1]]))


@settings(max_examples=150, deadline=None)
@given(rule=_RULES)
def test_any_kept_rule_is_described_in_both_languages(rule: str) -> None:
    try:
        rec = make(rule, start=datetime(2026, 11, 30, 9, 0), tz=TZ)
    except RuleError:
        return
    zh, en = describe(rec, "zh"), describe(rec, "en")
    assert zh and en and "09:00" in zh and "09:00" in en
    # Chinese calendar words only where the rule uses it; otherwise the English is English.
    if "RSCALE=CHINESE" not in rule and "X-TERM" not in rule and "按规则" not in zh:
        assert en.isascii(), en
