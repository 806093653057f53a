"""Suikou as an MCP server: the same actions and stores as the chat endpoint, as tools a model calls.

Built once per app (`make_mcp`): over stdio (`suikou mcp`) the caller is the CLI's user; over
streamable HTTP (`McpEndpoint`, mounted at exactly `/mcp` by app.main) it is the Bearer key's
user, resolved as the REST API resolves it. Either way the user id travels in `CALLER`, a
contextvar the SDK carries into the tool. Decisions: docs/fdr/0016-mcp-tools.md.
"""

from __future__ import annotations

import inspect
import json
import logging
import typing
import uuid
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import datetime
from functools import cache
from typing import Annotated, Any

import anyio
from fastapi import FastAPI
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.tools import Tool
from mcp.server.mcpserver.utilities.func_metadata import ArgModelBase
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model
from sqlmodel import Session
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from app import api_tasks
from app.deps import user_for_key, zone_names
from app.errors import ApiError, error_body, read_body, replay, validation_message
from app.ratelimit import MODEL, REQUESTS, RateLimits, model_backed
from app.state import AppState
from app.wire import ChatRequest, MessageIn, message_texts
from core import carry, changes
from core.db import find_outage, is_outage
from core.models import Task, TaskPublic, TaskUpdate, User
from core.store import complete_task, get_task, update_task
from core.turn import Answer, Turn
from quicknote import handler as quicknote
from taskquery import handler as taskquery

INSTRUCTIONS = (
    "Suikou is the user's personal task list (tasks with a title, an Eisenhower priority group 1-4, an "
    "optional deadline; a group rises when its deadline nears). Use ask_tasks for a question in the user's "
    "own words, Chinese or English ('这周有什么要紧的', 'what is overdue?'): Suikou reads it and answers. "
    "Use find_tasks when you already know the exact filters (groups, a time window, a keyword) or need "
    "paging. capture_note WRITES: it turns a sentence like '明天下午三点交电费' into a task (or asks a "
    "clarifying question and writes nothing); pass a client_message_id so a retry does not write twice. "
    "complete_task and update_task change one task by id; every write returns change ids that undo "
    "reverts. Ids come from the results of the other tools; a task that is not the user's reads as not found."
)

log = logging.getLogger("suikou.mcp")

CALLER: ContextVar[int | None] = ContextVar("suikou_mcp_caller", default=None)
StateGetter = Callable[[], AppState]

READ = ToolAnnotations(read_only_hint=True, idempotent_hint=True, open_world_hint=False)
# A retried capture with the same client_message_id writes nothing more.
CAPTURE = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=False)
# Setting the same state twice is a no-op; an update overwrites fields, which undo restores.
SET = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=False)
UPDATE = ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=True, open_world_hint=False)
UNDO = ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=True, open_world_hint=False)

TaskIdArg = Annotated[int, Field(ge=1, le=api_tasks.INT32_MAX, description="A task id from another tool's result.")]
TimezoneArg = Annotated[
    str | None, Field(description="The user's IANA timezone, e.g. 'Asia/Shanghai' (default: the server's).")
]


# --- results -----------------------------------------------------------------------------------


class TaskItem(BaseModel):
    """One task as the chat actions report it (`core.display.task_record`)."""

    id: int
    title: str
    priority_group: int = Field(description="The group the user set, 1..4.")
    effective_group: int = Field(description="The group now: raised when the deadline is near.")
    promoted: bool
    deadline_at: str | None = Field(description="RFC 3339, or null when the task has no deadline.")
    overdue: bool
    is_completed: bool


class QueryPlan(BaseModel):
    """How Suikou read the question: the filter that ran."""

    quadrants: list[int] | None = Field(description="Effective groups searched; null = all.")
    time_field: str
    window_start: str | None
    window_end: str | None
    keyword: str | None
    include_completed: bool
    no_deadline: bool
    sort_by: str
    order: str
    limit: int
    explicit_limit: int | None = Field(description="The count the question asked for ('三件'), if any.")
    wants_all: bool = Field(description="The question asked for all of them ('全部').")


