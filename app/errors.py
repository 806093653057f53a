"""Errors in OpenAI's shape. The only place where exceptions become HTTP responses."""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

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


class BadRequest(ApiError):
    status = 400


class Unauthorized(ApiError):
    status = 401
    type = "invalid_request_error"
    code = "invalid_api_key"


class NotFound(ApiError):
    status = 404
    code = "not_found"


class UnsupportedMediaType(ApiError):
    status = 415
    code = "unsupported_media_type"


def error_body(message: str, type_: str, param: str | None = None, code: str | None = None) -> dict[str, Any]:
    return {"error": {"message": message, "type": type_, "param": param, "code": code}}


def _validation_message(exc: RequestValidationError) -> tuple[str, str | None]:
    errors = exc.errors()
    if not errors:
        return "Invalid request body.", None
    first = errors[0]
    loc = [str(p) for p in first.get("loc", ()) if p != "body"]
    param = ".".join(loc) or None
    if first.get("type") == "json_invalid":
        return "We could not parse the JSON body of your request.", None
    message = first.get("msg", "Invalid value")
    return (f"Invalid value for '{param}': {message}" if param else str(message)), param


def install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(ApiError)
    async def api_error(_request: Request, exc: ApiError) -> JSONResponse:
        headers = {"WWW-Authenticate": "Bearer"} if exc.status == 401 else None
        return JSONResponse(exc.body(), status_code=exc.status, headers=headers)

    @app.exception_handler(RequestValidationError)
    async def validation_error(_request: Request, exc: RequestValidationError) -> JSONResponse:
        # OpenAI answers malformed bodies with 400, not FastAPI's 422.
        message, param = _validation_message(exc)
        return JSONResponse(error_body(message, "invalid_request_error", param, None), status_code=400)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(_request: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code)
        return JSONResponse(
            error_body(str(exc.detail), "invalid_request_error", None, code),
            status_code=exc.status_code,
        )

    @app.exception_handler(Exception)
    async def unexpected(_request: Request, exc: Exception) -> JSONResponse:
        log.exception("unhandled error", exc_info=exc)
        return JSONResponse(
            error_body("The server had an error while processing your request.", "server_error", None, None),
            status_code=500,
        )
