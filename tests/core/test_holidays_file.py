"""Years an operator adds from a holiday-cn file (SUIKOU_HOLIDAYS_FILE): workdays, 调休 and breaks
follow the file; a file that can't be read is refused whole; answers say when a date is a guess."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import date, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from core import recurrence, series
from core.timeanchor import chinacal

# An invented 2027 schedule in holiday-cn's shape: a three-day New Year break with a make-up Saturday.
YEAR_2027 = {
    "year": 2027,
    "papers": [],
    "days": [
        {"name": "元旦", "date": "2027-01-01", "isOffDay": True},
        {"name": "元旦", "date": "2027-01-02", "isOffDay": True},
        {"name": "元旦", "date": "2027-01-03", "isOffDay": True},
        {"name": "元旦", "date": "2027-01-09", "isOffDay": False},
        {"name": "国庆节、中秋节", "date": "2027-10-04", "isOffDay": True},
    ],
}


@pytest.fixture
def added() -> Iterator[None]:
    chinacal.clear_added()
    yield
    chinacal.clear_added()


def test_an_added_year_is_known_and_followed(added: None) -> None:
    assert not chinacal.schedule_known(2027)
    assert chinacal.add_schedule(YEAR_2027) == [2027]
    assert chinacal.schedule_known(2027)
    assert chinacal.is_workday(date(2027, 1, 9))  # a make-up Saturday
    assert not chinacal.is_workday(date(2027, 10, 4))  # a Monday off
    assert chinacal.is_holiday_day(date(2027, 1, 2)) and chinacal.holiday_key(date(2027, 1, 2)) == "元旦"
    assert chinacal.holiday_key(date(2027, 10, 4)) == "国庆"
    assert chinacal.is_workday(date(2027, 3, 3))  # an ordinary Wednesday
    # A workday rule walks the added year: Jan 1 (Fri) off, Jan 4 (Mon) the first workday.
    rule = recurrence.make("FREQ=DAILY;X-DAYS=CN-WORKDAY", start=datetime(2026, 12, 30, 9, 0), tz="Asia/Shanghai")
    coming = recurrence.occurrences(rule, after=datetime(2027, 1, 1, tzinfo=ZoneInfo("Asia/Shanghai")), limit=6)
    assert [d.date().isoformat() for d in coming] == [
        "2027-01-04", "2027-01-05", "2027-01-06", "2027-01-07", "2027-01-08", "2027-01-09",
    ]  # fmt: skip


@pytest.mark.parametrize(
    "document",
    [
        {"days": []},
        {"year": 2027, "days": [{"date": "2027-13-01", "name": "元旦", "isOffDay": True}]},
        {"year": 2027, "days": [{"date": "2027-01-01"}]},
        [YEAR_2027, "2028"],
    ],
)
def test_a_bad_file_is_refused_whole(added: None, document: object) -> None:
    with pytest.raises(chinacal.ScheduleError):
        chinacal.add_schedule(document)
    assert not chinacal.schedule_known(2027)


def test_the_service_loads_the_file_and_refuses_a_broken_one(added: None, tmp_path: Path) -> None:
    from app.state import load_holidays

    good, bad = tmp_path / "2027.json", tmp_path / "broken.json"
    good.write_text(json.dumps(YEAR_2027, ensure_ascii=False), encoding="utf-8")
    bad.write_text("{not json", encoding="utf-8")
    assert load_holidays(good) == [2027]
    with pytest.raises(SystemExit, match=r"broken\.json"):
        load_holidays(bad)


def test_a_workday_series_past_the_published_years_says_it_is_a_guess(added: None) -> None:
    zone = ZoneInfo("Asia/Shanghai")
    rule = recurrence.make("FREQ=DAILY;X-DAYS=CN-WORKDAY", start=datetime(2026, 12, 30, 9, 0), tz="Asia/Shanghai")
    now = datetime(2026, 12, 30, 10, 0, tzinfo=zone)
    text = series.summary(rule, datetime(2026, 12, 31, tzinfo=zone), "Asia/Shanghai", now, "zh")
    assert text.endswith("（2027年的节假日安排还没公布，先按常规推算）"), text
    chinacal.add_schedule(YEAR_2027)
    assert "还没公布" not in series.summary(rule, datetime(2026, 12, 31, tzinfo=zone), "Asia/Shanghai", now, "zh")
    weekly = recurrence.make("FREQ=WEEKLY;BYDAY=MO", start=datetime(2027, 1, 4, 9, 0), tz="Asia/Shanghai")
    assert "还没公布" not in series.summary(weekly, weekly.start, "Asia/Shanghai", now, "zh")
