"""REST `/tasks`: list, create, read, update, complete, delete — always scoped to the caller."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Path, Query, status
from fastapi.responses import Response
from pydantic import BaseModel, Field, WithJsonSchema
from sqlmodel import col, select

from app.deps import CurrentUser, SessionDep, StateDep
from app.errors import BadRequest, NotFound, error_responses
from core.models import (
    PLAIN_TEXT,
    TEXT_RULES,
    TITLE_MAX,
    ClientDateTime,
    Flag,
    Task,
    TaskCreate,
    TaskPublic,
    TaskUpdate,
    text_rules,
)
from core.store import (
    TOTAL_CAP,
    TaskFilter,
    complete_task,
    create_task,
    delete_task,
    get_task,
    query_tasks,
    update_task,
)

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

# What each kind of operation may answer besides success; the document lists exactly these.
LIST_ERRORS = error_responses(400, 401, 500, 503)
BODY_ERRORS = error_responses(400, 401, 413, 415, 500, 503)
ONE_TASK_ERRORS = error_responses(400, 401, 404, 500, 503)
ONE_TASK_BODY_ERRORS = error_responses(400, 401, 404, 413, 415, 500, 503)


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
    keyword: Annotated[Keyword | None, Query(description="A case-insensitive substring of the title")] = None,
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
        keyword=keyword,
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
    items = [TaskPublic.from_task(by_id[i], now=now) for i in ids if i in by_id]
    return TaskList(total=page.total, total_exact=page.total_exact, items=items)


@router.post("", response_model=TaskPublic, status_code=status.HTTP_201_CREATED, responses=BODY_ERRORS)
def create(body: TaskCreate, session: SessionDep, user: CurrentUser, state: StateDep) -> TaskPublic:
    assert user.id is not None
    now = state.clock()
    task, _ = create_task(session, user.id, body, now=now)
    session.commit()
    return TaskPublic.from_task(task, now=now)


@router.get("/{task_id}", response_model=TaskPublic, responses=ONE_TASK_ERRORS)
def read(task_id: TaskId, session: SessionDep, user: CurrentUser, state: StateDep) -> TaskPublic:
    assert user.id is not None
    task = get_task(session, user.id, task_id)
    if task is None:
        raise _not_found(task_id)
    return TaskPublic.from_task(task, now=state.clock())


@router.patch("/{task_id}", response_model=TaskPublic, responses=ONE_TASK_BODY_ERRORS)
def update(task_id: TaskId, body: TaskUpdate, session: SessionDep, user: CurrentUser, state: StateDep) -> TaskPublic:
    assert user.id is not None
    now = state.clock()
    task = update_task(session, user.id, task_id, body, now=now)
    if task is None:
        raise _not_found(task_id)
    session.commit()
    return TaskPublic.from_task(task, now=now)


@router.post("/{task_id}/complete", response_model=TaskPublic, responses=ONE_TASK_BODY_ERRORS)
def complete(
    task_id: TaskId,
    session: SessionDep,
    user: CurrentUser,
    state: StateDep,
    body: CompleteBody | None = None,
) -> TaskPublic:
    assert user.id is not None
    now = state.clock()
    task = complete_task(session, user.id, task_id, now=now, completed=(body or CompleteBody()).completed)
    if task is None:
        raise _not_found(task_id)
    session.commit()
    return TaskPublic.from_task(task, now=now)


@router.delete("/{task_id}", status_code=status.HTTP_204_NO_CONTENT, responses=ONE_TASK_ERRORS)
def delete(task_id: TaskId, session: SessionDep, user: CurrentUser) -> Response:
    assert user.id is not None
    if not delete_task(session, user.id, task_id):
        raise _not_found(task_id)
    session.commit()
    return Response(status_code=status.HTTP_204_NO_CONTENT)
