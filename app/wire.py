"""OpenAI chat-completions wire format: parsing requests and building responses and chunks."""

from __future__ import annotations

import json
import time
import uuid
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, ValidationError

from app.errors import BadRequest, UnsupportedMediaType
from core.trace import StageEvent, Usage
from route.aux import ChatText

Role = Literal["system", "developer", "user", "assistant", "tool", "function"]
TEXT_PART_TYPES = frozenset({"text", "input_text"})
MAX_BODY_BYTES = 4 * 1024 * 1024


class StreamOptions(BaseModel):
    model_config = ConfigDict(extra="ignore")
    include_usage: StrictBool | None = None


class MessageIn(BaseModel):
    model_config = ConfigDict(extra="ignore")
    role: Role
    content: str | list[dict[str, Any]] | None = None


class ChatRequest(BaseModel):
    """The fields Suikou reads; everything else a client sends is accepted and ignored."""

    model_config = ConfigDict(extra="allow")
    model: str = Field(min_length=1)
    messages: list[MessageIn] = Field(min_length=1)
    stream: StrictBool | None = False
    stream_options: StreamOptions | None = None
    n: int | None = None

    def extras(self) -> dict[str, Any]:
        return dict(self.model_extra or {})


def parse_chat_request(content_type: str | None, raw: bytes) -> ChatRequest:
    if not content_type or "json" not in content_type.lower():
        raise UnsupportedMediaType("Unsupported Content-Type; send the request body as application/json.", param=None)
    if len(raw) > MAX_BODY_BYTES:
        raise BadRequest("Request body too large.", code="request_too_large")
    try:
        data = json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        raise BadRequest("We could not parse the JSON body of your request.", code="invalid_json") from None
    if not isinstance(data, dict):
        raise BadRequest("The request body must be a JSON object.", code="invalid_json")
    try:
        request = ChatRequest.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        param = ".".join(str(p) for p in first["loc"]) or None
        raise BadRequest(f"Invalid value for '{param}': {first['msg']}", param=param) from None
    if request.n not in (None, 1):
        raise BadRequest("Only n=1 is supported.", param="n", code="unsupported_value")
    return request


def message_texts(request: ChatRequest, *, max_chars: int, max_messages: int | None = None) -> list[ChatText]:
    """Each message as plain text. Non-text parts and oversized messages are refused, not dropped."""
    if max_messages is not None and len(request.messages) > max_messages:
        raise BadRequest(
            f"Too many messages ({len(request.messages)}); the maximum is {max_messages}.",
            param="messages",
            code="array_above_max_length",
        )
    out: list[ChatText] = []
    for i, message in enumerate(request.messages):
        content = message.content
        if content is None:
            text = ""
        elif isinstance(content, str):
            text = content
        else:
            pieces = []
            for j, part in enumerate(content):
                kind = part.get("type")
                if kind not in TEXT_PART_TYPES or not isinstance(part.get("text"), str):
                    raise BadRequest(
                        f"Only text content parts are supported (got {kind!r}).",
                        param=f"messages.{i}.content.{j}.type",
                        code="unsupported_content_type",
                    )
                pieces.append(part["text"])
            text = "\n".join(pieces)
        if len(text) > max_chars:
            raise BadRequest(
                f"Message {i} is {len(text)} characters long; the maximum is {max_chars}.",
                param=f"messages.{i}.content",
                code="string_above_max_length",
            )
        out.append(ChatText(message.role, text))
    if out[-1].role == "user" and not out[-1].text.strip():
        raise BadRequest("The last user message is empty.", param=f"messages.{len(out) - 1}.content")
    return out


class ResponseIds:
    """One id, timestamp and model for every chunk of one response."""

    def __init__(self, model: str) -> None:
        self.id = f"chatcmpl-{uuid.uuid4().hex}"
        self.created = int(time.time())
        self.model = model


def usage_body(usage: Usage) -> dict[str, Any]:
    return {
        "prompt_tokens": usage.input_tokens,
        "completion_tokens": usage.output_tokens,
        "total_tokens": usage.input_tokens + usage.output_tokens,
        # Provider requests actually made for this answer (router, plan, reflect, ...), and the
        # node answers the offline rules gave instead (no request, no tokens).
        "model_requests": usage.requests,
        "offline_steps": usage.offline_steps,
    }


def completion_body(
    ids: ResponseIds, content: str, reasoning: str, events: list[StageEvent], usage: Usage
) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": content, "refusal": None}
    if reasoning:
        message["reasoning_content"] = reasoning
    body: dict[str, Any] = {
        "id": ids.id,
        "object": "chat.completion",
        "created": ids.created,
        "model": ids.model,
        "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": "stop"}],
        "usage": usage_body(usage),
    }
    if events:
        body["suikou_events"] = [e.as_dict() for e in events]
    return body


def chunk(
    ids: ResponseIds,
    delta: dict[str, Any],
    *,
    finish_reason: str | None = None,
    usage: bool = False,
    event: StageEvent | None = None,
) -> dict[str, Any]:
    body: dict[str, Any] = {
        "id": ids.id,
        "object": "chat.completion.chunk",
        "created": ids.created,
        "model": ids.model,
        "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish_reason}],
    }
    if usage:
        body["usage"] = None
    if event is not None:
        body["suikou_event"] = event.as_dict()
    return body


def usage_chunk(ids: ResponseIds, usage: Usage) -> dict[str, Any]:
    return {
        "id": ids.id,
        "object": "chat.completion.chunk",
        "created": ids.created,
        "model": ids.model,
        "choices": [],
        "usage": usage_body(usage),
    }


def sse(data: dict[str, Any] | str) -> str:
    payload = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return f"data: {payload}\n\n"
