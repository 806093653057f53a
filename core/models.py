"""SQLModel tables and the API-facing Create/Update/Public shapes.

Tables (brief §1): ``users``, ``api_keys``, ``tasks``.

Datetimes
---------
Every datetime column uses :class:`UTCDateTime`. Python code only ever sees timezone-aware UTC
datetimes; naive datetimes are refused when bound (they are almost always a bug: "naive in which
zone?"). On PostgreSQL the column is ``timestamptz``. On SQLite the value is stored as naive UTC
in SQLAlchemy's fixed-width ``YYYY-MM-DD HH:MM:SS.ffffff`` text form, so lexicographic comparison
in SQL (``deadline_at <= :now``) is chronological comparison, and it is read back as aware UTC.

Indexes on ``tasks`` (each serves a filter of :func:`core.store.query_tasks`; every query is
scoped by ``user_id``, so it leads every index, which also makes a separate ``user_id`` index
redundant — the foreign key is served by these composites). Most queries also fix
``is_completed`` (open tasks by default, completed ones for "what did I finish"), so it comes
second; a time window that allows both gets the always-true ``is_completed IN (false, true)``
from :mod:`core.store`, so that the planners still seek the range within each value. Trailing
columns make an index *covering*: ``COUNT(*)`` (the page's ``total``) and sort keys are then
answered from the index without visiting table rows.

``ix_tasks_user_open_deadline (user_id, is_completed, deadline_at, priority_group,
urgency_threshold_at)``
    The default question is "my uncompleted tasks by deadline". ``deadline_at`` serves deadline
    windows and "overdue" (``deadline_at < now``) as a range scan and the deadline ordering as
    an index walk that stops after LIMIT rows; the two trailing columns cover the
    effective-group CASE, so a quadrant filter or tie-break on it never touches the table.
``ix_tasks_user_state_group (user_id, is_completed, priority_group, urgency_threshold_at)``
    Quadrant counts. The effective group depends on ``now`` and can't be indexed, but "effective
    group in Q" is a union of disjoint ranges of this index (stored group, and whether the
    threshold is NULL, ``<= now`` or ``> now``; see :func:`core.store.group_terms`), so the
    total of a quadrant filter, and the per-group counts that the ``priority`` ordering pages
    with, are sums of range counts (without a keyword; see the title index).
``ix_tasks_user_state_completed_at (user_id, is_completed, completed_at, deadline_at,
priority_group)``
    "What did I finish last week": a range on ``completed_at`` among completed tasks, covering
    the count and the page's sort key (deadline, then the group — completed tasks are never
    promoted, so their effective group is the stored one).
``ix_tasks_user_state_created_at (user_id, is_completed, created_at)``
    "What did I add recently": a range on ``created_at``, covering the count.
``ix_tasks_user_state_title (user_id, is_completed, title, priority_group,
urgency_threshold_at)``
    Keyword search. A substring (``LIKE '%kw%'``) can't seek in a B-tree, so the user's titles
    are scanned; scanning this index instead of the table reads far fewer pages, and the
    trailing columns cover a quadrant filter on the same pass.
``uq_tasks_user_source_key (user_id, source_key)`` (unique constraint)
    Idempotent creation: one task per chat turn per user, enforced by the database, so it
    holds across processes. NULL source keys never conflict.
"""

from __future__ import annotations

from datetime import UTC, datetime

import sqlalchemy as sa
from pydantic import field_validator
from sqlalchemy.engine import Dialect
from sqlalchemy.types import TypeDecorator
from sqlmodel import Field, SQLModel

TITLE_MAX = 500


class UTCDateTime(TypeDecorator[datetime]):
    """A timezone-aware datetime stored as UTC on every backend and read back as aware UTC."""

    impl = sa.DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if not isinstance(value, datetime):
            raise TypeError(f"expected a datetime, got {type(value).__name__}")
        if value.tzinfo is None or value.utcoffset() is None:
            raise ValueError(f"naive datetime {value.isoformat()} given; pass a timezone-aware datetime")
        value = value.astimezone(UTC)
        if dialect.name == "postgresql":
            return value
        return value.replace(tzinfo=None)

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value.astimezone(UTC)


def utcnow() -> datetime:
    return datetime.now(UTC)


def _require_aware(value: datetime | None) -> datetime | None:
    if value is not None and (value.tzinfo is None or value.utcoffset() is None):
        raise ValueError("datetime must carry a timezone offset")
    return value


# ---------------------------------------------------------------------------------------------
# users / api_keys


class User(SQLModel, table=True):
    __tablename__ = "users"
    __table_args__ = (sa.UniqueConstraint("name", name="uq_users_name"),)

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(max_length=200, nullable=False)
    created_at: datetime = Field(sa_type=UTCDateTime, nullable=False)