class AskResult(BaseModel):
    answer: str = Field(description="Suikou's answer, ready to show the user.")
    items: list[TaskItem]
    total: int
    total_exact: bool = Field(description="False when more than `total` tasks match.")
    plan: QueryPlan | None = Field(description="Null when the question could not be read as a task query.")


class CaptureResult(BaseModel):
    answer: str = Field(description="Suikou's confirmation or clarifying question, ready to show the user.")
    written: bool = Field(description="True when this call (or the first call with its client_message_id) wrote.")
    tasks: list[TaskItem]
    question: str | None = Field(description="The clarifying question when nothing was written.")
    duplicate_of: TaskItem | None = Field(description="A near-duplicate that stopped the write, if any.")
    change_ids: list[int] = Field(description="Pass these to undo to remove what was written.")


class WriteResult(BaseModel):
    task: TaskPublic
    change_id: int | None = Field(description="Pass [change_id] to undo; null when nothing changed.")


class UndoneChange(BaseModel):
    id: int
    kind: str
    task_id: int | None
    effect: str | None = Field(description="deleted, restored, gone (the task no longer exists) or null.")


class UndoResult(BaseModel):
    undone: list[UndoneChange]
    already: bool = Field(description="Every change found had been undone before: nothing changed now.")
    missing: bool = Field(description="Some id is not one of your changes.")


def _result(text: str, data: BaseModel) -> CallToolResult:
    return CallToolResult(
        content=[TextContent(type="text", text=text)], structured_content=data.model_dump(mode="json")
    )


# --- the caller, the zone, the session ---------------------------------------------------------


def _caller() -> int:
    user_id = CALLER.get()
    if user_id is None:  # a wiring bug, not the model's mistake: never serve "nobody"
        raise RuntimeError("no Suikou user for this MCP call")
    return user_id


def _zone(state: AppState, timezone: str | None, default: str | None) -> str:
    zone = timezone or default or state.settings.timezone
    if zone not in zone_names():  # the message X-Suikou-Timezone gets over REST
        shown = zone if len(zone) <= 64 else zone[:64] + "…"
        raise ToolError(f"Unknown timezone {shown!r}; send an IANA name such as 'Asia/Shanghai'.")
    return zone


@contextmanager
def _as_tool_error() -> Iterator[None]:
    """REST's 4xx messages, as the model's to read (a ToolError), never a traceback."""
    try:
        yield
    except ApiError as exc:
        raise ToolError(exc.message) from exc
    except ValidationError as exc:
        raise ToolError(validation_message(RequestValidationError(exc.errors()))[0]) from exc
    except Exception as exc:
        if not is_outage(exc):
            raise
        log.warning("mcp tool: database unavailable (%s)", type(find_outage(exc) or exc).__name__)
        raise ToolError("The task database is unavailable right now; try again in a few seconds.") from exc


def _not_found(task_id: int) -> ToolError:
    return ToolError(f"task {task_id} not found")


def _one_message(text: str) -> ChatRequest:
    return ChatRequest(model="suikou", messages=[MessageIn(role="user", content=text)])


def _item(record: dict[str, Any]) -> TaskItem:
    return TaskItem.model_validate(record)


# --- find_tasks: GET /tasks's own parameters and checks ----------------------------------------

_INJECTED = frozenset({"session", "user", "state"})


def _rest_filters() -> type[BaseModel]:
    """GET /tasks's query parameters as one model: the same types, bounds and defaults (read from
    `api_tasks.list_tasks`'s signature, so a rule changed there changes here)."""
    hints = typing.get_type_hints(api_tasks.list_tasks, include_extras=True)
    fields: dict[str, Any] = {
        name: (hints[name], param.default)
        for name, param in inspect.signature(api_tasks.list_tasks).parameters.items()
        if name not in _INJECTED
    }
    return create_model("FindTasksArguments", __config__=ConfigDict(extra="forbid"), **fields)


FindTasksFilters = _rest_filters()


