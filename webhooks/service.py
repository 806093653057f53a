"""A user's webhooks and their deliveries: what REST, MCP and the CLI call (always for one user;
another user's webhook or delivery reads as missing)."""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass
from datetime import datetime
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import sqlalchemy as sa
from sqlmodel import Session, col, select

from core.models import Delivery, Event, Webhook
from core.outbox import EVENT_TYPES
from webhooks import kinds, safety

__all__ = [
    "MAX_WEBHOOKS",
    "Invalid",
    "check_url",
    "create",
    "delete",
    "deliveries",
    "get",
    "insert",
    "listed",
    "redeliver",
    "validate",
]

MAX_WEBHOOKS = 20
MAX_SECRET_CHARS = 200


class Invalid(ValueError):
    """A webhook that can't be created as asked; ``param`` names the field."""

    def __init__(self, message: str, param: str) -> None:
        super().__init__(message)
        self.param = param


@dataclass(frozen=True)
class Created:
    webhook: Webhook
    secret: str | None  # shown this once


def _events(events: list[str]) -> list[str]:
    if not events:
        raise Invalid('List at least one event, or ["*"] for all.', "events")
    unknown = [e for e in events if e != "*" and e not in EVENT_TYPES]
    if unknown:
        raise Invalid(f"Unknown event {unknown[0]!r}; known: {', '.join(EVENT_TYPES)} or *.", "events")
    return ["*"] if "*" in events else sorted(set(events), key=EVENT_TYPES.index)


def validate(*, events: list[str], kind: str, secret: str | None, locale: str, timezone: str) -> list[str]:
    """The events a webhook takes, or :class:`Invalid` naming what can't be (no I/O)."""
    if kind not in kinds.KINDS:
        raise Invalid(f"Unknown kind {kind!r}; known: {', '.join(kinds.KINDS)}.", "kind")
    if locale not in ("zh", "en"):
        raise Invalid("locale is zh or en.", "locale")
    try:
        ZoneInfo(timezone)
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise Invalid(f"Unknown time zone {timezone!r}.", "timezone") from exc
    if secret is not None and not 1 <= len(secret) <= MAX_SECRET_CHARS:
        raise Invalid(f"A secret is 1 to {MAX_SECRET_CHARS} characters.", "secret")
    if secret is not None and kind == "ntfy" and not (secret.isascii() and secret.isprintable() and " " not in secret):
        raise Invalid("An ntfy secret is an access token (ASCII, no spaces), sent as a Bearer token.", "secret")
    if kind == "wecom" and secret is not None:
        raise Invalid("A WeCom group bot takes no secret: its key is part of the URL.", "secret")
    return _events(events)


async def check_url(url: str, *, allow_private: bool) -> None:
    """The URL resolves to addresses a webhook may use, or :class:`Invalid`."""
    try:
        await safety.resolve(url, allow_private=allow_private)
    except safety.Refused as exc:
        raise Invalid(str(exc), "url") from exc


def insert(
    session: Session,
    user_id: int,
    *,
    url: str,
    events: list[str],
    kind: str,
    secret: str | None,
    locale: str,
    timezone: str,
    now: datetime,
) -> Created:
    """Stores a webhook already validated and checked; a generic one without a secret gets a
    random one (returned here only)."""
    count = session.execute(sa.select(sa.func.count()).where(col(Webhook.user_id) == user_id)).scalar_one()
    if count >= MAX_WEBHOOKS:
        raise Invalid(f"A user has at most {MAX_WEBHOOKS} webhooks; delete one first.", "url")
    if secret is None and kind == "generic":
        secret = f"whsec_{secrets.token_urlsafe(24)}"
    hook = Webhook(
        user_id=user_id,
        url=url.strip(),
        kind=kind,
        events=json.dumps(events),
        secret=secret,
        locale=locale,
        timezone=timezone,
        created_at=now,
    )
    session.add(hook)
    session.commit()
    return Created(hook, secret)


async def create(
    session: Session,
    user_id: int,
    *,
    url: str,
    events: list[str],
    kind: str = "generic",
    secret: str | None = None,
    locale: str = "zh",
    timezone: str,
    now: datetime,
    allow_private: bool,
) -> Created:
    """:func:`validate`, :func:`check_url`, :func:`insert` (the CLI's and tests' one call)."""
    wanted = validate(events=events, kind=kind, secret=secret, locale=locale, timezone=timezone)
    await check_url(url, allow_private=allow_private)
    return insert(
        session, user_id, url=url, events=wanted, kind=kind, secret=secret, locale=locale, timezone=timezone, now=now
    )


def listed(session: Session, user_id: int) -> list[Webhook]:
    return list(session.exec(select(Webhook).where(col(Webhook.user_id) == user_id).order_by(col(Webhook.id))))


def get(session: Session, user_id: int, webhook_id: int) -> Webhook | None:
    hook = session.get(Webhook, webhook_id)
    return hook if hook is not None and hook.user_id == user_id else None


def delete(session: Session, user_id: int, webhook_id: int) -> bool:
    """Deletes the webhook and its deliveries (pending ones are not sent)."""
    hook = get(session, user_id, webhook_id)
    if hook is None:
        return False
    session.execute(sa.delete(Delivery).where(col(Delivery.webhook_id) == webhook_id))
    session.delete(hook)
    session.commit()
    return True


def deliveries(session: Session, user_id: int, webhook_id: int, *, limit: int = 50) -> list[tuple[Delivery, Event]]:
    """The webhook's newest deliveries with their events; empty for another user's webhook."""
    stmt = (
        select(Delivery, Event)
        .join(Event, col(Event.id) == col(Delivery.event_id))
        .where(col(Delivery.webhook_id) == webhook_id, col(Delivery.user_id) == user_id)
        .order_by(col(Delivery.created_at).desc(), col(Event.id).desc())
        .limit(limit)
    )
    return [(d, e) for d, e in session.exec(stmt)]


def redeliver(session: Session, user_id: int, webhook_id: int, delivery_id: str, *, now: datetime) -> Delivery | None:
    """Sends the delivery again (same delivery id) with a fresh set of attempts; None when it is not
    this user's webhook's. A delivery in flight is left to finish (it reads as pending)."""
    delivery = session.get(Delivery, delivery_id)
    if delivery is None or delivery.user_id != user_id or delivery.webhook_id != webhook_id:
        return None
    if delivery.lease_until is None or delivery.lease_until < now:
        delivery.status, delivery.attempts, delivery.next_attempt_at = "pending", 0, now
        delivery.lease_until, delivery.lease_token = None, None
        session.add(delivery)
        session.commit()
    return delivery
