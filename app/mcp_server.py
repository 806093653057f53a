"""Suikou as an MCP server: the same actions and stores as the chat endpoint, as tools a model calls.

The tools are the registered actions' own (each action declares its `ToolSpec`s in its package;
core/tools.py), plus `find_tasks`, which is REST's `GET /tasks`. Built once per app (`make_mcp`): over stdio (`suikou mcp`) the caller is the CLI's user; over
streamable HTTP (`McpEndpoint`, mounted at exactly `/mcp` by app.main) it is the Bearer key's
user, resolved as the REST API resolves it. Either way the user id travels in `CALLER`, a
contextvar the SDK carries into the tool. Each result's text says what its structured content
says, every moment in the user's offset; bad arguments read as REST's 400 messages.
Decisions: docs/fdr/0016-mcp-tools.md.
"""

from __future__ import annotations

import inspect
import json
import logging
import typing
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import datetime
from functools import cache
from typing import Annotated, Any
from zoneinfo import ZoneInfo

import anyio
from fastapi import FastAPI
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.tools import Tool
from mcp.server.mcpserver.utilities.func_metadata import ArgModelBase, FuncMetadata
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import BaseModel, ConfigDict, ValidationError, create_model
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from app import api_tasks
from app.actions import build_registry
from app.deps import TIMEZONE_HEADER, user_for_key, zone_names
from app.errors import ApiError, error_body, read_body, replay, validation_message
from app.ratelimit import MODEL, REQUESTS, RateLimits, model_backed
from app.state import AppState
from app.wire import ChatRequest, MessageIn, message_texts
from core.db import find_outage, is_outage
from core.display import group_label
from core.models import User
from core.tools import ToolContext, ToolOutput, ToolProblem, ToolSpec, WriteResult
from core.turn import Turn
from route.registry import ActionRegistry

INSTRUCTIONS = (
    "Suikou is the user's personal task list (tasks with a title, an Eisenhower priority group 1-4, an "
    "optional deadline; a group rises when its deadline nears). Use ask_tasks for a question in the user's "
    "own words, Chinese or English ('这周有什么要紧的', 'what is overdue?'): Suikou reads it and answers. "
    "Use find_tasks when you already know the exact filters (groups, a time window, a keyword) or need "
    "paging. capture_note WRITES: it turns a sentence like '明天下午三点交电费' into a task (or asks a "
    "clarifying question and writes nothing); pass a client_message_id so a retry does not write twice. "
    "complete_task, update_task and delete_tasks change tasks by id; every write returns change ids that "
    "undo reverts. Ids come from the results of the other tools; a task that is not the user's reads as "
    "not found."
)

log = logging.getLogger("suikou.mcp")

CALLER: ContextVar[int | None] = ContextVar("suikou_mcp_caller", default=None)
# Over HTTP, the request's X-Suikou-Timezone (REST's header for the user's zone): the default zone.
ZONE: ContextVar[str | None] = ContextVar("suikou_mcp_zone", default=None)
StateGetter = Callable[[], AppState]

READ = ToolAnnotations(read_only_hint=True, idempotent_hint=True, open_world_hint=False)


def _annotations(spec: ToolSpec) -> ToolAnnotations:
    return ToolAnnotations(
        read_only_hint=spec.read_only,
        destructive_hint=None if spec.read_only else spec.destructive,
        idempotent_hint=spec.idempotent,
        open_world_hint=False,
    )


def _result(out: ToolOutput, zone: str) -> CallToolResult:
    """The structured result with every moment in the user's offset, and a text that says all of it
    (a text-only client sees nothing else)."""
    local = ZoneInfo(zone)
    data = _localised(out.data.model_dump(mode="json"), local)
    lines = [out.text, *_before_after(out.data, local), *_describe(data, out.text)]
    return CallToolResult(content=[TextContent(type="text", text="\n".join(lines))], structured_content=data)


# --- one datetime format: ISO 8601 in the user's offset ------------------------------------------

# The fields that hold a moment: every `*_at` (deadline_at, completed_at, …) and ask_tasks' window.
_MOMENT_KEYS = frozenset({"window_start", "window_end", "at"})  # "at": a reminder's moment


def _is_moment(key: str) -> bool:
    return key.endswith("_at") or key in _MOMENT_KEYS