class _RawArguments(ArgModelBase):
    """Hands the call's arguments to the tool unvalidated: the tool validates them itself, so a bad
    filter gets the message REST gives (`app.errors.validation_message`), not pydantic's dump."""

    model_config = ConfigDict(extra="allow")

    def model_dump_one_level(self) -> dict[str, Any]:
        return {"arguments": dict(self.model_extra or {})}


# name → (title, annotations): what each tool is called and promises; the descriptions are the docstrings.
TOOL_TABLE: dict[str, tuple[str, ToolAnnotations]] = {
    "ask_tasks": ("Ask about my tasks", READ),
    "find_tasks": ("Find tasks by filters", READ),
    "capture_note": ("Capture a task", CAPTURE),
    "complete_task": ("Complete a task", SET),
    "update_task": ("Update a task", UPDATE),
    "undo": ("Undo writes", UNDO),
}
# Tools that validate their own arguments against a model (and publish its schema).
SELF_VALIDATED: dict[str, type[BaseModel]] = {"find_tasks": FindTasksFilters}


def make_mcp(state_getter: StateGetter, *, default_tz: str | None = None) -> MCPServer:
    """The MCP server over `state_getter()`'s service (read per call: the app's state exists only
    once its lifespan has started)."""
    tools = _Tools(state_getter, default_tz)
    built = [tool.model_copy(update={"fn": getattr(tools, tool.name)}) for tool in _tool_templates()]
    return MCPServer("suikou", instructions=INSTRUCTIONS, tools=built)


@cache
def _tool_templates() -> tuple[Tool, ...]:
    """The tools' schemas and argument models, built once per process (10 ms: every `create_app`
    would pay it); `make_mcp` binds copies to its own `_Tools`."""
    unbound = _Tools(_no_state, None)
    built = []
    for name, (title, hints) in TOOL_TABLE.items():
        tool = Tool.from_function(getattr(unbound, name), name=name, title=title, annotations=hints)
        if name in SELF_VALIDATED:
            tool.parameters = SELF_VALIDATED[name].model_json_schema()  # what tools/list publishes
            tool.fn_metadata.arg_model = _RawArguments  # read live per call (FuncMetadata's docstring)
        built.append(tool)
    return tuple(built)


def _no_state() -> AppState:
    raise RuntimeError("a tool template was called")


