"""REST `/tasks`: list, create, read, update, complete, delete — always scoped to the caller.

Writes go through the one write path (:mod:`core.writes`): each is logged like a chat write, answers
with its change id (the `X-Suikou-Change` header, and `change_id` in a task body) and can be taken
back with `POST /changes/{id}/revert`; an `Idempotency-Key` makes a retry change nothing more.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Annotated, Any, Literal
from zoneinfo import ZoneInfo

from fastapi import APIRouter, Depends, Header, Path, Query, Request, status
from fastapi.responses import Response
from pydantic import AfterValidator, BaseModel, Field, WithJsonSchema
from sqlmodel import col, select

from app.deps import CurrentUser, SessionDep, StateDep, TimezoneDep
from app.errors import BadRequest, NotFound, error_responses
from app.state import AppState
from core import recurrence, reminderspec, writes
from core.models import (
    PLAIN_TEXT,
    TEXT_RULES,
    TITLE_MAX,
    ClientDateTime,
    Flag,
    ListName,
    Task,
    TaskCreate,
    TaskCreateFields,
    TaskPublic,
    TaskUpdate,
    TaskUpdateFields,
    User,
    text_fits,
    text_rules,
)
from core.series import rule_of
from core.store import TOTAL_CAP, TaskFilter, TaskRow, get_task, query_tasks

router = APIRouter(prefix="/tasks", tags=["tasks"])

INT32_MAX = 2**31 - 1
# Ids are 32-bit integer columns; a larger id must be a 400, not a database overflow (500).
TaskId = Annotated[int, Path(ge=1, le=INT32_MAX)]
# Checked in `list_tasks` (one message for the whole list); the document states the same bounds.
Quadrant = Annotated[int, WithJsonSchema({"type": "integer", "minimum": 1, "maximum": 4})]
Keyword = Annotated[
    str,
    Field(max_length=TITLE_MAX),
    text_rules(*TEXT_RULES),
    WithJsonSchema({"type": "string", "maxLength": TITLE_MAX, "pattern": PLAIN_TEXT}),
]
NameQuery = ListName  # a list's or label's name, as a body gives one

# What each kind of operation may answer besides success; the document lists exactly these.
LIST_ERRORS = error_responses(400, 401, 500, 503)
BODY_ERRORS = error_responses(400, 401, 409, 413, 415, 500, 503)
ONE_TASK_ERRORS = error_responses(400, 401, 404, 500, 503)
ONE_TASK_WRITE_ERRORS = error_responses(400, 401, 404, 409, 500, 503)
ONE_TASK_BODY_ERRORS = error_responses(400, 401, 404, 409, 413, 415, 500, 503)


# --- repeating tasks: the rule as REST clients send it ---------------------------------------------

# Each RRULE part Suikou keeps, with its value's grammar (RFC 5545 §3.3.10, RFC 7529's RSCALE and
# SKIP, and core.recurrence's X- extensions), as JSON Schema can say it. Upper case, as the RFC
# writes it and as a task's rule reads back. What a pattern cannot say is checked by
# core.recurrence.make, listed in RULE_HELP.
_WEEKDAY = "(MO|TU|WE|TH|FR|SA|SU)"
_RULE_VALUES = {
    "FREQ": "(DAILY|WEEKLY|MONTHLY|YEARLY)",
    "INTERVAL": "[0-9]{1,3}",
    "COUNT": "[0-9]{1,4}",
    "UNTIL": "[0-9]{8}(T[0-9]{6}Z?)?",
    "BYDAY": f"([+-]?([1-9]|[1-4][0-9]|5[0-3]))?{_WEEKDAY}",
    "BYMONTHDAY": "[+-]?([1-9]|[12][0-9]|3[01])",
    "BYMONTH": "([1-9]|1[0-2])",
    "BYSETPOS": "[+-]?[1-9][0-9]{0,2}",
    "BYYEARDAY": "[+-]?[1-9][0-9]{0,2}",
    "BYWEEKNO": "[+-]?([1-9]|[1-4][0-9]|5[0-3])",
    "WKST": _WEEKDAY,
    "RSCALE": "(CHINESE|GREGORIAN)",
    "SKIP": "(OMIT|BACKWARD|FORWARD)",
    "X-DAYS": "(CN-WORKDAY|CN-RESTDAY|CN-AFTER-HOLIDAY)",
    "X-TERM": "[A-Z]{2,16}",
    "X-FROM": "COMPLETION",
}
_LISTS = frozenset(["BYDAY", "BYMONTHDAY", "BYMONTH", "BYSETPOS", "BYYEARDAY", "BYWEEKNO"])
_PART = "|".join(
    f"{name}={value}(,{value})*" if name in _LISTS else f"{name}={value}" for name, value in _RULE_VALUES.items()
)
RULE_TEXT = f"^(RRULE:)?({_PART})(;({_PART}))*$"
RULE_HELP = (
    "An RRULE value (RFC 5545), e.g. FREQ=WEEKLY;BYDAY=MO, optionally after 'RRULE:'; the schedule "
    "starts at the task's deadline (DTSTART), read in the user's timezone (X-Suikou-Timezone): its time "
    "of day is every occurrence's, so a repeating task needs a deadline. The pattern gives the parts and their values; beyond it: FREQ "
    f"is required, no part twice, INTERVAL 1..{recurrence.MAX_INTERVAL}, COUNT 1..{recurrence.MAX_COUNT}, "
    "not both COUNT and UNTIL, X-TERM a solar term in pinyin (e.g. DONGZHI) with FREQ=YEARLY, no "
    "INTERVAL with RSCALE=CHINESE, and the rule must occur from the deadline on. A rule that breaks "
    "one is a 400 naming it."
)


def _rule_problem(value: str) -> str:
    """Why a rule fails the pattern, in the rule engine's words when it has some (FREQ=HOURLY)."""
    try:
        recurrence.make(value, start=datetime(2026, 1, 1), tz="UTC")
    except recurrence.RuleError as exc:
        return str(exc)
    return "must be an RRULE value in upper case, NAME=VALUE parts separated by ';'"


