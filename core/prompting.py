"""Facts every model prompt states the same way: the current moment and the user's language."""

from __future__ import annotations

from datetime import datetime

LANGUAGE_NAMES = {"zh": "Chinese", "en": "English"}


def now_line(now: datetime, tz: str) -> str:
    """'Now: 2026-12-01T10:00+08:00 (Tuesday, Asia/Shanghai).' — with the offset, so a model that
    writes a timestamp has no reason to leave it naive, and with the weekday it is bad at computing."""
    return f"Now: {now.isoformat(timespec='minutes')} ({now:%A}, {tz})."


def language_line(locale: str) -> str:
    return f"The user writes in {LANGUAGE_NAMES.get(locale, 'Chinese')}; any text you write must be in it too."