class _Tools:
    def __init__(self, state_getter: StateGetter, default_tz: str | None) -> None:
        self.state_getter = state_getter
        self.default_tz = default_tz

    async def _in_thread(self, work: Callable[[Session, int, datetime], Any]) -> Any:
        """Runs `work(session, user_id, now)` on a worker thread (database I/O off the event loop)."""
        state, user_id = self.state_getter(), _caller()

        def run() -> Any:
            with state.session() as session, _as_tool_error():
                return work(session, user_id, state.clock())

        return await anyio.to_thread.run_sync(run)

    async def _turn(
        self, handler: Callable[..., Awaitable[Answer]], text: str, tz: str | None, message_id: str | None = None
    ) -> tuple[Answer, Turn]:
        state = self.state_getter()
        with _as_tool_error():  # the chat endpoint's checks: length, NUL, lone surrogates, blank
            messages = message_texts(_one_message(text), max_chars=state.settings.max_message_chars)
        turn = state.new_turn(
            messages,
            user_id=_caller(),
            tz=_zone(state, tz, self.default_tz),
            client_message_id=message_id,
        )
        with _as_tool_error():  # a database outage: a message for the model, not a traceback
            return await handler(turn), turn

    async def ask_tasks(
        self,
        question: Annotated[str, Field(description="The question, as the user said it.")],
        timezone: TimezoneArg = None,
    ) -> Annotated[CallToolResult, AskResult]:
        """Answer a question about the user's tasks in their own words (Chinese or English): 'what's urgent
        this week?', '明天要交的', 'three most important'. Suikou works out the groups, the time window, a
        keyword and the count, then returns the matching tasks, the total, how it read the question
        (plan) and a ready answer. Reads only."""
        answer, turn = await self._turn(taskquery.handle_task_query, question, timezone)
        data = answer.data
        text = carry.strip(answer.text)
        plan_event = next((e for e in turn.trace.events if e.stage == "plan" and "wants_all" in e.data), None)
        result = AskResult(
            answer=text,
            items=[_item(r) for r in data.get("items", [])],
            total=data.get("total", 0),
            total_exact=data.get("total_exact", True),
            plan=_plan(data.get("filter"), plan_event.data if plan_event else {}),
        )
        return _result(text, result)

    async def find_tasks(self, arguments: dict[str, Any]) -> Annotated[CallToolResult, api_tasks.TaskList]:
        """List the user's tasks by exact filters (the REST GET /tasks): quadrants (effective groups 1..4),
        a time window on deadline/completed/created, include_completed, only_overdue, no_deadline, a title
        keyword, sort and paging. Open tasks only unless include_completed. Reads only."""
        with _as_tool_error():
            filters = FindTasksFilters.model_validate(arguments).model_dump()
        state = self.state_getter()

        def work(session: Session, user_id: int, now: datetime) -> api_tasks.TaskList:
            user = session.get(User, user_id)
            assert user is not None
            return api_tasks.list_tasks(session=session, user=user, state=state, **filters)

        page: api_tasks.TaskList = await self._in_thread(work)
        more = "" if page.total_exact else "+"
        return _result(f"{len(page.items)} of {page.total}{more} tasks", page)

    async def capture_note(
        self,
        text: Annotated[str, Field(description="The note, as the user said it.")],
        client_message_id: Annotated[
            str | None,
            Field(
                description="A stable id for this note (HTTP's X-Client-Message-Id): a retry with it writes nothing more."
            ),
        ] = None,
        timezone: TimezoneArg = None,
    ) -> Annotated[CallToolResult, CaptureResult]:
        """WRITES. Capture what the user said as a task ('明天下午三点交电费', 'call mom on Friday, important'):
        Suikou reads the title, deadline and priority group and stores it, or asks one clarifying question
        and stores nothing. Returns the task(s) written and the change ids undo takes."""
        answer, _turn = await self._turn(quicknote.handle_quick_note, text, timezone, client_message_id)
        data = answer.data
        shown = carry.strip(answer.text)
        records = data.get("tasks") or ([data["task"]] if "task" in data else [])
        duplicate = data.get("duplicate_of")
        result = CaptureResult(
            answer=shown,
            written=bool(records),
            tasks=[_item(r) for r in records],
            question=None if records or duplicate else shown,
            duplicate_of=_item(duplicate) if duplicate else None,
            change_ids=[int(i) for i in data.get("change_ids", [])],
        )
        return _result(shown, result)

    async def complete_task(
        self, task_id: TaskIdArg, completed: Annotated[bool, Field(description="False reopens the task.")] = True
    ) -> Annotated[CallToolResult, WriteResult]:
        """Mark one task done (or not done again with completed=false). Recorded, so undo reverts it."""

        def work(session: Session, user_id: int, now: datetime) -> WriteResult:
            target = get_task(session, user_id, task_id)
            if target is None:
                raise _not_found(task_id)
            if bool(target.is_completed) == completed:
                return WriteResult(task=TaskPublic.from_task(target, now=now), change_id=None)
            before = changes.snapshot(target)
            task = complete_task(session, user_id, task_id, now=now, completed=completed)
            assert task is not None
            return _logged(session, user_id, "complete" if completed else "reopen", task, before, now)

        result: WriteResult = await self._in_thread(work)
        return _result(f"{'completed' if completed else 'reopened'}: {result.task.title}", result)

    async def update_task(
        self,
        task_id: TaskIdArg,
        title: Annotated[str | None, Field(description="The new title.")] = None,
        deadline_at: Annotated[
            str | None, Field(description="The new deadline, RFC 3339 with an offset, e.g. 2026-12-01T15:00:00+08:00.")
        ] = None,
        clear_deadline: Annotated[bool, Field(description="Remove the deadline.")] = False,
        priority_group: Annotated[
            int | None, Field(description="1 important+urgent, 2 important, 3 urgent, 4 neither.")
        ] = None,
    ) -> Annotated[CallToolResult, WriteResult]:
        """Change one task's title, deadline or priority group (only what you pass). Checked as the REST
        PATCH /tasks/{id} checks it. Recorded, so undo reverts it."""
        given = {"title": title, "deadline_at": deadline_at, "priority_group": priority_group}
        fields: dict[str, Any] = {name: value for name, value in given.items() if value is not None}
        if clear_deadline:
            fields["deadline_at"] = None
        if not fields:
            raise ToolError("nothing to change: pass title, deadline_at, clear_deadline or priority_group")
        with _as_tool_error():
            data = TaskUpdate.model_validate(fields)

        def work(session: Session, user_id: int, now: datetime) -> WriteResult:
            target = get_task(session, user_id, task_id)
            if target is None:
                raise _not_found(task_id)
            before = changes.snapshot(target)
            task = update_task(session, user_id, task_id, data, now=now)
            assert task is not None
            if changes.snapshot(task) == before:
                return WriteResult(task=TaskPublic.from_task(task, now=now), change_id=None)
            return _logged(session, user_id, "update", task, before, now)

        result: WriteResult = await self._in_thread(work)
        return _result(f"updated: {result.task.title}", result)

    async def undo(
        self,
        change_ids: Annotated[
            list[int],
            Field(min_length=1, max_length=changes.MAX_CARRIED_CHANGES, description="Change ids a write returned."),
        ],
    ) -> Annotated[CallToolResult, UndoResult]:
        """Revert earlier writes (capture, complete, update) by their change ids, newest first. Only your own
        changes; undoing twice changes nothing the second time."""

        def work(session: Session, user_id: int, now: datetime) -> UndoResult:
            done = changes.undo(session, user_id=user_id, change_ids=change_ids, now=now)
            session.commit()
            rows = [UndoneChange(id=c.id, kind=c.kind, task_id=c.task_id, effect=c.effect) for c in done.changes]
            return UndoResult(undone=rows, already=done.already, missing=done.missing)

        result: UndoResult = await self._in_thread(work)
        text = "already undone" if result.already else f"undid {sum(c.effect is not None for c in result.undone)}"
        return _result(text + (" (some ids are not yours)" if result.missing else ""), result)


