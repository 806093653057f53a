"""A fake OpenAI-compatible chat-completions server for tests, on 127.0.0.1.

It is a real HTTP server (FastAPI under uvicorn, in a daemon thread), so pydantic-ai's real
`OpenAIChatModel` and the official `openai` SDK talk to it exactly as they would to a provider.

What it answers is chosen per request:

1. the next behaviour in the scripted queue (`fake.queue(...)`), if any; else
2. the behaviour registered for the request's `model` name (`fake.on_model(name, ...)`, plus the
   built-in names below); else
3. `Reply()`: call the first tool in `tools` with `{}` or, with no tools, say "ok".

Built-in model names: ``boom`` → HTTP 500, ``slow`` → sleep 2 s then reply, ``garbled`` → a tool
call whose arguments are not JSON, ``rambler`` → prose instead of tool calls (`Ramble`).

Every request body is recorded (`fake.requests`, in arrival order, recorded before answering),
so tests can assert what the provider was sent and how many attempts it made.
"""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
from collections import deque
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from typing import Any

import uvicorn
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response, StreamingResponse

# --- behaviours ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Reply:
    """A successful answer.

    With `tools` in the request: a call to the first tool (the output tool for structured output)
    with `args` (a dict, JSON-encoded; or a raw string sent as it is). Without tools: `text`.
    """

    args: dict[str, Any] | str = field(default_factory=dict)
    text: str = "ok"
    prompt_tokens: int = 11
    completion_tokens: int = 7
    # DeepSeek / Qwen style thinking, sent as `message.reasoning_content` beside the answer.
    reasoning: str | None = None


@dataclass(frozen=True)
class Fail:
    """An HTTP error with OpenAI's error body."""

    status: int = 500
    message: str = "kaboom"
    type: str = "server_error"


@dataclass(frozen=True)
class Sleep:
    """Sleeps `seconds` (past the client's timeout), then answers with `then`."""

    seconds: float = 2.0
    then: Reply = field(default_factory=Reply)


@dataclass(frozen=True)
class Malformed:
    """A tool call whose arguments are not valid JSON."""

    raw: str = '{"action": "task_query", "confidence": '


@dataclass(frozen=True)
class Cut:
    """A streamed text reply that stops after `text` without finishing: the connection just ends."""

    text: str = "好的，我来"


@dataclass(frozen=True)
class RejectShape:
    """A provider that refuses one request shape with a 400 (as DeepSeek does json_schema) and
    answers every other request with `then`. `shape`: "json_schema", "json_object" or "tools"."""

    shape: str = "json_schema"
    then: Reply = field(default_factory=Reply)
    message: str = "This response_format type is unavailable now"


@dataclass(frozen=True)
class Ramble:
    """A local server whose chat template ignores `tool_choice` (issue 22's SmolLM2 behind
    llama.cpp): a request that carries tools gets prose, never a tool call — `max_tokens` words of
    it, then finish_reason "length"; with `honours_max_tokens=False`, words until its `context` is
    full. `brief`: a short answer in prose instead, `brief` words ending with "stop". Each word is
    one completion token. A request without tools gets `then` (the template reads plain
    instructions fine). Streaming and not."""

    honours_max_tokens: bool = True
    context: int = 4096
    then: Reply = field(default_factory=Reply)
    prompt_tokens: int = 300
    brief: int | None = None

    def words(self, body: dict[str, Any]) -> tuple[int, str]:
        """How many words it writes, and the finish_reason."""
        limit = body.get("max_completion_tokens") or body.get("max_tokens")
        room = self.context - self.prompt_tokens
        most = min(int(limit), room) if self.honours_max_tokens and limit else room
        return (self.brief, "stop") if self.brief is not None and self.brief < most else (most, "length")


Behaviour = Reply | Fail | Sleep | Malformed | Cut | RejectShape | Ramble


def shape_of(body: dict[str, Any]) -> set[str]:
    """What kind of structured output a request asks for: its tools and response_format type."""
    kinds = {str((body.get("response_format") or {}).get("type"))} - {"None"}
    return kinds | ({"tools"} if body.get("tools") else set())


RAMBLE_WORD = "Sure! "  # one "token" of a Ramble

# The prompted-output instruction pydantic-ai adds (sent with or without response_format).
PROMPTED_MARKER = "Always respond with a JSON object"


def wants_json(body: dict[str, Any]) -> bool:
    system = "\n".join(str(m.get("content")) for m in body.get("messages", []) if m.get("role") == "system")
    return bool(shape_of(body) & {"json_schema", "json_object"}) or PROMPTED_MARKER in system


