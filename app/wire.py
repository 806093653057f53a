"""OpenAI chat-completions wire format: parsing requests and building responses and chunks."""

from __future__ import annotations

import json
import re
import time
import uuid
from dataclasses import dataclass
from typing import Annotated, Any, Literal, get_args

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    ValidationError,
    WithJsonSchema,
)

from app.errors import BadRequest, UnsupportedMediaType, is_json
from core.models import PLAIN_TEXT, TEXT_RULES, VISIBLE_TEXT, text_problem, text_rules, whole_number
from core.trace import StageEvent, StageStatus, Usage
from core.turn import ChatText

Role = Literal["system", "developer", "user", "assistant", "tool", "function"]
TEXT_PART_TYPES = ("text", "input_text")
MAX_MODEL_CHARS = 256
MAX_CONTENT_PARTS = 64
# Chat bodies are shallow (tool schemas included); deeper ones are refused before anything walks them.
MAX_JSON_DEPTH = 64

# Component names in the OpenAPI document (see `chat_schemas`).
CHAT_REQUEST = "ChatRequest"
CHAT_CONTENT = "ChatContent"
USER_CONTENT = "UserContent"


def _content_shape(value: Any) -> Any:
    """A message's content is a string, a list of parts (objects) or null; `message_texts` reads the parts."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(part, dict) for part in value):
        return value
    raise ValueError("must be a string, an array of content parts (objects), or null")


# Its schema is `ChatContent`, with this server's bounds (see `chat_schemas`).
Content = Annotated[str | list[dict[str, Any]] | None, BeforeValidator(_content_shape)]
ModelName = Annotated[
    str,
    Field(min_length=1, max_length=MAX_MODEL_CHARS),
    text_rules(*TEXT_RULES),
    WithJsonSchema({"type": "string", "minLength": 1, "maxLength": MAX_MODEL_CHARS, "pattern": PLAIN_TEXT}),
]


class StreamOptions(BaseModel):
    model_config = ConfigDict(extra="ignore")
    include_usage: StrictBool | None = None


class MessageIn(BaseModel):
    model_config = ConfigDict(extra="ignore")
    role: Role
    content: Content = None


class ChatRequest(BaseModel):
    """The fields Suikou reads; everything else a client sends is accepted and ignored.

    Every `user` message has content: a string that is not blank, or at least one part. Rules JSON
    Schema cannot state: the last `user` message must have text, and only text parts; parts of
    other types (images, audio, files) in earlier messages are ignored, as clients resend whole
    histories. A body nested deeper than 64 levels is refused.
    """

    model_config = ConfigDict(extra="allow")
    model: ModelName
    messages: list[MessageIn] = Field(min_length=1)
    stream: StrictBool | None = False
    stream_options: StreamOptions | None = None
    n: Annotated[
        StrictInt | None, BeforeValidator(whole_number), WithJsonSchema({"anyOf": [{"const": 1}, {"type": "null"}]})
    ] = None

    def extras(self) -> dict[str, Any]:
        return dict(self.model_extra or {})


def chat_schemas(*, max_chars: int, max_messages: int) -> dict[str, Any]:
    """The chat request's components for the OpenAPI document, with this server's bounds."""
    request = ChatRequest.model_json_schema(ref_template="#/components/schemas/{model}")
    schemas: dict[str, Any] = request.pop("$defs")
    request["properties"]["messages"]["maxItems"] = max_messages
    schemas["MessageIn"]["properties"]["content"] = {"$ref": f"#/components/schemas/{CHAT_CONTENT}"}
    text = {"type": "string", "maxLength": max_chars, "pattern": PLAIN_TEXT}
    text_part = {
        "type": "object",
        "properties": {"type": {"enum": list(TEXT_PART_TYPES)}, "text": text},
        "required": ["type", "text"],
    }
    other_part = {
        "type": "object",
        "description": "Images, audio, files: ignored in earlier messages, refused in the last user message.",
        "properties": {"type": {"type": "string", "not": {"enum": list(TEXT_PART_TYPES)}}},
        "required": ["type"],
    }
    parts = {"type": "array", "maxItems": MAX_CONTENT_PARTS, "items": {"anyOf": [text_part, other_part]}}
    schemas[CHAT_CONTENT] = {"anyOf": [text, parts, {"type": "null"}]}
    # What `message_texts` requires of every user message (see `_no_content`).
    schemas[USER_CONTENT] = {"anyOf": [{**text, "pattern": VISIBLE_TEXT}, {**parts, "minItems": 1}]}
    message = schemas.pop("MessageIn")
    others = [role for role in get_args(Role) if role != "user"]
    schemas["MessageIn"] = {
        "title": message["title"],
        "type": "object",
        "anyOf": [
            {
                "properties": {"role": {"const": "user"}, "content": {"$ref": f"#/components/schemas/{USER_CONTENT}"}},
                "required": ["role", "content"],
            },
            {"properties": {**message["properties"], "role": {"enum": others}}, "required": ["role"]},
        ],
    }
    schemas[CHAT_REQUEST] = request
    return schemas


def _too_deep(value: Any, limit: int) -> bool:
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else ()
        for child in children:
            if isinstance(child, dict | list):
                if depth + 1 > limit:
                    return True
                stack.append((child, depth + 1))
    return False


def _no_constants(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _load_json(raw: bytes) -> Any:
    try:
        return json.loads(raw, parse_constant=_no_constants)
    except (ValueError, UnicodeDecodeError, RecursionError):
        raise BadRequest("We could not parse the JSON body of your request.", code="invalid_json") from None


def parse_chat_request(content_type: str | None, raw: bytes) -> ChatRequest:
    if not is_json(content_type):
        raise UnsupportedMediaType("Unsupported Content-Type; send the request body as application/json.", param=None)
    data = _load_json(raw)
    if not isinstance(data, dict):
        raise BadRequest("The request body must be a JSON object.", code="invalid_json")
    if _too_deep(data, MAX_JSON_DEPTH):
        raise BadRequest(f"The request body is nested deeper than {MAX_JSON_DEPTH} levels.", code="invalid_json")
    try:
        request = ChatRequest.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        param = ".".join(str(p) for p in first["loc"]) or None
        raise BadRequest(f"Invalid value for '{param}': {first['msg']}", param=param) from None
    if request.n not in (None, 1):
        raise BadRequest("Only n=1 is supported.", param="n", code="unsupported_value")
    return request


def _checked_text(text: Any, param: str, max_chars: int) -> str:
    if not isinstance(text, str):
        raise BadRequest("A text part needs a string 'text'.", param=param)
    if len(text) > max_chars:
        raise BadRequest(
            f"A text of {len(text)} characters; the maximum is {max_chars}.",
            param=param,
            code="string_above_max_length",
        )
    if problem := text_problem(text, TEXT_RULES):
        raise BadRequest(f"Text {problem}.", param=param)
    return text


def _message_text(content: str | list[dict[str, Any]] | None, param: str, *, max_chars: int, latest: bool) -> str:
    """A message's text. Non-text parts are ignored, except in the latest user message: its words are
    what the turn answers, and answering them without what was attached would mislead."""
    if content is None:
        return ""
    if isinstance(content, str):
        return _checked_text(content, param, max_chars)
    if len(content) > MAX_CONTENT_PARTS:
        raise BadRequest(
            f"{len(content)} content parts; the maximum is {MAX_CONTENT_PARTS}.",
            param=param,
            code="array_above_max_length",
        )
    pieces = []
    for j, part in enumerate(content):
        kind = part.get("type")
        if not isinstance(kind, str):
            raise BadRequest("A content part needs a string 'type'.", param=f"{param}.{j}.type")
        if kind in TEXT_PART_TYPES:
            pieces.append(_checked_text(part.get("text"), f"{param}.{j}.text", max_chars))
        elif latest:
            raise BadRequest(
                f"The last user message can have text parts only (got {kind!r}); Suikou reads text.",
                param=f"{param}.{j}.type",
                code="unsupported_content_type",
            )
    return "\n".join(pieces)


def message_texts(request: ChatRequest, *, max_chars: int, max_messages: int | None = None) -> list[ChatText]:
    """Each message as plain text (text parts joined with a newline); see `_message_text`."""
    if max_messages is not None and len(request.messages) > max_messages:
        raise BadRequest(
            f"Too many messages ({len(request.messages)}); the maximum is {max_messages}.",
            param="messages",
            code="array_above_max_length",
        )
    latest = max((i for i, m in enumerate(request.messages) if m.role == "user"), default=None)
    out = []
    for i, m in enumerate(request.messages):
        param = f"messages.{i}.content"
        if m.role == "user" and _no_content(m.content):
            raise BadRequest(_NO_TEXT if i == latest else "A user message has no content.", param=param)
        out.append(ChatText(m.role, _message_text(m.content, param, max_chars=max_chars, latest=i == latest)))
    if latest is not None and not out[latest].text.strip():
        raise BadRequest(_NO_TEXT, param=f"messages.{latest}.content")
    return out


_NO_TEXT = "The last user message has no text."


def _no_content(content: str | list[dict[str, Any]] | None) -> bool:
    """A user message with nothing in it, wherever it is (the document's `UserContent` refuses it,
    as JSON Schema can say this of every message but not of the last alone). Suikou never answered
    a conversation that ended in one, so a history with one was not Suikou's."""
    return content is None or content == [] or (isinstance(content, str) and not content.strip())


