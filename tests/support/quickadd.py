"""Scoring a line the way `suikou explain` prints it (tests/quicknote/test_quickadd_*.py): a note's
title (``keep`` words stay, ``gone`` words are cut, case-insensitively) and deadline, or a question's
query window. Times compare with a 2-minute tolerance; a window starting at `now` also matches an
expected start at today's midnight."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from datetime import datetime, timedelta
from functools import cache
from typing import Any

from app.actions import build_registry
from app.explain import explain
from core.llm import ModelHub
from core.turn import TurnConfig
from quicknote.offline import offline_extract_note
from route.pipeline import Pipeline

TZ = "Asia/Shanghai"
TOL = timedelta(minutes=2)


@cache
def _pipeline() -> Pipeline:
    return Pipeline(build_registry())


def explained(sentence: str, now: str) -> dict[str, Any]:
    """What `suikou explain` prints for the line at `now` (ISO with offset)."""
    at_now = datetime.fromisoformat(now)
    return asyncio.run(explain(_pipeline(), ModelHub(), sentence, now=at_now, tz=TZ, config=TurnConfig()))


def extracted(sentence: str, now: str) -> dict[str, Any]:
    """The note the offline extraction and the time anchor make of a line, whatever the routing."""
    draft = offline_extract_note(sentence, datetime.fromisoformat(now), TZ)
    at = None if draft.deadline_at is None else draft.deadline_at.isoformat()
    return {"action": "quick_note_create", "note": {"title": draft.title, "deadline_at": at}}


def same(got: str | None, want: str | None) -> bool:
    if got is None or want is None:
        return got is None and want is None
    return abs(datetime.fromisoformat(got) - datetime.fromisoformat(want)) <= TOL


def same_start(got: str | None, want: str | None, now: str) -> bool:
    if same(got, want):
        return True
    if got is None or want is None:
        return False
    at_now = datetime.fromisoformat(now)
    return abs(datetime.fromisoformat(got) - at_now) <= TOL and datetime.fromisoformat(want).date() == at_now.date()


def note_ok(
    sentence: str, now: str, keep: Sequence[str], gone: Sequence[str], deadlines: Sequence[str | None], routed: bool
) -> tuple[bool, str]:
    """The line is a note whose title keeps ``keep``, loses ``gone`` and whose deadline is one of ``deadlines``
    (``routed=False``: the extraction alone, for lines the routing leaves to the intent model on purpose)."""
    out = explained(sentence, now) if routed else extracted(sentence, now)
    if out.get("action") != "quick_note_create":
        return False, f"routed to {out.get('action')} ({out.get('proposed')})"
    note = out.get("note") or {}
    title = (note.get("title") or "").lower()
    lost = [w for w in keep if w.lower() not in title]
    left = [w for w in gone if w.lower() in title]
    got = note.get("deadline_at")
    if lost or left or not any(same(got, want) for want in deadlines):
        return False, f"title {note.get('title')!r} deadline {got} (lost {lost}, left {left})"
    return True, ""


def window_ok(sentence: str, now: str, windows: Sequence[tuple[str | None, str | None]]) -> tuple[bool, str]:
    """The line is a task question whose window is one of ``windows``."""
    out = explained(sentence, now)
    if out.get("action") != "task_query":
        return False, f"routed to {out.get('action')}"
    plan = out.get("plan") or {}
    got = (plan.get("time_after"), plan.get("time_before"))
    if any(same_start(got[0], s, now) and same(got[1], e) for s, e in windows):
        return True, ""
    return False, f"window {got}"
