"""An import: a file's rows become the user's tasks in one change (docs/fdr/0039).

- **One change.** Every task of a file is created in one write-path transaction under one turn key
  (``import:<id>``), so one revert of any of its changes — or ``suikou`` undo of the import — takes all
  of it back (:func:`core.changes.batch_of`).
- **Idempotent.** Each row's source key is a digest of its identity in its file (TickTick's task id;
  Todoist's content and place; a Suikou export's id): a row imported before is a ``duplicate``, so
  the same file twice creates nothing the second time. An ``Idempotency-Key`` makes a retry answer
  as the first did.
- **Dry run** reads and plans the same way and writes nothing.
- **Nothing dropped silently**: skipped rows are counted by reason, and values Suikou has no field
  for yet (descriptions, lists, tags, durations…) are counted by column in ``not_kept``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal
from zoneinfo import ZoneInfo

from pydantic import ValidationError
from sqlmodel import Session, col, select

from core import recurrence, reminderspec, writes
from core.models import Task, TaskCreate
from exchange import native, ticktick, todoist
from exchange.rows import BadFile, Parsed, Row, Skip

__all__ = ["MAX_BYTES", "SOURCES", "Source", "Summary", "parse", "run"]

Source = Literal["ticktick", "todoist", "suikou"]
SOURCES: tuple[Source, ...] = ("ticktick", "todoist", "suikou")
MAX_BYTES = 5 * 1024 * 1024
SAMPLE = 5


def parse(data: bytes, source: Source, *, tz: str, now: datetime) -> Parsed:
    """The file's rows, or :class:`BadFile` naming what is wrong (and where)."""
    if len(data) > MAX_BYTES:
        raise BadFile(f"the file is larger than {MAX_BYTES // (1024 * 1024)} MB: split it")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise BadFile(f"the file is not UTF-8 text (byte {exc.start})") from exc
    if "\x00" in text:
        raise BadFile("the file holds NUL characters: not a text export")
    if source == "ticktick":
        return ticktick.read(text, tz=tz, now=now)
    if source == "todoist":
        return todoist.read(text, tz=tz, now=now)
    return native.read(text, tz=tz)


@dataclass
class Summary:
    """What an import did (or, for a dry run, would do)."""

    dry_run: bool
    created: int = 0
    skipped: int = 0
    by_reason: dict[str, int] = field(default_factory=dict)
    not_kept: dict[str, int] = field(default_factory=dict)
    sample: list[dict[str, Any]] = field(default_factory=list)
    task_ids: list[int] = field(default_factory=list)
    change_ids: list[int] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "dry_run": self.dry_run, "created": self.created, "skipped": self.skipped,
            "by_reason": self.by_reason, "not_kept": self.not_kept, "sample": self.sample,
            "task_ids": self.task_ids, "change_ids": self.change_ids,
        }  # fmt: skip

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Summary:
        return cls(**{k: data[k] for k in cls.__dataclass_fields__ if k in data})


def _create(row: Row, tz: str) -> TaskCreate:
    """The row as a task to create; a value the models refuse is the file's error, at its row."""
    zone = row.timezone or tz
    try:
        rule = None
        if row.rule is not None and row.deadline_at is not None and not row.completed:  # a done series is over
            start = row.rule_start or row.deadline_at
            rule = recurrence.make(row.rule, start=start, tz=zone).to_ical()
        specs = [reminderspec.Spec(before=b) for b in row.reminders if row.deadline_at is not None]
        specs += [reminderspec.Spec(at=a) for a in row.reminder_at]
        return TaskCreate(
            title=row.title,
            priority_group=row.priority_group,
            deadline_at=row.deadline_at,
            urgency_threshold_at=row.urgency_threshold_at,
            recurrence=rule,
            reminders=reminderspec.stored(specs),
            estimate_minutes=row.estimate_minutes,
            list_name=row.list_name,
            labels=list(row.labels) or None,
        )
    except recurrence.RuleError as exc:
        raise BadFile(f"the repetition can't be kept: {exc}", row=row.line, column="recurrence") from exc
    except ValidationError as exc:
        error = exc.errors()[0]
        column = ".".join(str(p) for p in error["loc"]) or None
        raise BadFile(error["msg"], row=row.line, column=column) from exc
    except ValueError as exc:
        raise BadFile(str(exc), row=row.line, column="reminders") from exc