def _localised(value: Any, zone: ZoneInfo) -> Any:
    """`value` (JSON data) with each moment field in `zone`'s offset: the stored UTC (`Z`, `+00:00`)
    and a write's own clock offset all read alike."""
    if isinstance(value, dict):
        return {
            k: _local_moment(v, zone) if _is_moment(k) and isinstance(v, str) else _localised(v, zone)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_localised(v, zone) for v in value]
    return value


def _local_moment(text: str, zone: ZoneInfo) -> str:
    try:
        moment = datetime.fromisoformat(text)
        return text if moment.tzinfo is None else moment.astimezone(zone).isoformat()
    except (ValueError, OverflowError):  # not a moment after all, or one past Python's range there
        return text


# --- the text: what the structured content says, a line per task ---------------------------------

_STATUS = {(True, False): "done", (False, True): "overdue", (False, False): "open"}


def _is_task(value: Any) -> bool:
    return isinstance(value, dict) and {"id", "title", "priority_group", "effective_group"} <= value.keys()


def _group(number: int) -> str:
    return f"group {number} {group_label(number)}"


def _task_line(task: dict[str, Any]) -> str:
    """One task: id, title, deadline (in the user's offset), group (and the group set, when raised),
    its rule when it repeats, and whether it is done, overdue or open."""
    parts = [f"#{task['id']} {task['title']}", f"deadline {task.get('deadline_at') or 'none'}"]
    group = _group(task["effective_group"])
    if task.get("promoted"):
        group += f" (raised from {task['priority_group']}: its deadline is near)"
    parts.append(group)
    if task.get("urgency_threshold_at"):
        parts.append(f"rises at {task['urgency_threshold_at']}")
    if rule := task.get("recurrence"):
        parts.append(f"repeats {rule['text']} ({rule['rule']})")
    for reminder in task.get("reminders") or []:
        lead = f" ({reminder['before']} before the deadline)" if reminder.get("before") else ""
        parts.append(f"reminds {reminder.get('at') or 'when it has a deadline'}{lead}")
    if task.get("estimate_minutes"):
        parts.append(f"takes about {task['estimate_minutes']} min")
    if task.get("list"):
        parts.append(f"in list {task['list']}")
    if task.get("labels"):
        parts.append("labels " + " ".join(f"#{label}" for label in task["labels"]))
    status = _STATUS[bool(task["is_completed"]), bool(task["overdue"]) and not task["is_completed"]]
    if task.get("completed_at"):
        status += f" {task['completed_at']}"
    return " · ".join([*parts, status])


