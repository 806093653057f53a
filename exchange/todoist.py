"""Todoist's CSV template (Project → Export as template → CSV) read into :class:`~exchange.rows.Row` values.

Header: ``TYPE,CONTENT,DESCRIPTION,PRIORITY,INDENT,AUTHOR,RESPONSIBLE,DATE,DATE_LANG,TIMEZONE,
DURATION,DURATION_UNIT`` (newer exports add ``DEADLINE,DEADLINE_LANG``); ``TYPE``, ``CONTENT``,
``PRIORITY`` and ``DATE`` are required, unknown columns are ignored, blank lines are skipped.

TYPE: ``task`` → a task; ``note`` (a comment on the task above) → skipped ("note"); ``section`` →
skipped ("section"); anything else refuses the file.

Priority is inverted in Todoist (PRIORITY → Suikou group):

==========================  =====
Todoist                     group
==========================  =====
4 (p1, highest)             1
3 (p2)                      2
2 (p3)                      3
1 (p4, no priority), empty  2
==========================  =====

Any other value refuses the file.

DATE is natural language in ``DATE_LANG`` ("tomorrow", "Dec 24", "every monday", "every day at
9am", "每周一"), read in the row's ``TIMEZONE`` (else the importing user's zone):

- a repetition (:func:`core.recurrence.read_repeat`) becomes ``rule``; the deadline is the rule's
  first occurrence at or after the import (from the date the rest of the text names, if any), at
  the time said or else all day. A repetition Suikou can't keep: a one-off at the rest's date, "repeat".
- the date and time (of the rest, or of the whole text) via dateparser; for Chinese, Suikou's own
  time reader (:func:`core.timeanchor.resolve_time`) when dateparser reads nothing. A text without
  a clock time ("tomorrow", "Dec 24") is all day: 23:59:59 that day.
- a DATE nothing can read: the task is kept without a deadline ("date").

DEADLINE (a date) is the deadline when DATE is empty; otherwise "deadline".

``INDENT`` > 1 is a subtask: imported as a task, with "parent". Not kept yet (``Row.not_kept``):
DESCRIPTION → "description" (``@label`` words in CONTENT are the task's labels, taken out of the title),
a DURATION it can't keep → "duration" (one it can is the estimate: minutes, or working days), RESPONSIBLE → "responsible", a title over 500 characters → "title".
Completed tasks are never in a template.

Identity (the file has no ids): CONTENT, DATE and DESCRIPTION with the row's ordinal among rows
identical in those, so two identical rows are two tasks, the same two on every import.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from datetime import date, datetime
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import dateparser

from core import listnames
from core.estimates import ESTIMATE_MAX, WORKDAY_MINUTES
from core.recurrence import RepeatPhrase, RuleError, make, next_after, read_repeat
from core.timeanchor import resolve_time
from core.timeanchor.window import deadline_of
from exchange.rows import (
    DAY_END,
    MAX_ROWS,
    BadFile,
    Parsed,
    Record,
    Row,
    Skip,
    SkipReason,
    clip_title,
    csv_records,
    day_end,
)

__all__ = ["PRIORITY_GROUP", "TYPES", "read"]

HEADER = "TYPE,CONTENT,DESCRIPTION,PRIORITY,INDENT,AUTHOR,RESPONSIBLE,DATE,DATE_LANG,TIMEZONE,DURATION,DURATION_UNIT"
REQUIRED = ("TYPE", "CONTENT", "PRIORITY", "DATE")
PRIORITY_GROUP = {"": 2, "4": 1, "3": 2, "2": 3, "1": 2}
# TYPE → None for a task, else why the row is skipped.
TYPES: dict[str, SkipReason | None] = {"task": None, "note": "note", "section": "section"}
# Columns whose value Suikou has no field for yet, by the name not_kept says.
NOT_KEPT_COLUMNS = {"description": "DESCRIPTION", "responsible": "RESPONSIBLE"}
# DURATION in DURATION_UNIT (minute, day) → an estimate; a day is a working day (core.estimates).
DURATION_UNITS = {"minute": 1, "": 1, "day": WORKDAY_MINUTES}
_LABEL = re.compile(r"(?:^|\s+)@[^\s@]+(?=\s|$)")
# A clock time in the text: "9am", "9:30", "9点", "noon", "in 2 hours". Without one a date is all day.
_CLOCK = re.compile(
    r"\d\s*(?:[ap]\.?m\b|:|点|時|时)|\b(?:noon|midnight)\b|中午|午夜|\d\s*(?:hours?|hrs?|minutes?|mins?|小时|分钟)",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class _When:
    deadline: datetime | None = None
    all_day: bool = False
    rule: str | None = None
    not_kept: tuple[str, ...] = ()


def read(text: str, *, tz: str, now: datetime) -> Parsed:
    """A Todoist CSV template's rows (raises :class:`BadFile` naming the row and column)."""
    records = [(line, values) for line, values in csv_records(text) if any(v.strip() for v in values)]
    if not records:
        raise BadFile(f"not a Todoist CSV template: the file is empty (expected the header {HEADER})")
    line, first = records[0]
    header = [name.strip().upper() for name in first]
    _require(header, line)
    if len(records) - 1 > MAX_ROWS:
        raise BadFile(f"the file has more than {MAX_ROWS} rows")
    parsed = Parsed()
    seen: Counter[tuple[str, str, str]] = Counter()
    for line, values in records[1:]:
        if values and values[0].strip().lower() == "meta":
            continue  # the project's view setting (meta,view_style=list|board): about no task
        result = _row(Record.of(line, header, values), tz=tz, now=now, seen=seen)
        if isinstance(result, Row):
            parsed.rows.append(result)
        else:
            parsed.skipped.append(result)
    return parsed


