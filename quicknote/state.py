"""The quick-note graph's state."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from core import remindwords
from core.locale import Locale
from core.models import Task
from core.recurrence import RepeatPhrase
from core.reminderspec import Spec
from core.timeanchor import TimeWindow
from core.turn import Turn
from quicknote.draft import NoteDraft


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
    locale: Locale = "zh"
    overridden: list[str] = field(default_factory=list)  # model values the boundary did not take
    change_ids: list[int] = field(default_factory=list)  # the write log's ids of what was created
    duplicate_of: Task | None = None  # an open task this note repeats: asked about, nothing written
    repeat: RepeatPhrase | None = None  # the repetition the sentence says ("每周一"), read by code
    recurrence: str | None = None  # its rule, stored form, once scheduled
    unread_repeat: str | None = None  # a repetition said but not readable: the answer says so
    remind: remindwords.Said | None = None  # the reminder the sentence asks for, read by code
    reminders: list[Spec] = field(default_factory=list)  # what it becomes once the deadline is known
    reminder_unheld: str | None = None  # reminder words that could not be kept: the answer says so
    reminder_passed: datetime | None = None  # the moment it would have fired, already past
    reminder_target: bool = True  # the user has somewhere a reminder.due goes (a webhook)
    list_name: str | None = None  # the list the message put it in (quicknote.placement), resolved
    labels: list[str] = field(default_factory=list)  # its hashtags ("#工作")


@dataclass(frozen=True)
class NoteDeps:
    turn: Turn
    check_duplicates: bool = True  # False once the user said "add it anyway"
