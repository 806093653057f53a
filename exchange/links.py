"""Subscribe links to a user's calendar feed: a long random token in the URL stands in for the
Bearer key a calendar app can't send. Only its SHA-256 is stored; revoking deletes it, so a revoked
token reads like one never made (404)."""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import datetime

from sqlmodel import Session, col, select

from core.models import CalendarLink

__all__ = ["MAX_LINKS", "Made", "TooMany", "by_token", "delete", "listed", "make"]

MAX_LINKS = 20  # per user: a link per calendar app is a handful
_PREFIX = "cal_"


class TooMany(ValueError):
    pass


@dataclass(frozen=True)
class Made:
    link: CalendarLink
    token: str


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def make(session: Session, user_id: int, *, timezone: str, events: bool, now: datetime) -> Made:
    count = len(listed(session, user_id))
    if count >= MAX_LINKS:
        raise TooMany(f"at most {MAX_LINKS} calendar links: revoke one first")
    token = _PREFIX + secrets.token_urlsafe(32)
    link = CalendarLink(user_id=user_id, token_hash=_digest(token), timezone=timezone, events=events, created_at=now)
    session.add(link)
    session.commit()
    session.refresh(link)
    return Made(link, token)


def listed(session: Session, user_id: int) -> list[CalendarLink]:
    stmt = select(CalendarLink).where(col(CalendarLink.user_id) == user_id).order_by(col(CalendarLink.id))
    return list(session.exec(stmt))


def delete(session: Session, user_id: int, link_id: int) -> bool:
    link = session.get(CalendarLink, link_id)
    if link is None or link.user_id != user_id:
        return False
    session.delete(link)
    session.commit()
    return True


def by_token(session: Session, token: str) -> CalendarLink | None:
    """The link a token opens; None for a revoked, unknown or malformed one."""
    if not token.startswith(_PREFIX) or len(token) > 100:
        return None
    return session.exec(select(CalendarLink).where(col(CalendarLink.token_hash) == _digest(token))).first()
