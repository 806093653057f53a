"""A task's reminders as stored in ``tasks.reminders`` and as clients write and read them.

Each is relative — ``{"before_s": 1800}``, that long before the deadline (0: at the deadline) — or
absolute — ``{"at": "<ISO 8601, UTC>"}``. Leads are ISO 8601 durations on the wire ("PT30M", "P1D").
When they fire is :mod:`core.reminders`'s.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

__all__ = ["MAX_BEFORE", "MAX_REMINDERS", "Spec", "duration_text", "parse_duration", "resolved", "specs_of", "stored"]

MAX_REMINDERS = 10
MAX_BEFORE = timedelta(days=366)


@dataclass(frozen=True, order=True)
class Spec:
    """One reminder as stored: ``before`` (relative to the deadline) or ``at`` (a moment)."""

    before: timedelta | None = None
    at: datetime | None = None

    def as_json(self) -> dict[str, Any]:
        if self.before is not None:
            return {"before_s": int(self.before.total_seconds())}
        assert self.at is not None
        return {"at": self.at.astimezone(UTC).isoformat()}


def stored(specs: list[Spec]) -> str | None:
    """The column's value for ``specs`` (sorted, duplicates dropped); None for none. Raises
    ValueError past :data:`MAX_REMINDERS`, for a negative or too long lead, or a naive moment."""
    unique = sorted(set(specs), key=_order)
    if len(unique) > MAX_REMINDERS:
        raise ValueError(f"a task has at most {MAX_REMINDERS} reminders")
    for spec in unique:
        if (spec.before is None) == (spec.at is None):
            raise ValueError("a reminder is either before the deadline or at a moment")
        if spec.before is not None and not timedelta(0) <= spec.before <= MAX_BEFORE:
            raise ValueError("a reminder's lead is between 0 and 366 days")
        if spec.at is not None and spec.at.utcoffset() is None:
            raise ValueError("a reminder's moment needs a timezone")
    return json.dumps([s.as_json() for s in unique], separators=(",", ":")) if unique else None


def _order(spec: Spec) -> tuple[int, float]:
    if spec.before is not None:
        return 0, -spec.before.total_seconds()
    assert spec.at is not None
    return 1, spec.at.timestamp()


def specs_of(value: str | None) -> list[Spec]:
    """The reminders a stored column holds (what can't be read is left out)."""
    if not value:
        return []
    try:
        items = json.loads(value)
    except ValueError:
        return []
    specs = []
    for item in items if isinstance(items, list) else []:
        if isinstance(item, dict) and isinstance(item.get("before_s"), int):
            specs.append(Spec(before=timedelta(seconds=item["before_s"])))
        elif isinstance(item, dict) and isinstance(item.get("at"), str):
            try:
                specs.append(Spec(at=datetime.fromisoformat(item["at"])))
            except ValueError:
                continue
    return specs


def resolved(stored_value: str | None, deadline: datetime | None) -> list[tuple[Spec, datetime | None]]:
    """Each reminder with the moment it stands for (a relative one's: that lead before ``deadline``)."""
    out: list[tuple[Spec, datetime | None]] = []
    for spec in specs_of(stored_value):
        if spec.at is not None:
            out.append((spec, spec.at))
        else:
            assert spec.before is not None
            out.append((spec, deadline - spec.before if deadline is not None else None))
    return out


# --- ISO 8601 durations ("PT30M") ---------------------------------------------------------------

_DURATION = re.compile(r"^P(?:(?P<d>\d{1,3})D)?(?:T(?:(?P<h>\d{1,4})H)?(?:(?P<m>\d{1,6})M)?(?:(?P<s>\d{1,8})S)?)?$")


def parse_duration(text: str) -> timedelta:
    """ "PT30M", "P1D", "PT1H30M" → a timedelta (weeks, months and years are not leads people give)."""
    m = _DURATION.match(text.strip().upper())
    if m is None or text.strip().upper() in ("P", "PT") or text.strip().upper().endswith("T"):
        raise ValueError(f"{text!r} is not an ISO 8601 duration such as PT30M or P1D")
    parts = {k: int(v) for k, v in m.groupdict().items() if v}
    return timedelta(
        days=parts.get("d", 0), hours=parts.get("h", 0), minutes=parts.get("m", 0), seconds=parts.get("s", 0)
    )


def duration_text(value: timedelta) -> str:
    """A timedelta as ISO 8601: 30 min → "PT30M", a day → "P1D", 0 → "PT0S"."""
    total = int(value.total_seconds())
    days, rest = divmod(total, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, seconds = divmod(rest, 60)
    clock = "".join(f"{n}{u}" for n, u in ((hours, "H"), (minutes, "M"), (seconds, "S")) if n)
    text = "P" + (f"{days}D" if days else "") + (f"T{clock}" if clock else "")
    return text if text != "P" else "PT0S"
