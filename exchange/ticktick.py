"""TickTick's backup CSV (Settings → Backup) read into :class:`~exchange.rows.Row` values.

The file opens with a few preamble records ("Date: …", "Version: …", a multi-line "Status: …"
legend); the header is the first record whose first field is ``Folder Name``. Required columns:
``Title``, ``Due Date``, ``Priority``, ``Status``; every other column is optional.

Priority (TickTick → Suikou group):

=========  =====
TickTick   group
=========  =====
0 none     2
1 low      3
3 medium   2
5 high     1
=========  =====

Any other value refuses the file.

Status: 0 open; 1 completed; 2 archived (completed too); -1 won't do → skipped ("abandoned").
Completed rows keep ``Completed Time`` (else the deadline, else the import's moment).

Kind: ``NOTE`` → skipped ("note"); ``TEXT`` and ``CHECKLIST`` are tasks (a checklist's items are its
``Content``). A row with a ``parentId`` is a subtask: a task of its own, its parent not kept ("parent").

Dates (``2026-03-28T22:00:00+0000``) are instants. With ``Is All Day`` = true the instant is the
local midnight of the day in the row's ``Timezone`` (2026-03-28T22:00:00+0000 in Europe/Berlin is
29 March), so the deadline is that day's 23:59:59 there (``all_day``). The row's zone is its
``Timezone``, else the importing user's.

Repeat: an RRULE (``RRULE:FREQ=WEEKLY;BYDAY=MO``; the prefix may be missing, ``ERRULE:`` or
lowercase). TickTick's own ``X-…``/``TT_…`` parts are dropped ("repeat_extras"); the rest must be a
rule Suikou keeps (:func:`core.recurrence.make`, started at the deadline). A repeat without a due
date is not kept ("repeat").

Reminder: comma-separated ISO 8601 durations (``-PT15M``, ``PT0S``, ``-P1DT15H``), negative =
before. A timed task: a trigger at or before the deadline is a lead (``reminders``), one after it an
absolute ``reminder_at``. An all-day task: the trigger counts from the day's local midnight
(``-P0DT15H`` = 09:00 the day before) → ``reminder_at``. Reminders without a due date: "reminders".

``List Name`` (other than the inbox) is the task's list, ``Tags`` (comma-separated) its labels.
Not kept yet (``Row.not_kept``): ``Content`` → "description", ``Folder Name`` → "folder" (a group
of lists), ``Start Date`` differing from ``Due Date`` →
"start_date", a subtask's ``parentId`` → "parent", a title over 500 characters → "title".

Identity: the ``taskId`` column; without one, the row's title, list, due date and content with its
ordinal among rows identical in those.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from datetime import datetime, time, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from core import listnames
from core.recurrence import RuleError, make
from exchange.rows import MAX_ROWS, BadFile, Parsed, Record, Row, Skip, SkipReason, clip_title, csv_records, day_end

__all__ = ["PRIORITY_GROUP", "STATUS", "read"]

HEADER_START = "Folder Name"
# The columns of a backup as TickTick 7.x writes them (older backups lack some: only REQUIRED are).
COLUMNS = (
    "Folder Name", "List Name", "Title", "Kind", "Tags", "Content", "Is Check list", "Start Date", "Due Date",
    "Reminder", "Repeat", "Priority", "Status", "Created Time", "Completed Time", "Order", "Timezone",
    "Is All Day", "Is Floating", "Column Name", "Column Order", "View Mode", "taskId", "parentId",
)  # fmt: skip
REQUIRED = ("Title", "Due Date", "Priority", "Status")
PRIORITY_GROUP = {"": 2, "0": 2, "1": 3, "3": 2, "5": 1}
# Status value → "open", "completed" or a skip reason.
STATUS: dict[str, str] = {"": "open", "0": "open", "1": "completed", "2": "completed", "-1": "abandoned"}
SKIP_KIND: dict[str, SkipReason] = {"NOTE": "note"}
INBOX = frozenset({"inbox", "收集箱"})  # every task has a list; the inbox is no list worth saying
# Columns whose value Suikou has no field for yet, by the name not_kept says.
NOT_KEPT_COLUMNS = {"description": ("Content",), "folder": ("Folder Name",)}
_RULE_PREFIX = re.compile(r"^\s*E?RRULE\s*:", re.IGNORECASE)
_EXTRA_PART = re.compile(r"^\s*(?:X-|TT_)", re.IGNORECASE)
_DURATION = re.compile(
    r"(?P<sign>[+-])?P(?:(?P<w>\d{1,4})W)?(?:(?P<d>\d{1,5})D)?"
    r"(?:T(?:(?P<h>\d{1,6})H)?(?:(?P<m>\d{1,7})M)?(?:(?P<s>\d{1,9})S)?)?",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class _Due:
    deadline: datetime | None
    all_day: bool
    zone: ZoneInfo
    zone_name: str


def read(text: str, *, tz: str, now: datetime) -> Parsed:
    """A TickTick backup CSV's rows (raises :class:`BadFile` naming the row and column)."""
    records = csv_records(text)
    at = _header_index(records)
    header = [name.strip() for name in records[at][1]]
    _require(header, records[at][0])
    body = [Record.of(line, header, values) for line, values in records[at + 1 :] if any(v.strip() for v in values)]
    if len(body) > MAX_ROWS:
        raise BadFile(f"the file has more than {MAX_ROWS} rows")
    parsed = Parsed()
    seen: Counter[str] = Counter()
    for record in body:
        result = _row(record, tz=tz, now=now, seen=seen)
        if isinstance(result, Row):
            parsed.rows.append(result)
        else:
            parsed.skipped.append(result)
    return parsed


