"""SQLModel tables and the API-facing Create/Update/Public shapes.

Tables (brief §1): ``users``, ``api_keys``, ``tasks``; and ``task_title_grams``, ``task_changes``,
``write_attempts``, ``service_secrets``, ``calendar_links`` (below, with their modules).

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
``ix_tasks_user_state_title_key (user_id, is_completed, title_key, priority_group,
urgency_threshold_at)``
    Keyword search when it scans (``title_key`` is the folded title that every backend compares).
    A substring (``LIKE '%kw%'``) can't seek in a B-tree; a rare keyword is looked up in
    ``task_title_grams`` (the title n-gram index, :mod:`core.titlegrams`), but a common one is faster scanned, because the page and the capped count stop early: then
    this index is read instead of the table (far fewer pages), its trailing columns covering a
    quadrant filter on the same pass.
``uq_tasks_user_source_key (user_id, source_key)`` (unique constraint)
    Idempotent creation: one task per chat turn per user, enforced by the database, so it
    holds across processes. NULL source keys never conflict.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Annotated, Any

import sqlalchemy as sa
from pydantic import AfterValidator, AliasChoices, BeforeValidator, Strict, WithJsonSchema, field_validator
from pydantic import Field as Bounds
from sqlalchemy.engine import Dialect
from sqlalchemy.types import TypeDecorator
from sqlmodel import Field, SQLModel

from core import listnames
from core.estimates import ESTIMATE_MAX
from core.locale import Locale
from core.reminderspec import duration_text, resolved
from core.textrules import INVISIBLE, PLAIN_TEXT, SPACE, UNICODE_TEXT, VISIBLE_TEXT

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


def storable(moment: datetime | None) -> bool:
    """A moment a task may hold (see `_require_aware`): none, or aware and within the years."""
    try:
        _require_aware(moment)
    except ValueError:
        return False
    return True


def _require_aware(value: datetime | None) -> datetime | None:
    """A task's moment, however it was made (a client's text or code): aware, and within the years
    every backend and every timezone can show (a stored year 9999 would overflow a later read)."""
    if value is None:
        return None
    if value.tzinfo is None or value.utcoffset() is None:
        raise ValueError("datetime must carry a timezone offset")
    if not YEAR_MIN - 1 <= value.astimezone(UTC).year <= YEAR_MAX + 1:
        raise ValueError(f"datetime must be within the years {YEAR_MIN}..{YEAR_MAX}")
    return value


# ---------------------------------------------------------------------------------------------
# what clients may send: one place for the bounds. The OpenAPI document shows these very patterns,
# and the server checks them with `re.fullmatch` (JSON Schema's `pattern`, anchored as in ECMA-262).

# (PLAIN_TEXT, SPACE, INVISIBLE, VISIBLE_TEXT: core.textrules, re-exported here.)

# Datetimes from clients: RFC 3339 with an offset (`Z` or +hh:mm), nothing else: a naive time is
# "naive in which zone?", and a bare number such as 0.5 is not a date (pydantic would read 1970).
# The year as written is 1970..2200, so converting to UTC never leaves Python's range.
YEAR_MIN, YEAR_MAX = 1970, 2200
DATETIME_TEXT = (
    r"^(19[7-9][0-9]|2[01][0-9]{2}|2200)-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])"
    r"T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\.[0-9]{1,6})?(Z|[+-]([01][0-9]|2[0-3]):[0-5][0-9])$"
)
DATETIME_HELP = f"an RFC 3339 datetime with an offset, years {YEAR_MIN}..{YEAR_MAX}, e.g. 2026-12-01T15:00:00+08:00"


def text_fits(pattern: str, value: str) -> bool:
    return re.fullmatch(pattern, value) is not None


def text_problem(value: str, rules: tuple[tuple[str, str], ...]) -> str | None:
    """The problem of the first (pattern, problem) rule the value fails, if any."""
    return next((problem for pattern, problem in rules if not text_fits(pattern, value)), None)


def text_rules(*rules: tuple[str, str]) -> AfterValidator:
    def check(value: str) -> str:
        if problem := text_problem(value, rules):
            raise ValueError(problem)
        return value

    return AfterValidator(check)


def _client_datetime(value: Any) -> Any:
    """A datetime a client wrote must be `DATETIME_TEXT`; one built in code is taken as it is."""
    if isinstance(value, datetime):
        return value
    if isinstance(value, str) and text_fits(DATETIME_TEXT, value):
        return datetime.fromisoformat(value)  # still refuses days a month lacks (2026-02-30)
    raise ValueError(f"must be {DATETIME_HELP}")


NO_NUL = "must not contain NUL characters or unpaired surrogates"
TEXT_RULES = ((PLAIN_TEXT, NO_NUL), (UNICODE_TEXT, NO_NUL))
ClientText = Annotated[str, text_rules(*TEXT_RULES), WithJsonSchema({"type": "string", "pattern": PLAIN_TEXT})]
ClientTitle = Annotated[
    str,
    Bounds(min_length=1, max_length=TITLE_MAX),
    text_rules(*TEXT_RULES, (VISIBLE_TEXT, "must not be blank")),
    WithJsonSchema({"type": "string", "minLength": 1, "maxLength": TITLE_MAX, "pattern": VISIBLE_TEXT}),
]
ClientDateTime = Annotated[
    datetime,
    BeforeValidator(_client_datetime),
    WithJsonSchema({"type": "string", "format": "date-time", "pattern": DATETIME_TEXT, "description": DATETIME_HELP}),
]


def whole_number(value: Any) -> Any:
    """JSON Schema's integers include 2.0; strings and booleans stay refused (by `Strict`)."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


