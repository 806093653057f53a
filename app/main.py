"""The FastAPI application factory, and its OpenAPI document."""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from functools import partial
from typing import Any, Literal

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi
from pydantic import BaseModel

from app import (
    api_calendar,
    api_changes,
    api_chat,
    api_exchange,
    api_lists,
    api_tasks,
    api_webhooks,
    apidocs,
    deliveries,
    playground,
    ratelimit,
    readiness,
)
from app.deps import TIMEZONE_HEADER, TIMEZONE_SCHEMA, zone_names
from app.errors import BodyGate, ErrorBoundary, error_responses, install_error_handlers
from app.guard import SAFE_METHODS, RequestGuard, mcp_transport_security, policy_for
from app.mcp_server import mount_mcp
from app.metrics import install_metrics, worker_exited
from app.settings import Settings, get_settings
from app.state import AppState, Clock, build_state
from app.tracing import TracingMiddleware, app_tracing
from app.wire import MAX_JSON_DEPTH, chat_schemas
from core import timeanchor
from core.llm import ModelHub
from core.models import YEAR_MAX, YEAR_MIN
from core.titlegrams import title_grams


class Health(BaseModel):
    status: Literal["ok"]


def warm_up() -> None:
    """What only some requests need, loaded while the server starts rather than on a request:
    dateparser and cn2an (rare time phrases), the title index's case table (keyword queries) and
    the IANA zone names (the timezone header). Safe to run while requests are served."""
    timeanchor.warm_up()
    title_grams("")
    zone_names()


def create_app(
    settings: Settings | None = None,
    *,
    hub: ModelHub | None = None,
    clock: Clock | None = None,
    state: AppState | None = None,
    tracer_provider: Any = None,
) -> FastAPI:
    """Builds the app; the database is opened and migrated when it starts, not at import.
    `tracer_provider`: an OpenTelemetry SDK provider to trace to (tests), instead of OTEL_*."""
    settings = settings or get_settings()
    guard = policy_for(settings)  # a malformed SUIKOU_ALLOWED_HOSTS / _ORIGINS stops it here
    tracing = app_tracing(settings, tracer_provider)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        # Not a daemon: a server stopped at once waits for it (a fraction of a second) rather
        # than ending the interpreter under a thread that is importing.
        threading.Thread(target=warm_up, name="suikou-warm-up").start()
        app.state.suikou = state or build_state(settings, hub=hub, clock=clock)
        if tracing is not None:
            tracing.started(app.state.suikou.hub)
        try:
            # /mcp's task group (a mounted app's lifespan never runs); the rate limits' storage;
            # reminders and webhook deliveries in the background (app/deliveries.py)
            observer = getattr(app.state, "metrics", None)
            async with (
                mcp_sessions.run(),
                ratelimit.serving(app, settings),
                deliveries.running(app.state.suikou, observer),
            ):
                yield
        finally:
            if state is None:
                await app.state.suikou.hub.aclose()
                app.state.suikou.engine.dispose()
            if tracing is not None:
                tracing.close()
            worker_exited()

    telemetry = tracing.fastapi_telemetry() if tracing is not None else None
    # /docs is app.apidocs (no CDN); ReDoc and the OAuth2 redirect page are not served.
    app = FastAPI(
        title="Suikou", version="0.1.0", lifespan=lifespan, telemetry=telemetry, docs_url=None, redoc_url=None
    )
    install_error_handlers(app)
    app.include_router(api_chat.router, **ratelimit.route_options(settings, chat=True))
    # Before /tasks: /tasks/export is not a task id.
    app.include_router(api_exchange.router, **ratelimit.route_options(settings, chat=False))
    app.include_router(api_tasks.router, **ratelimit.route_options(settings, chat=False))
    app.include_router(api_lists.router, **ratelimit.route_options(settings, chat=False))
    app.include_router(api_changes.router, **ratelimit.route_options(settings, chat=False))
    app.include_router(api_webhooks.router, **ratelimit.route_options(settings, chat=False))
    app.include_router(api_calendar.router, **ratelimit.route_options(settings, chat=False))
    app.include_router(api_calendar.open_router)
    app.include_router(readiness.router)
    # POST /mcp; one server per app: a session manager runs once
    mcp_sessions = mount_mcp(app, mcp_transport_security(guard), state.pipeline.registry if state else None)
    app.include_router(playground.router)
    app.include_router(apidocs.router)

    @app.get("/healthz", tags=["ops"], response_model=Health, responses=error_responses(500))
    async def healthz() -> Health:
        return Health(status="ok")

    # Added last is outermost: the boundary also answers for what the gate refuses; the guard
    # refuses a foreign Host or a cross-origin write before a byte of its body is read.
    app.add_middleware(BodyGate, limit_for=partial(body_limit, settings), file_paths=api_exchange.FILE_PATHS)
    app.add_middleware(RequestGuard, policy=guard)
    app.add_middleware(ErrorBoundary)
    if tracing is not None:
        app.add_middleware(TracingMiddleware, tracing=tracing)
    if settings.metrics:  # outermost: counts what the boundary answered too
        install_metrics(app)
    app.openapi = partial(openapi_document, app, settings)  # type: ignore[method-assign]
    return app