# Which node a request comes from, by the opening words of its instructions (see `on_node`).
NODE_MARKERS: dict[str, str] = {
    "route": "You are the action router",
    "plan": "You turn a user's casual question",
    "reflect": "You check whether a task query",
    "extract": "You turn a casual sentence into one task",
    "chat": "You are Suikou",
}


def node_of(body: dict[str, Any]) -> str | None:
    system = "\n".join(str(m.get("content")) for m in body.get("messages", []) if m.get("role") == "system")
    return next((node for node, marker in NODE_MARKERS.items() if marker in system), None)


BUILTIN: dict[str, Behaviour] = {
    "boom": Fail(),
    "slow": Sleep(),
    "garbled": Malformed(),
    "rambler": Ramble(),
}


# --- the server ---------------------------------------------------------------------------------


class FakeOpenAI:
    """Start with `start()` (returns the `/v1` base URL); `stop()` when done."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.auths: list[str | None] = []  # the Authorization header of each request, same order
        self._by_model: dict[str, Behaviour] = dict(BUILTIN)
        self._by_node: dict[str, Behaviour] = {}
        self._script: deque[Behaviour] = deque()
        self._lock = threading.Lock()
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self.base_url = ""
        self.app = self._make_app()

    # -- scripting --

    def queue(self, *behaviours: Behaviour) -> None:
        """The next requests get these behaviours, in order, whatever their model name."""
        with self._lock:
            self._script.extend(behaviours)

    def on_model(self, model: str, behaviour: Behaviour) -> None:
        with self._lock:
            self._by_model[model] = behaviour

    def on_node(self, node: str, behaviour: Behaviour) -> None:
        """Requests from one Suikou node (told apart by their instructions) get `behaviour`."""
        with self._lock:
            self._by_node[node] = behaviour

    def reset(self) -> None:
        """Forget recorded requests, the queue and per-model behaviours (built-ins stay)."""
        with self._lock:
            self.requests.clear()
            self.auths.clear()
            self._script.clear()
            self._by_model = dict(BUILTIN)
            self._by_node = {}

    def reset_requests(self) -> None:
        """Forget recorded requests only; scripted behaviours stay."""
        with self._lock:
            self.requests.clear()
            self.auths.clear()

    def seen(self, model: str | None = None) -> list[dict[str, Any]]:
        """Recorded request bodies, optionally only those for one model name."""
        with self._lock:
            return [r for r in self.requests if model is None or r.get("model") == model]

    def _choose(self, body: dict[str, Any], auth: str | None = None) -> Behaviour:
        with self._lock:
            self.requests.append(body)
            self.auths.append(auth)
            if self._script:
                return self._script.popleft()
            node = node_of(body)
            if node in self._by_node:
                return self._by_node[node]
            return self._by_model.get(str(body.get("model")), Reply())

    # -- lifecycle --

    def start(self) -> str:
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
        sock.close()
        config = uvicorn.Config(self.app, host="127.0.0.1", port=port, log_level="warning", timeout_graceful_shutdown=1)
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, name="fake-openai", daemon=True)
        self._thread.start()
        deadline = time.monotonic() + 10
        while not self._server.started:
            if time.monotonic() > deadline or not self._thread.is_alive():
                raise RuntimeError("fake OpenAI server did not start")
            time.sleep(0.01)
        self.base_url = f"http://127.0.0.1:{port}/v1"
        return self.base_url

    def stop(self) -> None:
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=5)

    # -- HTTP --

    def _make_app(self) -> FastAPI:
        app = FastAPI()

        @app.post("/v1/chat/completions")
        async def chat(request: Request) -> Any:
            body = await request.json()
            behaviour = self._choose(body, request.headers.get("authorization"))
            if isinstance(behaviour, RejectShape):
                if behaviour.shape in shape_of(body):
                    behaviour = Fail(400, behaviour.message, "invalid_request_error")
                else:
                    behaviour = behaviour.then
            if isinstance(behaviour, Sleep):
                # Sleep in small steps and give up once the client has hung up (its timeout), so
                # no handler outlives the test that started it.
                deadline = time.monotonic() + behaviour.seconds
                while time.monotonic() < deadline:
                    if await request.is_disconnected():
                        return Response(status_code=499)
                    await asyncio.sleep(0.02)
                behaviour = behaviour.then
            if isinstance(behaviour, Fail):
                error = {"message": behaviour.message, "type": behaviour.type, "param": None, "code": None}
                return JSONResponse({"error": error}, status_code=behaviour.status)
            if isinstance(behaviour, Cut):
                return StreamingResponse(_cut_stream(body["model"], behaviour.text), media_type="text/event-stream")
            if isinstance(behaviour, Ramble) and body.get("tools"):
                words, finish = behaviour.words(body)
                message = {"role": "assistant", "content": RAMBLE_WORD * words}
                usage = {
                    "prompt_tokens": behaviour.prompt_tokens,
                    "completion_tokens": words,
                    "total_tokens": behaviour.prompt_tokens + words,
                }
            else:
                if isinstance(behaviour, Ramble):
                    behaviour = behaviour.then
                message, finish = _message(body, behaviour)
                usage = _usage(behaviour)
            if body.get("stream"):
                include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
                chunks = _stream_chunks(body["model"], message, finish, usage if include_usage else None)
                return StreamingResponse(chunks, media_type="text/event-stream")
            return {
                "id": "chatcmpl-fake",
                "object": "chat.completion",
                "created": 1_700_000_000,
                "model": body["model"],
                "choices": [{"index": 0, "message": message, "finish_reason": finish, "logprobs": None}],
                "usage": usage,
            }

        return app


def _message(body: dict[str, Any], behaviour: Reply | Malformed) -> tuple[dict[str, Any], str]:
    tools = [t["function"]["name"] for t in body.get("tools") or []]
    if isinstance(behaviour, Malformed):
        arguments = behaviour.raw
    elif tools:
        args = behaviour.args
        arguments = args if isinstance(args, str) else json.dumps(args, ensure_ascii=False)
    elif wants_json(body):  # native or prompted output: the JSON is the message text
        args = behaviour.args
        return _with_reasoning(
            {"role": "assistant", "content": args if isinstance(args, str) else json.dumps(args, ensure_ascii=False)},
            behaviour,
        ), "stop"
    else:
        return _with_reasoning({"role": "assistant", "content": behaviour.text}, behaviour), "stop"
    call = {
        "id": "call_fake_1",
        "type": "function",
        "function": {"name": tools[0] if tools else "x", "arguments": arguments},
    }
    return _with_reasoning({"role": "assistant", "content": None, "tool_calls": [call]}, behaviour), "tool_calls"


def _with_reasoning(message: dict[str, Any], behaviour: Reply | Malformed) -> dict[str, Any]:
    reasoning = behaviour.reasoning if isinstance(behaviour, Reply) else None
    return message if reasoning is None else {**message, "reasoning_content": reasoning}


def _usage(behaviour: Reply | Malformed) -> dict[str, int]:
    prompt, completion = (
        (behaviour.prompt_tokens, behaviour.completion_tokens) if isinstance(behaviour, Reply) else (5, 5)
    )
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}


def _stream_chunks(model: str, message: dict[str, Any], finish: str, usage: dict[str, int] | None) -> Iterator[str]:
    """`chat.completion.chunk` SSE events: role, content (word-sized) or tool call, finish, usage."""

    def event(delta: dict[str, Any], finish_reason: str | None = None) -> str:
        chunk = {
            "id": "chatcmpl-fake",
            "object": "chat.completion.chunk",
            "created": 1_700_000_000,
            "model": model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}],
        }
        return f"data: {json.dumps(chunk, ensure_ascii=False)}\n\n"

    yield event({"role": "assistant", "content": ""})
    if message.get("tool_calls"):
        call = message["tool_calls"][0]
        yield event({"tool_calls": [{"index": 0, **call}]})
    else:
        text = message["content"]
        for i in range(0, len(text), 4):
            yield event({"content": text[i : i + 4]})
    yield event({}, finish)
    if usage is not None:
        tail = {
            "id": "chatcmpl-fake",
            "object": "chat.completion.chunk",
            "created": 1_700_000_000,
            "model": model,
            "choices": [],
            "usage": usage,
        }
        yield f"data: {json.dumps(tail)}\n\n"
    yield "data: [DONE]\n\n"


async def _cut_stream(model: str, text: str) -> AsyncIterator[str]:
    """Some content chunks, then the connection drops: no finish chunk, no [DONE]."""
    for piece in _stream_chunks(model, {"content": text}, "stop", None):
        if '"finish_reason": "stop"' in piece:
            break
        yield piece
        await asyncio.sleep(0.01)
    raise ConnectionResetError("provider dropped the stream")