# JSON bodies are typed strictly: "2" is not a group and "yes" is not a boolean.
Group = Annotated[int, Strict(), Bounds(ge=1, le=4), BeforeValidator(whole_number)]
Minutes = Annotated[int, Strict(), Bounds(ge=1, le=ESTIMATE_MAX), BeforeValidator(whole_number)]
Flag = Annotated[bool, Strict()]


_NAME_SCHEMA = {"type": "string", "maxLength": listnames.NAME_MAX, "pattern": listnames.NAME_TEXT}
ListName = Annotated[
    str,
    Strict(),
    text_rules((UNICODE_TEXT, NO_NUL)),
    AfterValidator(listnames.clean_name),
    WithJsonSchema(_NAME_SCHEMA),
]
Labels = Annotated[list[ListName], Bounds(max_length=listnames.LABELS_MAX), AfterValidator(listnames.clean_labels)]
LIST_ALIAS = AliasChoices("list", "list_name")  # "list" on the wire; list_name in code
LIST_HELP = "The list (project) the task is in, by name: created on first use, compared ignoring case."
LABELS_HELP = "The task's labels (tags), by name, without '#'."


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
    # How long it takes, in minutes (core.estimates); NULL: not said.
    estimate_minutes: int | None = Field(default=None, ge=1, le=ESTIMATE_MAX)


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
        # The series only (migration 0008): what a deadline window reads to list them (core.store).
        sa.Index(
            "ix_tasks_user_series",
            "user_id",
            "is_completed",
            "deadline_at",
            sqlite_where=sa.text("recurrence IS NOT NULL"),
            postgresql_where=sa.text("recurrence IS NOT NULL"),
        ),
        sa.Index(
            "ix_tasks_user_state_completed_at",
            "user_id",
            "is_completed",
            "completed_at",
            "deadline_at",
            "priority_group",
        ),
        sa.Index("ix_tasks_user_state_created_at", "user_id", "is_completed", "created_at"),
        sa.Index("ix_tasks_user_list", "user_id", "list_key", "is_completed", "deadline_at"),
        sa.Index(
            "ix_tasks_user_state_title_key",
            "user_id",
            "is_completed",
            "title_key",
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
    # The title as keyword search compares it (core.titlegrams.match_key: case classes folded,
    # combining marks dropped, spaces collapsed), computed in Python on every write, so that a
    # keyword finds the same tasks on every backend (SQLite's LIKE folds only ASCII).
    title_key: str = Field(default="", sa_type=sa.Text, nullable=False, sa_column_kwargs={"server_default": ""})
    # A repeating task: its rule as iCalendar lines ("DTSTART;TZID=…:…\nRRULE:…", core.recurrence);
    # ``deadline_at`` is then its next open occurrence. NULL: a one-off.
    recurrence: str | None = Field(default=None, sa_type=sa.Text)
    # A series' coming occurrences are in task_occurrences up to this moment (core.occurrences);
    # NULL: none are (a one-off, a finished series, or a rule that is walked at query time).
    occurrences_until: datetime | None = Field(default=None, sa_type=UTCDateTime)
    # Its reminders as JSON (core.reminders): [{"before_s": 1800}, {"at": "…"}]; NULL: none.
    reminders: str | None = Field(default=None, sa_type=sa.Text)
    # The list it is in (core.lists), as written, and as lists are compared (its match key); NULL: none.
    list_name: str | None = Field(default=None, sa_type=sa.Text)
    list_key: str | None = Field(default=None, sa_type=sa.Text)
    # Its labels as a JSON array of names (core.lists.labels_json); NULL: none. task_labels indexes them.
    labels: str | None = Field(default=None, sa_type=sa.Text)


def _stored_recurrence(value: str | None) -> str | None:
    """A rule in its stored form (core.recurrence.Recurrence.to_ical), validated and normalised."""
    if value is None:
        return None
    from core.recurrence import Recurrence  # the engine imports dateutil: on first use only

    return Recurrence.from_ical(value).to_ical()


class TaskCreateFields(TaskBase):
    """What any client may set when creating a task (validated; datetimes must be aware): the body of
    every surface's create, each adding its own shape of the rule (REST: app/api_tasks.py)."""

    model_config = {"populate_by_name": True}

    title: ClientTitle
    priority_group: Group = 2
    deadline_at: ClientDateTime | None = None
    urgency_threshold_at: ClientDateTime | None = None
    estimate_minutes: Minutes | None = None
    list_name: ListName | None = Bounds(
        default=None, validation_alias=LIST_ALIAS, serialization_alias="list", description=LIST_HELP
    )
    labels: Labels | None = Field(default=None, description=LABELS_HELP)

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


class TaskCreate(TaskCreateFields):
    """A create as the write path takes it (core.writes.Writer.create).

    ``recurrence`` is the stored form of a rule (surfaces build it from what their clients say); it is
    never in a client's schema."""

    recurrence: str | None = None
    reminders: str | None = None  # the stored form (core.reminders.stored), built by each surface

    @field_validator("recurrence")
    @classmethod
    def _rule(cls, value: str | None) -> str | None:
        return _stored_recurrence(value)


class TaskUpdateFields(SQLModel):
    """A partial update: only fields explicitly set are applied (``model_dump(exclude_unset=True)``).

    Setting ``deadline_at``/``urgency_threshold_at`` to ``None`` clears it. Completion is changed
    through :func:`core.store.complete_task`, or here via ``is_completed``.
    """

    model_config = {"populate_by_name": True}

    title: ClientTitle | None = None
    priority_group: Group | None = None
    deadline_at: ClientDateTime | None = None
    urgency_threshold_at: ClientDateTime | None = None
    estimate_minutes: Minutes | None = None
    list_name: ListName | None = Bounds(
        default=None,
        validation_alias=LIST_ALIAS,
        serialization_alias="list",
        description=LIST_HELP + " null takes it out.",
    )
    labels: Labels | None = Field(default=None, description=LABELS_HELP + " All of them: null or [] removes them.")
    is_completed: Flag | None = None

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


class TaskUpdate(TaskUpdateFields):
    """An update as the write path takes it (core.writes.Writer.update); ``recurrence`` as in
    :class:`TaskCreate`, None ending the repetition; ``reminders`` as in :class:`TaskCreate`, None
    removing them."""

    recurrence: str | None = None
    reminders: str | None = None

    @field_validator("recurrence")
    @classmethod
    def _rule(cls, value: str | None) -> str | None:
        return _stored_recurrence(value)


class ReminderPublic(SQLModel):
    """One reminder as clients read it."""

    at: datetime | None = Field(
        description="When it fires: the moment it was set for, or for a reminder before the deadline, that "
        "lead before the (next open) deadline; null while the task has no deadline."
    )
    before: str | None = Field(
        default=None,
        description="The lead before the deadline, ISO 8601 (PT30M, P1D, PT0S = at the deadline); "
        "null for a reminder at a moment.",
    )


class RecurrencePublic(SQLModel):
    """A repeating task's rule as clients read it."""

    rule: str = Field(
        description="The RRULE value, e.g. FREQ=WEEKLY;BYDAY=MO (DTSTART is the schedule's first deadline)."
    )
    text: str = Field(description="The rule in words, e.g. 每周一 09:00.")


def public_reminders(task: Task) -> list[ReminderPublic]:
    """A task's reminders as clients read them (core.reminders holds the rules)."""
    if not task.reminders:
        return []
    return [
        ReminderPublic(at=at, before=duration_text(spec.before) if spec.before is not None else None)
        for spec, at in resolved(task.reminders, task.deadline_at)
    ]


def public_recurrence(stored: str | None, locale: Locale = "zh") -> RecurrencePublic | None:
    """A stored rule as clients read it; None for a one-off (or a stored rule this version can't read,
    as core.series.rule_of treats it)."""
    if not stored:
        return None
    from core import recurrence  # the engine imports dateutil: on first use only

    try:
        rec = recurrence.Recurrence.from_ical(stored)
    except recurrence.RuleError:
        return None
    return RecurrencePublic(rule=rec.rule, text=recurrence.describe(rec, locale))


# Read-time urgency promotion (brief §1): stored groups 2 and 4 read one group more urgent once
# their urgency threshold has passed. core.store has the same rule as SQL.
PROMOTABLE_GROUPS = (2, 4)


def is_overdue(deadline_at: datetime | None, is_completed: bool, now: datetime | None) -> bool:
    """Overdue: not completed and the deadline is before now (the same test as the overdue query
    filter, ``deadline_at < now``). Without a ``now`` nothing is overdue; completed tasks never are."""
    return now is not None and not is_completed and deadline_at is not None and deadline_at < now


def effective_group(task: Task, *, now: datetime) -> int:
    """The group ``task`` reads as at ``now`` (its stored group, or one more urgent when promoted)."""
    if (
        not task.is_completed
        and task.urgency_threshold_at is not None
        and task.urgency_threshold_at <= now
        and task.priority_group in PROMOTABLE_GROUPS
    ):
        return task.priority_group - 1
    return task.priority_group


class TaskPublic(TaskBase):
    """A task as the REST API returns it. ``effective_group`` is the group after promotion;
    ``overdue``: open, with a deadline already past (both read at the service's clock)."""

    id: int
    is_completed: bool
    completed_at: datetime | None
    created_at: datetime
    updated_at: datetime
    effective_group: int
    promoted: bool
    overdue: bool
    recurrence: RecurrencePublic | None = Field(
        default=None,
        description="The rule of a repeating task (its deadline is the next open occurrence); null for a one-off.",
    )
    reminders: list[ReminderPublic] = Field(
        default_factory=list, description="When the task reminds its owner (reminder.due events to their webhooks)."
    )
    list_name: str | None = Bounds(
        default=None,
        validation_alias=LIST_ALIAS,
        serialization_alias="list",
        description="The list it is in; null: none.",
    )
    labels: list[str] = Field(default_factory=list, description="Its labels.")

    model_config = {"populate_by_name": True, "serialize_by_alias": True}

    @classmethod
    def from_task(cls, task: Task, *, now: datetime, locale: Locale = "zh") -> TaskPublic:
        eff = effective_group(task, now=now)
        assert task.id is not None
        return cls(
            id=task.id,
            title=task.title,
            priority_group=task.priority_group,
            deadline_at=task.deadline_at,
            urgency_threshold_at=task.urgency_threshold_at,
            estimate_minutes=task.estimate_minutes,
            is_completed=task.is_completed,
            completed_at=task.completed_at,
            created_at=task.created_at,
            updated_at=task.updated_at,
            effective_group=eff,
            promoted=eff != task.priority_group,
            overdue=is_overdue(task.deadline_at, task.is_completed, now),
            recurrence=public_recurrence(task.recurrence, locale),
            reminders=public_reminders(task),
            list_name=task.list_name,
            labels=listnames.label_list(task.labels),
        )


__all__ = [
    "DATETIME_TEXT",
    "INVISIBLE",
    "NO_NUL",
    "PLAIN_TEXT",
    "PROMOTABLE_GROUPS",
    "SPACE",
    "TEXT_RULES",
    "TITLE_MAX",
    "VISIBLE_TEXT",
    "YEAR_MAX",
    "YEAR_MIN",
    "ApiKey",
    "ClientDateTime",
    "ClientText",
    "ClientTitle",
    "Flag",
    "Group",
    "Labels",
    "ListName",
    "RecurrencePublic",
    "ServiceSecret",
    "Task",
    "TaskBase",
    "TaskChange",
    "TaskCreate",
    "TaskCreateFields",
    "TaskLabel",
    "TaskListRecord",
    "TaskPublic",
    "TaskTitleGram",
    "TaskUpdate",
    "TaskUpdateFields",
    "UTCDateTime",
    "User",
    "WriteAttempt",
    "effective_group",
    "is_overdue",
    "public_recurrence",
    "storable",
    "text_fits",
    "text_problem",
    "text_rules",
    "utcnow",
    "whole_number",
]


# ---------------------------------------------------------------------------------------------
# task_lists, task_labels (core.lists)


class TaskListRecord(SQLModel, table=True):
    """One of a user's lists, by name (``key``: how names are compared, core.listnames.key). Made on
    first use; a list without tasks stays until it is deleted. Tasks name their list (``tasks.list_key``)."""

    __tablename__ = "task_lists"
    __table_args__ = (sa.UniqueConstraint("user_id", "key", name="uq_task_lists_user_key"),)

    id: int | None = Field(default=None, primary_key=True)
    user_id: int = Field(foreign_key="users.id", ondelete="CASCADE", nullable=False)
    name: str = Field(sa_type=sa.Text, nullable=False)
    key: str = Field(sa_type=sa.Text, nullable=False)
    created_at: datetime = Field(sa_type=UTCDateTime, nullable=False)


class TaskLabel(SQLModel, table=True):
    """One row per (user, label key, task): what a label filter reads, written again from
    ``tasks.labels`` with every write to the task (core.lists.sync_labels)."""

    __tablename__ = "task_labels"
    __table_args__ = {"sqlite_with_rowid": False}

    user_id: int = Field(primary_key=True, sa_column_kwargs={"autoincrement": False})
    key: str = Field(primary_key=True, sa_type=sa.Text)
    task_id: int = Field(
        primary_key=True,
        foreign_key="tasks.id",
        ondelete="CASCADE",
        index=True,
        sa_column_kwargs={"autoincrement": False},
    )


# ---------------------------------------------------------------------------------------------
# task_title_grams (maintained by core.titlegrams)


class TaskTitleGram(SQLModel, table=True):
    """One row per (user, gram, task): the title n-gram index of keyword search.

    The grams of a title are its distinct case-folded unigrams and bigrams (see
    :mod:`core.titlegrams`, which writes and queries this table). The primary key
    ``(user_id, gram, task_id)`` is the posting list of a gram within one user's tasks; on SQLite
    the table is ``WITHOUT ROWID``, so those postings are the table itself.
    ``ix_task_title_grams_task_id`` serves the ``ON DELETE CASCADE`` from ``tasks`` and re-indexing
    a task after a title change. ``user_id`` is the task's (denormalised; tasks never change user).
    """

    __tablename__ = "task_title_grams"
    __table_args__ = {"sqlite_with_rowid": False}

    user_id: int = Field(primary_key=True, sa_column_kwargs={"autoincrement": False})
    gram: str = Field(primary_key=True, sa_type=sa.Text)
    task_id: int = Field(
        primary_key=True,
        foreign_key="tasks.id",
        ondelete="CASCADE",
        index=True,
        sa_column_kwargs={"autoincrement": False},
    )


# ---------------------------------------------------------------------------------------------
# task_occurrences (maintained by core.occurrences)


class TaskOccurrence(SQLModel, table=True):
    """One coming occurrence of an open series, after its open one (``due_at``, the task's deadline).

    What a deadline window reads to list a series at its first occurrence inside the window, in SQL
    like every other row (docs/fdr/0037): the row whose ``at`` is in the window and whose previous
    occurrence ``prev_at`` is before it. ``until`` is the task's ``occurrences_until`` (the rows
    cover the schedule up to it); ``priority_group`` and ``threshold_at`` (the task's urgency
    threshold moved with the occurrence) give its effective group. All of it is the task's, written
    again with every write to the task, so a window's count reads this index alone.
    """

    __tablename__ = "task_occurrences"
    __table_args__ = (
        sa.Index(
            "ix_task_occurrences_window",
            "user_id",
            "at",
            "prev_at",
            "until",
            "due_at",
            "priority_group",
            "threshold_at",
            "task_id",
        ),
    )

    task_id: int = Field(
        primary_key=True, foreign_key="tasks.id", ondelete="CASCADE", sa_column_kwargs={"autoincrement": False}
    )
    at: datetime = Field(primary_key=True, sa_type=UTCDateTime)
    user_id: int = Field(nullable=False)
    prev_at: datetime = Field(sa_type=UTCDateTime, nullable=False)
    until: datetime = Field(sa_type=UTCDateTime, nullable=False)
    due_at: datetime = Field(sa_type=UTCDateTime, nullable=False)
    priority_group: int = Field(nullable=False)
    threshold_at: datetime | None = Field(default=None, sa_type=UTCDateTime)


# ---------------------------------------------------------------------------------------------
# reminders, webhooks, events and their deliveries (core.reminders, core.outbox, webhooks/)


class TaskReminder(SQLModel, table=True):
    """One reminder of a task: ``before_s`` seconds before its deadline (each occurrence's, for a
    repeating task), or at the moment ``at``. ``next_at`` is when it fires next (NULL: nothing left
    to fire), kept by :mod:`core.reminders` with every write to the task; ``fired_for`` is the
    deadline (or moment) it last fired for, so a firing is never repeated."""

    __tablename__ = "task_reminders"
    __table_args__ = (sa.Index("ix_task_reminders_next_at", "next_at"),)

    id: int | None = Field(default=None, primary_key=True)
    task_id: int = Field(foreign_key="tasks.id", ondelete="CASCADE", nullable=False, index=True)
    user_id: int = Field(nullable=False)
    before_s: int | None = Field(default=None)
    at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    next_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    fired_for: datetime | None = Field(default=None, sa_type=UTCDateTime)
    created_at: datetime = Field(sa_type=UTCDateTime, nullable=False)


class Webhook(SQLModel, table=True):
    """Where a user's events go: a URL of a ``kind`` (generic JSON, or a chat bot's format), the
    event types it takes (JSON list; ``["*"]`` for all), its secret (signing key, bot secret or
    ntfy token; never shown again after creation), and how its messages are worded."""

    __tablename__ = "webhooks"

    id: int | None = Field(default=None, primary_key=True)
    user_id: int = Field(foreign_key="users.id", ondelete="CASCADE", nullable=False, index=True)
    url: str = Field(sa_type=sa.Text, nullable=False)
    kind: str = Field(max_length=16, nullable=False)
    events: str = Field(sa_type=sa.Text, nullable=False)
    secret: str | None = Field(default=None, sa_type=sa.Text)
    locale: str = Field(default="zh", max_length=8, nullable=False)
    timezone: str = Field(max_length=64, nullable=False)
    created_at: datetime = Field(sa_type=UTCDateTime, nullable=False)


class Event(SQLModel, table=True):
    """The outbox: one event (``task.created`` …, ``reminder.due``), written in the transaction of
    the write or firing it describes; ``payload`` is its JSON ``data``."""

    __tablename__ = "events"
    __table_args__ = (sa.Index("ix_events_user_id_id", "user_id", "id"),)

    id: int | None = Field(default=None, primary_key=True)
    user_id: int = Field(foreign_key="users.id", ondelete="CASCADE", nullable=False)
    type: str = Field(max_length=32, nullable=False)
    created_at: datetime = Field(sa_type=UTCDateTime, nullable=False)
    payload: str = Field(sa_type=sa.Text, nullable=False)


class Delivery(SQLModel, table=True):
    """One event to one webhook. ``id`` is the delivery id receivers dedupe on (the same on every
    retry); a worker holds it while ``lease_until`` (with ``lease_token``) is ahead; ``status`` is
    pending, succeeded, failed (retries used up) or missed (a reminder found too late)."""

    __tablename__ = "deliveries"
    __table_args__ = (
        sa.Index("ix_deliveries_due", "status", "next_attempt_at"),
        sa.Index("ix_deliveries_webhook", "webhook_id", "created_at"),
    )

    id: str = Field(primary_key=True, max_length=40)
    event_id: int = Field(foreign_key="events.id", ondelete="CASCADE", nullable=False, index=True)
    webhook_id: int = Field(foreign_key="webhooks.id", ondelete="CASCADE", nullable=False)
    user_id: int = Field(nullable=False)
    status: str = Field(max_length=16, nullable=False)
    attempts: int = Field(default=0, nullable=False)
    next_attempt_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    lease_until: datetime | None = Field(default=None, sa_type=UTCDateTime)
    lease_token: str | None = Field(default=None, max_length=40)
    last_status: int | None = Field(default=None)
    last_error: str | None = Field(default=None, sa_type=sa.Text)
    late: bool = Field(default=False, nullable=False)
    created_at: datetime = Field(sa_type=UTCDateTime, nullable=False)
    delivered_at: datetime | None = Field(default=None, sa_type=UTCDateTime)


class CalendarLink(SQLModel, table=True):
    """A subscribe link to a user's calendar feed (``/calendar/<token>.ics``, for calendar apps that
    can't send a header): the token's SHA-256 (the token itself is shown once), the zone the feed
    shows times in, and whether it adds all-day events. Revoking deletes the row (docs/fdr/0039)."""

    __tablename__ = "calendar_links"
    __table_args__ = (sa.Index("ux_calendar_links_token_hash", "token_hash", unique=True),)

    id: int | None = Field(default=None, primary_key=True)
    user_id: int = Field(foreign_key="users.id", ondelete="CASCADE", nullable=False, index=True)
    token_hash: str = Field(max_length=64, nullable=False)
    timezone: str = Field(max_length=64, nullable=False)
    events: bool = Field(default=False, nullable=False)
    created_at: datetime = Field(sa_type=UTCDateTime, nullable=False)


# ---------------------------------------------------------------------------------------------
# task_changes (written and read by core.changes)


class TaskChange(SQLModel, table=True):
    """One write to a task, from any surface: the log that makes "撤销" and revert possible
    (:mod:`core.changes`, written only through :mod:`core.writes`).

    ``before``/``after`` are JSON: what the change's kind keeps of the task before (NULL for a
    create; the touched fields for an edit; the whole row for a delete) and the task after.
    ``task_id`` is ``ON DELETE SET NULL``: a deleted task's changes stay, and undoing the deletion
    links them again. ``ix_task_changes_user_id_id``
    serves reading a user's changes by id; ``ix_task_changes_task_id`` serves the ``SET NULL``
    when a task is deleted (without it, every task delete would scan this table).
    """

    __tablename__ = "task_changes"
    # ``kind`` names a registered core.changes.ChangeKind: kinds are data, so a new one needs no
    # migration (no CHECK constraint lists them).
    __table_args__ = (sa.Index("ix_task_changes_user_id_id", "user_id", "id"),)

    id: int | None = Field(default=None, primary_key=True)
    user_id: int = Field(foreign_key="users.id", ondelete="CASCADE", nullable=False)
    task_id: int | None = Field(default=None, foreign_key="tasks.id", ondelete="SET NULL", index=True)
    turn_key: str = Field(max_length=128, nullable=False)
    kind: str = Field(max_length=16, nullable=False)
    before: str | None = Field(default=None, sa_type=sa.Text)
    after: str = Field(sa_type=sa.Text, nullable=False)
    created_at: datetime = Field(sa_type=UTCDateTime, nullable=False)
    undone_at: datetime | None = Field(default=None, sa_type=UTCDateTime)


# ---------------------------------------------------------------------------------------------
# write_attempts (written and read by core.attempts)


class WriteAttempt(SQLModel, table=True):
    """One attempt of a write (a chat turn, a tool call with a client id) that did write: the row
    that makes every copy of the attempt write once (:mod:`core.attempts`).

    ``key`` names the attempt (a client message id, or the conversation's hash); the unique
    ``(user_id, key)`` is the arbiter between concurrent copies, on every backend and across
    processes. ``generation`` counts the times the same key started a new attempt (the same words
    again after the retry window, or after everything the last one wrote was undone): writes of an
    attempt are keyed by it. ``result`` is what the attempt did (JSON: the change ids, or an undo's
    report), written in the same transaction as the writes, so a copy answers the same.
    """

    __tablename__ = "write_attempts"
    __table_args__ = (sa.UniqueConstraint("user_id", "key", name="uq_write_attempts_user_key"),)

    id: int | None = Field(default=None, primary_key=True)
    user_id: int = Field(foreign_key="users.id", ondelete="CASCADE", nullable=False)
    key: str = Field(max_length=128, nullable=False)
    generation: int = Field(default=0, nullable=False)
    claimed_at: datetime = Field(sa_type=UTCDateTime, nullable=False)
    result: str | None = Field(default=None, sa_type=sa.Text)


# ---------------------------------------------------------------------------------------------
# service_secrets (core.service_secrets)


class ServiceSecret(SQLModel, table=True):
    """Secrets this deployment made for itself, by name (e.g. the key that signs carried records).

    In the database, so that every process and replica on it shares them."""

    __tablename__ = "service_secrets"

    name: str = Field(primary_key=True, max_length=64)
    value: str = Field(sa_type=sa.Text, nullable=False)
    created_at: datetime = Field(sa_type=UTCDateTime, nullable=False)
