"""Todoist's CSV template: the inverted priority, skipped notes/sections, DATE phrases, refusals."""

from __future__ import annotations

import csv
import io
from datetime import UTC, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exchange import todoist
from exchange.rows import MAX_ROWS, BadFile, Parsed, Row

NOW = datetime(2026, 12, 5, 10, 0, tzinfo=UTC)  # Saturday, 18:00 in Shanghai
SAMPLE = Path(__file__).resolve().parents[1] / "data" / "exchange" / "todoist_template.csv"
TICKTICK_SAMPLE = SAMPLE.with_name("ticktick_backup.csv")
SHANGHAI = ZoneInfo("Asia/Shanghai")
BERLIN = ZoneInfo("Europe/Berlin")
COLUMNS = [
    "TYPE",
    "CONTENT",
    "DESCRIPTION",
    "PRIORITY",
    "INDENT",
    "AUTHOR",
    "RESPONSIBLE",
    "DATE",
    "DATE_LANG",
    "TIMEZONE",
    "DURATION",
    "DURATION_UNIT",
]
NEW_COLUMNS = [*COLUMNS, "DEADLINE", "DEADLINE_LANG"]
DEFAULTS = {"TYPE": "task", "PRIORITY": "1", "INDENT": "1", "DATE_LANG": "en", "TIMEZONE": "Asia/Shanghai"}


