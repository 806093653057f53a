"""SUIKOU_DATE_ORDER: the order of a numeric date no field decides, for the whole turn."""

from __future__ import annotations

import contextvars
from datetime import date, datetime
from zoneinfo import ZoneInfo

import pytest

from core.timeanchor import numdate, resolve_time
from support.harness import Harness, make_harness

NOW = datetime(2026, 11, 30, 10, 0, tzinfo=ZoneInfo("Asia/Shanghai"))


def _day(text: str, order: numdate.DateOrder) -> date | None:
    def read() -> date | None:
        numdate.ORDER.set(order)
        w = resolve_time(text, NOW)
        return None if w is None or w.start is None else w.start.date()

    return contextvars.copy_context().run(read)


@pytest.mark.parametrize(
    ("text", "auto", "dmy", "mdy"),
    [
        ("send it 1/2/2027", date(2027, 1, 2), date(2027, 2, 1), date(2027, 1, 2)),
        ("交材料 5.6.2027", date(2027, 6, 5), date(2027, 6, 5), date(2027, 5, 6)),
        ("pay 25/12/2026", date(2026, 12, 25), date(2026, 12, 25), date(2026, 12, 25)),  # 25 decides
        ("call 1/2", date(2027, 1, 2), date(2027, 2, 1), date(2027, 1, 2)),
        ("2027-01-02", date(2027, 1, 2), date(2027, 1, 2), date(2027, 1, 2)),  # a year first always decides
    ],
)
def test_order_by_setting(text: str, auto: date, dmy: date, mdy: date) -> None:
    assert (_day(text, "auto"), _day(text, "dmy"), _day(text, "mdy")) == (auto, dmy, mdy)


def test_the_cache_keeps_orders_apart() -> None:
    assert _day("call 1/2", "dmy") != _day("call 1/2", "mdy")


async def test_a_server_set_to_dmy_reads_day_first(database_url: str) -> None:
    harness: Harness = make_harness(database_url, date_order="dmy")
    try:
        answer = await harness.ask("Pay rent 1/2/2027")
        assert answer.action == "quick_note_create"
        (task,) = harness.tasks("alice")
        assert task.deadline_at is not None
        assert task.deadline_at.astimezone(ZoneInfo("Asia/Shanghai")).date() == date(2027, 2, 1)
    finally:
        harness.state.engine.dispose()