class ApiKey(SQLModel, table=True):
    __tablename__ = "api_keys"
    __table_args__ = (sa.UniqueConstraint("key_hash", name="uq_api_keys_key_hash"),)

    id: int | None = Field(default=None, primary_key=True)
    user_id: int = Field(foreign_key="users.id", ondelete="CASCADE", nullable=False, index=True)
    key_hash: str = Field(max_length=64, nullable=False)
    prefix: str = Field(max_length=16)
    created_at: datetime = Field(sa_type=UTCDateTime, nullable=False)
    revoked_at: datetime | None = Field(default=None, sa_type=UTCDateTime)


# ---------------------------------------------------------------------------------------------
# tasks


class TaskBase(SQLModel):
    title: str = Field(min_length=1, max_length=TITLE_MAX)
    priority_group: int = Field(default=2, ge=1, le=4)
    deadline_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    urgency_threshold_at: datetime | None = Field(default=None, sa_type=UTCDateTime)


class Task(TaskBase, table=True):
    __tablename__ = "tasks"
    __table_args__ = (
        sa.CheckConstraint("priority_group BETWEEN 1 AND 4", name="ck_tasks_priority_group"),
        sa.UniqueConstraint("user_id", "source_key", name="uq_tasks_user_source_key"),
        sa.Index(
            "ix_tasks_user_open_deadline",
            "user_id",
            "is_completed",
            "deadline_at",
            "priority_group",
            "urgency_threshold_at",
        ),
        sa.Index("ix_tasks_user_state_group", "user_id", "is_completed", "priority_group", "urgency_threshold_at"),
        sa.Index(
            "ix_tasks_user_state_completed_at",
            "user_id",
            "is_completed",
            "completed_at",
            "deadline_at",
            "priority_group",
        ),
        sa.Index("ix_tasks_user_state_created_at", "user_id", "is_completed", "created_at"),
        sa.Index(
            "ix_tasks_user_state_title",
            "user_id",
            "is_completed",
            "title",
            "priority_group",
            "urgency_threshold_at",
        ),
    )

    id: int | None = Field(default=None, primary_key=True)
    user_id: int = Field(foreign_key="users.id", ondelete="CASCADE", nullable=False)
    is_completed: bool = Field(default=False, sa_column_kwargs={"server_default": sa.false()})
    completed_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    created_at: datetime = Field(sa_type=UTCDateTime, nullable=False)
    updated_at: datetime = Field(sa_type=UTCDateTime, nullable=False)
    source_key: str | None = Field(default=None, max_length=128)


class TaskCreate(TaskBase):
    """What a client may set when creating a task (validated; datetimes must be aware)."""

    @field_validator("deadline_at", "urgency_threshold_at")
    @classmethod
    def _aware(cls, value: datetime | None) -> datetime | None:
        return _require_aware(value)

    @field_validator("title")
    @classmethod
    def _title(cls, value: str) -> str:
        value = value.strip()
        if not value:
            raise ValueError("title must not be blank")
        return value


class TaskUpdate(SQLModel):
    """A partial update: only fields explicitly set are applied (``model_dump(exclude_unset=True)``).

    Setting ``deadline_at``/``urgency_threshold_at`` to ``None`` clears it. Completion is changed
    through :func:`core.store.complete_task`, or here via ``is_completed``.
    """

    title: str | None = Field(default=None, min_length=1, max_length=TITLE_MAX)
    priority_group: int | None = Field(default=None, ge=1, le=4)
    deadline_at: datetime | None = None
    urgency_threshold_at: datetime | None = None
    is_completed: bool | None = None

    @field_validator("deadline_at", "urgency_threshold_at")
    @classmethod
    def _aware(cls, value: datetime | None) -> datetime | None:
        return _require_aware(value)

    @field_validator("title")
    @classmethod
    def _title(cls, value: str | None) -> str | None:
        if value is None:
            return None
        value = value.strip()
        if not value:
            raise ValueError("title must not be blank")
        return value


class TaskPublic(TaskBase):
    """A task as the REST API returns it. ``effective_group`` is the group after promotion."""

    id: int
    is_completed: bool
    completed_at: datetime | None
    created_at: datetime
    updated_at: datetime
    effective_group: int
    promoted: bool

    @classmethod
    def from_task(cls, task: Task, *, now: datetime) -> TaskPublic:
        from core.store import effective_group

        eff = effective_group(task, now=now)
        assert task.id is not None
        return cls(
            id=task.id,
            title=task.title,
            priority_group=task.priority_group,
            deadline_at=task.deadline_at,
            urgency_threshold_at=task.urgency_threshold_at,
            is_completed=task.is_completed,
            completed_at=task.completed_at,
            created_at=task.created_at,
            updated_at=task.updated_at,
            effective_group=eff,
            promoted=eff != task.priority_group,
        )


__all__ = [
    "TITLE_MAX",
    "ApiKey",
    "Task",
    "TaskBase",
    "TaskCreate",
    "TaskPublic",
    "TaskUpdate",
    "UTCDateTime",
    "User",
    "utcnow",
]
