"""`POST /import` (TickTick's backup CSV, Todoist's CSV template, Suikou's own export) and
`GET /tasks/export` (JSON, CSV, iCalendar): moving in and moving out (docs/fdr/0039)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import anyio.to_thread
from fastapi import APIRouter, Query, Request
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, Field
from sqlmodel import col, select

from app.api_tasks import AttemptDep
from app.deps import CurrentUser, StateDep, TimezoneDep
from app.errors import ApiError, BadRequest, error_responses
from core import writes
from core.models import Task
from exchange import ics, importer, native
from exchange.rows import MAX_ROWS, BadFile

router = APIRouter(tags=["import and export"])

FILE_PATHS = frozenset({"/import"})
Format = Literal["json", "csv", "ics"]
MEDIA = {"json": "application/json", "csv": "text/csv; charset=utf-8", "ics": "text/calendar; charset=utf-8"}


class MethodNotAllowed(ApiError):
    status = 405
    code = "method_not_allowed"

    def response(self) -> JSONResponse:
        return JSONResponse(self.body(), status_code=self.status, headers={"Allow": "GET"})


class ImportSummary(BaseModel):
    dry_run: bool
    created: int = Field(description="Tasks created (a dry run: would be created).")
    skipped: int = Field(description="Rows not made tasks; see by_reason.")
    by_reason: dict[str, int] = Field(
        description="Skipped rows by why: note (a comment), section, archived, abandoned (won't do), "
        "empty_title, duplicate (imported before)."
    )
    not_kept: dict[str, int] = Field(
        description="Values Suikou has no field for yet, by column (description, list, tags, duration, …): how "
        "many created tasks had one."
    )
    sample: list[dict[str, Any]] = Field(description="The first few tasks, as they are (or would be) created.")
    task_ids: list[int] = Field(description="The tasks created.")
    change_ids: list[int] = Field(
        description="The changes made: POST /changes/{id}/revert on any one takes the whole import back."
    )


_IMPORT_BODY = {
    "requestBody": {
        "required": True,
        "content": {
            media: {"schema": {"type": "string", "minLength": 1}}
            for media in ("text/csv", "text/calendar", "application/json", "text/plain", "application/octet-stream")
        },
        "description": f"The file itself (UTF-8), at most 5 MB and {MAX_ROWS} rows.",
    }
}


@router.post(
    "/import",
    response_model=ImportSummary,
    responses=error_responses(400, 401, 409, 413, 415, 500, 503),
    openapi_extra=_IMPORT_BODY,
)
async def import_file(
    request: Request,
    user: CurrentUser,
    state: StateDep,
    tz: TimezoneDep,
    attempt: AttemptDep,
    source: Annotated[
        importer.Source,
        Query(description="ticktick: its backup CSV; todoist: a project's CSV template; suikou: GET /tasks/export."),
    ],
    dry_run: Annotated[bool, Query(description="Read and count, write nothing.")] = False,
) -> ImportSummary:
    """Creates the file's tasks as one change (one revert takes all of it back); rows imported before
    are skipped, so the same file twice creates nothing new. A malformed file is a 400 naming the row
    (the file's line) and column, and nothing is written."""
    assert user.id is not None
    data = await request.body()
    if not data.strip():
        raise BadRequest("Send the file as the request body.", param="body")
    now = state.clock()
    by = writes.author(user.id, now, "import", attempt=attempt.key, request=attempt.request)

    def run() -> importer.Summary:
        parsed = importer.parse(data, source, tz=tz, now=now)
        return importer.run(state.session, by, parsed, source, tz=tz, dry_run=dry_run)

    try:
        summary = await anyio.to_thread.run_sync(run)
    except BadFile as exc:
        raise BadRequest(f"The file can't be imported: {exc}", param=exc.column or "body") from exc
    return ImportSummary(**summary.as_dict())


_EXPORT_DOC: dict[int | str, dict[str, Any]] = {
    200: {
        "content": {
            "application/json": {"schema": {"type": "object"}},
            "text/csv": {"schema": {"type": "string"}},
            "text/calendar": {"schema": {"type": "string"}},
        },
        "description": "Every task of the caller's, as a file POST /import?source=suikou reads back.",
    }
}


@router.get("/tasks/export", response_class=Response, responses={**_EXPORT_DOC, **error_responses(400, 401, 500, 503)})
async def export(
    user: CurrentUser, state: StateDep, tz: TimezoneDep, format: Annotated[Format, Query()] = "json"
) -> Response:
    """Everything of the caller's: open and completed tasks, repetition and reminders included."""
    assert user.id is not None
    user_id = user.id

    def render() -> bytes:
        with state.session() as session:
            tasks = list(session.exec(select(Task).where(col(Task.user_id) == user_id).order_by(col(Task.id))))
        if format == "ics":
            return ics.render(tasks, tz=tz)
        if format == "csv":
            return native.to_csv(tasks, tz=tz)
        return native.to_json(tasks, tz=tz, now=state.clock())

    body = await anyio.to_thread.run_sync(render)
    name = f"suikou-tasks.{format}"
    return Response(body, media_type=MEDIA[format], headers={"Content-Disposition": f'attachment; filename="{name}"'})


@router.api_route("/tasks/export", methods=["POST", "PUT", "PATCH", "DELETE"], include_in_schema=False, status_code=405)
async def export_is_read_only(user: CurrentUser) -> Response:
    """Not a task id: without this, DELETE /tasks/export would read as a bad task id."""
    raise MethodNotAllowed("/tasks/export is read with GET.", param=None)
