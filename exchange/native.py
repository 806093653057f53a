"""Suikou's own files: every task of a user as JSON or CSV (and iCalendar, :mod:`exchange.ics`), in a
shape :func:`read` takes back — the export's round trip (another account, another server).

A task's record (JSON; CSV has the same columns, ``reminders`` as space-separated ``before:PT30M`` /
``at:<ISO>`` words and the rule in ``recurrence_rule``/``recurrence_start``/``timezone``)::

    {"id": 7, "title": "交周报", "priority_group": 2, "deadline_at": "2026-12-07T09:00:00+08:00",
     "all_day": false, "timezone": "Asia/Shanghai", "urgency_threshold_at": null,
     "is_completed": false, "completed_at": null, "created_at": "…", "updated_at": "…",
     "recurrence": {"rule": "FREQ=WEEKLY;BYDAY=MO", "start": "2026-11-30T09:00:00+08:00", "text": "每周一 09:00"},
     "reminders": [{"before": "PT30M"}], "estimate_minutes": 60, "list": "工作", "labels": ["周报"]}

CSV writes labels as one cell, "#"-prefixed and space-separated ("#周报 #急").
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator, Sequence
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from core import listnames, recurrence, reminderspec, series
from core.estimates import ESTIMATE_MAX
from core.models import Task
from exchange import ics
from exchange.rows import DAY_END, MAX_ROWS, BadFile, Parsed, Row, Skip

__all__ = ["COLUMNS", "FORMAT", "read", "record", "to_csv", "to_json"]

FORMAT = "suikou-tasks"
VERSION = 1
COLUMNS = (
    "id", "title", "priority_group", "deadline_at", "all_day", "timezone", "urgency_threshold_at",
    "is_completed", "completed_at", "created_at", "updated_at", "recurrence_rule", "recurrence_start",
    "recurrence_text", "reminders", "estimate_minutes", "list", "labels",
)  # fmt: skip


def _iso(moment: datetime | None, zone: ZoneInfo) -> str | None:
    return moment.astimezone(zone).isoformat() if moment is not None else None


def record(task: Task, *, tz: str) -> dict[str, Any]:
    """One task as the export writes it (times in the user's zone; a rule in its own)."""
    rec = series.rule_of(task)
    zone = ZoneInfo(rec.tz if rec is not None else tz)
    deadline = task.deadline_at
    reminders: list[dict[str, str]] = []
    for spec in reminderspec.specs_of(task.reminders):
        if spec.before is not None:
            reminders.append({"before": reminderspec.duration_text(spec.before)})
        elif spec.at is not None:
            reminders.append({"at": spec.at.astimezone(zone).isoformat()})
    return {
        "id": task.id,
        "title": task.title,
        "priority_group": task.priority_group,
        "deadline_at": _iso(deadline, zone),
        "all_day": deadline is not None and deadline.astimezone(zone).time() == DAY_END,
        "timezone": zone.key,
        "urgency_threshold_at": _iso(task.urgency_threshold_at, zone),
        "is_completed": task.is_completed,
        "completed_at": _iso(task.completed_at, zone),
        "created_at": _iso(task.created_at, zone),
        "updated_at": _iso(task.updated_at, zone),
        "recurrence": None
        if rec is None
        else {"rule": rec.rule, "start": rec.start.isoformat(), "text": recurrence.describe(rec)},
        "reminders": reminders,
        "estimate_minutes": task.estimate_minutes,
        "list": task.list_name,
        "labels": listnames.label_list(task.labels),
    }


def to_json(tasks: Sequence[Task], *, tz: str, now: datetime) -> bytes:
    doc = {
        "format": FORMAT,
        "version": VERSION,
        "exported_at": now.astimezone(ZoneInfo(tz)).isoformat(),
        "timezone": tz,
        "tasks": [record(t, tz=tz) for t in tasks],
    }
    return json.dumps(doc, ensure_ascii=False, indent=1).encode()


def _csv_row(rec: dict[str, Any]) -> list[str]:
    rule = rec["recurrence"] or {}
    words = [f"{k}:{v}" for item in rec["reminders"] for k, v in item.items()]
    flat = {
        **rec,
        "recurrence_rule": rule.get("rule"),
        "recurrence_start": rule.get("start"),
        "recurrence_text": rule.get("text"),
        "reminders": " ".join(words),
        "labels": " ".join(f"#{label}" for label in rec["labels"]),
    }
    return [
        "" if flat[c] is None else str(flat[c]).lower() if isinstance(flat[c], bool) else str(flat[c]) for c in COLUMNS
    ]


def to_csv(tasks: Sequence[Task], *, tz: str) -> bytes:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(COLUMNS)
    for task in tasks:
        writer.writerow(_csv_row(record(task, tz=tz)))
    return ("\ufeff" + out.getvalue()).encode()  # the BOM: spreadsheet apps then read it as UTF-8


# --- reading ---------------------------------------------------------------------------------


def _moment(value: Any, line: int, column: str) -> datetime | None:
    if value in (None, ""):
        return None
    try:
        moment = datetime.fromisoformat(str(value))
    except ValueError as exc:
        raise BadFile(f"{value!r} is not an ISO 8601 date-time", row=line, column=column) from exc
    if moment.tzinfo is None:
        raise BadFile(f"{value!r} has no UTC offset", row=line, column=column)
    return moment


def _flag(value: Any, line: int, column: str) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value or "").strip().lower()
    if text in ("true", "1", "yes"):
        return True
    if text in ("false", "0", "no", ""):
        return False
    raise BadFile(f"{value!r} is not true or false", row=line, column=column)