def _logged(
    session: Session, user_id: int, kind: changes.Kind, task: Task, before: dict[str, Any], now: datetime
) -> WriteResult:
    """Records the write in the log (as the chat actions do, so undo finds it) and commits both."""
    change_id = changes.record(
        session, user_id=user_id, turn_key=f"mcp:{uuid.uuid4().hex}", kind=kind, task=task, before=before, now=now
    )
    session.commit()
    return WriteResult(task=TaskPublic.from_task(task, now=now), change_id=change_id)


def _plan(flt: dict[str, Any] | None, lock: dict[str, Any]) -> QueryPlan | None:
    if flt is None:
        return None
    return QueryPlan(
        quadrants=flt.get("quadrants") or None,
        time_field=flt.get("time_field", "deadline"),
        window_start=flt.get("time_after"),
        window_end=flt.get("time_before"),
        keyword=flt.get("keyword"),
        include_completed=flt.get("include_completed", False),
        no_deadline=flt.get("no_deadline", False),
        sort_by=flt.get("sort_by", "deadline"),
        order=flt.get("order", "asc"),
        limit=flt.get("limit", 0),
        explicit_limit=lock.get("explicit_limit"),
        wants_all=bool(lock.get("wants_all", False)),
    )


# --- streamable HTTP ---------------------------------------------------------------------------


# The tools that run a chat turn (and so may call the model): they count against the model budget.
MODEL_TOOLS = frozenset({"ask_tasks", "capture_note"})


