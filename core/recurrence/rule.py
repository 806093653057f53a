"""A repeating task's rule: its RRULE text, DTSTART and zone, stored as two iCalendar content lines."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from datetime import datetime
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from core.recurrence.expand import next_after
from core.recurrence.terms import known_term

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
# Integer list parts: the values RFC 5545 allows (0 never; negatives count from the end).
_RANGES = {
    "BYMONTH": (1, 12),
    "BYMONTHDAY": (-31, 31),
    "BYYEARDAY": (-366, 366),
    "BYWEEKNO": (-53, 53),
    "BYSETPOS": (-366, 366),
}
_INT_LIST = re.compile(r"[+-]?\d{1,3}(?:,[+-]?\d{1,3})*")
_DAY = re.compile(r"(?P<n>[+-]?\d{1,2})?(?P<code>MO|TU|WE|TH|FR|SA|SU)")
_UNTIL = re.compile(r"\d{8}(?:T\d{6}Z?)?")
# Parts RFC 5545 forbids with a FREQ (a day of the year in a weekly rule means nothing).
_NOT_WITH = {
    "BYYEARDAY": ("DAILY", "WEEKLY", "MONTHLY"),
    "BYMONTHDAY": ("WEEKLY",),
    "BYWEEKNO": ("DAILY", "WEEKLY", "MONTHLY"),
}
# The lunar and solar-term walks read BYMONTH/BYMONTHDAY (lunar) or nothing; anything else would be ignored.
_LUNAR_PARTS = frozenset(
    {"RSCALE", "FREQ", "INTERVAL", "COUNT", "UNTIL", "BYMONTH", "BYMONTHDAY", "SKIP", "X-FROM", "WKST"}
)
_TERM_PARTS = frozenset({"FREQ", "COUNT", "UNTIL", "X-TERM", "X-FROM", "WKST"})
FIRST_YEAR, LAST_YEAR = 1900, 2200  # DTSTART's years: the Chinese calendar tables are good for these
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
        try:
            start = datetime.strptime(m["start"], "%Y%m%dT%H%M%S")
        except ValueError as exc:  # "20261399T000000": the shape of a date, not a date
            raise RuleError("the stored DTSTART is not a real date and time") from exc
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
    text = rule.strip().upper().removeprefix("RRULE:").strip()
    if len(text) > MAX_RULE_CHARS:
        raise RuleError(f"the rule is longer than {MAX_RULE_CHARS} characters")
    parts = _parts(text)
    local = start.astimezone(zone) if start.tzinfo is not None else start.replace(tzinfo=zone)
    if not FIRST_YEAR <= local.year <= LAST_YEAR:
        raise RuleError(f"the rule must start between {FIRST_YEAR} and {LAST_YEAR}")
    rec = Recurrence(";".join(f"{k}={v}" for k, v in parts.items()), local.replace(microsecond=0), tz)
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
    for piece in filter(None, (p.strip() for p in text.split(";"))):
        name, eq, value = (s.strip() for s in piece.partition("="))
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
    if "X-TERM" in parts and not known_term(parts["X-TERM"]):
        raise RuleError("X-TERM must name a solar term in pinyin, e.g. DONGZHI")
    if parts.get("RSCALE") == "CHINESE" and parts.get("INTERVAL", "1") != "1":
        raise RuleError("INTERVAL is not supported with RSCALE=CHINESE")
    _values(parts)
    _combination(parts)
    return parts


def _values(parts: dict[str, str]) -> None:
    for name, (low, high) in _RANGES.items():
        if name not in parts:
            continue
        if not _INT_LIST.fullmatch(parts[name]) or not all(
            low <= int(v) <= high and int(v) != 0 for v in parts[name].split(",")
        ):
            raise RuleError(f"{name} must be a list of whole numbers from {low} to {high}, not 0")
    if "BYDAY" in parts:
        for piece in parts["BYDAY"].split(","):
            m = _DAY.fullmatch(piece)
            if m is None or (m["n"] is not None and not 1 <= abs(int(m["n"])) <= 53):
                raise RuleError("BYDAY is a list of MO..SU, each optionally numbered (1MO, -1FR)")
            if m["n"] is not None and parts["FREQ"] not in ("MONTHLY", "YEARLY"):
                raise RuleError("a numbered BYDAY (1MO) needs FREQ=MONTHLY or YEARLY")
    if parts.get("WKST", "MO") not in ("MO", "TU", "WE", "TH", "FR", "SA", "SU"):
        raise RuleError("WKST must be one of MO..SU")
    if "UNTIL" in parts:
        _until_value(parts["UNTIL"])


def _until_value(text: str) -> None:
    if not _UNTIL.fullmatch(text):
        raise RuleError("UNTIL must be a date (20261231) or a date and time (20261231T235959)")
    try:
        datetime.strptime(text.rstrip("Z"), "%Y%m%dT%H%M%S" if "T" in text else "%Y%m%d")
    except ValueError as exc:
        raise RuleError("UNTIL is not a real date") from exc


def _combination(parts: dict[str, str]) -> None:
    freq = parts["FREQ"]
    for name, freqs in _NOT_WITH.items():
        if name in parts and freq in freqs:
            raise RuleError(f"{name} cannot be used with FREQ={freq}")
    if "SKIP" in parts and parts.get("RSCALE") != "CHINESE":
        raise RuleError("SKIP needs RSCALE=CHINESE")
    if parts.get("RSCALE") == "CHINESE":
        if freq not in ("MONTHLY", "YEARLY") or not parts.keys() <= _LUNAR_PARTS:
            raise RuleError(
                "a lunar rule (RSCALE=CHINESE) is FREQ=MONTHLY or YEARLY with lunar BYMONTH/BYMONTHDAY only"
            )
        if not all(1 <= int(d) <= 30 or d == "-1" for d in parts.get("BYMONTHDAY", "1").split(",")):
            raise RuleError("a lunar BYMONTHDAY is 1..30, or -1 for the month's last day")
    if "X-TERM" in parts and (freq != "YEARLY" or not parts.keys() <= _TERM_PARTS):
        raise RuleError("X-TERM (a solar term's day) is FREQ=YEARLY with no BY… parts")