def _group(value: Any, line: int) -> int:
    try:
        group = int(value) if value not in (None, "") else 2
    except (TypeError, ValueError):
        group = 0
    if not 1 <= group <= 4:
        raise BadFile(f"{value!r} is not a group 1..4", row=line, column="priority_group")
    return group


def _zone(value: Any, tz: str, line: int) -> str:
    name = str(value or tz)
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise BadFile(f"unknown timezone {name!r}", row=line, column="timezone") from exc
    return name


def _reminders(items: list[dict[str, Any]], line: int) -> tuple[tuple[timedelta, ...], tuple[datetime, ...]]:
    leads: list[timedelta] = []
    moments: list[datetime] = []
    for item in items:
        if not isinstance(item, dict):
            raise BadFile("a reminder is {before} or {at}", row=line, column="reminders")
        if "before" in item:
            try:
                leads.append(reminderspec.parse_duration(str(item["before"])))
            except ValueError as exc:
                raise BadFile(str(exc), row=line, column="reminders") from exc
        elif (at := _moment(item.get("at"), line, "reminders")) is not None:
            moments.append(at)
    return tuple(leads), tuple(moments)


def _row(rec: dict[str, Any], line: int, tz: str) -> Row | Skip:
    title = str(rec.get("title") or "").strip()
    if not title:
        return Skip(line, "empty_title")
    rule = rec.get("recurrence") or {}
    if not isinstance(rule, dict) or not isinstance(rec.get("reminders") or [], list):
        raise BadFile("recurrence is an object and reminders a list", row=line, column="recurrence")
    leads, moments = _reminders(rec.get("reminders") or [], line)
    deadline = _moment(rec.get("deadline_at"), line, "deadline_at")
    completed = _flag(rec.get("is_completed"), line, "is_completed")
    return Row(
        line=line,
        title=title[:500],
        identity=f"{rec.get('id')}\n{title}\n{rec.get('created_at')}",
        deadline_at=deadline,
        all_day=_flag(rec.get("all_day"), line, "all_day"),
        timezone=_zone(rec.get("timezone"), tz, line),
        priority_group=_group(rec.get("priority_group"), line),
        rule=(rule.get("rule") or None) if not completed else None,
        rule_start=_moment(rule.get("start"), line, "recurrence_start"),
        urgency_threshold_at=_moment(rec.get("urgency_threshold_at"), line, "urgency_threshold_at"),
        completed=completed,
        completed_at=_moment(rec.get("completed_at"), line, "completed_at"),
        reminders=leads,
        reminder_at=moments,
        estimate_minutes=_minutes(rec.get("estimate_minutes"), line),
        list_name=listnames.lenient(rec["list"]) if isinstance(rec.get("list"), str) else None,
        labels=tuple(listnames.lenient_labels([v for v in rec.get("labels") or [] if isinstance(v, str)])),
    )


def _minutes(value: Any, line: int) -> int | None:
    if value in (None, ""):
        return None
    try:
        minutes = int(value)
    except (TypeError, ValueError):
        minutes = 0
    if isinstance(value, bool) or not 1 <= minutes <= ESTIMATE_MAX:
        raise BadFile(f"{value!r} is not a number of minutes 1..{ESTIMATE_MAX}", row=line, column="estimate_minutes")
    return minutes


def _json_records(text: str) -> Iterator[tuple[int, dict[str, Any]]]:
    try:
        doc = json.loads(text)
    except ValueError as exc:
        raise BadFile(f"not JSON: {exc}") from exc
    tasks = doc.get("tasks") if isinstance(doc, dict) else None
    if not isinstance(tasks, list):
        raise BadFile(f'a Suikou JSON export is {{"format": "{FORMAT}", "tasks": [...]}}')
    for i, item in enumerate(tasks, start=1):
        if not isinstance(item, dict):
            raise BadFile("a task is a JSON object", row=i)
        yield i, item


def _csv_records(text: str) -> Iterator[tuple[int, dict[str, Any]]]:
    reader = csv.DictReader(io.StringIO(text))
    missing = {"title"} - set(reader.fieldnames or [])
    if missing:
        raise BadFile(f"the header must name the columns {', '.join(COLUMNS)}", row=1)
    for item in reader:
        line = reader.line_num
        rec: dict[str, Any] = dict(item)
        if rec.get("recurrence_rule"):
            rec["recurrence"] = {"rule": rec["recurrence_rule"], "start": rec.get("recurrence_start")}
        words = (rec.get("reminders") or "").split()
        rec["reminders"] = [{k: v} for k, v in (w.split(":", 1) for w in words if ":" in w)]
        rec["labels"] = [w for w in (rec.get("labels") or "").split("#") if w.strip()]
        yield line, rec


def read(text: str, *, tz: str) -> Parsed:
    """A Suikou export (JSON, CSV or iCalendar, told apart by how it begins) as rows."""
    head = text.lstrip("\ufeff \r\n\t")
    if head.startswith("BEGIN:VCALENDAR"):
        return ics.read(text, tz=tz)
    records = _json_records(head) if head.startswith("{") else _csv_records(head)
    parsed = Parsed()
    try:
        for n, (line, rec) in enumerate(records, start=1):
            if n > MAX_ROWS:
                raise BadFile(f"more than {MAX_ROWS} tasks in one file: split it")
            item = _row(rec, line, tz)
            (parsed.skipped if isinstance(item, Skip) else parsed.rows).append(item)  # type: ignore[arg-type]
    except csv.Error as exc:
        raise BadFile(f"not a readable CSV file: {exc}") from exc
    return parsed