# --- stage display (docs/fdr/0021-stage-display.md) -----------------------------------------------

StageDisplay = Literal["reasoning", "think", "none"]
STAGE_DISPLAYS: tuple[StageDisplay, ...] = ("reasoning", "think", "none")
STAGE_HEADER = "X-Suikou-Stages"
# Model ids `<served id>-<suffix>`, for UIs where picking a model is the only per-chat choice.
# `none` is an unlisted alias of `plain`.
MODEL_SUFFIXES: dict[str, StageDisplay] = {"think": "think", "plain": "none", "none": "none"}
LISTED_SUFFIXES = ("think", "plain")
THINK_OPEN = "<think>\n"
THINK_CLOSE = "</think>\n\n"
# A task title or query echoed in a stage line must not open or close the block early.
_THINK_TAG = re.compile(r"<(/?think)>", re.IGNORECASE)


def think_safe(text: str) -> str:
    return _THINK_TAG.sub(r"‹\1›", text)


def model_display(model: str, served_id: str) -> StageDisplay | None:
    """The display a model id asks for (`suikou-think`), or None for any other id."""
    base, _, suffix = model.rpartition("-")
    return MODEL_SUFFIXES.get(suffix) if base == served_id else None


def stage_display(header: str | None, model: str, served_id: str, default: StageDisplay) -> StageDisplay:
    """Header, then model suffix, then the setting. An unknown header value is a 400."""
    if header is not None:
        # Exactly as the OpenAPI document's enum says: a near miss ("Think") is a typo to report.
        if header not in STAGE_DISPLAYS:
            raise BadRequest(
                f"Unknown {STAGE_HEADER} value {header[:64]!r}; use one of: {', '.join(STAGE_DISPLAYS)}.",
                param=STAGE_HEADER,
                code="unsupported_value",
            )
        return header
    return model_display(model, served_id) or default