def _require(header: list[str], line: int) -> None:
    if "TYPE" not in header and "CONTENT" not in header:
        raise BadFile(f"not a Todoist CSV template: expected the header {HEADER}", row=line)
    for name in REQUIRED:
        if name not in header:
            raise BadFile("a required column is missing from the header", row=line, column=name)


def _row(record: Record, *, tz: str, now: datetime, seen: Counter[tuple[str, str, str]]) -> Row | Skip:
    kind = record.get("TYPE").lower()
    if kind not in TYPES:
        raise record.bad(f"unknown TYPE {record.get('TYPE')!r} (task, note or section)", "TYPE")
    priority = record.get("PRIORITY")
    if priority not in PRIORITY_GROUP:
        raise record.bad(f"unknown priority {priority!r} (1, 2, 3 or 4)", "PRIORITY")
    content = record.get("CONTENT")
    reason = TYPES[kind]
    if reason is not None:
        return Skip(record.line, reason, content)
    zone_name = record.get("TIMEZONE") or tz
    zone = _zone(zone_name, record)
    title, not_kept = _title(content)
    if not title:
        return Skip(record.line, "empty_title")
    when = _when_of(record, zone, now)
    not_kept += [name for name, column in NOT_KEPT_COLUMNS.items() if record.get(column)]
    not_kept += ["parent"] if _indent(record) > 1 else []
    estimate = _estimate(record)
    not_kept += ["duration"] if record.get("DURATION") and estimate is None else []
    return Row(
        line=record.line,
        title=title,
        identity=_identity(record, seen),
        deadline_at=when.deadline,
        all_day=when.all_day,
        timezone=zone_name,
        priority_group=PRIORITY_GROUP[priority],
        rule=when.rule,
        estimate_minutes=estimate,
        labels=tuple(listnames.lenient_labels(_LABEL.findall(content))),
        not_kept=tuple(dict.fromkeys([*not_kept, *when.not_kept])),
    )


def _estimate(record: Record) -> int | None:
    """DURATION as minutes of work; None when absent, unreadable or past what Suikou keeps."""
    amount, unit = record.get("DURATION"), record.get("DURATION_UNIT").lower()
    if not amount.isdigit() or len(amount) > 6 or unit not in DURATION_UNITS:
        return None
    minutes = int(amount) * DURATION_UNITS[unit]
    return minutes if 1 <= minutes <= ESTIMATE_MAX else None


def _title(content: str) -> tuple[str, list[str]]:
    """CONTENT without its @labels, cut to length; and the not_kept names that gave."""
    bare = _LABEL.sub("", content).strip()
    title, cut = clip_title(bare)
    return title, ["title"] if cut else []


def _indent(record: Record) -> int:
    value = record.get("INDENT")
    return int(value) if value.isdigit() and len(value) < 4 else 1


def _identity(record: Record, seen: Counter[tuple[str, str, str]]) -> str:
    key = (record.get("CONTENT"), record.get("DATE"), record.get("DESCRIPTION"))
    seen[key] += 1
    return "\x1f".join([*key, str(seen[key])])


