"""The probe notation shared by the time-anchor probe tables (tests/core/test_timeanchor_probes.py and the
peer-style tables, test_timeanchor_peer_*.py).

Conventions (the peer sets'): a day is 00:00..23:59:59, a week is Mon..Sun, "X之前" is
[now, end of X], spans run from now; a window starting at `now` also matches an expected start
at today's midnight; 2-minute tolerance; `alt` lists other readings of a genuinely ambiguous
phrase. Cases with `want=None` are traps: no window at all.

Notation for the expected times: "now"; "MM-DD" / "YYYY-MM-DD" (that day's 00:00, the year of
`now` when omitted); a leading "e" means 23:59:59 of that day; " HH:MM[:SS]" adds a clock time;
None is an open bound. `now` is a key of NOWS or an ISO datetime with offset.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import NamedTuple
from zoneinfo import ZoneInfo

from core.timeanchor import resolve_time

SH = ZoneInfo("Asia/Shanghai")
TOL = timedelta(minutes=2)

NOWS = {
    "A": datetime(2026, 11, 30, 10, 0, tzinfo=SH),  # Monday, last day of a month
    "B": datetime(2026, 12, 6, 21, 30, tzinfo=SH),  # Sunday, late evening
    "C": datetime(2026, 12, 31, 23, 0, tzinfo=SH),  # Thursday, Dec 31, late evening
    "D": datetime(2028, 2, 27, 9, 0, tzinfo=SH),  # Sunday, February of a leap year
    "F": datetime(2027, 2, 20, 15, 0, tzinfo=SH),  # Saturday, February of a non-leap year
    "G": datetime(2026, 7, 15, 14, 0, tzinfo=SH),  # Wednesday, mid-month
    "H": datetime(2026, 3, 31, 18, 0, tzinfo=SH),  # Tuesday, last day of a quarter
}

W = tuple[str | None, str | None]


class Probe(NamedTuple):
    sentence: str
    now: str
    want: W | None
    alt: tuple[W, ...] = ()
    prefer: str = "future"
    miss: str = ""  # a known miss: why (the case is a strict xfail)
    kind: str = ""  # the family a peer-style table counts it under


def P(
    sentence: str,
    now: str,
    start: str | None,
    end: str | None,
    *alt: W,
    prefer: str = "future",
    miss: str = "",
    kind: str = "",
) -> Probe:
    return Probe(sentence, now, (start, end), tuple(alt), prefer, miss, kind)


def PAST(sentence: str, now: str, start: str | None, end: str | None, *alt: W, kind: str = "") -> Probe:
    return P(sentence, now, start, end, *alt, prefer="past", kind=kind)


def TRAP(sentence: str, now: str = "A", prefer: str = "future", kind: str = "") -> Probe:
    return Probe(sentence, now, None, (), prefer, "", kind)


def now_of(key: str) -> datetime:
    return NOWS[key] if key in NOWS else datetime.fromisoformat(key)


def at(spec: str | None, now: datetime) -> datetime | None:
    if spec is None:
        return None
    if spec == "now":
        return now
    end = spec.startswith("e")
    s = spec[1:] if end else spec
    day, _, clock = s.partition(" ")
    if day.count("-") == 1:
        day = f"{now.year}-{day}"
    if end:
        clock = "23:59:59"
    parts = [int(x) for x in (clock or "00:00").split(":")] + [0]
    y, m, d = (int(x) for x in day.split("-"))
    return datetime(y, m, d, parts[0], parts[1], parts[2], tzinfo=now.tzinfo)


def same(got: datetime | None, want: datetime | None) -> bool:
    if got is None or want is None:
        return got is None and want is None
    return abs(got - want) <= TOL


def same_start(got: datetime | None, want: datetime | None, now: datetime) -> bool:
    if same(got, want):
        return True
    return (
        got is not None
        and want is not None
        and abs(got - now) <= TOL
        and want.date() == now.date()
        and (want.hour, want.minute) == (0, 0)
    )


def probe_ok(p: Probe) -> tuple[bool, str]:
    now = now_of(p.now)
    w = resolve_time(p.sentence, now, "Asia/Shanghai", prefer=p.prefer)  # type: ignore[arg-type]
    if p.want is None:
        return w is None, "" if w is None else f"trap read as {w.phrase!r}"
    if w is None:
        return False, "no window"
    for s, e in (p.want, *p.alt):
        if same_start(w.start, at(s, now), now) and same(w.end, at(e, now)):
            return True, ""
    got = (w.start and w.start.isoformat(), w.end and w.end.isoformat())
    return False, f"{w.phrase!r} -> {got}"


def params(probes: list[Probe]) -> list[object]:
    """pytest params for a probe table: a case with `miss` is a strict xfail."""
    import pytest

    return [
        pytest.param(p, marks=pytest.mark.xfail(strict=True, reason=p.miss), id=f"{p.now}:{p.sentence}")
        if p.miss
        else pytest.param(p, id=f"{p.now}:{p.sentence}")
        for p in probes
    ]


def report(probes: list[Probe]) -> None:
    """Per-kind counts and the misses: `python -m tests.core.<module>`."""
    from collections import Counter

    right: Counter[str] = Counter()
    total: Counter[str] = Counter()
    for p in probes:
        ok, why = probe_ok(p)
        total[p.kind] += 1
        right[p.kind] += ok
        if not ok:
            print(f"MISS [{p.kind}] {p.now} {p.prefer:6s} {p.sentence}: {why}")
    for kind in sorted(total):
        print(f"{kind or '-':24s} {right[kind]:3d}/{total[kind]:3d}")
    print(f"{sum(right.values())}/{len(probes)} probes right")