def _rule_text(value: str) -> str:
    if not text_fits(RULE_TEXT, value):
        raise ValueError(_rule_problem(value))
    return value


RuleText = Annotated[
    str,
    Field(max_length=recurrence.MAX_RULE_CHARS),
    AfterValidator(_rule_text),
    WithJsonSchema(
        {"type": "string", "maxLength": recurrence.MAX_RULE_CHARS, "pattern": RULE_TEXT, "description": RULE_HELP}
    ),
]


class RecurrenceIn(BaseModel):
    """A repeating task's rule as a client sends it."""

    rule: RuleText
    text: str | None = Field(
        default=None,
        max_length=TITLE_MAX,
        description="Ignored: accepted so that a task's `recurrence` as read can be sent back as it is.",
    )


class ReminderIn(BaseModel):
    """One reminder as a client sends it: `before` the deadline (relative: moving the deadline moves
    it; on a repeating task, before each occurrence), or `at` a moment. A reminder as read (both
    fields) can be sent back as it is: `before` wins."""

    # One of the two is given (not null); the document says so as the server checks it.
    model_config = {
        "json_schema_extra": {
            "anyOf": [
                {"required": ["before"], "properties": {"before": {"type": "string"}}},
                {"required": ["at"], "properties": {"at": {"type": "string"}}},
            ]
        }
    }

    at: ClientDateTime | None = Field(default=None, description="A moment, RFC 3339 with an offset.")
    before: str | None = Field(
        default=None,
        max_length=32,
        description="A lead before the deadline, ISO 8601: PT30M, PT1H, P1D; PT0S is at the deadline; at most 366 days.",
        json_schema_extra={"pattern": "^P(?=\\d|T\\d)(\\d{1,3}D)?(T(?=\\d)(\\d{1,4}H)?(\\d{1,6}M)?(\\d{1,8}S)?)?$"},
    )


Reminders = Annotated[
    list[ReminderIn],
    Field(max_length=reminderspec.MAX_REMINDERS, description="When to remind (reminder.due events to the webhooks)."),
]


class TaskCreateRequest(TaskCreateFields):
    """The body of POST /tasks."""

    recurrence: RecurrenceIn | None = Field(
        default=None, description="Makes the task repeat; null or absent: a one-off."
    )
    reminders: Reminders | None = None


class TaskUpdateRequest(TaskUpdateFields):
    """The body of PATCH /tasks/{task_id}: only the fields sent are changed."""

    recurrence: RecurrenceIn | None = Field(
        default=None,
        description="A new rule (from the task's deadline, as given here or as it is); null ends the "
        "repetition; absent leaves it. A repeating task's deadline can't be cleared while it repeats.",
    )
    reminders: Reminders | None = Field(
        default=None, description="The task's reminders, all of them; null or [] removes them."
    )


