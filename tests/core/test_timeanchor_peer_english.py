"""English quick-add time forms and numeric dates (also inside Chinese sentences), peer-style.

The kinds: "relative" (tmr/tmrw/tomorow, later this week, end of month, in 2 weeks, next month,
this weekend), "weekday" (abbreviations with at/@), "ordinal" (a bare "14th" / "the 3rd" → the next
such day of the month), "clock" ("@ 15:00"), "numeric_date" (the order rule in the
core.timeanchor docstring), "month_name" ("Jan 17", "17 January", "January 17th 2027") and "trap"
(numbers in a name, a version, a URL, a score, an ordinal before a noun: no time at all).

Run `PYTHONPATH=tests .venv/bin/python tests/core/test_timeanchor_peer_english.py` for the counts.
"""

from __future__ import annotations

from datetime import date

import pytest

from core.timeanchor import numdate
from support.timeprobe import PAST, TRAP, P, Probe, params, probe_ok, report

PROBES: list[Probe] = [
    # -- relative days and spans --------------------------------------------------------------
    P("what's due tmr", "A", "12-01", "e12-01", kind="relative"),
    P("anything due tmrw?", "C", "2027-01-01", "e2027-01-01", kind="relative"),
    P("water the ferns tomorow", "A", "12-01", "e12-01", kind="relative"),
    P("pick up the dry cleaning tommorow", "D", "2028-02-28", "e2028-02-28", kind="relative"),
    P("email the landlord tommorrow", "H", "04-01", "e04-01", kind="relative"),
    P("tmrw morning jog", "A", "12-01 07:00", "12-01 11:59:59", kind="relative"),
    P("what's left later this week", "G", "now", "e07-19", kind="relative"),
    P("sort the receipts later this month", "A", "now", "e11-30", kind="relative"),
    P("finish the audit end of month", "G", "07-31", "e07-31", kind="relative"),
    P("close the books end of the month", "D", "2028-02-29", "e2028-02-29", kind="relative"),
    P("renew the lease end of next month", "C", "2027-01-31", "e2027-01-31", kind="relative"),
    P("service the bike in 2 weeks", "A", "12-14", "e12-20", ("12-14", "e12-14"), kind="relative"),
    P("call the plumber in 3 days", "C", "2027-01-03", "e2027-01-03", kind="relative"),
    P("what's due next month", "C", "2027-01-01", "e2027-01-31", kind="relative"),
    P("clean the garage this weekend", "G", "07-18", "e07-19", kind="relative"),
    P("what do I have this weekend", "B", "12-05", "e12-06", ("now", "e12-06"), kind="relative"),
    P("mow the lawn next weekend", "A", "12-12", "e12-13", kind="relative"),
    P("send the invoice by eod", "A", "now", "e11-30", kind="relative"),
    # -- weekdays, abbreviated, with at / @ ---------------------------------------------------
    P("Reserve a table next monday", "A", "12-07", "e12-07", kind="weekday"),
    P("fri at 3pm haircut", "A", "12-04 15:00", "12-04 15:59:59", kind="weekday"),
    P("thu @ 4pm piano lesson", "G", "07-16 16:00", "07-16 16:59:59", kind="weekday"),
    P("wed @ 10am vet", "A", "12-02 10:00", "12-02 10:59:59", kind="weekday"),
    P("sat at 9:30 farmers market", "A", "12-05 09:30", "12-05 09:30:59", kind="weekday"),
    P("tues at noon lunch with Raj", "A", "12-01 12:00", "12-01 12:00:59", kind="weekday"),
    P("mon at 9 standup notes", "B", "12-07 09:00", "12-07 09:59:59", kind="weekday"),
    P("return the library books by friday", "A", "now", "e12-04", kind="weekday"),
    P("what's due thurs", "F", "02-25", "e02-25", kind="weekday"),
    # -- bare ordinals: the next such day of the month ----------------------------------------
    P("Pay the gym 17th at 10:00", "A", "12-17 10:00", "12-17 10:00:59", kind="ordinal"),
    P("Orthodontist 14th", "A", "12-14", "e12-14", kind="ordinal"),
    P("car inspection on the 3rd", "A", "12-03", "e12-03", kind="ordinal"),
    P("water bill the 30th", "D", "03-30", "e03-30", kind="ordinal"),
    P("water bill the 29th", "D", "02-29", "e02-29", kind="ordinal"),
    P("submit timesheet by the 31st", "A", "now", "e12-31", kind="ordinal"),
    P("book club the 15th", "G", "07-15", "e07-15", kind="ordinal"),
    P("gym pass renews 1st at 9am", "C", "2027-01-01 09:00", "2027-01-01 09:59:59", kind="ordinal"),
    P("school concert 22nd", "F", "02-22", "e02-22", kind="ordinal"),
    P("pay the nanny the 31st", "F", "03-31", "e03-31", kind="ordinal"),
    P("what's due on the 2nd", "G", "08-02", "e08-02", kind="ordinal"),
    # -- clock forms --------------------------------------------------------------------------
    P("Ring Marta @ 15:00", "A", "11-30 15:00", "11-30 15:00:59", kind="clock"),
    P("@ 9am tomorrow dentist", "A", "12-01 09:00", "12-01 09:59:59", kind="clock"),
    P("tomorrow @ 8:30 pick up Leo", "A", "12-01 08:30", "12-01 08:30:59", kind="clock"),
    P("standup at 9:15 tmr", "A", "12-01 09:15", "12-01 09:15:59", kind="clock"),
    P("feed the cat @ 7pm", "G", "07-15 19:00", "07-15 19:59:59", kind="clock"),
    # -- numeric dates: the order rule in core/timeanchor/__init__.py -------------------------
    P("Submit the grant form 06/26/2021", "A", "2021-06-26", "e2021-06-26", kind="numeric_date"),
    PAST("what did I finish on 3-7-2017", "A", "2017-03-07", "e2017-03-07", kind="numeric_date"),
    PAST("what did I close on 05/05/89", "A", "1989-05-05", "e1989-05-05", kind="numeric_date"),
    PAST("what was done 13.5.2015", "A", "2015-05-13", "e2015-05-13", kind="numeric_date"),
    PAST("tasks finished 1/2/2020", "A", "2020-01-02", "e2020-01-02", kind="numeric_date"),
    P("renew the visa 27/1", "A", "2027-01-27", "e2027-01-27", kind="numeric_date"),
    PAST("what did I do 2021-06-26", "A", "2021-06-26", "e2021-06-26", kind="numeric_date"),
    PAST("what was finished 1/2/17", "A", "2017-01-02", "e2017-01-02", kind="numeric_date"),
    P("tax return due 15/4/2027", "A", "2027-04-15", "e2027-04-15", kind="numeric_date"),
    P("wedding 5.6.2027", "A", "2027-06-05", "e2027-06-05", kind="numeric_date"),
    # three two-digit fields, none above 12: no rule tells; the reading nearest now (alts: the others)
    PAST(
        "what did I finish 12-11-10",
        "A",
        "2012-11-10",
        "e2012-11-10",
        ("2010-12-11", "e2010-12-11"),
        ("2010-11-12", "e2010-11-12"),
        kind="numeric_date",
    ),
    PAST("3-7-2017完成了什么", "A", "2017-03-07", "e2017-03-07", kind="numeric_date"),
    PAST("13.5.2015那天完成的任务", "A", "2015-05-13", "e2015-05-13", kind="numeric_date"),
    PAST("06/26/2021那天完成了什么", "A", "2021-06-26", "e2021-06-26", kind="numeric_date"),
    PAST("1/2/2020做了哪些事", "A", "2020-01-02", "e2020-01-02", kind="numeric_date"),
    P("27/1之前要交的", "A", "now", "e2027-01-27", kind="numeric_date"),
    PAST("17/3/2026完成了什么", "A", "2026-03-17", "e2026-03-17", kind="numeric_date"),
    PAST("05/05/89那天做了什么", "A", "1989-05-05", "e1989-05-05", kind="numeric_date"),
    P("2027-01-05有什么要做的", "A", "2027-01-05", "e2027-01-05", kind="numeric_date"),
    # -- month names --------------------------------------------------------------------------
    P("Car tax Jan 17", "A", "2027-01-17", "e2027-01-17", kind="month_name"),
    P("visa appointment 17 January", "A", "2027-01-17", "e2027-01-17", kind="month_name"),
    P("conference January 17th 2027", "A", "2027-01-17", "e2027-01-17", kind="month_name"),
    P("flu shot Jan 17th at 9am", "A", "2027-01-17 09:00", "2027-01-17 09:59:59", kind="month_name"),
    P("leap day party Feb 29", "D", "02-29", "e02-29", kind="month_name"),
    P("quarterly review on Dec 5 at 3pm", "A", "12-05 15:00", "12-05 15:59:59", kind="month_name"),
    P("what's due by March 3rd", "F", "now", "e03-03", kind="month_name"),
    # -- traps: numbers that are part of the task, not a date ---------------------------------
    TRAP("Read The 9/11 Report", kind="trap"),
    TRAP("Review the 1.2 formula", kind="trap"),
    TRAP("check https://example.com/2019/1/notes", kind="trap"),
    TRAP("upgrade the app to v2.1", kind="trap"),
    TRAP("test the build on Python 3.12", kind="trap"),
    TRAP("we won 3-1 write the match report", kind="trap"),
    TRAP("my 5th attempt at the driving test", kind="trap"),
    TRAP("fix the 3rd floor printer", kind="trap"),
    TRAP("read chapters 10-12", kind="trap"),
    TRAP("fix the projector in room 12.11", kind="trap"),
    TRAP("plan the 21st century history lecture", kind="trap"),
    TRAP("buy a card for Anna's 30th", kind="trap"),
]