def _header_index(records: list[tuple[int, list[str]]]) -> int:
    for index, (_, values) in enumerate(records):
        if values and values[0].strip() == HEADER_START:
            return index
    raise BadFile(f'not a TickTick backup: no header row starting "{HEADER_START}","List Name","Title",…')


def _require(header: list[str], line: int) -> None:
    for name in REQUIRED:
        if name not in header:
            raise BadFile("a required column is missing from the header", row=line, column=name)


def _row(record: Record, *, tz: str, now: datetime, seen: Counter[str]) -> Row | Skip:
    raw_title = record.get("Title")
    reason = _skip_reason(record)
    if reason is not None:
        return Skip(record.line, reason, raw_title)
    if not raw_title:
        return Skip(record.line, "empty_title")
    title, cut = clip_title(raw_title)
    not_kept = _not_kept(record, cut)
    due = _due(record, tz)
    rule = _rule(record, due, not_kept)
    reminders, reminder_at = _reminders(record, due, not_kept)
    completed = STATUS[record.get("Status")] == "completed"
    return Row(
        line=record.line,
        title=title,
        identity=_identity(record, seen),
        deadline_at=due.deadline,
        all_day=due.all_day,
        timezone=due.zone_name,
        priority_group=PRIORITY_GROUP[record.get("Priority")],
        rule=rule,
        completed=completed,
        completed_at=_completed_at(record, due, now) if completed else None,
        reminders=reminders,
        reminder_at=reminder_at,
        list_name=listnames.lenient(record.get("List Name")) if _said(record, "List Name") else None,
        labels=tuple(listnames.lenient_labels(re.split(r"[,，]", record.get("Tags")))),
        not_kept=tuple(dict.fromkeys(not_kept)),
    )


def _skip_reason(record: Record) -> SkipReason | None:
    """Why the row is no task (checked before anything else is read), or None. Refuses odd values."""
    if record.get("Priority") not in PRIORITY_GROUP:
        raise record.bad(f"unknown priority {record.get('Priority')!r} (0, 1, 3 or 5)", "Priority")
    status = STATUS.get(record.get("Status"))
    if status is None:
        raise record.bad(f"unknown status {record.get('Status')!r} (0, 1, 2 or -1)", "Status")
    if record.get("Kind").upper() in SKIP_KIND:
        return SKIP_KIND[record.get("Kind").upper()]
    return "abandoned" if status == "abandoned" else None


