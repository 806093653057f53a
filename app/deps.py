"""FastAPI dependencies, each defined once as an `Annotated` alias."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from fastapi import Depends, Header, Request
from sqlmodel import Session

from app.errors import BadRequest, Unauthorized
from app.state import AppState
from core.accounts import ensure_user, keys_configured, user_for_api_key
from core.models import User

LOCAL_USER = "local"


def get_state(request: Request) -> AppState:
    state: AppState = request.app.state.suikou
    return state


StateDep = Annotated[AppState, Depends(get_state)]


def get_session(state: StateDep) -> Iterator[Session]:
    with state.session() as session:
        yield session


SessionDep = Annotated[Session, Depends(get_session)]


def get_current_user(state: StateDep, authorization: Annotated[str | None, Header()] = None) -> User:
    """Bearer key → user. With no keys configured, everyone is the single local user
    (the CLI refuses to serve that on anything but loopback). Revoked keys still count as
    configured: revoking the last key must not open a public server to anonymous use."""
    with state.session() as session:
        if not keys_configured(session):
            user = ensure_user(session, LOCAL_USER)
            session.commit()
            return user
        scheme, _, key = (authorization or "").partition(" ")
        if scheme.lower() != "bearer" or not key.strip():
            raise Unauthorized("Missing API key. Send it as 'Authorization: Bearer <key>'.")
        found = user_for_api_key(session, key.strip())
        if found is None:
            raise Unauthorized("Incorrect API key provided.")
        return found


CurrentUser = Annotated[User, Depends(get_current_user)]


def get_timezone(state: StateDep, x_suikou_timezone: Annotated[str | None, Header()] = None) -> str:
    name = (x_suikou_timezone or state.settings.timezone).strip()
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise BadRequest(f"Unknown timezone {name!r}.", param="X-Suikou-Timezone") from None
    return name


TimezoneDep = Annotated[str, Depends(get_timezone)]
