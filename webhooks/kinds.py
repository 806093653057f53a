"""How each kind of receiver is spoken to: the request for one delivery, and whether it was taken.

* ``generic`` — JSON ``{id, type, created_at, data}``, signed like Stripe's webhooks:
  ``X-Suikou-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>``, with
  ``X-Suikou-Event`` (the type) and ``X-Suikou-Delivery`` (the same on every retry: receivers
  dedupe on it). Any 2xx is taken.
* ``feishu`` — a Feishu/Lark custom bot: ``{"msg_type": "text", "content": {"text": …}}``; with a
  secret, ``timestamp`` and ``sign`` = Base64(HMAC-SHA256(key="<timestamp>\\n<secret>", msg=""))
  in the body. Taken when the reply's ``code`` (or the older ``StatusCode``) is 0.
* ``wecom`` — a WeCom (企业微信) group bot: ``{"msgtype": "text", "text": {"content": …}}`` to the
  URL with its key; taken when ``errcode`` is 0.
* ``dingtalk`` — a DingTalk custom robot: the same body shape; with a secret, ``timestamp`` (ms)
  and ``sign`` = URL-encoded Base64(HMAC-SHA256(key=secret, msg="<timestamp>\\n<secret>")) added
  to the URL's query; taken when ``errcode`` is 0.
* ``ntfy`` — an ntfy topic URL: the message as the body, ``Title`` (RFC 2047 when not ASCII),
  ``Priority`` (high for reminders), ``Tags``; a secret is sent as ``Authorization: Bearer``.
  Any 2xx is taken.

Bots get one line of text in the webhook's language and time zone ("⏰ 提醒：交报告（12月3日 周四
15:00 截止）"); a generic receiver gets the data itself.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from dataclasses import dataclass, field
from datetime import datetime
from email.header import Header
from typing import Any, Literal
from urllib.parse import quote_plus, urlsplit, urlunsplit

from core.display import format_when
from core.locale import Locale

__all__ = ["KINDS", "Kind", "Outgoing", "accepted", "message", "render", "sign_generic"]

Kind = Literal["generic", "feishu", "wecom", "dingtalk", "ntfy"]
KINDS: tuple[Kind, ...] = ("generic", "feishu", "wecom", "dingtalk", "ntfy")
# Kinds whose secret is optional (a bot without signing, a public ntfy topic, a WeCom key in the URL).
SECRET_OPTIONAL = frozenset({"feishu", "wecom", "dingtalk", "ntfy"})


@dataclass(frozen=True)
class Outgoing:
    url: str
    body: bytes
    headers: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Envelope:
    """What one delivery says: the event, and how its receiver wants it worded."""

    delivery_id: str
    event_id: int
    event_type: str
    created_at: datetime
    data: dict[str, Any]
    locale: Locale
    tz: str


# --- the words bots show ----------------------------------------------------------------------

_LINES: dict[str, dict[str, str]] = {
    "zh": {
        "reminder.due": "⏰ 提醒：{title}",
        "task.created": "新任务：{title}",
        "task.updated": "任务有改动：{title}",
        "task.completed": "✅ 已完成：{title}",
        "task.reopened": "重新打开：{title}",
        "task.deleted": "已删除：{title}",
        "due": "（{when} 截止）",
        "late": "（这条提醒晚了，原定 {when}）",
        "undo": "（撤销）",
    },
    "en": {
        "reminder.due": "⏰ Reminder: {title}",
        "task.created": "New task: {title}",
        "task.updated": "Task changed: {title}",
        "task.completed": "✅ Done: {title}",
        "task.reopened": "Reopened: {title}",
        "task.deleted": "Deleted: {title}",
        "due": " (due {when})",
        "late": " (a late reminder, meant for {when})",
        "undo": " (undone)",
    },
}


def _moment(value: Any) -> datetime | None:
    try:
        return datetime.fromisoformat(value) if isinstance(value, str) else None
    except ValueError:
        return None


def message(env: Envelope) -> tuple[str, str]:
    """(title, one line) a bot shows for the event, in the webhook's language and zone."""
    lines = _LINES[env.locale]
    task = env.data.get("task") or {}
    title = lines.get(env.event_type, "{title}").format(title=task.get("title", ""))
    text = title
    deadline = _moment(task.get("deadline_at"))
    if deadline is not None and env.event_type in ("reminder.due", "task.created", "task.updated"):
        text += lines["due"].format(when=format_when(deadline, env.tz, env.created_at, env.locale))
    meant = _moment((env.data.get("reminder") or {}).get("at"))
    if env.data.get("late") and meant is not None:
        text += lines["late"].format(when=format_when(meant, env.tz, env.created_at, env.locale))
    if env.data.get("undo"):
        text += lines["undo"]
    return title, text


