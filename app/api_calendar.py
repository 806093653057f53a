"""The calendar feed (RFC 5545, exchange/ics.py): `GET /calendar.ics` with the Bearer key, and subscribe
links (`/calendar/<token>.ics`) for calendar apps that can't send a header. ETag/Last-Modified let a
polling app get a 304 without the feed being built (docs/fdr/0039)."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime, parsedate_to_datetime
from typing import Annotated, Any

import anyio.to_thread
import sqlalchemy as sa
from fastapi import APIRouter, Path, Query, Request, status
from fastapi.responses import Response
from pydantic import BaseModel, Field
from sqlmodel import Session, col, or_, select

from app.api_tasks import INT32_MAX
from app.deps import CurrentUser, SessionDep, StateDep, TimezoneDep
from app.errors import ApiError, NotFound, error_responses
from app.state import AppState
from core.models import CalendarLink, Task, TaskChange
from core.timeanchor import chinacal
from exchange import ics, links

router = APIRouter(tags=["calendar"])
open_router = APIRouter(tags=["calendar"])  # the token is the credential: no Bearer key

MEDIA_TYPE = "text/calendar; charset=utf-8"
DONE_SHOWN = timedelta(days=30)  # completed tasks stay in the feed this long (a calendar app ticks them off)
LinkId = Annotated[int, Path(ge=1, le=INT32_MAX)]
Events = Annotated[
    bool | None,
    Query(description="Also give each task with a deadline as an all-day event (default: SUIKOU_CALENDAR_EVENTS)."),
]
_FEED_DOC: dict[int | str, dict[str, Any]] = {
    200: {
        "content": {"text/calendar": {"schema": {"type": "string"}}},
        "description": "The feed: one VTODO per open task (and per task completed in the last 30 days).",
        "headers": {"ETag": {"schema": {"type": "string"}}, "Last-Modified": {"schema": {"type": "string"}}},
    },
    304: {"description": "Not modified since the ETag (If-None-Match) or date (If-Modified-Since) sent."},
}


class TooManyLinks(ApiError):
    status = 409  # a conflict with the links the user has: revoke one first
    code = "too_many_links"


class LinkCreate(BaseModel):
    events: bool = Field(default=False, description="The feed also gives all-day events (see /calendar.ics).")


class LinkOut(BaseModel):
    id: int
    timezone: str = Field(description="The feed shows times in this zone (the X-Suikou-Timezone it was made with).")
    events: bool
    created_at: datetime


class LinkCreated(LinkOut):
    url: str = Field(description="The subscribe URL, this once: anyone with it can read the calendar.")


class LinkList(BaseModel):
    items: list[LinkOut]


def _out(link: CalendarLink) -> LinkOut:
    assert link.id is not None
    return LinkOut(id=link.id, timezone=link.timezone, events=link.events, created_at=link.created_at)


# --- the feed ----------------------------------------------------------------------------------


def _shown(user_id: int, now: datetime) -> sa.ColumnElement[bool]:
    recent = col(Task.completed_at) >= now - DONE_SHOWN
    return sa.and_(col(Task.user_id) == user_id, or_(col(Task.is_completed).is_(False), recent))


# What a task's VTODO is made of: the ETag hashes these (not only updated_at, which two edits in
# one clock tick share), and no task is built for a 304.
_RENDERED = [
    col(c) for c in (Task.id, Task.title, Task.priority_group, Task.deadline_at, Task.is_completed,
                     Task.completed_at, Task.recurrence, Task.reminders, Task.estimate_minutes, Task.updated_at)
]  # fmt: skip


def _validator(session: Session, user_id: int, now: datetime, key: str) -> tuple[str, datetime]:
    """The feed's ETag (the shown tasks' rendered fields: an edit or a deletion changes it) and
    Last-Modified (the newest update or change)."""
    rows = session.execute(sa.select(*_RENDERED).where(_shown(user_id, now)).order_by(col(Task.id))).all()
    digest = hashlib.sha256(f"{ics.FORMAT_VERSION}|{chinacal.data_version()}|{key}".encode())
    for row in rows:
        digest.update(repr(tuple(row)).encode())
    last = session.exec(select(sa.func.max(TaskChange.created_at)).where(col(TaskChange.user_id) == user_id)).one()
    newest = max([r[-1] for r in rows] + ([last] if isinstance(last, datetime) else []), default=None)
    moment = (newest or datetime(2000, 1, 1, tzinfo=UTC)).astimezone(UTC).replace(microsecond=0)
    return f'"{digest.hexdigest()[:32]}"', moment


def _fresh(request: Request, etag: str, modified: datetime) -> bool:
    """Whether the client's copy is current (RFC 9110: If-None-Match wins over If-Modified-Since)."""
    match = request.headers.get("if-none-match")
    if match is not None:
        return etag in {m.strip().removeprefix("W/") for m in match.split(",")} or match.strip() == "*"
    since = request.headers.get("if-modified-since")
    if since is None:
        return False
    try:
        return modified <= parsedate_to_datetime(since)
    except (TypeError, ValueError):
        return False