def template(*rows: dict[str, str], columns: list[str] = NEW_COLUMNS) -> str:
    """A template file: the header and ``rows`` (unnamed cells from DEFAULTS or empty)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")  # a "\r" or "\n" inside a cell is quoted
    writer.writerow(columns)
    for row in rows:
        writer.writerow([row.get(c, DEFAULTS.get(c, "")) for c in columns])
    return out.getvalue()


def read(text: str, tz: str = "Asia/Shanghai") -> Parsed:
    return todoist.read(text, tz=tz, now=NOW)


def only_row(**cells: str) -> Row:
    parsed = read(template({"CONTENT": "任务 task", **cells}))
    assert parsed.skipped == []
    assert len(parsed.rows) == 1
    return parsed.rows[0]


@pytest.fixture(scope="module")
def sample() -> Parsed:
    return read(SAMPLE.read_text(encoding="utf-8"))


def by_title(parsed: Parsed) -> dict[str, Row]:
    return {row.title: row for row in parsed.rows}


# --- the file --------------------------------------------------------------------------------


def test_the_sample_rows_skips_and_lines_across_blank_lines(sample: Parsed) -> None:
    assert [(r.line, r.title) for r in sample.rows] == [
        (4, "Take out the trash 倒垃圾"),
        (6, "Standup 站会"),
        (10, "健身 Gym"),
        (12, "Buy a Christmas tree 圣诞树"),
        (14, "Pack the suitcase 收拾行李"),
        (16, "Read [the guide](https://example.com/guide) 读指南"),
        (18, "File the tax return 报税"),
        (20, "Water the plants 浇花"),
        (21, "Water the plants 浇花"),
    ]
    assert [(s.line, s.reason, s.title) for s in sample.skipped] == [
        (2, "section", "家务 Chores"),
        (8, "note", "记得带钥匙 remember the keys"),
    ]


def test_a_bom_is_dropped(sample: Parsed) -> None:
    assert read("\ufeff" + SAMPLE.read_text(encoding="utf-8")) == sample


def test_the_older_header_without_deadline_columns_is_accepted() -> None:
    parsed = read(template({"CONTENT": "旧格式 old format", "DATE": "Dec 24"}, columns=COLUMNS))
    assert parsed.rows[0].deadline_at == datetime(2026, 12, 24, 23, 59, 59, tzinfo=SHANGHAI)


def test_unknown_columns_are_ignored() -> None:
    parsed = read(template({"CONTENT": "x", "COLOR": "red"}, columns=[*COLUMNS, "COLOR"]))
    assert [r.title for r in parsed.rows] == ["x"]


@pytest.mark.parametrize("missing", ["TYPE", "CONTENT", "PRIORITY", "DATE"])
def test_a_missing_required_column_names_it(missing: str) -> None:
    with pytest.raises(BadFile) as err:
        read(template({"CONTENT": "x"}, columns=[c for c in COLUMNS if c != missing]))
    assert (err.value.row, err.value.column) == (1, missing)


def test_a_ticktick_file_is_refused_naming_the_expected_header() -> None:
    with pytest.raises(BadFile, match="TYPE,CONTENT,DESCRIPTION"):
        read(TICKTICK_SAMPLE.read_text(encoding="utf-8"))


@pytest.mark.parametrize("text", ["", "\n\n", "\ufeff"])
def test_an_empty_file_is_refused(text: str) -> None:
    with pytest.raises(BadFile, match="Todoist"):
        read(text)


def test_a_csv_error_is_a_bad_file_naming_the_line() -> None:
    text = template({"CONTENT": "ok"}) + '"' + "x" * 200_000 + '"\n'
    with pytest.raises(BadFile, match="CSV") as err:
        read(text)
    assert err.value.row == 3


def test_more_than_max_rows_is_refused() -> None:
    text = template(*({"CONTENT": "t"} for _ in range(MAX_ROWS + 1)))
    with pytest.raises(BadFile, match=f"more than {MAX_ROWS} rows") as err:
        read(text)
    assert err.value.row is None


def test_max_rows_exactly_is_read(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(todoist, "MAX_ROWS", 2)
    assert len(read(template({"CONTENT": "a"}, {"CONTENT": "b"})).rows) == 2
    with pytest.raises(BadFile):
        read(template({"CONTENT": "a"}, {"CONTENT": "b"}, {"CONTENT": "c"}))


# --- type, priority --------------------------------------------------------------------------


@pytest.mark.parametrize("value", ["project", "", "TASKS"])
def test_an_unknown_type_names_row_and_column(value: str) -> None:
    with pytest.raises(BadFile) as err:
        read(template({"CONTENT": "a"}, {"CONTENT": "b", "TYPE": value}))
    assert (err.value.row, err.value.column) == (3, "TYPE")


@pytest.mark.parametrize(("value", "group"), [("4", 1), ("3", 2), ("2", 3), ("1", 2), ("", 2)])
def test_priority_is_inverted(value: str, group: int) -> None:
    assert only_row(PRIORITY=value).priority_group == group


@pytest.mark.parametrize("value", ["0", "5", "p1", "high"])
def test_a_bad_priority_names_row_and_column(value: str) -> None:
    with pytest.raises(BadFile) as err:
        read(template({"CONTENT": "a"}, {"CONTENT": "b"}, {"CONTENT": "c", "PRIORITY": value}))
    assert (err.value.row, err.value.column) == (4, "PRIORITY")


# --- DATE ------------------------------------------------------------------------------------


def test_every_monday_is_a_weekly_rule_all_day(sample: Parsed) -> None:
    row = by_title(sample)["Take out the trash 倒垃圾"]
    assert row.rule == "FREQ=WEEKLY;BYDAY=MO"
    assert row.deadline_at == datetime(2026, 12, 7, 23, 59, 59, tzinfo=SHANGHAI)
    assert row.all_day is True


def test_every_day_at_9am_is_daily_at_nine_after_now(sample: Parsed) -> None:
    row = by_title(sample)["Standup 站会"]
    assert row.rule == "FREQ=DAILY"
    assert row.deadline_at == datetime(2026, 12, 6, 9, 0, tzinfo=SHANGHAI)  # 09:00 today has passed
    assert row.all_day is False


def test_chinese_every_monday(sample: Parsed) -> None:
    row = by_title(sample)["健身 Gym"]
    assert row.rule == "FREQ=WEEKLY;BYDAY=MO"
    assert row.deadline_at == datetime(2026, 12, 7, 23, 59, 59, tzinfo=SHANGHAI)
    assert row.timezone == "Asia/Shanghai"


def test_every_other_friday() -> None:
    row = only_row(DATE="every other friday")
    assert row.rule == "FREQ=WEEKLY;INTERVAL=2;BYDAY=FR"
    assert row.deadline_at == datetime(2026, 12, 11, 23, 59, 59, tzinfo=SHANGHAI)


def test_every_monday_at_a_time_in_berlin() -> None:
    row = only_row(DATE="every monday at 9:30", TIMEZONE="Europe/Berlin")
    assert row.rule == "FREQ=WEEKLY;BYDAY=MO"
    assert row.deadline_at == datetime(2026, 12, 7, 9, 30, tzinfo=BERLIN)
    assert row.timezone == "Europe/Berlin"


def test_a_date_without_time_is_all_day(sample: Parsed) -> None:
    row = by_title(sample)["Buy a Christmas tree 圣诞树"]
    assert row.deadline_at == datetime(2026, 12, 24, 23, 59, 59, tzinfo=BERLIN)
    assert (row.all_day, row.rule, row.timezone) == (True, None, "Europe/Berlin")


def test_tomorrow_is_all_day_not_the_current_clock() -> None:
    row = only_row(DATE="tomorrow")
    assert (row.deadline_at, row.all_day) == (datetime(2026, 12, 6, 23, 59, 59, tzinfo=SHANGHAI), True)


def test_a_date_with_a_time_is_timed_in_the_users_zone(sample: Parsed) -> None:
    row = by_title(sample)["Pack the suitcase 收拾行李"]  # no TIMEZONE: the user's
    assert (row.deadline_at, row.all_day) == (datetime(2026, 12, 6, 15, 0, tzinfo=SHANGHAI), False)
    assert row.timezone == "Asia/Shanghai"


def test_an_iso_date() -> None:
    assert only_row(DATE="2026-12-24").deadline_at == datetime(2026, 12, 24, 23, 59, 59, tzinfo=SHANGHAI)


def test_a_chinese_date_dateparser_cannot_read_uses_suikous_reader() -> None:
    row = only_row(DATE="明天下午3点", DATE_LANG="zh")
    assert (row.deadline_at, row.all_day) == (datetime(2026, 12, 6, 15, 0, tzinfo=SHANGHAI), False)
    assert "date" not in row.not_kept


def test_an_unreadable_date_keeps_the_task_without_deadline(sample: Parsed) -> None:
    row = by_title(sample)["Read [the guide](https://example.com/guide) 读指南"]
    assert (row.deadline_at, row.rule) == (None, None)
    assert row.not_kept == ("date",)


def test_a_repetition_the_rules_cannot_read_is_said() -> None:
    row = only_row(DATE="every workday")
    assert (row.rule, row.deadline_at) == (None, None)
    assert "repeat" in row.not_kept


def test_an_unreadable_repetition_keeps_the_date_of_the_rest() -> None:
    row = only_row(DATE="every 3rd tuesday from Dec 24")
    assert (row.rule, row.deadline_at) == (None, datetime(2026, 12, 24, 23, 59, 59, tzinfo=SHANGHAI))
    assert "repeat" in row.not_kept


def test_a_deadline_column_is_the_deadline_when_date_is_empty(sample: Parsed) -> None:
    row = by_title(sample)["File the tax return 报税"]
    assert (row.deadline_at, row.all_day) == (datetime(2026, 12, 31, 23, 59, 59, tzinfo=SHANGHAI), True)
    assert "deadline" not in row.not_kept


def test_a_deadline_column_beside_a_date_is_said() -> None:
    row = only_row(DATE="Dec 24", DEADLINE="2026-12-31")
    assert row.deadline_at == datetime(2026, 12, 24, 23, 59, 59, tzinfo=SHANGHAI)
    assert row.not_kept == ("deadline",)


def test_an_unknown_timezone_names_row_and_column() -> None:
    with pytest.raises(BadFile) as err:
        read(template({"CONTENT": "a", "TIMEZONE": "Mars/Olympus"}))
    assert (err.value.row, err.value.column) == (2, "TIMEZONE")


# --- titles, not kept, identity --------------------------------------------------------------


def test_labels_leave_the_title_and_are_kept(sample: Parsed) -> None:
    assert by_title(sample)["健身 Gym"].labels == ("health", "周末")
    assert by_title(sample)["健身 Gym"].not_kept == ()
    row = only_row(CONTENT="@work Email 李老师 @urgent now")
    assert (row.title, row.labels) == ("Email 李老师 now", ("work", "urgent"))


def test_an_at_inside_a_word_is_no_label() -> None:
    row = only_row(CONTENT="Write to me@example.com")
    assert row.title == "Write to me@example.com"
    assert "tags" not in row.not_kept


def test_a_title_of_only_labels_is_empty() -> None:
    parsed = read(template({"CONTENT": "@home @work"}))
    assert [(s.line, s.reason) for s in parsed.skipped] == [(2, "empty_title")]


def test_a_long_title_is_cut() -> None:
    row = only_row(CONTENT="x" * 501)
    assert (len(row.title), "title" in row.not_kept) == (500, True)


def test_not_kept_columns(sample: Parsed) -> None:
    assert by_title(sample)["Buy a Christmas tree 圣诞树"].not_kept == ("description", "responsible")
    assert by_title(sample)["Standup 站会"].not_kept == ()
    assert by_title(sample)["Pack the suitcase 收拾行李"].not_kept == ("parent",)


def test_identity_is_stable_across_reads_and_distinct(sample: Parsed) -> None:
    again = read(SAMPLE.read_text(encoding="utf-8"))
    assert [r.identity for r in again.rows] == [r.identity for r in sample.rows]
    assert len({r.identity for r in sample.rows}) == len(sample.rows)  # the two "Water the plants" too


def test_identity_does_not_depend_on_other_rows_order() -> None:
    a = read(template({"CONTENT": "A"}, {"CONTENT": "B"}))
    b = read(template({"CONTENT": "B"}, {"CONTENT": "A"}))
    assert {r.title: r.identity for r in a.rows} == {r.title: r.identity for r in b.rows}


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
@given(
    st.fixed_dictionaries(
        {"CONTENT": st.text(max_size=30)},
        optional={c: st.text(max_size=30) for c in ("DATE", "DATE_LANG", "PRIORITY", "INDENT", "DEADLINE")},
    )
)
def test_arbitrary_cells_parse_or_are_a_bad_file(cells: dict[str, str]) -> None:
    try:
        assert isinstance(read(template(cells)), Parsed)
    except BadFile as err:
        assert err.row == 2


def test_the_view_setting_row_and_blank_rows_of_a_real_export_are_no_rows() -> None:
    text = (
        "TYPE,CONTENT,DESCRIPTION,IS_COLLAPSED,PRIORITY,INDENT,AUTHOR,RESPONSIBLE,DATE,DATE_LANG,TIMEZONE,"
        "DURATION,DURATION_UNIT,DEADLINE,DEADLINE_LANG\n"
        "meta,view_style=board,,,,,,,,,,,,,\n"
        ",,,,,,,,,,,,,,\n"
        "task,整理书架,,,2,1,Wen (1234),,2026-12-12,en,Asia/Shanghai,,,,\n"
        ",,,,,,,,,,,,,,\n"
        "section,Reading,,False,,,,,,,,,,,\n"
    )
    parsed = todoist.read(text, tz="Asia/Shanghai", now=NOW)
    assert [r.title for r in parsed.rows] == ["整理书架"]
    assert [s.reason for s in parsed.skipped] == ["section"]


@pytest.mark.parametrize(
    ("amount", "unit", "minutes", "kept"),
    [("15", "minute", 15, True), ("2", "day", 960, True), ("90", "", 90, True), ("99999", "day", None, False),
     ("soon", "minute", None, False), ("30", "week", None, False)],
)  # fmt: skip
def test_a_duration_is_the_estimate_or_said_as_not_kept(
    amount: str, unit: str, minutes: int | None, kept: bool
) -> None:
    row = only_row(CONTENT="跑步", DURATION=amount, DURATION_UNIT=unit)
    assert row.estimate_minutes == minutes
    assert ("duration" in row.not_kept) is not kept
