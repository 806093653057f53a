"""English quick-add notes (Vikunja-style: "<title> <date words>") and numeric dates in notes.

Every line runs through the path ``suikou explain`` takes (offline router → extraction →
time_anchor) at one fixed ``now`` and must come out as a quick note whose title keeps the task's
words (``keep``) and has lost the date words (``gone``), with the deadline given (a list of accepted
ISO times; ``[None]`` = no deadline). Traps carry numbers that belong to the title ("The 9/11
Report", "Python 3.12", "v2.1", a score "3-1"): they must stay in it. A numeric date no rule can
order ("12-11-10") is never a silent wrong deadline: no deadline, the note asks.

Run `PYTHONPATH=tests:. .venv/bin/python tests/quicknote/test_quickadd_english.py` for the per-kind counts.
"""

from __future__ import annotations

from collections import Counter
from typing import NamedTuple

import pytest

from support.quickadd import note_ok

NOW = "2026-11-30T10:00:00+08:00"  # a Monday, the last day of a month


class Case(NamedTuple):
    sentence: str
    keep: tuple[str, ...]
    gone: tuple[str, ...]
    deadline: tuple[str | None, ...]
    kind: str
    miss: str = ""
    # False: the routing is the intent model's call (see below `q`), only the extraction is checked
    routed: bool = True


def day(d: str) -> tuple[str | None, ...]:
    """A date-only deadline: the end of that day."""
    return (f"{d}T23:59:59+08:00",)


def at(d: str, hm: str) -> tuple[str | None, ...]:
    return (f"{d}T{hm}:00+08:00",)


NONE: tuple[str | None, ...] = (None,)


def q(
    sentence: str,
    keep: str,
    gone: str,
    deadline: tuple[str | None, ...],
    kind: str,
    miss: str = "",
    routed: bool = True,
) -> Case:
    """``keep`` / ``gone``: words separated by "|", compared case-insensitively."""
    split = tuple(w for w in keep.split("|") if w), tuple(w for w in gone.split("|") if w)
    return Case(sentence, split[0], split[1], deadline, kind, miss, routed)


# routed=False: lines the offline rules do not read as notes on purpose, so the trained intent model
# decides (and may ask): an untimed imperative (it may be addressed to the assistant) and a line that
# opens with "write" (route.offline._EN_GENERAL). For them only the extraction is checked.