def _plain(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _describe(data: dict[str, Any], summary: str) -> list[str]:
    """Every field of a structured result as lines (the summary line already says an equal answer)."""
    lines: list[str] = []
    for key, value in data.items():
        if value == summary:
            continue
        if _is_task(value):
            lines.append(f"{key}: {_task_line(value)}")
        elif isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            lines.append(f"{key} ({len(value)}):")
            lines += [f"- {_task_line(v) if _is_task(v) else _pairs(v)}" for v in value]
        elif isinstance(value, dict):
            lines.append(f"{key}: {_pairs(value)}")
        else:
            lines.append(f"{key}: {_plain(value)}")
    return lines


def _pairs(value: dict[str, Any]) -> str:
    return ", ".join(f"{k}={_plain(v)}" for k, v in value.items())


# What a write can change, in the order it is said.
_WRITTEN_FIELDS = ("title", "deadline_at", "priority_group", "urgency_threshold_at", "is_completed")


def _before_after(data: BaseModel, zone: ZoneInfo) -> list[str]:
    """A one-task write's changes, `field: before → after` (nothing when it changed nothing)."""
    if not isinstance(data, WriteResult) or data.before is None:
        return []
    before, after = (_localised(t.model_dump(mode="json"), zone) for t in (data.before, data.task))
    return [f"{f}: {_plain(before[f])} → {_plain(after[f])}" for f in _WRITTEN_FIELDS if before[f] != after[f]]


# --- the caller, the zone, the errors --------------------------------------------------------


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
    """The model's mistakes (REST's 4xx messages, a tool's own problem) and outages as a ToolError
    for the model to read, never a traceback."""
    try:
        yield
    except (ToolProblem, ApiError) as exc:
        raise ToolError(str(getattr(exc, "message", exc))) from exc
    except ValidationError as exc:
        raise ToolError(validation_message(RequestValidationError(exc.errors()))[0]) from exc
    except Exception as exc:
        if not is_outage(exc):
            raise
        log.warning("mcp tool: database unavailable (%s)", type(find_outage(exc) or exc).__name__)
        raise ToolError("The task database is unavailable right now; try again in a few seconds.") from exc


def _one_message(text: str) -> ChatRequest:
    return ChatRequest(model="suikou", messages=[MessageIn(role="user", content=text)])


def _context(state: AppState, default_tz: str | None) -> ToolContext:
    user_id = _caller()

    def turn(text: str, message_id: str | None, timezone: str | None) -> Turn:
        # The chat endpoint's checks: length, NUL, lone surrogates, blank.
        messages = message_texts(_one_message(text), max_chars=state.settings.max_message_chars)
        zone = _zone(state, timezone, default_tz)
        return state.new_turn(messages, user_id=user_id, tz=zone, client_message_id=message_id)

    return ToolContext(
        user_id=user_id,
        tz=_zone(state, None, default_tz),
        clock=state.clock,
        sessions=state.session,
        turn=turn,
    )


# --- arguments: checked by the tool's own model, with REST's messages -----------------------------


class _StrictArguments(ArgModelBase):
    """A tool's arguments as REST takes a body: an unknown one is refused, not ignored."""

    model_config = ConfigDict(arbitrary_types_allowed=True, extra="forbid")


def _strict(model: type[ArgModelBase]) -> type[ArgModelBase]:
    """The SDK's argument model of a tool (built from its signature), refusing unknown arguments."""
    return type(model.__name__, (model,), {"model_config": _StrictArguments.model_config, "__module__": __name__})


class _RawArguments(ArgModelBase):
    """Hands the call's arguments to the tool unvalidated: `_bound` checks them against the tool's
    model itself, so a bad one gets the message REST gives (`app.errors.validation_message`), not the
    SDK's pydantic dump."""

    model_config = ConfigDict(extra="allow")

    def model_dump_one_level(self) -> dict[str, Any]:
        return {"arguments": dict(self.model_extra or {})}


# --- find_tasks: GET /tasks's own parameters and checks (the one tool that is REST's, not an action's) ---

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
    return create_model("FindTasksArguments", __base__=_StrictArguments, **fields)


FindTasksFilters = _rest_filters()


async def _find_tasks(ctx: ToolContext, **filters: Any) -> ToolOutput:
    state = _STATE.get()
    assert state is not None
    # Arguments arrive by their public names ("list"); the function takes its own ("list_name").
    by_alias = {f.alias: name for name, f in FindTasksFilters.model_fields.items() if f.alias}
    filters = {by_alias.get(k, k): v for k, v in filters.items()}

    def work() -> api_tasks.TaskList:
        with state.session() as session:
            user = session.get(User, ctx.user_id)
            assert user is not None
            return api_tasks.list_tasks(session=session, user=user, state=state, **filters)

    page = await anyio.to_thread.run_sync(work)
    more = "" if page.total_exact else "+"
    return ToolOutput(f"{len(page.items)} of {page.total}{more} tasks", page)


FIND_TASKS = ToolSpec(
    "find_tasks",
    "Find tasks by filters",
    "List the user's tasks by exact filters (the REST GET /tasks): quadrants (effective groups 1..4), a time "
    "window on deadline/completed/created, include_completed, only_overdue, no_deadline, repeating, a title keyword, sort "
    "and paging. Open tasks only unless include_completed. Reads only.",
    _find_tasks,
    api_tasks.TaskList,
    read_only=True,
    idempotent=True,
)
_STATE: ContextVar[AppState | None] = ContextVar("suikou_mcp_state", default=None)


# --- the server: every registered action's tools, and find_tasks ----------------------------------


def tool_specs(registry: ActionRegistry | None = None) -> tuple[ToolSpec, ...]:
    """What the server publishes: find_tasks, then each registered action's tools (the app's
    registry; by default the composition root's, app/actions.py)."""
    return (FIND_TASKS, *(registry or build_registry()).tools())


# The tools that run a chat turn (and so may call the model): they count against the model budget.
MODEL_TOOLS = frozenset(spec.name for spec in tool_specs() if spec.uses_model)


def make_mcp(
    state_getter: StateGetter, *, default_tz: str | None = None, registry: ActionRegistry | None = None
) -> MCPServer:
    """The MCP server over `state_getter()`'s service (read per call: the app's state exists only
    once its lifespan has started), publishing `registry`'s tools."""
    built = []
    for spec in tool_specs(registry):
        tool, checked = _template(spec)
        built.append(tool.model_copy(update={"fn": _bound(spec, state_getter, default_tz, checked)}))
    return MCPServer("suikou", instructions=INSTRUCTIONS, tools=built)


def _signature(spec: ToolSpec) -> inspect.Signature:
    """The tool's arguments: its function's parameters after the context."""
    sig = inspect.signature(spec.run, eval_str=True)
    params = [p for p in list(sig.parameters.values())[1:] if p.kind is not p.VAR_KEYWORD]  # find_tasks
    return sig.replace(parameters=params, return_annotation=Annotated[CallToolResult, spec.output])


def _bound(
    spec: ToolSpec, state_getter: StateGetter, default_tz: str | None, checked: FuncMetadata | None = None
) -> Callable[..., Awaitable[Any]]:
    async def call(arguments: dict[str, Any]) -> CallToolResult:
        assert checked is not None  # only a template (never called) is built without its model
        state = state_getter()
        token = _STATE.set(state)
        default = ZONE.get() or default_tz
        try:
            with _as_tool_error():
                given = checked.validate_arguments(arguments)  # a ValidationError reads as REST's 400
                zone = _zone(state, given.get("timezone"), default)
                out = await spec.run(_context(state, default), **given)
        finally:
            _STATE.reset(token)
        return _result(out, zone)

    call.__signature__ = _signature(spec)  # type: ignore[attr-defined]
    call.__name__ = spec.name
    call.__doc__ = spec.description
    return call


@cache
def _template(spec: ToolSpec) -> tuple[Tool, FuncMetadata]:
    """A tool's schema and argument model, built once per process and spec (10 ms for all: every
    `create_app` would pay it); `make_mcp` binds a copy to its own state. The model checks the
    arguments in `_bound` (the SDK's JSON-in-a-string leniency kept); the SDK gets them raw."""
    template = _bound(spec, _no_state, None)
    tool = Tool.from_function(
        template, name=spec.name, title=spec.title, description=spec.description, annotations=_annotations(spec)
    )
    model = FindTasksFilters if spec is FIND_TASKS else _strict(tool.fn_metadata.arg_model)
    checked = tool.fn_metadata.model_copy(update={"arg_model": model})
    tool.parameters = model.model_json_schema(by_alias=True)  # what tools/list publishes
    tool.fn_metadata.arg_model = _RawArguments  # read live per call (FuncMetadata's docstring)
    return tool, checked


def _no_state() -> AppState:
    raise RuntimeError("a tool template was called")


# --- streamable HTTP ---------------------------------------------------------------------------


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
        scheme, _, key = _header(scope, "authorization").partition(" ")
        try:
            user = await user_for_key(self.state_getter(), key.strip() if scheme.lower() == "bearer" else "")
            receive = await self._within_limits(scope, receive, str(user.id))
        except ApiError as exc:
            await exc.response()(scope, receive, send)
            return
        token, zone = CALLER.set(user.id), ZONE.set(_header(scope, TIMEZONE_HEADER) or None)
        try:
            await self.handle(scope, receive, send)
        finally:
            ZONE.reset(zone)
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


def _header(scope: Scope, name: str) -> str:
    return dict(scope.get("headers", [])).get(name.encode(), b"").decode("latin-1")


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


def mount_mcp(
    app: FastAPI, transport_security: TransportSecuritySettings, registry: ActionRegistry | None = None
) -> StreamableHTTPSessionManager:
    """Serves the MCP server at exactly `/mcp` (no `/mcp/` redirect, which some clients do not follow)
    and returns its session manager, whose `run()` the app's lifespan must enter.

    `transport_security`: the SDK's Host and Origin check, with the app's own list
    (app.guard.mcp_transport_security): the guard in front of every route has already checked them."""
    getter: StateGetter = lambda: app.state.suikou  # noqa: E731 - the state exists once the lifespan ran
    server = make_mcp(getter, registry=registry)
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