def _stored_rule(rule: str, deadline: datetime | None, tz: str) -> str:
    """The stored form of a client's rule from ``deadline`` in the user's zone, or a 400 naming why not."""
    if deadline is None:
        raise BadRequest("A repeating task needs a deadline: set deadline_at as well.", param="recurrence")
    try:
        return recurrence.make(rule, start=deadline, tz=tz).to_ical()
    except recurrence.RuleError as exc:
        raise BadRequest(f"Invalid value for 'recurrence.rule': {exc}", param="recurrence.rule") from exc


def _stored_reminders(given: list[ReminderIn] | None, deadline: datetime | None) -> str | None:
    """The stored form of a client's reminders, or a 400 naming what is wrong with them."""
    specs = []
    for i, item in enumerate(given or []):
        if item.before is not None:
            try:
                before = reminderspec.parse_duration(item.before)
            except ValueError as exc:
                raise BadRequest(
                    f"Invalid value for 'reminders[{i}].before': {exc}", param=f"reminders[{i}].before"
                ) from exc
            if deadline is None:
                raise BadRequest(
                    "A reminder before the deadline needs a deadline: set deadline_at as well.", param="reminders"
                )
            specs.append(reminderspec.Spec(before=before))
        elif item.at is not None:
            specs.append(reminderspec.Spec(at=item.at))
        else:
            raise BadRequest(f"reminders[{i}] needs `at` or `before`.", param=f"reminders[{i}]")
    try:
        return reminderspec.stored(specs)
    except ValueError as exc:
        raise BadRequest(f"Invalid value for 'reminders': {exc}", param="reminders") from exc


def _task_create(body: TaskCreateRequest, tz: str) -> TaskCreate:
    rule = _stored_rule(body.recurrence.rule, body.deadline_at, tz) if body.recurrence is not None else None
    reminders = _stored_reminders(body.reminders, body.deadline_at)
    return TaskCreate(**body.model_dump(exclude={"recurrence", "reminders"}), recurrence=rule, reminders=reminders)


def _task_update(body: TaskUpdateRequest, task: Task, tz: str) -> TaskUpdate:
    fields = body.model_dump(exclude_unset=True, exclude={"recurrence", "reminders"})
    deadline = body.deadline_at if "deadline_at" in body.model_fields_set else task.deadline_at
    if "reminders" in body.model_fields_set:
        fields["reminders"] = _stored_reminders(body.reminders, deadline)
    elif deadline is None and any(s.before is not None for s in reminderspec.specs_of(task.reminders)):
        raise BadRequest(
            "The task has reminders before its deadline: send reminders (null or at a moment) as well to clear it.",
            param="deadline_at",
        )
    if "recurrence" in body.model_fields_set:
        fields["recurrence"] = _stored_rule(body.recurrence.rule, deadline, tz) if body.recurrence else None
    elif deadline is None and task.recurrence is not None:
        raise BadRequest(
            "A repeating task needs a deadline: send recurrence null as well to end the repetition.",
            param="deadline_at",
        )
    return TaskUpdate(**fields)


class TaskList(BaseModel):
    total: int = Field(
        description=f"How many tasks match. Counting stops past {TOTAL_CAP} (or past offset + limit): "
        "then this is that bound and total_exact is false."
    )
    total_exact: bool = Field(description="False when more than `total` tasks match.")
    items: list[TaskPublic]


class CompleteBody(BaseModel):
    completed: Flag = True


def _not_found(task_id: int) -> NotFound:
    return NotFound(f"No task with id {task_id}.", param="task_id")