def _zone(name: str, record: Record) -> ZoneInfo:
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError) as exc:
        raise record.bad(f"unknown timezone {name!r}", "TIMEZONE") from exc


def _when_of(record: Record, zone: ZoneInfo, now: datetime) -> _When:
    """The row's deadline and rule: from DATE, else from DEADLINE."""
    deadline_text = record.get("DEADLINE")
    if record.get("DATE"):
        when = _when(record.get("DATE"), record.get("DATE_LANG"), zone, now)
        return _When(when.deadline, when.all_day, when.rule, (*when.not_kept, *(["deadline"] if deadline_text else [])))
    if deadline_text:
        return _when(deadline_text, record.get("DEADLINE_LANG") or record.get("DATE_LANG"), zone, now)
    return _When()


def _when(text: str, lang: str, zone: ZoneInfo, now: datetime) -> _When:
    local_now = now.astimezone(zone)
    phrase = read_repeat(text, now=local_now)
    if phrase is None:
        moment = _moment(text, lang, zone, local_now)
        return _When(moment[0], not moment[1]) if moment else _When(not_kept=("date",))
    rest = phrase.rest.strip()
    moment = _moment(rest, lang, zone, local_now) if rest else None
    lost = ("date",) if rest and moment is None else ()
    if phrase.rule is not None:
        repeating = _repeating(phrase, moment, zone, local_now)
        if repeating is not None:
            first, timed, rule = repeating
            return _When(first, not timed, rule, lost)
    if moment is None:
        return _When(not_kept=(*lost, "repeat"))
    return _When(moment[0], not moment[1], not_kept=("repeat",))


def _repeating(
    phrase: RepeatPhrase, moment: tuple[datetime, bool] | None, zone: ZoneInfo, local_now: datetime
) -> tuple[datetime, bool, str] | None:
    """The first day the rule gives at/after now (or the date said), at the time said; its
    INTERVAL counts from there ("every other friday" is next Friday, then every second one).
    None when the rule can't be kept from there."""
    timed = moment is not None and moment[1]
    day: date = phrase.first_day or (moment[0].date() if moment else local_now.date())
    clock = moment[0].timetz().replace(tzinfo=None) if moment is not None and timed else DAY_END
    start = datetime.combine(day, clock, zone)
    rule = phrase.rule or ""
    any_interval = ";".join(p for p in rule.split(";") if not p.startswith("INTERVAL="))
    try:
        first = next_after(make(any_interval, start=start, tz=zone.key), max(start, local_now), inclusive=True)
        if first is None:
            return None
        return first, timed, make(rule, start=first, tz=zone.key).rule
    except (RuleError, OverflowError):
        return None


def _moment(text: str, lang: str, zone: ZoneInfo, local_now: datetime) -> tuple[datetime, bool] | None:
    """The deadline ``text`` names and whether it names a clock time (else it's all day), or None."""
    found = _dateparser(text, lang, zone, local_now)
    if found is not None:
        timed = bool(_CLOCK.search(text))
        return (found, True) if timed else (day_end(found, zone) or found, False)
    if lang.lower().startswith("zh") or not lang:
        window = resolve_time(text, local_now, zone)
        deadline = deadline_of(window) if window is not None else None
        if window is not None and deadline is not None:
            return deadline.astimezone(zone), window.has_clock_time
    return None


def _dateparser(text: str, lang: str, zone: ZoneInfo, local_now: datetime) -> datetime | None:
    settings = {
        "TIMEZONE": zone.key,
        "RETURN_AS_TIMEZONE_AWARE": True,
        "RELATIVE_BASE": local_now.replace(tzinfo=None),
        "PREFER_DATES_FROM": "future",
    }
    for languages in _languages(lang):
        try:
            found = dateparser.parse(text, languages=languages, settings=settings)
        except Exception:  # dateparser refuses odd text and unknown languages in many ways
            continue
        if found is not None:
            return found.astimezone(zone)
    return None


def _languages(lang: str) -> list[list[str]]:
    """DATE_LANG as dateparser's language lists to try: as given, then its primary subtag."""
    code = lang.strip().replace("_", "-") or "en"
    primary = code.split("-")[0].lower()
    return [[code], [primary]] if primary != code else [[code]]
