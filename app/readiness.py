"""`/readyz`: can this instance serve? The database answers and is at this code's schema, and Redis
answers when limits are shared through it. `/healthz` stays liveness only: a Redis or database outage
should take the instance out of the load balancer, not get it restarted.

Never rate limited, no auth: the answer names which check failed and the error's class, nothing more
(no URLs, no messages that could carry them).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable
from typing import Any, Literal

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel
from sqlalchemy.engine import Engine

from app import shutdown
from app.errors import error_body, error_responses
from core.db import SCHEMA_HEAD

router = APIRouter(tags=["ops"])


class Ready(BaseModel):
    status: Literal["ready"]


class SchemaBehind(RuntimeError):
    """The database records another schema revision than this code's `SCHEMA_HEAD`."""


def check_database(engine: Engine) -> None:
    """One connection, two cheap SELECTs; alembic is not imported (docs/fdr/0018)."""
    with engine.connect() as conn:
        conn.exec_driver_sql("SELECT 1").scalar_one()
        rows = conn.exec_driver_sql("SELECT version_num FROM alembic_version").scalars().all()
    if rows != [SCHEMA_HEAD]:
        raise SchemaBehind(f"schema at {rows}, want {SCHEMA_HEAD}")


async def check_redis(url: str, socket_s: float) -> None:
    import redis.asyncio as aredis

    client = aredis.Redis.from_url(url, socket_connect_timeout=socket_s, socket_timeout=socket_s)
    try:
        await client.ping()
    finally:
        await client.aclose()


async def probe(name: str, check: Awaitable[Any], limit_s: float) -> str | None:
    """None when the check passed in time, else the reason: `name: ErrorClass`.

    A database check cut by the timeout leaves its thread running until the driver gives up (a thread
    cannot be killed); the engine's own connect timeout bounds that."""
    try:
        await asyncio.wait_for(check, limit_s)
    except Exception as exc:
        return f"{name}: {type(exc).__name__}"
    return None


@router.get(
    "/readyz",
    response_model=Ready,
    responses=error_responses(500, 503),
    summary="Readiness: the database (reachable, schema current) and Redis when configured",
)
async def readyz(request: Request) -> Any:
    if shutdown.draining():  # SIGTERM came: take this instance out of the load balancer at once
        return not_ready("Not ready: shutting down")
    state = request.app.state.suikou
    timeout = state.settings.readiness_timeout_s
    checks = [probe("database", asyncio.to_thread(check_database, state.engine), timeout)]
    if state.settings.redis_url:
        checks.append(probe("redis", check_redis(state.settings.redis_url, timeout), timeout))
    started = time.perf_counter()
    failed = [reason for reason in await asyncio.gather(*checks) if reason]
    if failed:
        return not_ready(f"Not ready ({round((time.perf_counter() - started) * 1000)} ms): " + "; ".join(failed))
    return Ready(status="ready")


NOT_READY_RETRY_S = 5  # as a database outage's 503 says (app/errors.py): a probe asks again on its own period


def not_ready(message: str) -> JSONResponse:
    body = error_body(message, "server_error", None, "not_ready")
    return JSONResponse(body, status_code=503, headers={"Retry-After": str(NOT_READY_RETRY_S)})
