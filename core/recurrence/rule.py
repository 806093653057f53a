"""A repeating task's rule: its RRULE text, DTSTART and zone, stored as two iCalendar content lines."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from datetime import datetime
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

__all__ = ["MAX_COUNT", "MAX_INTERVAL", "MAX_RULE_CHARS", "Recurrence", "RuleError", "make"]

MAX_RULE_CHARS = 300
MAX_INTERVAL = 400
MAX_COUNT = 1000
_FREQS = ("DAILY", "WEEKLY", "MONTHLY", "YEARLY")
_PARTS = frozenset(
    [
        "FREQ",
        "INTERVAL",
        "COUNT",
        "UNTIL",
        "BYDAY",
        "BYMONTHDAY",
        "BYMONTH",
        "BYSETPOS",
        "BYYEARDAY",
        "BYWEEKNO",
        "WKST",
        "RSCALE",
        "SKIP",
        "X-DAYS",
        "X-TERM",
        "X-FROM",
    ]
)
_CHOICES = {
    "RSCALE": ("CHINESE", "GREGORIAN"),
    "SKIP": ("OMIT", "BACKWARD", "FORWARD"),
    "X-DAYS": ("CN-WORKDAY", "CN-RESTDAY", "CN-AFTER-HOLIDAY"),
    "X-FROM": ("COMPLETION",),
}
_ICAL = re.compile(r"DTSTART;TZID=(?P<tz>[^:\n]+):(?P<start>\d{8}T\d{6})\s*\n\s*RRULE:(?P<rule>[^\n]+)\s*")


class RuleError(ValueError):
    """A rule a client (or a model) gave that Suikou will not keep; the message names the problem."""


@dataclass(frozen=True)
class Recurrence:
    rule: str  # the RRULE value, normalised ("FREQ=WEEKLY;BYDAY=MO")
    start: datetime  # DTSTART: aware, in ``tz``; its wall-clock time is every occurrence's
    tz: str  # IANA zone: occurrences keep their wall-clock time across DST

    def parts(self) -> dict[str, str]:
        return dict(p.split("=", 1) for p in self.rule.split(";"))

    @property
    def from_completion(self) -> bool:
        return self.parts().get("X-FROM") == "COMPLETION"

    def to_ical(self) -> str:
        return f"DTSTART;TZID={self.tz}:{self.start.strftime('%Y%m%dT%H%M%S')}\nRRULE:{self.rule}"

    @classmethod
    def from_ical(cls, text: str) -> Recurrence:
        m = _ICAL.fullmatch(text)
        if m is None:
            raise RuleError("not a stored recurrence (DTSTART;TZID=…:…\\nRRULE:…)")
        start = datetime.strptime(m["start"], "%Y%m%dT%H%M%S")
        return make(m["rule"], start=start, tz=m["tz"])

    def rebased(self, start: datetime) -> Recurrence:
        """The same rule from another DTSTART (e.g. counted from a completion)."""
        return replace(self, start=start.astimezone(self.start.tzinfo))


def _zone(tz: str) -> ZoneInfo:
    try:
        return ZoneInfo(tz)
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise RuleError(f"unknown timezone {tz!r}") from exc


def make(rule: str, *, start: datetime, tz: str) -> Recurrence:
    """A validated, normalised rule (raises :class:`RuleError` naming the problem).

    ``start``: aware (converted to ``tz``) or naive (read as wall-clock time in ``tz``)."""
    zone = _zone(tz)
    text = rule.strip().removeprefix("RRULE:").strip().upper()
    if len(text) > MAX_RULE_CHARS:
        raise RuleError(f"the rule is longer than {MAX_RULE_CHARS} characters")
    parts = _parts(text)
    local = start.astimezone(zone) if start.tzinfo is not None else start.replace(tzinfo=zone)
    rec = Recurrence(";".join(f"{k}={v}" for k, v in parts.items()), local.replace(microsecond=0), tz)
    from core.recurrence.expand import next_after  # expansion needs the rule type

    try:
        first = next_after(rec, rec.start, inclusive=True)
    except (ValueError, TypeError) as exc:  # dateutil's own refusal of a part's value
        raise RuleError(f"the rule could not be read: {exc}") from exc
    if first is None:
        raise RuleError("the rule never occurs")
    return rec


def _number(parts: dict[str, str], name: str, high: int) -> None:
    if name in parts and not (parts[name].isdigit() and 1 <= int(parts[name]) <= high):
        raise RuleError(f"{name} must be a whole number from 1 to {high}")


def _parts(text: str) -> dict[str, str]:
    parts: dict[str, str] = {}
    for piece in filter(None, text.split(";")):
        name, eq, value = piece.partition("=")
        if not eq or not value:
            raise RuleError("a rule is NAME=VALUE parts separated by ';'")
        if name not in _PARTS:
            raise RuleError(f"unknown rule part {name}")
        if name in parts:
            raise RuleError(f"{name} is given twice")
        if name in _CHOICES and value not in _CHOICES[name]:
            raise RuleError(f"{name} must be one of {', '.join(_CHOICES[name])}")
        parts[name] = value
    if parts.get("FREQ") not in _FREQS:
        raise RuleError("FREQ must be DAILY, WEEKLY, MONTHLY or YEARLY (nothing finer than a day)")
    _number(parts, "INTERVAL", MAX_INTERVAL)
    _number(parts, "COUNT", MAX_COUNT)
    if "COUNT" in parts and "UNTIL" in parts:
        raise RuleError("COUNT and UNTIL must not both be given")
    from core.recurrence.expand import known_term

    if "X-TERM" in parts and not known_term(parts["X-TERM"]):
        raise RuleError("X-TERM must name a solar term in pinyin, e.g. DONGZHI")
    if parts.get("RSCALE") == "CHINESE" and parts.get("INTERVAL", "1") != "1":
        raise RuleError("INTERVAL is not supported with RSCALE=CHINESE")
    return parts