@router.get("", response_model=TaskList, responses=LIST_ERRORS)
def list_tasks(
    session: SessionDep,
    user: CurrentUser,
    state: StateDep,
    quadrants: Annotated[list[Quadrant] | None, Query(description="Effective groups 1..4")] = None,
    time_field: Literal["deadline", "completed", "created"] = "deadline",
    time_after: ClientDateTime | None = None,
    time_before: ClientDateTime | None = None,
    include_completed: bool = False,
    only_overdue: bool = False,
    no_deadline: Annotated[bool, Query(description="Only tasks without a deadline")] = False,
    repeating: Annotated[bool, Query(description="Only repeating tasks (a recurrence rule)")] = False,
    keyword: Annotated[Keyword | None, Query(description="A case-insensitive substring of the title")] = None,
    list_name: Annotated[NameQuery | None, Query(alias="list", description="Only the tasks in this list")] = None,
    label: Annotated[NameQuery | None, Query(description="Only the tasks with this label")] = None,
    sort_by: Literal["deadline", "priority", "id"] = "deadline",
    order: Literal["asc", "desc"] = "asc",
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
    offset: Annotated[int, Query(ge=0, le=INT32_MAX)] = 0,
) -> TaskList:
    assert user.id is not None
    if quadrants and any(q not in (1, 2, 3, 4) for q in quadrants):
        raise BadRequest("quadrants must be between 1 and 4.", param="quadrants")
    flt = TaskFilter(
        quadrants=quadrants or None,
        time_field=time_field,
        time_after=time_after,
        time_before=time_before,
        include_completed=include_completed,
        only_overdue=only_overdue,
        no_deadline=no_deadline,
        repeating=repeating,
        keyword=keyword,
        list_name=list_name,
        label=label,
        sort_by=sort_by,
        order=order,
        limit=limit,
        offset=offset,
    )
    now = state.clock()
    page = query_tasks(session, user.id, flt, now=now)
    # One more query for the full rows of this page, kept in the page's order.
    ids = [row.id for row in page.items]
    rows = session.exec(select(Task).where(col(Task.user_id) == user.id, col(Task.id).in_(ids))).all()
    by_id = {task.id: task for task in rows}
    items = [TaskPublic.from_task(_as_listed(by_id[r.id], r), now=now) for r in page.items if r.id in by_id]
    return TaskList(total=page.total, total_exact=page.total_exact, items=items)


def _as_listed(task: Task, row: TaskRow) -> Task:
    """A series a window lists at a later occurrence (core.store) reads with that occurrence's times."""
    if row.deadline_at == task.deadline_at:
        return task
    return task.model_copy(update={"deadline_at": row.deadline_at, "urgency_threshold_at": row.urgency_threshold_at})


# --- writes: all through core.writes, each logged (and revertible: POST /changes/{id}/revert) --------

CHANGE_HEADER = "X-Suikou-Change"
_CHANGE_DOC = {
    CHANGE_HEADER: {
        "description": "The id of the change this request made (absent when it changed nothing); "
        "POST /changes/{id}/revert takes it back.",
        "schema": {"type": "integer"},
    }
}
IdempotencyKey = Annotated[
    str | None,
    Header(
        description="Names one attempt of this write: a retry with the same key changes nothing more and "
        "answers as the first did.",
        min_length=1,
        max_length=200,
        pattern=r"^[\x21-\x7e]+$",
    ),
]


@dataclass(frozen=True)
class Attempt:
    """A write request's `Idempotency-Key` and a digest of the request it came with: a copy under the
    same key must be the same request (route and body), else it is a 409 (core.attempts.KeyReused)."""

    key: str | None
    request: str

    def author(self, user_id: int, now: datetime) -> writes.Author:
        return writes.author(user_id, now, "rest", attempt=self.key, request=self.request)


async def _attempt(request: Request, idempotency_key: IdempotencyKey = None) -> Attempt:
    digest = hashlib.sha256(f"{request.method} {request.url.path}\n".encode())
    if idempotency_key:
        digest.update(await request.body())
    return Attempt(idempotency_key, digest.hexdigest())


AttemptDep = Annotated[Attempt, Depends(_attempt)]


class TaskWritten(TaskPublic):
    """A task as a write left it, with the change that write made."""

    change_id: int | None = Field(description="The change this request made; null when it changed nothing.")


def _created(status_code: int) -> dict[int | str, dict[str, Any]]:
    return {status_code: {"headers": _CHANGE_DOC}}


def _answer(task: Task, change_id: int | None, now: datetime, response: Response) -> TaskWritten:
    if change_id is not None:
        response.headers[CHANGE_HEADER] = str(change_id)
    public = TaskPublic.from_task(task, now=now).model_dump()
    return TaskWritten(**public, change_id=change_id)


def _prior(w: writes.Writer, user_id: int) -> tuple[Task, int | None]:
    """What the first copy of this attempt wrote: its task as it is now, and its change."""
    prior = w.prior
    change_id = next(iter(prior.get("changes", [])), None)
    ids = prior.get("tasks") or writes.task_ids_of(w.session, user_id, [change_id] if change_id else [])
    task = get_task(w.session, user_id, ids[0]) if ids else None
    if task is None:
        raise NotFound("The task this request wrote no longer exists.", param="Idempotency-Key")
    return task, change_id


