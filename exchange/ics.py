"""Tasks as iCalendar (RFC 5545), built and read with the ``icalendar`` library (docs/fdr/0039).

One VTODO per task:

- ``UID`` ``task-<id>@suikou`` (stable across edits), ``SUMMARY``, ``CREATED``/``LAST-MODIFIED``/
  ``DTSTAMP`` (the task's own times, so one state of a task is one text);
- ``DUE`` with its zone (``TZID`` and a VTIMEZONE), or a ``VALUE=DATE`` for a day-only deadline
  (23:59:59 in the user's zone, as Suikou keeps one);
- ``ESTIMATED-DURATION`` (RFC 9253) from the estimate;
- ``PRIORITY`` from the group (:data:`exchange.rows.ICS_PRIORITY`: 1→1, 2→3, 3→7, 4→9);
- ``STATUS`` ``NEEDS-ACTION`` or ``COMPLETED`` with ``COMPLETED`` and ``PERCENT-COMPLETE:100``;
- a repeating task: ``DTSTART`` = ``DUE`` (its current occurrence) and an ``RRULE`` clients expand —
  COUNT given as the UNTIL it means from here (the series has moved on since its first
  occurrence). A rule of the Chinese calendar (lunar dates, statutory workdays, solar terms) or one
  counted from completion no client can read: its coming occurrences are given as ``RDATE``s
  (400 days, at most 100). ``X-SUIKOU-RRULE``/``X-SUIKOU-RSTART`` keep Suikou's own rule for an
  import to read back;
- ``VALARM`` for each reminder: ``TRIGGER;RELATED=END`` relative to DUE for a lead, an absolute
  ``TRIGGER;VALUE=DATE-TIME`` for a moment. A day-only DUE is that day's 00:00, so a lead is given
  from there (that morning at 09:00 is ``RELATED=END:PT9H``).

With ``events``, each task with a deadline is also an all-day VEVENT (``UID`` ``task-<id>-event@suikou``)
for calendar apps that don't show VTODOs.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import UTC, date, datetime, timedelta
from functools import lru_cache
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import icalendar
from icalendar import Alarm, Calendar, Event, Todo

from core import listnames, recurrence, reminderspec, series
from core.estimates import ESTIMATE_MAX
from core.models import Task
from exchange.rows import DAY_END, ICS_PRIORITY, BadFile, Parsed, Row, Skip, group_from_ics

__all__ = ["CALENDAR_NAME", "FORMAT_VERSION", "read", "render"]

FORMAT_VERSION = "1"  # part of the feed's ETag: a change to how a task is rendered is a new text
CALENDAR_NAME = "Suikou"
PRODID = "-//Suikou//Suikou tasks 1.0//EN"
_UID = "@suikou"
_RDATE_DAYS, _RDATE_MAX = 400, 100
# Parts only Suikou reads: a rule with one of them goes out as RDATEs.
_OWN_PARTS = frozenset({"RSCALE", "SKIP", "X-DAYS", "X-TERM", "X-FROM"})
_REFRESH = timedelta(minutes=15)


# --- writing ---------------------------------------------------------------------------------


def _day_only(moment: datetime, zone: ZoneInfo) -> bool:
    return moment.astimezone(zone).time() == DAY_END


@lru_cache(maxsize=64)
def _vtimezone(tzid: str, first_year: int, last_year: int) -> icalendar.Timezone:
    return icalendar.Timezone.from_tzid(tzid, first_date=date(first_year, 1, 1), last_date=date(last_year, 1, 1))


class _Zones:
    """The zones a calendar's times name, and the years they span (each gets one VTIMEZONE)."""

    def __init__(self) -> None:
        self.years: dict[str, tuple[int, int]] = {}

    def at(self, moment: datetime, tz: str) -> datetime:
        local = moment.astimezone(ZoneInfo(tz))
        low, high = self.years.get(tz, (local.year, local.year))
        self.years[tz] = (min(low, local.year), max(high, local.year))
        return local

    def add_to(self, cal: Calendar) -> None:
        for tz, (low, high) in sorted(self.years.items()):
            if tz != "UTC":
                cal.add_component(_vtimezone(tz, low - 1, high + 2))