def _sample(row: Row, tz: str) -> dict[str, Any]:
    zone = ZoneInfo(row.timezone or tz)
    return {
        "row": row.line,
        "title": row.title,
        "deadline_at": row.deadline_at.astimezone(zone).isoformat() if row.deadline_at else None,
        "all_day": row.all_day,
        "priority_group": row.priority_group,
        "rule": row.rule,
        "completed": row.completed,
    }


def _known(session: Session, user_id: int, keys: list[str]) -> set[str]:
    """Which of the keys the user's tasks hold already (rows imported before)."""
    found: set[str] = set()
    for i in range(0, len(keys), 500):
        chunk = keys[i : i + 500]
        stmt = select(Task.source_key).where(col(Task.user_id) == user_id, col(Task.source_key).in_(chunk))
        found |= {k for k in session.exec(stmt) if k is not None}
    return found


def _plan(
    session: Session, user_id: int, parsed: Parsed, source: Source, tz: str
) -> tuple[list[tuple[Row, TaskCreate]], list[Skip]]:
    """Rows to create (each checked now, so a bad row refuses the file before anything is written),
    and the skipped, duplicates included."""
    creates = [(row, _create(row, tz)) for row in parsed.rows]
    keys = [row.source_key(source) for row, _ in creates]
    known = _known(session, user_id, keys)
    fresh: list[tuple[Row, TaskCreate]] = []
    skipped = list(parsed.skipped)
    for (row, data), key in zip(creates, keys, strict=True):
        if key in known:
            skipped.append(Skip(row.line, "duplicate", row.title))
        else:
            known.add(key)  # the same row twice in one file is one task
            fresh.append((row, data))
    return fresh, skipped


def _summary(dry_run: bool, fresh: list[tuple[Row, TaskCreate]], skipped: list[Skip], tz: str) -> Summary:
    not_kept = Counter(name for row, _ in fresh for name in row.not_kept)
    return Summary(
        dry_run=dry_run,
        created=len(fresh),
        skipped=len(skipped),
        by_reason=dict(sorted(Counter(s.reason for s in skipped).items())),
        not_kept=dict(sorted(not_kept.items())),
        sample=[_sample(row, tz) for row, _ in fresh[:SAMPLE]],
    )


def run(
    sessions: Callable[[], Session],
    by: writes.Author,
    parsed: Parsed,
    source: Source,
    *,
    tz: str,
    dry_run: bool = False,
) -> Summary:
    """Imports the rows as ``by`` (one transaction); a dry run writes nothing and says the same."""
    if dry_run:
        with sessions() as session:
            fresh, skipped = _plan(session, by.user_id, parsed, source, tz)
        return _summary(True, fresh, skipped, tz)
    with writes.writing(sessions, by) as w:
        if w.copy:
            return Summary.from_dict(w.prior.get("import", {}))
        fresh, skipped = _plan(w.session, by.user_id, parsed, source, tz)
        for row, data in fresh:
            done_at = (row.completed_at or row.deadline_at or by.now) if row.completed else None
            w.bring(data, row.source_key(source), done_at=min(done_at, by.now) if done_at else None)
        summary = _summary(False, fresh, skipped, tz)
        lost = len(fresh) - len(w.created)  # rows a concurrent import of the same file took first
        summary.created, summary.skipped = len(w.created), summary.skipped + lost
        if lost:
            summary.by_reason["duplicate"] = summary.by_reason.get("duplicate", 0) + lost
        summary.task_ids = [t.id for t in w.created if t.id is not None]
        summary.change_ids = list(w.change_ids)
        w.report["import"] = summary.as_dict()
    return summary
