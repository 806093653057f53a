"""Deterministic time anchoring: Chinese (and simple English/ISO) time phrases → closed windows.

>>> from datetime import datetime
>>> from zoneinfo import ZoneInfo
>>> now = datetime(2026, 11, 30, 10, 0, tzinfo=ZoneInfo("Asia/Shanghai"))
>>> w = resolve_time("下周三之前要交的", now)
>>> (w.start.isoformat(), w.end.isoformat(), w.phrase)
('2026-11-30T10:00:00+08:00', '2026-12-09T23:59:59+08:00', '下周三之前')
"""

from .resolve import resolve_time
from .window import TimeWindow, deadline_of

__all__ = ["TimeWindow", "deadline_of", "resolve_time"]