def _client_rule(rec: recurrence.Recurrence, due: datetime, all_day: bool) -> str | None:
    """The rule as a client expands it from ``due`` (its current occurrence); None when only Suikou reads it."""
    parts = rec.parts()
    if _OWN_PARTS & parts.keys():
        return None
    if "COUNT" in parts:  # counted from the first occurrence: from here, it ends at the last one
        last = recurrence.occurrences(rec, after=due - timedelta(seconds=1), limit=recurrence.MAX_COUNT)
        del parts["COUNT"]
        if not last:
            return None
        parts["UNTIL"] = _until_text(last[-1], all_day)
    elif "UNTIL" in parts:
        parts["UNTIL"] = _until_text(_until_moment(parts["UNTIL"], ZoneInfo(rec.tz)), all_day)
    return ";".join(f"{k}={v}" for k, v in parts.items())


def _until_moment(text: str, zone: ZoneInfo) -> datetime:
    """A stored UNTIL (a date: its whole day; a UTC or local date-time) as a moment in ``zone``."""
    if len(text) == 8:
        return datetime.combine(datetime.strptime(text, "%Y%m%d").date(), DAY_END, zone)
    moment = datetime.strptime(text.rstrip("Z"), "%Y%m%dT%H%M%S")
    return moment.replace(tzinfo=UTC).astimezone(zone) if text.endswith("Z") else moment.replace(tzinfo=zone)


def _until_text(last: datetime, all_day: bool) -> str:
    # RFC 5545: UNTIL is a DATE with a DATE DTSTART, else UTC with a zoned one.
    return last.strftime("%Y%m%d") if all_day else last.astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")


def _alarms(task: Task, all_day: bool, zone: ZoneInfo) -> Iterable[Alarm]:
    for spec, _when in reminderspec.resolved(task.reminders, task.deadline_at):
        alarm = Alarm()
        alarm.add("action", "DISPLAY")
        alarm.add("description", task.title)
        if spec.before is not None:
            lead = -spec.before
            if all_day:  # DUE is the day's 00:00: the same moment, counted from there
                lead += timedelta(hours=DAY_END.hour, minutes=DAY_END.minute, seconds=DAY_END.second)
            alarm.add("trigger", lead, parameters={"RELATED": "END"})
        elif spec.at is not None:
            alarm.add("trigger", spec.at.astimezone(UTC))
        yield alarm


def _when(moment: datetime, all_day: bool, zone: ZoneInfo, zones: _Zones, tz: str) -> date | datetime:
    local = moment.astimezone(zone)
    return local.date() if all_day else zones.at(moment, tz)


def _repeat(item: Todo | Event, task: Task, rec: recurrence.Recurrence, all_day: bool, zones: _Zones) -> None:
    assert task.deadline_at is not None
    zone = ZoneInfo(rec.tz)
    item.add("dtstart", _when(task.deadline_at, all_day, zone, zones, rec.tz))
    rule = _client_rule(rec, task.deadline_at, all_day)
    if rule is not None:
        item.add("rrule", icalendar.vRecur.from_ical(rule))
        return
    until = task.deadline_at + timedelta(days=_RDATE_DAYS)
    coming = [t for t in recurrence.occurrences(rec, after=task.deadline_at, limit=_RDATE_MAX) if t <= until]
    if coming:
        item.add("rdate", [_when(t, all_day, zone, zones, rec.tz) for t in coming])


def _own_rule(item: Todo, rec: recurrence.Recurrence, zones: _Zones) -> None:
    item.add("x-suikou-rrule", rec.rule)
    item.add("x-suikou-rstart", icalendar.vDDDTypes(zones.at(rec.start, rec.tz)))


def _todo(task: Task, tz: str, zones: _Zones) -> Todo:
    todo = Todo()
    todo.add("uid", f"task-{task.id}{_UID}")
    todo.add("dtstamp", task.updated_at)
    todo.add("created", task.created_at)
    todo.add("last-modified", task.updated_at)
    todo.add("summary", task.title)
    todo.add("priority", ICS_PRIORITY[task.priority_group])
    if task.estimate_minutes:  # RFC 9253's ESTIMATED-DURATION: how long the work takes
        todo.add("estimated-duration", icalendar.vDuration(timedelta(minutes=task.estimate_minutes)))
    if labels := listnames.label_list(task.labels):  # what calendar apps show as categories (tags)
        todo.add("categories", labels)
    if task.list_name:  # no standard property holds a list: Suikou's own, read back by Suikou
        todo.add("x-suikou-list", task.list_name)
    rec = series.rule_of(task) if not task.is_completed else None
    zone = ZoneInfo(rec.tz if rec is not None else tz)
    all_day = task.deadline_at is not None and _day_only(task.deadline_at, zone)
    if task.deadline_at is not None:
        todo.add("due", _when(task.deadline_at, all_day, zone, zones, rec.tz if rec else tz))
        if rec is not None:
            _repeat(todo, task, rec, all_day, zones)
            _own_rule(todo, rec, zones)
    if task.is_completed:
        todo.add("status", "COMPLETED")
        todo.add("percent-complete", 100)
        if task.completed_at is not None:
            todo.add("completed", task.completed_at.astimezone(UTC))
    else:
        todo.add("status", "NEEDS-ACTION")
        for alarm in _alarms(task, all_day, zone):
            todo.add_component(alarm)
    return todo


