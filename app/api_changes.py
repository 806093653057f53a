"""REST `/changes`: the caller's write log — list recent changes, revert one.

Every write from any surface (chat, MCP, REST) is a change (core/changes.py); this is how an app
shows "what Suikou did" and takes a step back. Another user's change reads as missing (404).
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from fastapi import APIRouter, Path, Query
from pydantic import BaseModel, Field
from sqlmodel import col, select

from app.api_tasks import INT32_MAX, AttemptDep
from app.deps import CurrentUser, SessionDep, StateDep, TimezoneDep
from app.errors import NotFound, error_responses
from core import changes, writes
from core.locale import Locale
from core.models import TaskChange

router = APIRouter(prefix="/changes", tags=["changes"])

ChangeId = Annotated[int, Path(ge=1, le=INT32_MAX)]


class ChangeOut(BaseModel):
    """One change: what it did, to which task, when, and whether it was undone."""

    id: int
    kind: str = Field(description="create, complete, reopen, update, delete, or a kind a feature added.")
    task_id: int | None = Field(description="The task it changed; null once that task is gone.")
    summary: str = Field(description='What it did, in a few words ("新建「买牛奶」").')
    before: dict[str, Any] | None = Field(description="What the change kept of the task before it.")
    after: dict[str, Any] = Field(description="The task right after it.")
    created_at: datetime
    undone_at: datetime | None
    effect: str | None = Field(
        default=None, description="What a revert did: deleted, restored, gone, kept; null when it did nothing."
    )
    kept: dict[str, Any] = Field(
        default_factory=dict, description="Fields a revert left at a value they were given later."
    )


class ChangeList(BaseModel):
    items: list[ChangeOut]


class Reverted(BaseModel):
    change: ChangeOut
    already: bool = Field(description="The change had been undone before: nothing changed now.")
    reverted: list[int] = Field(
        default_factory=list,
        description="Every change this revert took back: the change itself, or all of an import's (an import "
        "is reverted whole by any of its changes).",
    )


def _out(row: changes.ChangeRow, telling: changes.Telling) -> ChangeOut:
    return ChangeOut(
        id=row.id,
        kind=row.kind,
        task_id=row.task_id,
        summary=changes.tell(row, telling),
        before=row.before,
        after=row.after,
        created_at=row.created_at,
        undone_at=row.undone_at,
        effect=row.effect,
        kept=row.kept,
    )


def _telling(tz: str, now: datetime, lang: str) -> changes.Telling:
    locale: Locale = "en" if lang == "en" else "zh"
    return changes.Telling(locale, tz, now)


Lang = Annotated[str, Query(pattern="^(zh|en)$", description="The language of `summary`.")]


@router.get("", response_model=ChangeList, responses=error_responses(400, 401, 500, 503))
def list_changes(
    session: SessionDep,
    user: CurrentUser,
    state: StateDep,
    tz: TimezoneDep,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
    lang: Lang = "zh",
) -> ChangeList:
    """The caller's most recent changes, newest first."""
    stmt = select(TaskChange).where(col(TaskChange.user_id) == user.id).order_by(col(TaskChange.id).desc())
    telling = _telling(tz, state.clock(), lang)
    rows = [changes.change_row(c, None) for c in session.exec(stmt.limit(limit))]
    return ChangeList(items=[_out(r, telling) for r in rows])


@router.post("/{change_id}/revert", response_model=Reverted, responses=error_responses(400, 401, 404, 409, 500, 503))
def revert(
    change_id: ChangeId,
    user: CurrentUser,
    state: StateDep,
    tz: TimezoneDep,
    attempt: AttemptDep,
    lang: Lang = "zh",
) -> Reverted:
    """Takes the change back by its own inverse (later edits to other fields are kept); a change of an
    import takes the whole import back. A second revert changes nothing and says `already`; another
    user's change is a 404."""
    assert user.id is not None
    now = state.clock()
    with writes.writing(state.session, attempt.author(user.id, now)) as w:
        if w.copy:
            undone = changes.Undone.from_dict(w.prior)
        else:
            undone = w.revert(changes.batch_of(w.session, user.id, change_id))
    if not undone.changes:
        raise NotFound(f"No change with id {change_id}.", param="change_id")
    asked = next((c for c in undone.changes if c.id == change_id), undone.changes[0])
    taken = [] if undone.already else sorted(c.id for c in undone.changes)
    return Reverted(change=_out(asked, _telling(tz, now, lang)), already=undone.already, reverted=taken)
