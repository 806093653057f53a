"""TickTick's backup CSV: header discovery, the all-day off-by-one, rules, tables, skips, refusals."""

from __future__ import annotations

import csv
import io
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exchange import ticktick
from exchange.rows import BadFile, Parsed, Row

NOW = datetime(2026, 12, 5, 10, 0, tzinfo=UTC)
SAMPLE = Path(__file__).resolve().parents[1] / "data" / "exchange" / "ticktick_backup.csv"
TODOIST_SAMPLE = SAMPLE.with_name("todoist_template.csv")
SHANGHAI = ZoneInfo("Asia/Shanghai")
BERLIN = ZoneInfo("Europe/Berlin")
PREAMBLE = '"Date: 2026-12-05+0000"\n"Version: 7.1"\n"Status: \n0 Normal\n1 Completed\n2 Archived"\n'
COLUMNS = list(ticktick.COLUMNS)
DEFAULTS = {"List Name": "Inbox", "Kind": "TEXT", "Priority": "0", "Status": "0", "Timezone": "Asia/Shanghai"}
FIRST_DATA_LINE = 8  # 6 preamble lines (the Status legend spans 4), then the header


def backup(*rows: dict[str, str], columns: list[str] = COLUMNS) -> str:
    """A backup file: the preamble, the header and ``rows`` (unnamed cells from DEFAULTS or empty)."""
    out = io.StringIO()
    out.write(PREAMBLE)
    writer = csv.writer(out, quoting=csv.QUOTE_ALL, lineterminator="\n")
    writer.writerow(columns)
    for row in rows:
        writer.writerow([row.get(c, DEFAULTS.get(c, "")) for c in columns])
    return out.getvalue()


def read(text: str, tz: str = "Asia/Shanghai") -> Parsed:
    return ticktick.read(text, tz=tz, now=NOW)


def only_row(**cells: str) -> Row:
    parsed = read(backup({"Title": "任务 task", **cells}))
    assert parsed.skipped == []
    assert len(parsed.rows) == 1
    return parsed.rows[0]


@pytest.fixture(scope="module")
def sample() -> Parsed:
    return read(SAMPLE.read_text(encoding="utf-8"))


def by_title(parsed: Parsed) -> dict[str, Row]:
    return {row.title: row for row in parsed.rows}


# --- the file --------------------------------------------------------------------------------


def test_the_header_is_found_after_the_preamble_and_a_bom(sample: Parsed) -> None:
    assert SAMPLE.read_text(encoding="utf-8").startswith("\ufeff")
    assert sample.rows[0].line == FIRST_DATA_LINE
    assert sample.rows[0].title == "准备周会 slides"


def test_a_file_without_bom_reads_the_same(sample: Parsed) -> None:
    text = SAMPLE.read_text(encoding="utf-8").removeprefix("\ufeff")
    assert read(text) == sample


def test_the_sample_rows_and_skips(sample: Parsed) -> None:
    assert [r.title for r in sample.rows] == [
        "准备周会 slides",
        "Renew passport 护照续签",
        "给妈妈打电话",
        "Pay the electricity bill 电费",
        "Old archived errand 旧事",
        "Book the meeting room 订会议室",
        "Groceries 买菜",
        "Water the plants 浇花",
    ]
    assert [(s.line, s.reason) for s in sample.skipped] == [
        (13, "abandoned"),
        (14, "note"),
        (19, "empty_title"),  # after the 3-line checklist content of line 16
    ]


def test_a_todoist_file_is_refused_naming_the_expected_header() -> None:
    with pytest.raises(BadFile, match="Folder Name") as err:
        read(TODOIST_SAMPLE.read_text(encoding="utf-8"))
    assert err.value.row is None


def test_an_empty_file_is_refused() -> None:
    with pytest.raises(BadFile, match="not a TickTick backup"):
        read("")


def test_a_missing_required_column_names_it_and_the_header_line() -> None:
    columns = [c for c in COLUMNS if c != "Due Date"]
    with pytest.raises(BadFile) as err:
        read(backup({"Title": "x"}, columns=columns))
    assert (err.value.row, err.value.column) == (7, "Due Date")