CASES: list[Case] = [
    # -- relative ---------------------------------------------------------------------------
    q("Water plants tmr", "water plants", "tmr", day("2026-12-01"), "relative"),
    q("Buy stamps tmrw", "buy stamps", "tmrw", day("2026-12-01"), "relative"),
    q("Feed the fish tomorow", "feed the fish", "tomorow", day("2026-12-01"), "relative"),
    q("Call the vet tommorow at 9am", "call the vet", "tommorow|9am", at("2026-12-01", "09:00"), "relative"),
    q("Tidy the shed later this week", "tidy the shed", "later|week", day("2026-12-06"), "relative"),
    q("Pay the electricity bill end of month", "electricity bill", "end of|month", day("2026-11-30"), "relative"),
    q(
        "Service the boiler in 2 weeks",
        "service the boiler",
        "2 weeks",
        day("2026-12-20") + day("2026-12-14"),
        "relative",
    ),
    q("Plan the offsite next month", "plan the offsite", "next month", day("2026-12-31"), "relative"),
    q("Clean the gutters this weekend", "clean the gutters", "weekend", day("2026-12-06"), "relative"),
    q("Renew car insurance in 3 days", "renew car insurance", "3 days", day("2026-12-03"), "relative"),
    q("Send the invoice by eod", "send the invoice", "eod", day("2026-11-30"), "relative"),
    q("Send thank-you notes end of next month", "thank-you notes", "end of|month", day("2026-12-31"), "relative"),
    # -- weekdays -----------------------------------------------------------------------------
    q("Book hotel next monday", "book hotel", "monday", day("2026-12-07"), "weekday"),
    q("Haircut fri at 3pm", "haircut", "fri|3pm", at("2026-12-04", "15:00"), "weekday"),
    q("Piano lesson thu @ 4pm", "piano lesson", "thu|4pm|@", at("2026-12-03", "16:00"), "weekday"),
    q("Vet wed @ 10am", "vet", "wed|10am|@", at("2026-12-02", "10:00"), "weekday"),
    q("Farmers market sat at 9:30", "farmers market", "sat|9:30", at("2026-12-05", "09:30"), "weekday"),
    q("Lunch with Raj tues at noon", "lunch with raj", "tues|noon", at("2026-12-01", "12:00"), "weekday"),
    q("Return library books by friday", "return library books", "friday", day("2026-12-04"), "weekday"),
    q("Team retro next wed", "team retro", "wed", day("2026-12-09") + day("2026-12-02"), "weekday"),
    # -- bare ordinals ------------------------------------------------------------------------
    q("Pay rent 17th at 10:00", "pay rent", "17th|10:00", at("2026-12-17", "10:00"), "ordinal"),
    q("Dentist 14th", "dentist", "14th", day("2026-12-14"), "ordinal"),
    q("Car inspection on the 3rd", "car inspection", "3rd", day("2026-12-03"), "ordinal"),
    q("Submit timesheet by the 31st", "submit timesheet", "31st", day("2026-12-31"), "ordinal"),
    q("Gym membership renews 1st at 9am", "gym membership renews", "1st|9am", at("2026-12-01", "09:00"), "ordinal"),
    q("Pay the nanny the 28th", "pay the nanny", "28th", day("2026-12-28"), "ordinal"),
    q("School concert 22nd", "school concert", "22nd", day("2026-12-22"), "ordinal"),
    # -- clock forms --------------------------------------------------------------------------
    q("Call Anna @ 15:00", "call anna", "15:00|@", at("2026-11-30", "15:00"), "clock"),
    q("Pick up Leo tomorrow @ 8:30", "pick up leo", "tomorrow|8:30|@", at("2026-12-01", "08:30"), "clock"),
    q("Standup notes at 9:15 tmr", "standup notes", "9:15|tmr", at("2026-12-01", "09:15"), "clock"),
    q("Feed the cat @ 7pm", "feed the cat", "7pm|@", at("2026-11-30", "19:00"), "clock"),
    q("Buy milk tomorrow at 15:00", "buy milk", "tomorrow|15:00", at("2026-12-01", "15:00"), "clock"),
    # -- numeric dates ------------------------------------------------------------------------
    q("Submit form 06/26/2021", "submit form", "06/26", day("2021-06-26"), "numeric_date"),
    q("Renew passport 27/1", "renew passport", "27/1", day("2027-01-27"), "numeric_date"),
    q("Tax return due 15/4/2027", "tax return", "15/4", day("2027-04-15"), "numeric_date"),
    q("Wedding anniversary 5.6.2027", "wedding anniversary", "5.6", day("2027-06-05"), "numeric_date"),
    q("Send the contract 1/2/2027", "send the contract", "1/2", day("2027-01-02"), "numeric_date"),
    q("Archive photos 2027-03-15", "archive photos", "2027", day("2027-03-15"), "numeric_date"),
    q("Pay the deposit 3/12/2027", "pay the deposit", "3/12", day("2027-03-12"), "numeric_date"),
    q("Book flights 20/12", "book flights", "20/12", day("2026-12-20"), "numeric_date"),
    # no rule orders 12-11-10 (Y-M-D? M-D-Y? D-M-Y?): no silent deadline, the note asks
    q("Ship parcel 12-11-10", "ship parcel", "", NONE, "numeric_date"),
    q("提醒我27/1之前续签合同", "续签合同", "27/1", day("2027-01-27"), "numeric_date"),
    q("记一下13.5.2027交房租", "交房租", "13.5", day("2027-05-13"), "numeric_date"),
    q("帮我记一下06/26/2027体检", "体检", "06/26", day("2027-06-26"), "numeric_date"),
    # -- month names --------------------------------------------------------------------------
    q("Car tax Jan 17", "car tax", "jan", day("2027-01-17"), "month_name"),
    q("Visa appointment 17 January", "visa appointment", "january", day("2027-01-17"), "month_name"),
    q("Conference talk January 17th 2027", "conference talk", "january|2027", day("2027-01-17"), "month_name"),
    q("Flu shot Jan 17th at 9am", "flu shot", "jan|9am", at("2027-01-17", "09:00"), "month_name"),
    q("Budget review on Dec 5 at 3pm", "budget review", "dec|3pm", at("2026-12-05", "15:00"), "month_name"),
    q("Christmas cards by Dec 20", "christmas cards", "dec 20", day("2026-12-20"), "month_name"),
    # -- with an English lead-in --------------------------------------------------------------
    q("remind me to pay rent 17th", "pay rent", "17th|remind", day("2026-12-17"), "lead"),
    q("remind me to water plants tmr", "water plants", "tmr|remind", day("2026-12-01"), "lead"),
    q("todo: dentist 14th at 2pm", "dentist", "14th|2pm|todo", at("2026-12-14", "14:00"), "lead"),
    q("don't forget to renew passport 27/1", "renew passport", "27/1|forget", day("2027-01-27"), "lead"),
    q("add a task: submit form 06/26/2027", "submit form", "06/26|task", day("2027-06-26"), "lead"),
    # -- traps: the numbers are the task's ----------------------------------------------------
    q(
        "Read The 9/11 Report",
        "the 9/11 report",
        "",
        NONE,
        "trap",
        routed=False,
    ),
    q("Review the 1.2 formula", "the 1.2 formula", "", NONE, "trap", routed=False),
    q("Upgrade the server to v2.1 tomorrow", "server to v2.1", "tomorrow", day("2026-12-01"), "trap"),
    q("Test the build on Python 3.12 friday", "python 3.12", "friday", day("2026-12-04"), "trap"),
    q(
        "Write up the 3-1 win tmr",
        "the 3-1 win",
        "tmr",
        day("2026-12-01"),
        "trap",
        routed=False,
    ),
    q("Check example.com/2019/1/notes tomorrow", "example.com/2019/1/notes", "tomorrow", day("2026-12-01"), "trap"),
    q("Fix the 3rd floor printer tomorrow", "the 3rd floor printer", "tomorrow", day("2026-12-01"), "trap"),
    q("Read chapters 10-12 by friday", "chapters 10-12", "friday", day("2026-12-04"), "trap"),
    q("Buy a card for Anna's 30th tomorrow", "anna's 30th", "tomorrow", day("2026-12-01"), "trap"),
    q("Print 1/2 of the handouts tmr", "1/2 of the handouts", "tmr", day("2026-12-01"), "trap"),
    q("Fix the projector in room 12.11 tomorrow", "room 12.11", "tomorrow", day("2026-12-01"), "trap"),
]


def check(case: Case) -> tuple[bool, str]:
    return note_ok(case.sentence, NOW, case.keep, case.gone, case.deadline, case.routed)


@pytest.mark.parametrize(
    "case",
    [
        pytest.param(c, id=c.sentence, marks=[pytest.mark.xfail(strict=True, reason=c.miss)] if c.miss else [])
        for c in CASES
    ],
)
def test_quickadd_english(case: Case) -> None:
    ok, why = check(case)
    assert ok, why


def report() -> None:
    right: Counter[str] = Counter()
    total: Counter[str] = Counter()
    for c in CASES:
        ok, why = check(c)
        total[c.kind] += 1
        right[c.kind] += ok
        if not ok:
            print(f"MISS [{c.kind}] {c.sentence}: {why}")
    for kind in sorted(total):
        print(f"{kind:16s} {right[kind]:3d}/{total[kind]:3d}")
    print(f"{sum(right.values())}/{len(CASES)} notes right")


if __name__ == "__main__":
    report()