def _not_kept(record: Record, title_cut: bool) -> list[str]:
    """The not_kept names the row's plain columns give (the repeat and reminders add their own)."""
    names = [name for name, columns in NOT_KEPT_COLUMNS.items() if any(_said(record, c) for c in columns)]
    if record.get("Start Date") and record.get("Start Date") != record.get("Due Date"):
        names.append("start_date")
    if record.get("parentId"):
        names.append("parent")  # a subtask is a task; the nesting has no field yet
    return [*names, "title"] if title_cut else names


def _said(record: Record, column: str) -> bool:
    value = record.get(column)
    return bool(value) and not (column in ("Folder Name", "List Name") and value.casefold() in INBOX)


def _identity(record: Record, seen: Counter[str]) -> str:
    if record.get("taskId"):
        return f"id:{record.get('taskId')}"
    content = "\x1f".join(record.get(c) for c in ("Title", "List Name", "Due Date", "Content"))
    seen[content] += 1
    return f"content:{content}\x1f{seen[content]}"


def _zone(name: str, record: Record) -> ZoneInfo:
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError) as exc:
        raise record.bad(f"unknown timezone {name!r}", "Timezone") from exc


def _instant(record: Record, column: str, zone: ZoneInfo) -> datetime | None:
    value = record.get(column)
    if not value:
        return None
    try:
        moment = datetime.fromisoformat(value)
    except ValueError as exc:
        raise record.bad(f"not a date {value!r} (e.g. 2026-03-28T22:00:00+0000)", column) from exc
    return moment.replace(tzinfo=zone) if moment.tzinfo is None else moment


def _due(record: Record, tz: str) -> _Due:
    zone_name = record.get("Timezone") or tz
    zone = _zone(zone_name, record)
    instant = _instant(record, "Due Date", zone)
    if instant is None:
        return _Due(None, False, zone, zone_name)
    try:
        local = instant.astimezone(zone)
    except (OverflowError, ValueError) as exc:
        raise record.bad("the date is out of range", "Due Date") from exc
    if record.get("Is All Day").lower() == "true":
        return _Due(day_end(local, zone), True, zone, zone_name)
    return _Due(local, False, zone, zone_name)


def _rule(record: Record, due: _Due, not_kept: list[str]) -> str | None:
    raw = record.get("Repeat")
    if not raw:
        return None
    parts = [p for p in _RULE_PREFIX.sub("", raw).split(";") if p.strip()]
    kept = [p for p in parts if not _EXTRA_PART.match(p)]
    if len(kept) < len(parts):
        not_kept.append("repeat_extras")
    if due.deadline is None:
        not_kept.append("repeat")
        return None
    try:
        return make(";".join(kept), start=due.deadline, tz=due.zone_name).rule
    except (RuleError, OverflowError) as exc:
        raise record.bad(f"unreadable repeat rule ({exc})", "Repeat") from exc


def _duration(text: str) -> timedelta | None:
    m = _DURATION.fullmatch(text.strip().removeprefix("TRIGGER:"))
    if m is None or not any(m[k] for k in "wdhms"):
        return None
    w, d, h, mi, s = (int(m[k] or 0) for k in "wdhms")
    span = timedelta(weeks=w, days=d, hours=h, minutes=mi, seconds=s)
    return -span if m["sign"] == "-" else span


def _reminders(record: Record, due: _Due, not_kept: list[str]) -> tuple[tuple[timedelta, ...], tuple[datetime, ...]]:
    triggers = [t for t in record.get("Reminder").split(",") if t.strip()]
    leads: list[timedelta] = []
    moments: list[datetime] = []
    for trigger in triggers:
        span = _duration(trigger)
        if span is None:
            raise record.bad(f"not a reminder {trigger.strip()!r} (e.g. -PT15M)", "Reminder")
        if due.deadline is None:
            continue
        try:
            if due.all_day:
                midnight = datetime.combine(due.deadline.date(), time(0), due.zone)
                moments.append(midnight + span)
            elif span <= timedelta(0):
                leads.append(-span)
            else:
                moments.append(due.deadline + span)
        except OverflowError as exc:
            raise record.bad("the reminder is out of range", "Reminder") from exc
    if triggers and due.deadline is None:
        not_kept.append("reminders")
    return tuple(leads), tuple(moments)


def _completed_at(record: Record, due: _Due, now: datetime) -> datetime:
    return _instant(record, "Completed Time", due.zone) or due.deadline or now