def _event(task: Task, tz: str, zones: _Zones) -> Event | None:
    if task.deadline_at is None or task.is_completed:
        return None
    rec = series.rule_of(task)
    zone = ZoneInfo(rec.tz if rec is not None else tz)
    local = task.deadline_at.astimezone(zone)
    event = Event()
    event.add("uid", f"task-{task.id}-event{_UID}")
    event.add("dtstamp", task.updated_at)
    event.add("summary", task.title if _day_only(task.deadline_at, zone) else f"{local:%H:%M} {task.title}")
    if rec is not None:
        _repeat(event, task, rec, True, zones)
    else:
        event.add("dtstart", local.date())
    event.add("transp", "TRANSPARENT")  # a deadline, not a meeting: it doesn't make the day busy
    return event


def render(tasks: Sequence[Task], *, tz: str, events: bool = False, name: str = CALENDAR_NAME) -> bytes:
    """The tasks as one VCALENDAR (VTODOs, and all-day VEVENTs with ``events``)."""
    cal = Calendar()
    cal.add("prodid", PRODID)
    cal.add("version", "2.0")
    cal.add("calscale", "GREGORIAN")
    cal.add("x-wr-calname", name)
    cal.add("x-wr-timezone", tz)
    cal.add("refresh-interval", _REFRESH, parameters={"VALUE": "DURATION"})
    cal.add("x-published-ttl", icalendar.vDuration(_REFRESH))
    zones = _Zones()
    for task in tasks:
        cal.add_component(_todo(task, tz, zones))
        if events and (event := _event(task, tz, zones)) is not None:
            cal.add_component(event)
    zones.add_to(cal)
    return cal.to_ical()


# --- reading ---------------------------------------------------------------------------------


def _zone_of(value: Any, tz: str) -> ZoneInfo:
    tzinfo = getattr(value, "tzinfo", None)
    key = getattr(tzinfo, "key", None)
    try:
        return ZoneInfo(key) if key else ZoneInfo(tz)
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo(tz)


def _moment(value: date | datetime, zone: ZoneInfo) -> tuple[datetime, bool]:
    """(an aware moment, whether it is a day-only one) from a DATE, a floating or a zoned DATE-TIME."""
    if not isinstance(value, datetime):
        return datetime.combine(value, DAY_END, zone), True
    if value.tzinfo is None:
        return value.replace(tzinfo=zone), False
    return value, False


def _prop(component: Any, name: str, line: int) -> Any:
    prop = component.get(name)
    if prop is None:
        return None
    try:
        return prop.dt if hasattr(prop, "dt") else prop
    except (ValueError, TypeError) as exc:
        raise BadFile(f"unreadable {name}: {exc}", row=line, column=name) from exc


def _reminders(todo: Any, all_day: bool, line: int) -> tuple[tuple[timedelta, ...], tuple[datetime, ...]]:
    leads: list[timedelta] = []
    moments: list[datetime] = []
    for alarm in todo.walk("VALARM"):
        trigger = alarm.get("trigger")
        if trigger is None:
            continue
        value = trigger.dt
        if isinstance(value, datetime):
            moments.append(value if value.tzinfo else value.replace(tzinfo=UTC))
        elif isinstance(value, timedelta):
            lead = -value
            if all_day:
                lead += timedelta(hours=DAY_END.hour, minutes=DAY_END.minute, seconds=DAY_END.second)
            if lead < timedelta(0):
                raise BadFile("a reminder after the deadline", row=line, column="TRIGGER")
            leads.append(lead)
    return tuple(leads), tuple(moments)


def _rule(todo: Any, due: datetime | None, zone: ZoneInfo) -> tuple[str | None, datetime | None, str | None]:
    """(rule, its DTSTART, its zone): Suikou's own when the file keeps it, else the RRULE from DTSTART."""
    own = todo.get("x-suikou-rrule")
    if own is not None and due is not None:
        begin, rule_zone = _own_start(todo.get("x-suikou-rstart"), zone)
        return str(own), begin or due, rule_zone.key
    rrule = todo.get("rrule")
    if rrule is None or due is None:
        return None, None, None
    text = rrule.to_ical().decode() if hasattr(rrule, "to_ical") else str(rrule)
    return text, due, zone.key