@dataclass
class StageView:
    """The deltas of one streamed response in one display mode.

    `reasoning`: stage lines in `reasoning_content`, every delta carries both keys (DeepSeek's
    layout). `think`: the lines open a `<think>` block at the start of `content`, closed in its own
    chunk before the answer (NextChat needs `<think>` to start a chunk and `</think>` to end one);
    no `reasoning_content` key at all. `none`: no lines. In every mode the structured `suikou_event`
    field rides on the stage's chunk.
    """

    mode: StageDisplay
    answering: bool = False  # the answer text has begun: later stages travel only as `suikou_event`
    open_think: bool = False

    def delta(self, content: str | None, reasoning: str | None = None) -> dict[str, Any]:
        if self.mode == "reasoning":
            return {"content": content, "reasoning_content": reasoning}
        return {"content": content or ""}

    def role(self) -> dict[str, Any]:
        return {"role": "assistant", **self.delta("")}

    def stage(self, event: StageEvent) -> dict[str, Any]:
        if self.mode == "reasoning":
            return self.delta("", None) if self.answering else self.delta(None, event.as_line())
        if self.answering or self.mode == "none":
            return self.delta("")
        opening = "" if self.open_think else THINK_OPEN
        self.open_think = True
        return self.delta(opening + think_safe(event.as_line()))

    def close(self) -> list[dict[str, Any]]:
        """The delta closing an open think block (none when there is none)."""
        if not self.open_think:
            return []
        self.open_think = False
        return [self.delta(THINK_CLOSE)]

    def answer(self, text: str) -> list[dict[str, Any]]:
        self.answering = True
        return [*self.close(), self.delta(text)]


# --- responses ----------------------------------------------------------------------------------
# Models of what `completion_body` and `chunk` build, for the OpenAPI document (the bodies are built
# as dicts; the schemathesis test checks every answer against these).


class SuikouEvent(BaseModel):
    stage: str
    status: StageStatus
    message: str
    data: dict[str, Any] | None = Field(default=None, description="Absent when empty.")
    elapsed_ms: float | None = Field(default=None, description="Absent for events without a duration.")


class AssistantMessage(BaseModel):
    role: Literal["assistant"]
    content: str
    refusal: None
    reasoning_content: str | None = Field(
        default=None, description="The stage lines; absent when there are none or the stage display is not `reasoning`."
    )


class Choice(BaseModel):
    index: int
    message: AssistantMessage
    logprobs: None
    finish_reason: Literal["stop"]


class UsageOut(BaseModel):
    prompt_tokens: int
    completion_tokens: int
    total_tokens: int
    model_requests: int = Field(description="Provider requests made for this answer.")
    offline_steps: int = Field(description="Node answers the offline rules gave instead.")


class ChatCompletion(BaseModel):
    """A whole answer (`stream` false)."""

    id: str
    object: Literal["chat.completion"]
    created: int
    model: str
    choices: list[Choice]
    usage: UsageOut
    suikou_events: list[SuikouEvent] | None = Field(default=None, description="Absent when there are none.")


SSE_EVENT = {
    "type": "object",
    "required": ["data"],
    "properties": {
        "data": {
            "type": "string",
            "description": "A `chat.completion.chunk` as JSON (with `suikou_event` on stage chunks), an error "
            "envelope after a failure, then `[DONE]`.",
        }
    },
}


class ModelCard(BaseModel):
    id: str
    object: Literal["model"]
    created: int
    owned_by: str


class ModelList(BaseModel):
    object: Literal["list"]
    data: list[ModelCard]


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
    ids: ResponseIds,
    content: str,
    reasoning: str,
    events: list[StageEvent],
    usage: Usage,
    display: StageDisplay = "reasoning",
) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": content, "refusal": None}
    if reasoning and display == "reasoning":
        message["reasoning_content"] = reasoning
    elif reasoning and display == "think":
        message["content"] = f"{THINK_OPEN}{think_safe(reasoning)}{THINK_CLOSE}{content}"
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
