"""REST `/webhooks`: where the caller's events go (reminders that fire, every change to a task),
and what happened to each delivery. Another user's webhook or delivery reads as missing (404)."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Annotated, Literal

import anyio.to_thread
from fastapi import APIRouter, Path, Query, status
from fastapi.responses import Response
from pydantic import BaseModel, Field

from app.api_tasks import INT32_MAX
from app.deps import CurrentUser, SessionDep, StateDep, TimezoneDep
from app.errors import BadRequest, NotFound, error_responses
from core.models import Delivery, Event, Webhook
from core.outbox import EVENT_TYPES
from webhooks import safety, service

router = APIRouter(prefix="/webhooks", tags=["webhooks"])

WebhookId = Annotated[int, Path(ge=1, le=INT32_MAX)]
EventName = Literal[
    "*", "reminder.due", "task.created", "task.updated", "task.completed", "task.reopened", "task.deleted"
]
assert set(EventName.__args__) == {"*", *EVENT_TYPES}  # type: ignore[attr-defined]


class WebhookCreate(BaseModel):
    """The body of POST /webhooks."""

    url: str = Field(
        min_length=1,
        max_length=safety.MAX_URL_CHARS,
        description="https:// (or http://) URL of a public address: private, loopback, link-local and metadata "
        "addresses are refused unless the server allows them (SUIKOU_WEBHOOK_ALLOW_PRIVATE).",
    )
    events: list[EventName] = Field(min_length=1, max_length=8, description='Event types, or ["*"] for all.')
    kind: Literal["generic", "feishu", "wecom", "dingtalk", "ntfy"] = Field(
        default="generic",
        description="generic: signed JSON; feishu (Lark) / dingtalk custom bots, a wecom group bot, an ntfy topic: "
        "their own message formats.",
    )
    secret: str | None = Field(
        default=None,
        min_length=1,
        max_length=service.MAX_SECRET_CHARS,
        description="generic: the signing key (made for you when absent); feishu/dingtalk: the bot's signing "
        "secret; ntfy: an access token. Shown again never.",
    )
    locale: Literal["zh", "en"] = Field(default="zh", description="The language of bot messages.")


class WebhookOut(BaseModel):
    id: int
    url: str
    kind: str
    events: list[str]
    locale: str
    timezone: str = Field(description="Bot messages show times in this zone (the X-Suikou-Timezone it was made with).")
    secret_set: bool = Field(description="Whether it has a secret; the secret itself is shown only when it is made.")
    created_at: datetime


class WebhookCreated(WebhookOut):
    secret: str | None = Field(description="The secret, this once: keep it to verify signatures.")


class WebhookList(BaseModel):
    items: list[WebhookOut]


class DeliveryOut(BaseModel):
    id: str = Field(description="The delivery id (X-Suikou-Delivery): the same on every attempt.")
    event_id: int
    event_type: str
    status: Literal["pending", "succeeded", "failed", "missed"]
    attempts: int
    next_attempt_at: datetime | None
    last_status: int | None = Field(description="The receiver's last HTTP status; null if it never answered.")
    last_error: str | None
    late: bool = Field(description="A reminder sent after the service was down, later than its time.")
    created_at: datetime
    delivered_at: datetime | None


class DeliveryList(BaseModel):
    items: list[DeliveryOut]


def _out(hook: Webhook) -> WebhookOut:
    assert hook.id is not None
    return WebhookOut(
        id=hook.id,
        url=hook.url,
        kind=hook.kind,
        events=json.loads(hook.events),
        locale=hook.locale,
        timezone=hook.timezone,
        secret_set=hook.secret is not None,
        created_at=hook.created_at,
    )


def _delivery(d: Delivery, e: Event) -> DeliveryOut:
    assert e.id is not None
    return DeliveryOut(
        id=d.id,
        event_id=e.id,
        event_type=e.type,
        status=d.status,  # type: ignore[arg-type]
        attempts=d.attempts,
        next_attempt_at=d.next_attempt_at,
        last_status=d.last_status,
        last_error=d.last_error,
        late=d.late,
        created_at=d.created_at,
        delivered_at=d.delivered_at,
    )


def _missing(webhook_id: int) -> NotFound:
    return NotFound(f"No webhook with id {webhook_id}.", param="webhook_id")


@router.post(
    "",
    response_model=WebhookCreated,
    status_code=status.HTTP_201_CREATED,
    responses=error_responses(400, 401, 413, 415, 500, 503),
)
async def create_webhook(body: WebhookCreate, user: CurrentUser, state: StateDep, tz: TimezoneDep) -> WebhookCreated:
    """A webhook for the caller's events; its URL is checked (and resolved) now and before every delivery."""
    assert user.id is not None
    user_id = user.id
    try:
        wanted = service.validate(
            events=list(body.events), kind=body.kind, secret=body.secret, locale=body.locale, timezone=tz
        )
        await service.check_url(body.url, allow_private=state.settings.webhook_allow_private)

        def insert() -> service.Created:
            with state.session() as session:
                return service.insert(
                    session, user_id, url=body.url, events=wanted, kind=body.kind, secret=body.secret,
                    locale=body.locale, timezone=tz, now=state.clock(),
                )  # fmt: skip

        created = await anyio.to_thread.run_sync(insert)
    except service.Invalid as exc:
        raise BadRequest(str(exc), param=exc.param) from exc
    return WebhookCreated(**_out(created.webhook).model_dump(), secret=created.secret)