# --- requests ---------------------------------------------------------------------------------


def sign_generic(secret: str, timestamp: int, body: bytes) -> str:
    """The ``X-Suikou-Signature`` value for ``body`` sent at ``timestamp`` (unix seconds)."""
    digest = hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256).hexdigest()
    return f"t={timestamp},v1={digest}"


def _json(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()


def _generic(url: str, secret: str | None, env: Envelope, now: int) -> Outgoing:
    body = _json(
        {
            "id": f"evt_{env.event_id}",
            "type": env.event_type,
            "created_at": env.created_at.isoformat(),
            "data": env.data,
        }
    )
    headers = {
        "Content-Type": "application/json",
        "X-Suikou-Event": env.event_type,
        "X-Suikou-Delivery": env.delivery_id,
    }
    if secret:
        headers["X-Suikou-Signature"] = sign_generic(secret, now, body)
    return Outgoing(url, body, headers)


def _feishu(url: str, secret: str | None, env: Envelope, now: int) -> Outgoing:
    payload: dict[str, Any] = {"msg_type": "text", "content": {"text": message(env)[1]}}
    if secret:
        key = f"{now}\n{secret}".encode()
        payload = {
            "timestamp": str(now),
            "sign": base64.b64encode(hmac.new(key, b"", hashlib.sha256).digest()).decode(),
            **payload,
        }
    return Outgoing(url, _json(payload), {"Content-Type": "application/json"})


def _wecom(url: str, _secret: str | None, env: Envelope, _now: int) -> Outgoing:
    body = _json({"msgtype": "text", "text": {"content": message(env)[1]}})
    return Outgoing(url, body, {"Content-Type": "application/json"})


def _dingtalk(url: str, secret: str | None, env: Envelope, now: int) -> Outgoing:
    if secret:
        millis = now * 1000
        digest = hmac.new(secret.encode(), f"{millis}\n{secret}".encode(), hashlib.sha256).digest()
        sign = quote_plus(base64.b64encode(digest).decode())
        parts = urlsplit(url)
        query = f"{parts.query}&" if parts.query else ""
        url = urlunsplit(parts._replace(query=f"{query}timestamp={millis}&sign={sign}"))
    body = _json({"msgtype": "text", "text": {"content": message(env)[1]}})
    return Outgoing(url, body, {"Content-Type": "application/json"})


def _header_text(value: str) -> str:
    """A header value as ntfy reads it: as is when ASCII, else an RFC 2047 encoded word."""
    return value if value.isascii() else Header(value, "utf-8").encode()


def _ntfy(url: str, secret: str | None, env: Envelope, _now: int) -> Outgoing:
    title, text = message(env)
    reminder = env.event_type == "reminder.due"
    headers = {
        "Content-Type": "text/plain; charset=utf-8",
        "Title": _header_text(title),
        "Priority": "high" if reminder else "default",
        "Tags": "alarm_clock" if reminder else "memo",
    }
    if secret:
        headers["Authorization"] = f"Bearer {secret}"
    return Outgoing(url, text.encode(), headers)


_RENDER = {"generic": _generic, "feishu": _feishu, "wecom": _wecom, "dingtalk": _dingtalk, "ntfy": _ntfy}


def render(kind: str, url: str, secret: str | None, env: Envelope, *, now: int) -> Outgoing:
    """The request that delivers ``env`` to a receiver of ``kind`` at ``url``, at unix time ``now``."""
    out = _RENDER[kind](url, secret, env, now)
    return Outgoing(out.url, out.body, {"User-Agent": "Suikou-Webhooks/1", **out.headers})


def accepted(kind: str, status: int, body: bytes) -> str | None:
    """None when the receiver took the delivery, else why not (kept as the delivery's last error)."""
    if not 200 <= status < 300:
        return f"HTTP {status}: {body[:200].decode('utf-8', 'replace')}".strip()
    if kind not in ("feishu", "wecom", "dingtalk"):
        return None
    try:
        reply = json.loads(body or b"{}")
    except ValueError:
        return f"not JSON: {body[:200].decode('utf-8', 'replace')}"
    if not isinstance(reply, dict):
        return "not a JSON object"
    code = reply.get("code", reply.get("StatusCode")) if kind == "feishu" else reply.get("errcode")
    if code in (0, None) and (kind == "feishu" or code == 0):
        return None
    why = reply.get("msg") or reply.get("errmsg") or reply.get("StatusMessage") or ""
    return f"{kind} error {code}: {why}"
