"""The quick-note graph's state."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from core.models import Task
from core.timeanchor import TimeWindow
from quicknote.draft import NoteDraft
from route.turn import Turn


@dataclass
class NoteState:
    sentence: str
    now: datetime
    tz: str
    draft: NoteDraft | None = None
    window: TimeWindow | None = None
    deadline_at: datetime | None = None
    urgency_threshold_at: datetime | None = None
    priority_group: int = 2
    task: Task | None = None
    created: bool = False


@dataclass(frozen=True)
class NoteDeps:
    turn: Turn