def body_limit(settings: Settings, path: str) -> int:
    if path in api_exchange.FILE_PATHS:
        return settings.max_import_bytes
    return settings.max_chat_body_bytes if path in api_chat.CHAT_PATHS else settings.max_body_bytes


def _description(settings: Settings) -> str:
    return (
        'Errors are OpenAI\'s envelope `{"error": {"message", "type", "param", "code"}}`; invalid input '
        "is a 400 (never FastAPI's 422).\n\n"
        f"- Datetimes: RFC 3339 with an offset (`Z` or `+08:00`), years {YEAR_MIN}..{YEAR_MAX} as written; "
        "naive times and numbers are refused.\n"
        "- Text (titles, chat content, the keyword filter, the model name) must not contain NUL characters or "
        "unpaired surrogates: not every database can store them.\n"
        f"- Bodies: at most {settings.max_body_bytes} bytes, chat {settings.max_chat_body_bytes} "
        f"(413 past it), JSON only (415), nested at most {MAX_JSON_DEPTH} levels in chat.\n"
        "- Browsers: a `Host` this server does not answer to is a 421 on every path (DNS rebinding); a "
        "POST, PATCH or DELETE whose `Origin` is another origin's (or, without `Origin`, with "
        "`Sec-Fetch-Site` `cross-site` or `same-site`) is a 403. Requests without either header are not a page's: they pass."
    )


def openapi_document(app: FastAPI, settings: Settings) -> dict[str, Any]:
    """FastAPI's document, plus what it cannot see: the chat body (read raw) and the timezone names;
    less what never happens: FastAPI's 422 (validation errors are 400s, as declared)."""
    if app.openapi_schema is None:
        doc = get_openapi(title=app.title, version=app.version, routes=app.routes, description=_description(settings))
        for operations in doc["paths"].values():
            for method, operation in operations.items():
                operation["responses"].pop("422", None)
                operation["responses"] = dict(sorted({**operation["responses"], **_guarded(method)}.items()))
                for parameter in operation.get("parameters", []):
                    if parameter["name"].lower() == TIMEZONE_HEADER:
                        parameter["schema"] = {"$ref": f"#/components/schemas/{TIMEZONE_SCHEMA}"}
        schemas = doc.setdefault("components", {}).setdefault("schemas", {})
        for unused in ("HTTPValidationError", "ValidationError"):
            schemas.pop(unused, None)
        schemas.update(chat_schemas(max_chars=settings.max_message_chars, max_messages=settings.max_messages))
        schemas[TIMEZONE_SCHEMA] = {"type": "string", "enum": sorted(zone_names())}
        app.openapi_schema = doc
    return app.openapi_schema


def _guarded(method: str) -> dict[str, Any]:
    """What app.guard answers for an operation, before it is routed: 421 always, 403 for writes."""
    statuses = (421,) if method.upper() in SAFE_METHODS else (403, 421)
    return {
        str(status): {
            "description": error_responses(status)[status]["description"],
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorResponse"}}},
        }
        for status in statuses
    }


def serve_app() -> FastAPI:
    """The app factory ``suikou serve`` gives uvicorn (``factory=True``, one call per worker).

    Uvicorn calls it inside ``Server.serve`` after capturing the signals, so the drain hook chains
    onto uvicorn's handler; settings come from the environment, as in every worker.
    """
    from app.shutdown import install_drain_hook

    install_drain_hook()
    return create_app()