def test_optional_columns_may_be_missing() -> None:
    columns = ["Folder Name", "List Name", "Title", "Due Date", "Priority", "Status"]
    parsed = read(backup({"Title": "最少的列 minimal", "Due Date": "2026-12-08T02:00:00+0000"}, columns=columns))
    assert parsed.rows[0].deadline_at == datetime(2026, 12, 8, 2, 0, tzinfo=UTC)
    assert parsed.rows[0].timezone == "Asia/Shanghai"  # the user's zone when the row has none


def test_a_csv_error_is_a_bad_file_naming_the_line() -> None:
    text = backup({"Title": "ok"}) + '"' + "x" * 200_000 + '"\n'  # over csv's field size limit
    with pytest.raises(BadFile, match="CSV") as err:
        read(text)
    assert err.value.row == FIRST_DATA_LINE + 1


def test_more_than_max_rows_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ticktick, "MAX_ROWS", 3)
    assert len(read(backup(*({"Title": f"t{i}"} for i in range(3)))).rows) == 3
    with pytest.raises(BadFile, match="more than 3 rows") as err:
        read(backup(*({"Title": f"t{i}"} for i in range(4))))
    assert err.value.row is None


# --- dates -----------------------------------------------------------------------------------


def test_all_day_is_the_local_day_of_the_utc_instant_berlin() -> None:
    row = only_row(**{"Due Date": "2023-03-28T22:00:00+0000", "Is All Day": "true", "Timezone": "Europe/Berlin"})
    assert row.all_day is True
    assert row.deadline_at == datetime(2023, 3, 29, 23, 59, 59, tzinfo=BERLIN)  # not 28 March
    assert row.timezone == "Europe/Berlin"


def test_all_day_is_the_local_day_of_the_utc_instant_shanghai(sample: Parsed) -> None:
    row = by_title(sample)["给妈妈打电话"]  # 2026-12-06T16:00:00+0000
    assert row.all_day is True
    assert row.deadline_at == datetime(2026, 12, 7, 23, 59, 59, tzinfo=SHANGHAI)


def test_a_timed_task_keeps_the_instant(sample: Parsed) -> None:
    row = by_title(sample)["准备周会 slides"]  # 2026-12-07T01:30:00+0000
    assert row.all_day is False
    assert row.deadline_at == datetime(2026, 12, 7, 1, 30, tzinfo=UTC)
    assert row.deadline_at is not None and row.deadline_at.astimezone(SHANGHAI).hour == 9


def test_the_row_timezone_falls_back_to_the_users(sample: Parsed) -> None:
    assert by_title(sample)["Water the plants 浇花"].timezone == "Asia/Shanghai"
    assert read(backup({"Title": "x", "Timezone": ""}), tz="America/New_York").rows[0].timezone == "America/New_York"


@pytest.mark.parametrize("value", ["tomorrow", "2026-13-01T00:00:00+0000", "28/03/2026"])
def test_an_unparseable_date_names_row_and_column(value: str) -> None:
    with pytest.raises(BadFile) as err:
        read(backup({"Title": "a"}, {"Title": "b", "Due Date": value}))
    assert (err.value.row, err.value.column) == (FIRST_DATA_LINE + 1, "Due Date")


def test_an_unknown_timezone_names_the_column() -> None:
    with pytest.raises(BadFile) as err:
        read(backup({"Title": "a", "Timezone": "Mars/Olympus"}))
    assert (err.value.row, err.value.column) == (FIRST_DATA_LINE, "Timezone")


# --- repeat ----------------------------------------------------------------------------------


def test_a_repeat_rule_is_kept_without_its_prefix(sample: Parsed) -> None:
    assert by_title(sample)["准备周会 slides"].rule == "FREQ=WEEKLY;INTERVAL=1;BYDAY=MO"


def test_ticktick_extras_are_dropped_and_said(sample: Parsed) -> None:
    row = by_title(sample)["Groceries 买菜"]
    assert row.rule == "FREQ=WEEKLY;INTERVAL=1;BYDAY=SA"
    assert "repeat_extras" in row.not_kept