@router.post(
    "",
    response_model=TaskWritten,
    status_code=status.HTTP_201_CREATED,
    responses={**BODY_ERRORS, **_created(201)},
)
def create(
    body: TaskCreateRequest,
    user: CurrentUser,
    state: StateDep,
    response: Response,
    attempt: AttemptDep,
    tz: TimezoneDep,
) -> TaskWritten:
    assert user.id is not None
    now = state.clock()
    data = _task_create(body, tz)
    with writes.writing(state.session, attempt.author(user.id, now)) as w:
        if w.copy:
            task, change_id = _prior(w, user.id)
        else:
            task = w.create(data)
            change_id = w.change_ids[0]
    return _answer(task, change_id, now, response)


@router.get("/{task_id}", response_model=TaskPublic, responses=ONE_TASK_ERRORS)
def read(task_id: TaskId, session: SessionDep, user: CurrentUser, state: StateDep) -> TaskPublic:
    assert user.id is not None
    task = get_task(session, user.id, task_id)
    if task is None:
        raise _not_found(task_id)
    return TaskPublic.from_task(task, now=state.clock())


class Occurrences(BaseModel):
    items: list[datetime] = Field(
        description="The task's occurrences later than `after`, ascending: a repeating task's by its rule, "
        "in the rule's timezone; a one-off's only its deadline (when later than `after`), in the user's; "
        "none for a task without a deadline or a completed one."
    )


@router.get("/{task_id}/occurrences", response_model=Occurrences, responses=ONE_TASK_ERRORS)
def occurrences(
    task_id: TaskId,
    session: SessionDep,
    user: CurrentUser,
    state: StateDep,
    tz: TimezoneDep,
    after: Annotated[ClientDateTime | None, Query(description="Only occurrences later than this; default now.")] = None,
    limit: Annotated[int, Query(ge=1, le=100)] = 10,
) -> Occurrences:
    assert user.id is not None
    task = get_task(session, user.id, task_id)
    if task is None:
        raise _not_found(task_id)
    if task.is_completed:  # done (a series over): nothing is coming
        return Occurrences(items=[])
    since = after or state.clock()
    rec = rule_of(task)
    if rec is not None:
        return Occurrences(items=recurrence.occurrences(rec, after=since, limit=limit))
    deadline = task.deadline_at
    if deadline is None or deadline <= since:
        return Occurrences(items=[])
    return Occurrences(items=[deadline.astimezone(ZoneInfo(tz))])


def _write_one(
    task_id: int, user: User, state: AppState, attempt: Attempt, write: Callable[[writes.Writer, Task], int | None]
) -> tuple[Task, int | None, datetime]:
    """One task's write, through the write path: its task (404 when not the caller's) and change."""
    assert user.id is not None
    now = state.clock()
    with writes.writing(state.session, attempt.author(user.id, now)) as w:
        if w.copy:
            task, change_id = _prior(w, user.id)
            return task, change_id, now
        found = w.lock(task_id)
        if found is None:
            raise _not_found(task_id)
        change_id = write(w, found)
    return found, change_id, now


@router.patch("/{task_id}", response_model=TaskWritten, responses={**ONE_TASK_BODY_ERRORS, **_created(200)})
def update(
    task_id: TaskId,
    body: TaskUpdateRequest,
    user: CurrentUser,
    state: StateDep,
    response: Response,
    attempt: AttemptDep,
    tz: TimezoneDep,
) -> TaskWritten:
    task, change_id, now = _write_one(
        task_id, user, state, attempt, lambda w, t: w.update(t, _task_update(body, t, tz))
    )
    return _answer(task, change_id, now, response)


@router.post("/{task_id}/complete", response_model=TaskWritten, responses={**ONE_TASK_BODY_ERRORS, **_created(200)})
def complete(
    task_id: TaskId,
    user: CurrentUser,
    state: StateDep,
    response: Response,
    attempt: AttemptDep,
    body: CompleteBody | None = None,
) -> TaskWritten:
    done = (body or CompleteBody()).completed
    task, change_id, now = _write_one(task_id, user, state, attempt, lambda w, t: w.complete(t, done))
    return _answer(task, change_id, now, response)


@router.delete(
    "/{task_id}",
    status_code=status.HTTP_204_NO_CONTENT,
    responses={
        **ONE_TASK_WRITE_ERRORS,
        status.HTTP_204_NO_CONTENT: {"description": "Deleted.", "headers": _CHANGE_DOC},
    },
)
def delete(task_id: TaskId, user: CurrentUser, state: StateDep, attempt: AttemptDep) -> Response:
    _task, change_id, _now = _write_one(task_id, user, state, attempt, lambda w, t: w.delete([t])[0])
    headers = {CHANGE_HEADER: str(change_id)} if change_id is not None else {}
    return Response(status_code=status.HTTP_204_NO_CONTENT, headers=headers)