def _feed(state: AppState, request: Request, user_id: int, tz: str, events: bool) -> Response:
    now = state.clock()
    with state.session() as session:
        etag, modified = _validator(session, user_id, now, f"{tz}|{events}")
        headers = {"ETag": etag, "Last-Modified": format_datetime(modified, usegmt=True), "Cache-Control": "no-cache"}
        if _fresh(request, etag, modified):
            return Response(status_code=status.HTTP_304_NOT_MODIFIED, headers=headers)
        tasks = list(session.exec(select(Task).where(_shown(user_id, now)).order_by(col(Task.id))))
        body = ics.render(tasks, tz=tz, events=events)
    return Response(body, media_type=MEDIA_TYPE, headers=headers)


@router.get(
    "/calendar.ics",
    response_class=Response,
    responses={**_FEED_DOC, **error_responses(400, 401, 500, 503)},
)
async def calendar(
    request: Request, user: CurrentUser, state: StateDep, tz: TimezoneDep, events: Events = None
) -> Response:
    """The caller's tasks as an iCalendar feed (VTODOs with due dates, repetition and alarms)."""
    assert user.id is not None
    show = state.settings.calendar_events if events is None else events
    return await anyio.to_thread.run_sync(_feed, state, request, user.id, tz, show)


@open_router.get(
    "/calendar/{token}.ics",
    response_class=Response,
    responses={**_FEED_DOC, **error_responses(400, 404, 500, 503)},
)
async def calendar_by_link(
    request: Request,
    token: Annotated[str, Path(min_length=1, max_length=100)],
    state: StateDep,
    events: Events = None,
) -> Response:
    """The feed of a subscribe link (no key: the token in the URL is the credential). A revoked or
    unknown token is a 404."""

    def find() -> CalendarLink | None:
        with state.session() as session:
            return links.by_token(session, token)

    link = await anyio.to_thread.run_sync(find)
    if link is None:
        raise NotFound("No calendar at this address (the link was revoked, or never made).", param="token")
    show = link.events if events is None else events
    return await anyio.to_thread.run_sync(_feed, state, request, link.user_id, link.timezone, show)


# --- subscribe links -------------------------------------------------------------------------


@router.post(
    "/calendar/links",
    response_model=LinkCreated,
    status_code=status.HTTP_201_CREATED,
    responses=error_responses(400, 401, 409, 413, 415, 500, 503),
)
def create_link(
    request: Request,
    session: SessionDep,
    user: CurrentUser,
    state: StateDep,
    tz: TimezoneDep,
    body: LinkCreate | None = None,
) -> LinkCreated:
    """A subscribe link for a calendar app: its URL carries a long random token (shown this once)."""
    assert user.id is not None
    try:
        made = links.make(session, user.id, timezone=tz, events=(body or LinkCreate()).events, now=state.clock())
    except links.TooMany as exc:
        raise TooManyLinks(str(exc), param=None) from exc
    base = (state.settings.public_url or str(request.base_url)).rstrip("/")
    return LinkCreated(**_out(made.link).model_dump(), url=f"{base}/calendar/{made.token}.ics")


@router.get("/calendar/links", response_model=LinkList, responses=error_responses(400, 401, 500, 503))
def list_links(session: SessionDep, user: CurrentUser) -> LinkList:
    """The caller's subscribe links (their URLs are never shown again)."""
    assert user.id is not None
    return LinkList(items=[_out(link) for link in links.listed(session, user.id)])


@router.delete(
    "/calendar/links/{link_id}",
    status_code=status.HTTP_204_NO_CONTENT,
    response_class=Response,
    responses=error_responses(400, 401, 404, 500, 503),
)
def delete_link(link_id: LinkId, session: SessionDep, user: CurrentUser) -> Response:
    """Revokes the link: its URL reads as missing from now on."""
    assert user.id is not None
    if not links.delete(session, user.id, link_id):
        raise NotFound(f"No calendar link with id {link_id}.", param="link_id")
    return Response(status_code=status.HTTP_204_NO_CONTENT)