@pytest.mark.parametrize(
    "value", ["rrule:freq=daily;interval=2", "ERRULE:FREQ=DAILY;INTERVAL=2", "FREQ=DAILY;INTERVAL=2"]
)
def test_repeat_prefixes_and_case(value: str) -> None:
    row = only_row(**{"Due Date": "2026-12-08T02:00:00+0000", "Repeat": value})
    assert row.rule == "FREQ=DAILY;INTERVAL=2"
    assert "repeat_extras" not in row.not_kept


def test_a_repeat_without_due_date_is_not_kept(sample: Parsed) -> None:
    row = by_title(sample)["Water the plants 浇花"]
    assert row.rule is None
    assert "repeat" in row.not_kept


@pytest.mark.parametrize(
    "value", ["RRULE:FREQ=HOURLY", "RRULE:FREQ=WEEKLY;BYDAY=XX", "RRULE:FOO=1;FREQ=DAILY", "nonsense"]
)
def test_an_unreadable_rule_names_row_and_column(value: str) -> None:
    with pytest.raises(BadFile) as err:
        read(backup({"Title": "a"}, {"Title": "b", "Due Date": "2026-12-08T02:00:00+0000", "Repeat": value}))
    assert (err.value.row, err.value.column) == (FIRST_DATA_LINE + 1, "Repeat")


# --- priority, status, kind ------------------------------------------------------------------


@pytest.mark.parametrize(("value", "group"), [("0", 2), ("1", 3), ("3", 2), ("5", 1), ("", 2)])
def test_priority_table(value: str, group: int) -> None:
    assert only_row(Priority=value).priority_group == group


@pytest.mark.parametrize("value", ["2", "4", "high", "-1"])
def test_an_unknown_priority_names_row_and_column(value: str) -> None:
    with pytest.raises(BadFile) as err:
        read(backup({"Title": "a"}, {"Title": "b"}, {"Title": "c", "Priority": value}))
    assert (err.value.row, err.value.column) == (FIRST_DATA_LINE + 2, "Priority")


def test_completed_keeps_the_completed_time(sample: Parsed) -> None:
    row = by_title(sample)["Pay the electricity bill 电费"]
    assert row.completed is True
    assert row.completed_at == datetime(2026, 11, 27, 9, 12, tzinfo=UTC)


def test_archived_is_completed_falling_back_to_now(sample: Parsed) -> None:
    row = by_title(sample)["Old archived errand 旧事"]
    assert (row.completed, row.completed_at) == (True, NOW)


def test_completed_without_time_falls_back_to_the_deadline() -> None:
    row = only_row(Status="1", **{"Due Date": "2026-11-01T02:00:00+0000"})
    assert row.completed_at == datetime(2026, 11, 1, 2, 0, tzinfo=UTC)


def test_open_is_not_completed(sample: Parsed) -> None:
    row = by_title(sample)["Renew passport 护照续签"]
    assert (row.completed, row.completed_at) == (False, None)


def test_abandoned_and_note_are_skipped_with_their_titles(sample: Parsed) -> None:
    reasons = {s.reason: s.title for s in sample.skipped}
    assert reasons == {"abandoned": "学吉他 (gave up)", "note": "Ideas for the garden 花园", "empty_title": ""}


def test_a_subtask_is_a_task_whose_parent_is_not_kept(sample: Parsed) -> None:
    assert "parent" in by_title(sample)["Book the meeting room 订会议室"].not_kept


def test_an_unknown_status_names_the_column() -> None:
    with pytest.raises(BadFile) as err:
        read(backup({"Title": "a", "Status": "7"}))
    assert err.value.column == "Status"


def test_a_checklist_is_a_task_with_its_items_as_description(sample: Parsed) -> None:
    row = by_title(sample)["Groceries 买菜"]
    assert "description" in row.not_kept
    assert row.deadline_at == datetime(2026, 12, 12, 23, 59, 59, tzinfo=SHANGHAI)


# --- reminders -------------------------------------------------------------------------------


def test_timed_reminders_are_leads(sample: Parsed) -> None:
    row = by_title(sample)["准备周会 slides"]
    assert row.reminders == (timedelta(minutes=15), timedelta(0))
    assert row.reminder_at == ()