class McpEndpoint:
    """The session manager's `handle` behind the REST API's Bearer keys and limits: a key is its user; no
    key or an unknown one is REST's 401 once keys exist; keyless local mode serves the local user. Each
    POST counts against the key's request budget, and a call of a model tool against its model budget
    while a real model is configured (429 with `Retry-After`, as REST and chat answer).

    Only POST: the server is stateless with JSON answers, so there is no session for a standalone GET
    stream (server-to-client messages) to serve or a DELETE to end. Such a stream would idle forever,
    outside the stream cap and every limit; the spec lets a server answer the GET with 405 instead, and
    the SDK's client opens it only for a session id, which a stateless server never issues.

    A class, not a function: Starlette serves an ASGI *instance* as-is for every method, but would
    wrap a plain function as a GET-only request handler."""

    def __init__(self, handle: ASGIApp, state_getter: StateGetter) -> None:
        self.handle = handle
        self.state_getter = state_getter

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["method"] != "POST":
            body = error_body("Method Not Allowed", "invalid_request_error", None, "method_not_allowed")
            await JSONResponse(body, status_code=405, headers={"Allow": "POST"})(scope, receive, send)
            return
        header = dict(scope.get("headers", [])).get(b"authorization", b"").decode("latin-1")
        scheme, _, key = header.partition(" ")
        try:
            user = await user_for_key(self.state_getter(), key.strip() if scheme.lower() == "bearer" else "")
            receive = await self._within_limits(scope, receive, str(user.id))
        except ApiError as exc:
            await exc.response()(scope, receive, send)
            return
        token = CALLER.set(user.id)
        try:
            await self.handle(scope, receive, send)
        finally:
            CALLER.reset(token)

    async def _within_limits(self, scope: Scope, receive: Receive, key: str) -> Receive:
        """Counts the request (and its model tool calls); `RateLimited` when over. Returns the channel to
        read the body from (it was read here when the model budget needed to see the calls)."""
        app = scope.get("app")  # absent when the router is called alone (tests of the SDK's own checks)
        limits: RateLimits | None = getattr(app.state, "rate_limits", None) if app is not None else None
        if limits is None:
            return receive
        await limits.check(REQUESTS, key)
        if MODEL not in limits.items or not model_backed(self.state_getter().hub):
            return receive
        body = await read_body(receive, limit=self.state_getter().settings.max_body_bytes)  # as the body gate
        for _ in range(_model_tool_calls(body)):
            await limits.check(MODEL, key)
        return replay(body, receive)


def _model_tool_calls(body: bytes) -> int:
    """How many calls of a model tool the JSON-RPC body holds (one message or a batch; unreadable: 0,
    the SDK answers it)."""
    try:
        parsed = json.loads(body)
    except ValueError:
        return 0
    messages = parsed if isinstance(parsed, list) else [parsed]
    return sum(
        isinstance(m, dict)
        and m.get("method") == "tools/call"
        and isinstance(m.get("params"), dict)
        and m["params"].get("name") in MODEL_TOOLS
        for m in messages
    )


def mount_mcp(app: FastAPI, transport_security: TransportSecuritySettings) -> StreamableHTTPSessionManager:
    """Serves the MCP server at exactly `/mcp` (no `/mcp/` redirect, which some clients do not follow)
    and returns its session manager, whose `run()` the app's lifespan must enter.

    `transport_security`: the SDK's Host and Origin check, with the app's own list
    (app.guard.mcp_transport_security): the guard in front of every route has already checked them."""
    getter: StateGetter = lambda: app.state.suikou  # noqa: E731 - the state exists once the lifespan ran
    server = make_mcp(getter)
    server.streamable_http_app(
        # Stateless: each POST stands alone, so any worker can serve it and no session outlives its key.
        stateless_http=True,
        json_response=True,
        transport_security=transport_security,
    )
    sessions = server.session_manager
    # A plain Route (not an APIRoute): FastAPI leaves it out of the OpenAPI document, which describes
    # only the REST API (docs/fdr/0016).
    app.router.routes.append(Route("/mcp", endpoint=McpEndpoint(sessions.handle_request, getter)))
    return sessions