@router.get("", response_model=WebhookList, responses=error_responses(400, 401, 500, 503))
def list_webhooks(session: SessionDep, user: CurrentUser) -> WebhookList:
    assert user.id is not None
    return WebhookList(items=[_out(h) for h in service.listed(session, user.id)])


@router.delete(
    "/{webhook_id}",
    status_code=status.HTTP_204_NO_CONTENT,
    response_class=Response,
    responses=error_responses(400, 401, 404, 500, 503),
)
def delete_webhook(webhook_id: WebhookId, session: SessionDep, user: CurrentUser) -> Response:
    """Deletes the webhook; its deliveries not yet sent are not sent."""
    assert user.id is not None
    if not service.delete(session, user.id, webhook_id):
        raise _missing(webhook_id)
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.get("/{webhook_id}/deliveries", response_model=DeliveryList, responses=error_responses(400, 401, 404, 500, 503))
def list_deliveries(
    webhook_id: WebhookId,
    session: SessionDep,
    user: CurrentUser,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
) -> DeliveryList:
    """The webhook's newest deliveries: status, attempts, the receiver's last answer."""
    assert user.id is not None
    if service.get(session, user.id, webhook_id) is None:
        raise _missing(webhook_id)
    return DeliveryList(
        items=[_delivery(d, e) for d, e in service.deliveries(session, user.id, webhook_id, limit=limit)]
    )


@router.post(
    "/{webhook_id}/deliveries/{delivery_id}/redeliver",
    response_model=DeliveryOut,
    status_code=status.HTTP_202_ACCEPTED,
    responses=error_responses(400, 401, 404, 500, 503),
)
async def redeliver(
    webhook_id: WebhookId,
    delivery_id: Annotated[str, Path(min_length=1, max_length=40, pattern="^dlv_[0-9a-f]{32}$")],
    user: CurrentUser,
    state: StateDep,
) -> DeliveryOut:
    """Sends the delivery again, with the same delivery id and a fresh set of attempts."""
    assert user.id is not None
    user_id = user.id

    def again() -> DeliveryOut | None:
        with state.session() as session:
            found = service.redeliver(session, user_id, webhook_id, delivery_id, now=state.clock())
            if found is None:
                return None
            event = session.get(Event, found.event_id)
            assert event is not None
            return _delivery(found, event)

    result = await anyio.to_thread.run_sync(again)
    if result is None:
        raise NotFound(f"No delivery {delivery_id} of webhook {webhook_id}.", param="delivery_id")
    return result
