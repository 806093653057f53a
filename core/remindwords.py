"""Reminder words in a chat sentence: "提前半小时提醒我", "到点提醒我", "…，周四晚上8点提醒我",
"remind me an hour before" — what kind of reminder, and where the words are (docs/fdr/0038).

Four kinds, first that applies:

* ``lead`` — a lead before the deadline: "提前半小时提醒我", "半小时前提醒我", "开会前十分钟叫我",
  "remind me 30 minutes before";
* ``due`` — at the deadline: "到点提醒我", "到时候提醒我", "准时提醒", "remind me when it's due";
* ``at`` — a moment of its own, said as a closing clause: "周五交报告，周四晚上8点提醒我",
  "…, remind me thursday at 8pm" (``at_text``: the time words, resolved by the caller; when they
  name no moment, or the only one the sentence has, they are the deadline instead);
* ``implicit`` — only "提醒我…" / "remind me to…": at the deadline when it has a clock, else at
  09:00 on its day (as TickTick does for all-day tasks); nothing when there is no deadline.

``span`` is what to cut from the sentence before the note is read (the words of ``lead``, ``due``
and ``at``; none for ``implicit``, whose lead-in the note reader already drops).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, time, timedelta
from typing import Literal
from zoneinfo import ZoneInfo

from core import reminders
from core.models import Task
from core.recurrence.describe import END_OF_DAY
from core.reminderspec import MAX_BEFORE, Spec
from core.timeanchor import TimeWindow, resolve_time
from core.timeanchor.numerals import to_int

__all__ = ["Kept", "Said", "first_firing", "keep", "lead_of", "read", "window"]

Kind = Literal["lead", "due", "at", "implicit"]


@dataclass(frozen=True)
class Said:
    kind: Kind
    words: str  # as said ("提前半小时提醒我")
    lead: timedelta | None = None
    at_text: str | None = None
    span: tuple[int, int] | None = None


_N = r"(?:\d{1,3}|[一二两三四五六七八九十]{1,3}|半|一个半|个把)"
_UNIT = r"(?:分钟|分|小时|钟头|天|日|周|星期|礼拜)"
_VERB = r"(?:提醒|通知|叫|喊|告诉|提示)(?:我|一下|一声|下)*"
_UNIT_SECONDS = {"分钟": 60, "分": 60, "小时": 3600, "钟头": 3600, "天": 86400, "日": 86400, "周": 604800,
                 "星期": 604800, "礼拜": 604800}  # fmt: skip
_EN_N = r"(?:an?|\d{1,3}|one|two|three|four|five|ten|fifteen|twenty|thirty|forty-five|half an?)"
_EN_UNIT = r"(?:minutes?|mins?|hours?|hrs?|days?|weeks?)"
_EN_WORDS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "ten": 10, "fifteen": 15,
             "twenty": 20, "thirty": 30, "forty-five": 45}  # fmt: skip
_EN_UNIT_SECONDS = {"m": 60, "h": 3600, "d": 86400, "w": 604800}

_LEAD = re.compile(
    # 提前半小时提醒我 / 开会前半小时叫我 / 截止前一天提醒 / 半小时前提醒我
    rf"(?:[\u4e00-\u9fff]{{0,4}}之?前\s*|提前\s*)(?:的)?(?P<n>{_N})\s*(?:个)?(?P<u>{_UNIT})(?:钟)?(?:的时候)?[的地]?\s*(?:再)?{_VERB}"
    rf"|(?P<n2>{_N})\s*(?:个)?(?P<u2>{_UNIT})(?:钟)?(?:之前|以前|前)\s*(?:再)?{_VERB}"
)
_DUE = re.compile(rf"(?:到点|到时候?|到时间|时间到了?|准时|按时|届时)(?:了)?(?:再|就)?{_VERB}")
# A closing clause that is a time and a reminder verb: "，周四晚上8点提醒我" (the caller resolves it).
_AT = re.compile(
    rf"[，,；;]\s*(?:在)?(?P<t>[^，,。；;！!？?]{{2,16}}?)\s*(?:的时候)?(?:再|记得)?{_VERB}(?:[吧啊呀哦哈]|一下)*[。.!！]?\s*$"
)
_IMPLICIT = re.compile(rf"{_VERB}|\bremind(?:er)?\b|\bping me\b|\bnotify me\b", re.IGNORECASE)

_EN_LEAD = re.compile(
    rf"[,;]?\s*\b(?:remind|notify|ping) me\s+(?P<n>{_EN_N})\s+(?P<u>{_EN_UNIT})\s+(?:before|ahead|early|earlier)"
    r"(?:\s+(?:it'?s due|it starts|the deadline|the meeting|that|it|hand))?\b"
    rf"|[,;]?\s*(?P<n2>{_EN_N})\s+(?P<u2>{_EN_UNIT})\s+(?:before|ahead),?\s+(?:remind|notify|ping) me\b",
    re.IGNORECASE,
)
# "remind me to call mom at 5pm, 10 minutes before": the lead alone, closing a reminder request.
_EN_LEAD_TAIL = re.compile(
    rf"[,;]\s*(?:and\s+)?(?P<n>{_EN_N})\s+(?P<u>{_EN_UNIT})\s+(?:before|ahead|early|earlier)(?:\s+(?:it|that|hand))?\s*[.!]?\s*$",
    re.IGNORECASE,
)
_EN_DUE = re.compile(
    r"[,;]?\s*\b(?:remind|notify|ping) me\s+(?:when it'?s due|when it'?s time|on time|right on time|at that time|"
    r"at the time|then)\b",
    re.IGNORECASE,
)
_EN_AT = re.compile(
    r"[,;]\s*(?:and\s+)?(?:remind|notify|ping) me\s+(?:on\s+|at\s+)?(?P<t>[^,.;!?]{2,40}?)\s*[.!]?\s*$", re.IGNORECASE
)


def _amount(n: str) -> float | None:
    n = n.strip().lower()
    if n in ("半", "half a", "half an"):
        return 0.5
    if n == "一个半":
        return 1.5
    if n == "个把":
        return 1
    if n in _EN_WORDS:
        return _EN_WORDS[n]
    return to_int(n)


def _zh_lead(n: str, unit: str) -> timedelta | None:
    amount = _amount(n)
    return timedelta(seconds=amount * _UNIT_SECONDS[unit]) if amount else None


def _en_lead(n: str, unit: str) -> timedelta | None:
    amount = _amount(n)
    return timedelta(seconds=amount * _EN_UNIT_SECONDS[unit[0].lower()]) if amount else None


def lead_of(text: str) -> timedelta | None:
    """The lead a phrase says ("提前一小时", "半小时前", "an hour before"), or None."""
    if m := re.search(rf"(?:提前|之?前)\s*(?P<n>{_N})\s*(?:个)?(?P<u>{_UNIT})", text):
        return _zh_lead(m["n"], m["u"])
    if m := re.search(rf"(?P<n>{_N})\s*(?:个)?(?P<u>{_UNIT})(?:钟)?(?:之前|以前|前)", text):
        return _zh_lead(m["n"], m["u"])
    if m := re.search(rf"\b(?P<n>{_EN_N})\s+(?P<u>{_EN_UNIT})\s+(?:before|ahead|early|earlier)\b", text, re.IGNORECASE):
        return _en_lead(m["n"], m["u"])
    return None


def read(text: str) -> Said | None:
    """The reminder ``text`` asks for, or None when it asks for none."""
    if m := _LEAD.search(text):
        n, unit = (m["n"], m["u"]) if m["n"] else (m["n2"], m["u2"])
        lead = _zh_lead(n, unit)
        if lead is not None:
            return Said("lead", m.group(0).strip("，, "), lead=lead, span=m.span())
    if m := _EN_LEAD.search(text):
        n, unit = (m["n"], m["u"]) if m["n"] else (m["n2"], m["u2"])
        lead = _en_lead(n, unit)
        if lead is not None:
            return Said("lead", m.group(0).strip(",; "), lead=lead, span=m.span())
    if re.search(r"\bremind\b", text, re.IGNORECASE) and (m := _EN_LEAD_TAIL.search(text)):
        lead = _en_lead(m["n"], m["u"])
        if lead is not None:
            return Said("lead", m.group(0).strip(",; "), lead=lead, span=m.span())
    for pattern in (_DUE, _EN_DUE):
        if m := pattern.search(text):
            return Said("due", m.group(0).strip(",; "), lead=timedelta(0), span=m.span())
    for pattern in (_AT, _EN_AT):
        if m := pattern.search(text):
            return Said("at", m.group(0).strip("，,；; "), at_text=m["t"].strip(), span=m.span())
    if m := _IMPLICIT.search(text):
        return Said("implicit", m.group(0))
    return None


# --- what the words become, once the deadline is known ---------------------------------------------

DAY_START = time(9, 0)  # a day-only deadline's reminder: that morning, as TickTick does
# "周四" / "thursday" alone: the one before the deadline ("下周五交报告，周四提醒我" → that week's Thursday).
_BARE_WEEKDAY = re.compile(
    r"^(?:(?:周|星期|礼拜)[一二三四五六日天]|(?:on\s+)?(?:mon|tues|wednes|thurs|fri|satur|sun)day)(?![一二三四五六日天])",
    re.I,
)


# A time of day alone ("下午两点", "中午12点", "at 3pm"): on the deadline's day.
_CLOCK_ONLY = re.compile(
    r"^(?:(?:上午|下午|晚上|中午|早上|早晨|傍晚|凌晨|夜里)?(?:\d{1,2}|[一二两三四五六七八九十]{1,3})(?:点|时|[:：]\d{2})"
    r"(?:半|\d{1,2}分?|[一二三四五六七八九十]{1,3}分?)?|(?:at\s+)?\d{1,2}(?::\d{2})?\s*(?:am|pm))$",
    re.I,
)


@dataclass(frozen=True)
class Kept:
    """A reminder as a task keeps it: the spec, or why none (no deadline; its time has passed)."""

    spec: Spec | None
    needs_deadline: bool = False
    passed: datetime | None = None  # the moment it would have fired, already past


def window(text: str, now: datetime, tz: str, prefer: Literal["future", "past"] = "future") -> TimeWindow | None:
    try:
        return resolve_time(text, now, tz, prefer=prefer)
    except Exception:  # a phrase no rule reads is no reminder time
        return None


def morning(moment: datetime, tz: str) -> datetime:
    zone = ZoneInfo(tz)
    return datetime.combine(moment.astimezone(zone).date(), DAY_START, zone)


def clocked(deadline: datetime, tz: str) -> bool:
    return deadline.astimezone(ZoneInfo(tz)).time() != END_OF_DAY


def _start(found: TimeWindow, tz: str) -> datetime | None:
    """A window's moment to remind at: its clock, a part of day's start ("周日晚上" → 18:00), or a
    whole day's morning."""
    if found.start is None:
        return None
    return found.start if found.has_clock_time or found.granularity != "day" else morning(found.start, tz)