@pytest.mark.parametrize("probe", params(PROBES))
def test_peer_english(probe: Probe) -> None:
    ok, why = probe_ok(probe)
    assert ok, why


TODAY = date(2026, 11, 30)


@pytest.mark.parametrize(
    ("a", "b", "y", "sep", "text", "want"),
    [
        ("06", "26", "2021", "/", "Submit form", date(2021, 6, 26)),  # 26 > 12: the day
        ("27", "1", "2027", "/", "renew", date(2027, 1, 27)),
        ("1", "2", "2020", "/", "tasks", date(2020, 1, 2)),  # English: month first
        ("1", "2", "2020", "/", "做了哪些", date(2020, 1, 2)),  # Chinese: month first
        ("5", "6", "2027", ".", "wedding", date(2027, 6, 5)),  # dotted: day first
        ("05", "05", "89", "/", "closed", date(1989, 5, 5)),  # two-digit year
        ("1", "2", "17", "/", "done", date(2017, 1, 2)),
        ("12", "11", "10", "-", "finish", date(2012, 11, 10)),  # ambiguous: the reading nearest today
        ("31", "13", "2027", "/", "x", None),
    ],
)
def test_numeric_date_order_rule(a: str, b: str, y: str, sep: str, text: str, want: date | None) -> None:
    assert numdate.read(a, b, y, sep, text, TODAY) == want


def test_only_a_numeric_date_no_rule_orders_is_ambiguous() -> None:
    assert numdate.ambiguous("12-11-10", TODAY)
    assert numdate.ambiguous("05/06/07", TODAY)
    assert not numdate.ambiguous("05/05/89", TODAY)  # 2005-05-89 is no date
    assert not numdate.ambiguous("06/26/21", TODAY)
    assert not numdate.ambiguous("1/2/17", TODAY)  # a one-digit first field is no year
    assert not numdate.ambiguous("1/2/2020", TODAY)


if __name__ == "__main__":
    report(PROBES)