def test_all_day_reminders_count_from_local_midnight(sample: Parsed) -> None:
    berlin = by_title(sample)["Renew passport 护照续签"]  # -P0DT15H on 10 Dec
    assert berlin.reminder_at == (datetime(2026, 12, 9, 9, 0, tzinfo=BERLIN),)
    assert berlin.reminders == ()
    shanghai = by_title(sample)["给妈妈打电话"]  # PT9H on 7 Dec
    assert shanghai.reminder_at == (datetime(2026, 12, 7, 9, 0, tzinfo=SHANGHAI),)


def test_a_reminder_after_a_timed_deadline_is_absolute() -> None:
    row = only_row(**{"Due Date": "2026-12-08T02:00:00+0000", "Reminder": "PT1H,-P1D"})
    assert row.reminders == (timedelta(days=1),)
    assert row.reminder_at == (datetime(2026, 12, 8, 3, 0, tzinfo=UTC),)


def test_reminders_without_a_due_date_are_said() -> None:
    row = only_row(Reminder="-PT5M")
    assert (row.reminders, row.reminder_at) == ((), ())
    assert "reminders" in row.not_kept


@pytest.mark.parametrize("value", ["15 minutes", "-P", "PT", "-PT15X"])
def test_an_unparseable_reminder_names_the_column(value: str) -> None:
    with pytest.raises(BadFile) as err:
        read(backup({"Title": "a", "Due Date": "2026-12-08T02:00:00+0000", "Reminder": value}))
    assert (err.value.row, err.value.column) == (FIRST_DATA_LINE, "Reminder")


# --- identity, titles, not kept --------------------------------------------------------------


def test_identity_is_stable_across_reads_and_distinct(sample: Parsed) -> None:
    again = read(SAMPLE.read_text(encoding="utf-8"))
    assert [r.identity for r in again.rows] == [r.identity for r in sample.rows]
    assert len({r.identity for r in sample.rows}) == len(sample.rows)
    assert sample.rows[0].identity == "id:a1f0000000000000000000a1"


def test_identity_without_task_id_counts_identical_rows() -> None:
    text = backup({"Title": "Same 同样"}, {"Title": "Same 同样"}, {"Title": "Other"})
    first, second = read(text), read(text)
    ids = [r.identity for r in first.rows]
    assert ids == [r.identity for r in second.rows]
    assert len(set(ids)) == 3


def test_not_kept_names_the_columns(sample: Parsed) -> None:
    assert by_title(sample)["准备周会 slides"].not_kept == ("folder",)
    assert set(by_title(sample)["Groceries 买菜"].not_kept) == {"description", "folder", "start_date", "repeat_extras"}
    assert by_title(sample)["Renew passport 护照续签"].not_kept == ()  # the inbox is no list


def test_the_list_and_tags_are_kept(sample: Parsed) -> None:
    weekly, groceries = by_title(sample)["准备周会 slides"], by_title(sample)["Groceries 买菜"]
    assert (weekly.list_name, weekly.labels) == ("周会", ("work",))
    assert (groceries.list_name, groceries.labels) == ("购物", ("home", "周末"))
    assert by_title(sample)["Renew passport 护照续签"].list_name is None  # the inbox is no list
    odd = only_row(**{"List Name": "a,b;c", "Tags": "#x, x, y\tz"})
    assert (odd.list_name, odd.labels) == ("a b c", ("x", "y z"))


def test_a_long_title_is_cut() -> None:
    row = only_row(Title="长" * 600)
    assert row.title == "长" * 500
    assert "title" in row.not_kept


def test_titles_are_stripped_but_otherwise_as_written() -> None:
    assert only_row(Title="  Call 王老师 re: [notes](https://example.com)  ").title == (
        "Call 王老师 re: [notes](https://example.com)"
    )


# --- never another exception -----------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=300))
def test_arbitrary_text_parses_or_is_a_bad_file(text: str) -> None:
    try:
        parsed = read(text)
    except BadFile as err:
        assert str(err)  # a message the 400 can show
    else:
        assert all(row.title and len(row.title) <= 500 for row in parsed.rows)


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(st.sampled_from(COLUMNS), st.text(max_size=40), max_size=8))
def test_arbitrary_cells_parse_or_are_a_bad_file(cells: dict[str, str]) -> None:
    try:
        assert isinstance(read(backup(cells)), Parsed)
    except BadFile as err:
        assert err.row is None or err.row >= FIRST_DATA_LINE - 1
