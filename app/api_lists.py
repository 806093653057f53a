"""REST `/lists` and `/labels`: a user's lists (projects) and labels (tags), with their task counts.

A task names its list and labels itself (`list`, `labels` on `/tasks`); these routes read them all,
make an empty list, rename and delete. Renaming or deleting moves the tasks through the one write
path, each move logged (and revertible: `POST /changes/{id}/revert`, which brings a deleted list back
with its task).
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, status
from pydantic import BaseModel, Field

from app.api_tasks import INT32_MAX, NameQuery
from app.deps import CurrentUser, SessionDep, StateDep
from app.errors import Conflict, NotFound, error_responses
from core import lists, writes
from core.models import ListName, TaskListRecord

router = APIRouter(tags=["lists"])

ListId = Annotated[int, Path(ge=1, le=INT32_MAX)]
Name = ListName
READ_ERRORS = error_responses(400, 401, 500, 503)
WRITE_ERRORS = error_responses(400, 401, 404, 409, 413, 415, 500, 503)
NAMED_ERRORS = error_responses(400, 401, 404, 500, 503)


class Named(BaseModel):
    name: str
    open: int = Field(description="Open tasks with it.")
    total: int = Field(description="All its tasks, completed ones included.")


class ListPublic(Named):
    id: int


class ListsPage(BaseModel):
    items: list[ListPublic]


class LabelsPage(BaseModel):
    items: list[Named]


class NameBody(BaseModel):
    name: Name = Field(description="A name (no '#', commas or semicolons); compared ignoring case.")


class Moved(BaseModel):
    name: str = Field(description="The list's or label's name after the request (the old one when deleted).")
    tasks: int = Field(description="How many tasks were moved, renamed or taken out.")
    change_ids: list[int] = Field(description="The task changes it made (each revertible).")


def _list_public(item: lists.Named) -> ListPublic:
    assert item.id is not None
    return ListPublic(id=item.id, name=item.name, open=item.open, total=item.total)


def _own_list(w: writes.Writer, list_id: int) -> TaskListRecord:
    record = w.session.get(TaskListRecord, list_id)
    if record is None or record.user_id != w.by.user_id:
        raise NotFound(f"No list with id {list_id}.", param="list_id")
    return record


@router.get("/lists", response_model=ListsPage, responses=READ_ERRORS)
def read_lists(session: SessionDep, user: CurrentUser) -> ListsPage:
    assert user.id is not None
    return ListsPage(items=[_list_public(item) for item in lists.list_counts(session, user.id)])


@router.post("/lists", response_model=ListPublic, status_code=status.HTTP_201_CREATED, responses=WRITE_ERRORS)
def make_list(body: NameBody, user: CurrentUser, state: StateDep) -> ListPublic:
    """Makes an empty list (one with that name already: it is answered, nothing made)."""
    assert user.id is not None
    with writes.writing(state.session, writes.author(user.id, state.clock(), "rest")) as w:
        record = w.make_list(body.name)
        assert record.id is not None
        found = next(item for item in lists.list_counts(w.session, user.id) if item.id == record.id)
    return _list_public(found)


@router.patch("/lists/{list_id}", response_model=Moved, responses=WRITE_ERRORS)
def rename_list(list_id: ListId, body: NameBody, user: CurrentUser, state: StateDep) -> Moved:
    assert user.id is not None
    with writes.writing(state.session, writes.author(user.id, state.clock(), "rest")) as w:
        record = _own_list(w, list_id)
        other = lists.find_list(w.session, user.id, body.name)
        if other is not None and other.id != record.id:
            raise Conflict(f"Another list is called {other.name!r}.", param="name")
        held = w.rename_list(record, body.name)
    return Moved(name=body.name, tasks=held, change_ids=w.change_ids)


@router.delete("/lists/{list_id}", response_model=Moved, responses=NAMED_ERRORS)
def delete_list(list_id: ListId, user: CurrentUser, state: StateDep) -> Moved:
    """Deletes the list; its tasks stay, in no list."""
    assert user.id is not None
    with writes.writing(state.session, writes.author(user.id, state.clock(), "rest")) as w:
        record = _own_list(w, list_id)
        name = record.name
        held = w.delete_list(record)
    return Moved(name=name, tasks=held, change_ids=w.change_ids)


@router.get("/labels", response_model=LabelsPage, responses=READ_ERRORS)
def read_labels(session: SessionDep, user: CurrentUser) -> LabelsPage:
    assert user.id is not None
    return LabelsPage(
        items=[Named(name=n.name, open=n.open, total=n.total) for n in lists.label_counts(session, user.id)]
    )


def _relabel(user_id: int, state: StateDep, label: str, name: str | None) -> Moved:
    with writes.writing(state.session, writes.author(user_id, state.clock(), "rest")) as w:
        moved = w.relabel(label, name)
        if moved == 0:
            raise NotFound(f"No task has the label {label!r}.", param="label")
    return Moved(name=name or label, tasks=moved, change_ids=w.change_ids)


@router.patch("/labels/{label}", response_model=Moved, responses=NAMED_ERRORS)
def rename_label(label: Annotated[NameQuery, Path()], body: NameBody, user: CurrentUser, state: StateDep) -> Moved:
    """Renames the label on every task that has it."""
    assert user.id is not None
    return _relabel(user.id, state, label, body.name)


@router.delete("/labels/{label}", response_model=Moved, responses=NAMED_ERRORS)
def delete_label(label: Annotated[NameQuery, Path()], user: CurrentUser, state: StateDep) -> Moved:
    """Takes the label off every task that has it."""
    assert user.id is not None
    return _relabel(user.id, state, label, None)
