"""FastAPI dependencies, each defined once as an `Annotated` alias."""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache
from typing import Annotated
from zoneinfo import available_timezones

import anyio
from fastapi import Depends, Header, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from sqlmodel import Session

from app.errors import BadRequest, Unauthorized
from app.state import AppState
from core.accounts import ensure_user, keys_configured, user_for_api_key
from core.models import User

LOCAL_USER = "local"


# Dependencies that do no I/O are `async def`: FastAPI runs a plain `def` dependency on a worker
# thread, a ~60 µs hop each (bench/overhead.py).
async def get_state(request: Request) -> AppState:
    state: AppState = request.app.state.suikou
    return state


StateDep = Annotated[AppState, Depends(get_state)]


def get_session(state: StateDep) -> Iterator[Session]:
    with state.session() as session:
        yield session


SessionDep = Annotated[Session, Depends(get_session)]


# Declares the scheme in the OpenAPI document; the key is checked below, with our own 401s.
_bearer = HTTPBearer(
    auto_error=False,
    description="An API key from `suikou apikey create`. Needed once any key exists; without keys the "
    "service has one local user.",
)


async def get_current_user(
    state: StateDep, credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)]
) -> User:
    """Bearer key → user, remembered briefly (app/keycache.py), so most requests do no auth I/O."""
    return await user_for_key(state, credentials.credentials.strip() if credentials else "")


async def user_for_key(state: AppState, key: str) -> User:
    """The user of a Bearer key ("" for none), or `Unauthorized`: the REST API's rule, also /mcp's."""
    user = state.key_cache.get(key)
    if user is None:
        user = await anyio.to_thread.run_sync(_user_for_key, state, key)
        state.key_cache.put(key, user)
    return user


def _user_for_key(state: AppState, key: str) -> User:
    """With no keys configured, everyone is the single local user (the CLI refuses to serve that on
    anything but loopback). Revoked keys still count as configured: revoking the last key must not
    open a public server to anonymous use."""
    with state.session() as session:
        if not keys_configured(session):
            user = ensure_user(session, LOCAL_USER)
            session.commit()
            return user
        if not key:
            raise Unauthorized("Missing API key. Send it as 'Authorization: Bearer <key>'.")
        found = user_for_api_key(session, key)
        if found is None:
            raise Unauthorized("Incorrect API key provided.")
        return found


CurrentUser = Annotated[User, Depends(get_current_user)]


TIMEZONE_HEADER = "x-suikou-timezone"
TIMEZONE_SCHEMA = "TimeZone"  # the header's schema in the OpenAPI document: the IANA names below


@lru_cache(maxsize=1)
def zone_names() -> frozenset[str]:
    """The IANA zone names this machine knows: the only values the header may take.

    Checked against this set, not by opening files: `ZoneInfo` of an over-long name is an OSError.
    Read once, at start-up (see app.main), so the event loop never waits for the scan.
    """
    return frozenset(available_timezones())


async def get_timezone(
    state: StateDep,
    x_suikou_timezone: Annotated[
        str | None, Header(description="The user's IANA timezone; the server's default without it.")
    ] = None,
) -> str:
    if x_suikou_timezone is None:
        return state.settings.timezone
    if x_suikou_timezone not in zone_names():
        shown = x_suikou_timezone if len(x_suikou_timezone) <= 64 else x_suikou_timezone[:64] + "…"
        raise BadRequest(
            f"Unknown timezone {shown!r}; send an IANA name such as 'Asia/Shanghai'.", param="X-Suikou-Timezone"
        )
    return x_suikou_timezone


TimezoneDep = Annotated[str, Depends(get_timezone)]