def _own_start(prop: Any, zone: ZoneInfo) -> tuple[datetime | None, ZoneInfo]:
    """X-SUIKOU-RSTART (an unknown property to the library: its value and TZID read here)."""
    if prop is None:
        return None, zone
    try:
        value = icalendar.vDDDTypes.from_ical(str(prop))
        rule_zone = ZoneInfo(str(prop.params.get("TZID") or zone.key))
    except (ValueError, TypeError, AttributeError, ZoneInfoNotFoundError):
        return None, zone
    if not isinstance(value, datetime):
        return None, rule_zone
    return (value if value.tzinfo else value.replace(tzinfo=rule_zone)), rule_zone


def _row(todo: Any, line: int, tz: str) -> Row | Skip:
    title = str(todo.get("summary") or "").strip()
    uid = str(todo.get("uid") or "")
    if not title:
        return Skip(line, "empty_title")
    status = str(todo.get("status") or "NEEDS-ACTION").upper()
    if status == "CANCELLED":
        return Skip(line, "abandoned", title)
    due_value = _prop(todo, "due", line)
    zone = _zone_of(due_value, tz)
    due, all_day = _moment(due_value, zone) if due_value is not None else (None, False)
    rule, rule_start, rule_tz = _rule(todo, due, zone)
    leads, moments = _reminders(todo, all_day, line)
    completed = status == "COMPLETED"
    done_at = _prop(todo, "completed", line)
    not_kept = tuple(n for n in ("description", "location") if todo.get(n))
    own_list = str(todo.get("x-suikou-list") or "")
    estimate = _estimate(todo.get("estimated-duration"))
    return Row(
        line=line,
        title=title[:500],
        identity=uid or f"{title}\n{due_value}",
        deadline_at=due,
        all_day=all_day,
        timezone=rule_tz or zone.key,
        priority_group=group_from_ics(int(todo.get("priority") or 0)),
        rule=None if completed else rule,
        rule_start=rule_start,
        completed=completed,
        completed_at=done_at if isinstance(done_at, datetime) and done_at.tzinfo else None,
        reminders=leads,
        reminder_at=moments,
        estimate_minutes=estimate,
        list_name=listnames.lenient(own_list) if own_list else None,
        labels=tuple(listnames.lenient_labels(_categories(todo.get("categories")))),
        not_kept=not_kept + (("title",) if len(title) > 500 else ()),
    )


def _categories(prop: Any) -> list[str]:
    """CATEGORIES' values, one property or several (each a vCategory, or text)."""
    props = prop if isinstance(prop, list) else [prop] if prop is not None else []
    out: list[str] = []
    for item in props:
        cats = getattr(item, "cats", None)
        out += [str(c) for c in cats] if cats is not None else str(item).split(",")
    return out


def _estimate(prop: Any) -> int | None:
    """ESTIMATED-DURATION in minutes; None when absent, unreadable or beyond what a task keeps."""
    try:
        value = icalendar.vDuration.from_ical(str(prop)) if prop is not None else None
    except (ValueError, TypeError):
        return None
    minutes = int(value.total_seconds() // 60) if isinstance(value, timedelta) else 0
    return minutes if 1 <= minutes <= ESTIMATE_MAX else None


def _line_of(text: str, uid: str, start: int) -> tuple[int, int]:
    """The 1-based line of the file where the component with ``uid`` begins (for errors and samples)."""
    at = text.find(f"UID:{uid}", start) if uid else -1
    if at < 0:
        return 0, start
    begin = text.rfind("BEGIN:", 0, at)
    return text.count("\n", 0, begin) + 1, at


def read(text: str, *, tz: str) -> Parsed:
    """VTODOs (a Suikou export, or another app's tasks) as rows; VEVENTs are skipped (not tasks)."""
    try:
        calendars = Calendar.from_ical(text, multiple=True)
    except (ValueError, IndexError, KeyError) as exc:
        raise BadFile(f"not an iCalendar file: {exc}") from exc
    parsed = Parsed()
    cursor = 0
    for cal in calendars:
        for todo in cal.walk("VTODO"):
            line, cursor = _line_of(text, str(todo.get("uid") or ""), cursor)
            item = _row(todo, line, tz)
            (parsed.skipped if isinstance(item, Skip) else parsed.rows).append(item)  # type: ignore[arg-type]
    return parsed
