"""What an importer reads a file into: rows to create, rows skipped (with why), or a refusal.

Every source (TickTick's backup CSV, Todoist's CSV template, Suikou's own export) is read into
:class:`Row` values here, so the import itself (:mod:`exchange.importer`) is one piece of code.
"""

from __future__ import annotations

import csv
import hashlib
import io
from dataclasses import dataclass, field
from datetime import datetime, time, timedelta
from typing import Literal

__all__ = [
    "MAX_ROWS",
    "MAX_TITLE",
    "BadFile",
    "Parsed",
    "Record",
    "Row",
    "Skip",
    "SkipReason",
    "clip_title",
    "csv_records",
    "day_end",
    "group_from_ics",
]

MAX_ROWS = 10_000  # rows of one file: an import is one transaction, kept short
MAX_TITLE = 500  # a longer title is cut (and "title" said in not_kept)

# Why a row is not a task: a Todoist comment or section, an archived/abandoned row, a row without a
# title, or one this user has already (imported before).
SkipReason = Literal["note", "section", "archived", "abandoned", "empty_title", "duplicate"]

DAY_END = time(23, 59, 59)  # a day-only deadline is the end of that day, as Suikou's notes keep it


def day_end(day: datetime | None, zone: object) -> datetime | None:
    """``day``'s date at 23:59:59 in ``zone`` (a ZoneInfo), the way Suikou stores a day-only deadline."""
    if day is None:
        return None
    return datetime.combine(day.date(), DAY_END, zone)  # type: ignore[arg-type]


class BadFile(ValueError):
    """A file the importer can't read: the 400 names the row (1-based line of the file) and column."""

    def __init__(self, message: str, *, row: int | None = None, column: str | None = None) -> None:
        where = ", ".join(p for p in (f"row {row}" if row else "", f"column {column!r}" if column else "") if p)
        super().__init__(f"{where}: {message}" if where else message)
        self.row = row
        self.column = column


@dataclass(frozen=True)
class Row:
    """One task to create. ``deadline_at`` is aware; ``rule`` an RRULE value (no DTSTART: the deadline
    is its start) in ``timezone``; ``reminders`` are leads before the deadline."""

    line: int
    title: str
    identity: str  # what makes a re-import of this row the same row (a source id, or its content)
    deadline_at: datetime | None = None
    all_day: bool = False
    timezone: str | None = None
    priority_group: int = 2
    rule: str | None = None
    rule_start: datetime | None = None  # the rule's DTSTART when it is not the deadline (Suikou's export)
    urgency_threshold_at: datetime | None = None
    estimate_minutes: int | None = None
    completed: bool = False
    completed_at: datetime | None = None
    reminders: tuple[timedelta, ...] = ()
    reminder_at: tuple[datetime, ...] = ()
    list_name: str | None = None
    labels: tuple[str, ...] = ()
    # Columns with values Suikou has no field for yet (description, list, tags, duration...): counted
    # and said in the summary, never silently dropped.
    not_kept: tuple[str, ...] = ()

    def source_key(self, source: str) -> str:
        digest = hashlib.sha256(f"{source}\n{self.identity}".encode()).hexdigest()[:40]
        return f"import:{source}:{digest}"


@dataclass(frozen=True)
class Skip:
    line: int
    reason: SkipReason
    title: str = ""


@dataclass
class Parsed:
    rows: list[Row] = field(default_factory=list)
    skipped: list[Skip] = field(default_factory=list)


def group_from_ics(priority: int) -> int:
    """RFC 5545 PRIORITY (1 highest .. 9 lowest, 0 undefined) as a group; see :data:`ICS_PRIORITY`."""
    if 1 <= priority <= 2:
        return 1
    if 3 <= priority <= 4:
        return 2
    if 6 <= priority <= 7:
        return 3
    if 8 <= priority <= 9:
        return 4
    return 2  # 0 (undefined) and 5 (medium): Suikou's default group


# A group as RFC 5545 PRIORITY: high (1-4) for the important groups, low (6-9) for the others;
# group_from_ics reads each back as itself.
ICS_PRIORITY = {1: 1, 2: 3, 3: 7, 4: 9}


# --- CSV helpers shared by the TickTick and Todoist readers ---------------------------------------


def csv_records(text: str) -> list[tuple[int, list[str]]]:
    """``text``'s CSV records (a leading UTF-8 BOM dropped), each with the 1-based line it starts on.

    A record spanning lines (a quoted field with newlines) is numbered by its first line; a blank
    line is an empty record. A csv.Error is a :class:`BadFile` naming the line."""
    reader = csv.reader(io.StringIO(text.removeprefix("\ufeff"), newline=""))
    records: list[tuple[int, list[str]]] = []
    start = 1
    try:
        for record in reader:
            records.append((start, record))
            start = reader.line_num + 1
    except csv.Error as exc:
        raise BadFile(f"not readable as CSV ({exc})", row=max(reader.line_num, 1)) from exc
    return records


@dataclass(frozen=True)
class Record:
    """One data record by column name (as the header spells it); absent cells read as ""."""

    line: int
    cells: dict[str, str]

    @classmethod
    def of(cls, line: int, header: list[str], values: list[str]) -> Record:
        return cls(line, {name: value.strip() for name, value in zip(header, values, strict=False)})

    def get(self, column: str) -> str:
        return self.cells.get(column, "")

    def bad(self, message: str, column: str) -> BadFile:
        return BadFile(message, row=self.line, column=column)


def clip_title(title: str) -> tuple[str, bool]:
    """The title cut to :data:`MAX_TITLE` characters, and whether it was cut."""
    return title[:MAX_TITLE].rstrip(), len(title) > MAX_TITLE