def at_moment(at_text: str, deadline: datetime | None, now: datetime, tz: str) -> datetime | None:
    """The moment an ``at`` reminder names: before the deadline when the words allow both
    ("周五交报告，周四晚上提醒我": the Thursday before that Friday, not the one after it)."""
    found = window(at_text, now, tz)
    moment = _start(found, tz) if found is not None else None
    if moment is not None and deadline is not None and _CLOCK_ONLY.match(at_text.strip()):
        # "提醒改到中午12点": that clock on the deadline's day, not today's.
        zone = ZoneInfo(tz)
        moment = datetime.combine(deadline.astimezone(zone).date(), moment.astimezone(zone).time(), zone)
    if moment is not None and deadline is not None and (moment > deadline or _BARE_WEEKDAY.match(at_text)):
        before = window(at_text, deadline, tz, prefer="past")
        earlier = _start(before, tz) if before is not None else None
        if earlier is not None and earlier <= deadline and (earlier > now or moment > deadline):
            moment = earlier
    return moment


def keep(said: Said, *, deadline: datetime | None, recurrence: str | None, now: datetime, tz: str) -> Kept:
    """The reminder ``said`` asks for, on a task due ``deadline`` (repeating by ``recurrence``)."""
    spec: Spec | None = None
    if said.kind in ("lead", "due"):
        if deadline is None:
            return Kept(None, needs_deadline=True)
        # A day-only deadline is reminded of from that morning ("提前一天" → 09:00 the day before).
        base = timedelta(0) if clocked(deadline, tz) else deadline - morning(deadline, tz)
        spec = Spec(before=(said.lead or timedelta(0)) + base)
    elif said.kind == "at":
        moment = at_moment(said.at_text or "", deadline, now, tz)
        if moment is None:
            return Kept(None)
        lead = deadline - moment if deadline is not None else None
        repeating = recurrence is not None and lead is not None and timedelta(0) <= lead <= MAX_BEFORE
        spec = Spec(before=lead) if repeating else Spec(at=moment)  # a series: the same lead each time
    elif deadline is not None:  # implicit: at the deadline, or that morning for a day-only one
        spec = Spec(before=timedelta(0) if clocked(deadline, tz) else deadline - morning(deadline, tz))
    if spec is None:
        return Kept(None)
    if first_firing(spec, deadline, recurrence, now) is None:  # its time has passed: it would never fire
        passed = (
            spec.at
            if spec.at is not None
            else (deadline - spec.before if deadline and spec.before is not None else None)
        )
        return Kept(None, passed=passed)
    return Kept(spec)


def first_firing(spec: Spec, deadline: datetime | None, recurrence: str | None, now: datetime) -> datetime | None:
    """When ``spec`` fires first after ``now`` on such a task (None: never)."""
    probe = Task(title="-", user_id=0, deadline_at=deadline, recurrence=recurrence, created_at=now, updated_at=now)
    found = reminders.upcoming(probe, spec, None)
    for _ in range(400):  # a repeating task: its first occurrence whose reminder is still ahead
        if found is None or found[0] > now:
            break
        found = reminders.upcoming(probe, spec, found[1])
    return found[0] if found is not None and found[0] > now else None
