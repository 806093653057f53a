"""Errors in OpenAI's shape. The only place where exceptions become HTTP responses.

Three layers, outermost first:

- `ErrorBoundary` (ASGI): the one place unexpected errors are caught. It logs each once, with its
  traceback, and answers a 500 in OpenAI's shape; nothing is re-raised, so the server neither logs
  it a second time nor drops the keep-alive connection. A database outage (`core.db.is_outage`,
  wrapped or not) is a 503 with `Retry-After` and one warning line without a traceback
  (docs/fdr/0023). A client that leaves while sending its body is an info line.
- `BodyGate` (ASGI): reads the body before any handler: over the size limit is a 413, a body that
  is not JSON a 415. Handlers then read the buffered body.
- FastAPI's exception handlers: `ApiError`, validation errors (400, not FastAPI's 422) and routing
  errors (404, 405 with its `Allow` header).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from email.message import Message
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict
from starlette.datastructures import Headers
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import ClientDisconnect
from starlette.routing import Match
from starlette.types import ASGIApp, Receive, Scope, Send
from starlette.types import Message as AsgiMessage

from core.attempts import KeyReused
from core.db import is_outage, outage_summary

log = logging.getLogger("suikou")


class ApiError(Exception):
    """An error the client caused or should see, with OpenAI's envelope fields."""

    status = 400
    type = "invalid_request_error"
    code: str | None = None

    def __init__(self, message: str, *, param: str | None = None, code: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.param = param
        if code is not None:
            self.code = code

    def body(self) -> dict[str, Any]:
        return error_body(self.message, self.type, self.param, self.code)

    def response(self) -> JSONResponse:
        headers = {"WWW-Authenticate": "Bearer"} if self.status == 401 else None
        return JSONResponse(self.body(), status_code=self.status, headers=headers)


class BadRequest(ApiError):
    status = 400


class Unauthorized(ApiError):
    status = 401
    type = "invalid_request_error"
    code = "invalid_api_key"


class Forbidden(ApiError):
    status = 403
    code = "forbidden"


class NotFound(ApiError):
    status = 404
    code = "not_found"


class IdempotencyKeyReused(ApiError):
    """An `Idempotency-Key` sent again with another request (core.attempts.KeyReused)."""

    status = 409  # a conflict with what the key already names (422 stays FastAPI's validation status)
    code = "idempotency_key_reused"


class Conflict(ApiError):
    """The request would make what exists clash (a list renamed to another list's name)."""

    status = 409
    code = "conflict"


class PayloadTooLarge(ApiError):
    status = 413
    code = "request_too_large"


class UnsupportedMediaType(ApiError):
    status = 415
    code = "unsupported_media_type"


class MisdirectedRequest(ApiError):
    """A Host this server does not answer to (app/guard.py)."""

    status = 421
    code = "host_not_allowed"


class RateLimited(ApiError):
    """Over a per-key limit (app/ratelimit.py): OpenAI's type and code, and when to come back."""

    status = 429
    type = "rate_limit_error"
    code = "rate_limit_exceeded"

    def __init__(self, message: str, *, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after

    def response(self) -> JSONResponse:
        return JSONResponse(self.body(), status_code=self.status, headers={"Retry-After": str(self.retry_after)})


class Unavailable(ApiError):
    """503: the request was fine, this instance cannot serve it now; `Retry-After` says when to retry."""

    status = 503
    type = "server_error"
    retry_after = 5

    def response(self) -> JSONResponse:
        return JSONResponse(self.body(), status_code=self.status, headers={"Retry-After": str(self.retry_after)})


class DatabaseUnavailable(Unavailable):
    """The database does not answer now (`core.db.is_outage`): retry soon, or at another instance."""

    code = "database_unavailable"
    retry_after = 5  # seconds: a restart or failover takes a few; the balancer moves clients meanwhile

    def __init__(self, message: str = "The database is unavailable; retry in a few seconds.") -> None:
        super().__init__(message)


class ShuttingDown(Unavailable):
    """This instance is stopping and could not finish the request within its grace period: send it
    again (the balancer routes it elsewhere; a note already saved is not written twice)."""

    code = "shutting_down"
    retry_after = 1

    def __init__(self) -> None:
        super().__init__(
            "The server is restarting and could not finish this request: please send it again; "
            "a task already saved will not be created twice."
        )


def log_outage(exc: BaseException, where: str) -> None:
    """An outage's one log line: where, and the driver's words (no traceback: it says nothing more)."""
    log.warning("database unavailable in %s: %s", where, outage_summary(exc))


def error_body(message: str, type_: str, param: str | None = None, code: str | None = None) -> dict[str, Any]:
    return {"error": {"message": message, "type": type_, "param": param, "code": code}}


SERVER_ERROR = error_body("The server had an error while processing your request.", "server_error")


# --- the error envelope in the OpenAPI document -----------------------------------------------


class ErrorDetail(BaseModel):
    model_config = ConfigDict(extra="forbid")
    message: str
    type: str
    param: str | None
    code: str | None


class ErrorResponse(BaseModel):
    """OpenAI's error envelope; every 4xx and 5xx answer has this body."""

    model_config = ConfigDict(extra="forbid")
    error: ErrorDetail


_ERROR_DOCS: dict[int, str] = {
    400: "Invalid request: malformed JSON, a value of the wrong type or outside its bounds, text with NUL "
    "characters or unpaired surrogates, an unknown `X-Suikou-Timezone`.",
    401: "Missing or unknown API key (only once API keys exist; without any the service has one local user).",
    403: "A state-changing request from a page on another origin (`Origin`, or `Sec-Fetch-Site` without "
    "one); list trusted origins in `SUIKOU_ALLOWED_ORIGINS`.",
    404: "No such resource.",
    413: "The request body is larger than the configured limit.",
    415: "The request body is not JSON.",
    409: "The `Idempotency-Key` was first sent with a different request (another route or body); a retry "
    "must repeat the request exactly, a new write needs a new key.",
    421: "The `Host` header names a host this server does not answer to (DNS rebinding protection); list "
    "the server's names in `SUIKOU_ALLOWED_HOSTS`.",
    429: "Over this API key's rate limit, or too many open streams for it (only when limits are configured).",
    500: "An unexpected server error; the details are in the server log.",
    503: "The database is unavailable (code `database_unavailable`), or the instance is shutting down and "
    "could not finish in time (`shutting_down`); retry after `Retry-After` seconds. From /readyz: not ready "
    "(`not_ready`): the database is unreachable or not at this version's schema, Redis (when configured) does "
    "not answer, or the instance is shutting down; the message names the failed checks.",
}
_RETRY_AFTER = {"Retry-After": {"description": "Seconds until a retry can succeed.", "schema": {"type": "integer"}}}
_HEADERS: dict[int, dict[str, Any]] = {
    401: {"WWW-Authenticate": {"description": "Always `Bearer`.", "schema": {"type": "string"}}},
    429: _RETRY_AFTER,
    503: _RETRY_AFTER,
}


def error_responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """`responses=` for a route: each status an operation can answer, with the envelope's schema."""
    out: dict[int | str, dict[str, Any]] = {}
    for status in statuses:
        out[status] = {"model": ErrorResponse, "description": _ERROR_DOCS[status]}
        if status in _HEADERS:
            out[status]["headers"] = _HEADERS[status]
    return out


# --- FastAPI's exception handlers --------------------------------------------------------------

_LOCATIONS = frozenset({"body", "query", "path", "header", "cookie"})


def validation_message(exc: RequestValidationError) -> tuple[str, str | None]:
    errors = exc.errors()
    if not errors:
        return "Invalid request body.", None
    first = errors[0]
    loc = [str(p) for p in first.get("loc", ())]
    if loc and loc[0] in _LOCATIONS:
        loc = loc[1:]
    param = ".".join(loc) or None
    if first.get("type") == "json_invalid":
        return "We could not parse the JSON body of your request.", None
    message = first.get("msg", "Invalid value")
    return (f"Invalid value for '{param}': {message}" if param else str(message)), param


def install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(ApiError)
    async def api_error(_request: Request, exc: ApiError) -> JSONResponse:
        return exc.response()

    @app.exception_handler(KeyReused)
    async def key_reused(_request: Request, _exc: KeyReused) -> JSONResponse:
        return IdempotencyKeyReused(
            "This Idempotency-Key was first sent with a different request; use a new key for a new write.",
            param="Idempotency-Key",
        ).response()

    @app.exception_handler(RequestValidationError)
    async def validation_error(_request: Request, exc: RequestValidationError) -> JSONResponse:
        # OpenAI answers malformed bodies with 400, not FastAPI's 422.
        message, param = validation_message(exc)
        return JSONResponse(error_body(message, "invalid_request_error", param, None), status_code=400)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code)
        headers = dict(exc.headers or {})
        if exc.status_code == 405:
            headers["Allow"] = ", ".join(_allowed_methods(request))
        return JSONResponse(
            error_body(str(exc.detail), "invalid_request_error", None, code),
            status_code=exc.status_code,
            headers=headers,
        )


def _allowed_methods(request: Request) -> list[str]:
    """Every method some route serves at this path (Starlette's 405 names only the first route's)."""
    methods: set[str] = set()
    for route in request.app.routes:
        if route.matches(request.scope)[0] is not Match.NONE:
            methods |= getattr(route, "methods", None) or set()
    return sorted(methods)


# --- ASGI layers --------------------------------------------------------------------------------


class ErrorBoundary:
    """Catches what nothing else did: one log line, a 500 envelope, and the connection lives on."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def tracked(message: AsgiMessage) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, tracked)
        except ClientDisconnect:
            log.info("client disconnected before its request was read: %s %s", scope["method"], scope["path"])
        except ApiError as exc:  # from the body gate, outside FastAPI's handlers
            if not started:
                await exc.response()(scope, receive, send)
        except Exception as exc:
            if is_outage(exc):
                if not already_logged(exc):
                    log_outage(exc, f"{scope['method']} {scope['path']}")
                if not started:
                    await DatabaseUnavailable().response()(scope, receive, send)
                return
            if not already_logged(exc):
                log.exception("unexpected error in %s %s", scope["method"], scope["path"])
            if not started:  # after the first byte there is no status left to send
                await JSONResponse(SERVER_ERROR, status_code=500)(scope, receive, send)


_LOGGED = "_suikou_logged"


def mark_logged(exc: BaseException) -> None:
    """The failure has had its one log line (with the traceback) where it happened."""
    setattr(exc, _LOGGED, True)


def already_logged(exc: BaseException) -> bool:
    return bool(getattr(exc, _LOGGED, False))


def is_json(content_type: str | None) -> bool:
    """`application/json` or `application/*+json`, parameters aside (what FastAPI parses as JSON)."""
    if not content_type:
        return False
    parsed = Message()
    parsed["content-type"] = content_type
    subtype = parsed.get_content_subtype()
    return parsed.get_content_maintype() == "application" and (subtype == "json" or subtype.endswith("+json"))


# What a file upload (POST /import) may be sent as, besides JSON.
FILE_TYPES = frozenset({"text/csv", "text/plain", "text/calendar", "application/octet-stream", "application/csv"})


def is_file_type(content_type: str | None) -> bool:
    if not content_type:
        return False
    parsed = Message()
    parsed["content-type"] = content_type
    return parsed.get_content_type() in FILE_TYPES or is_json(content_type)


class BodyGate:
    """Buffers each request body up to `limit_for(path)` bytes, then hands it to the app. Bodies are
    JSON, but on `file_paths` a file's text (CSV, iCalendar) too."""

    def __init__(self, app: ASGIApp, limit_for: Callable[[str], int], file_paths: frozenset[str] = frozenset()) -> None:
        self.app = app
        self.limit_for = limit_for
        self.file_paths = file_paths

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        limit = self.limit_for(scope["path"])
        declared = headers.get("content-length", "")
        if declared.isdigit() and int(declared) > limit:
            raise _too_large(limit)  # refused before a byte of it is read
        body = await read_body(receive, limit)
        kind = headers.get("content-type")
        if scope["path"] in self.file_paths:
            if body and not is_file_type(kind):
                raise UnsupportedMediaType(
                    f"Unsupported Content-Type; send the file as one of {', '.join(sorted(FILE_TYPES))}."
                )
        elif body and not is_json(kind):
            raise UnsupportedMediaType("Unsupported Content-Type; send the request body as application/json.")
        await self.app(scope, replay(body, receive), send)


def _too_large(limit: int) -> PayloadTooLarge:
    return PayloadTooLarge(f"The request body is larger than {limit} bytes.")


async def read_body(receive: Receive, limit: int) -> bytes:
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise ClientDisconnect()
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            raise _too_large(limit)
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks)


def replay(body: bytes, receive: Receive) -> Receive:
    """The buffered body once, then the real channel (where a later disconnect arrives)."""
    pending = True

    async def replayed() -> AsgiMessage:
        nonlocal pending
        if pending:
            pending = False
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replayed
