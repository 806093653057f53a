"""Stage events and the per-request trace.

Every graph node, the router, broadening, retries and fallbacks report here. The HTTP layer turns
each event into a `reasoning_content` line plus a structured `suikou_event` object; the CLI prints
them; the request log line is built from the same trace.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager, nullcontext
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Literal, ParamSpec, TypeVar

StageStatus = Literal["start", "end", "info", "error"]

P = ParamSpec("P")
R = TypeVar("R")

# Observability hooks. core never imports the app (tests/test_layout.py): the app binds these per
# request (app/metrics.py, app/tracing.py), and unbound each costs one ContextVar read.
SpanFactory = Callable[[str, Mapping[str, Any]], AbstractContextManager[Any]]
_SPANS: ContextVar[SpanFactory | None] = ContextVar("suikou_spans", default=None)
_WATCHED: ContextVar[list[Trace] | None] = ContextVar("suikou_watched_traces", default=None)


def traced(name: str) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Runs the function inside a span named `name` (store queries); a ContextVar read when tracing is off."""

    def wrap(func: Callable[P, R]) -> Callable[P, R]:
        @functools.wraps(func)
        def inner(*args: P.args, **kwargs: P.kwargs) -> R:
            factory = _SPANS.get()
            if factory is None:
                return func(*args, **kwargs)
            with factory(name, {}):
                return func(*args, **kwargs)

        return inner

    return wrap


@contextmanager
def bind_spans(factory: SpanFactory) -> Iterator[None]:
    """Node and store spans go to `factory` inside the block (and tasks/threads started in it)."""
    token = _SPANS.set(factory)
    try:
        yield
    finally:
        _SPANS.reset(token)


@contextmanager
def watch_traces() -> Iterator[list[Trace]]:
    """Every Trace created inside the block (and in tasks/threads started in it) is appended to the
    yielded list, so the app can read each turn's events once the request is over."""
    found: list[Trace] = []
    token = _WATCHED.set(found)
    try:
        yield found
    finally:
        _WATCHED.reset(token)


@dataclass(frozen=True)
class StageEvent:
    """One step of the pipeline as the user sees it."""

    stage: str
    status: StageStatus
    message: str
    data: dict[str, Any] = field(default_factory=dict)
    elapsed_ms: float | None = None

    def as_line(self) -> str:
        """The human-readable line sent as `reasoning_content`."""
        return f"[{self.stage}] {self.message}\n"

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"stage": self.stage, "status": self.status, "message": self.message}
        if self.data:
            out["data"] = self.data
        if self.elapsed_ms is not None:
            out["elapsed_ms"] = round(self.elapsed_ms, 2)
        return out


@dataclass
class Usage:
    """Model usage actually spent in one request.

    `requests` counts provider requests only (including output-validation retries and failed
    attempts); `offline_steps` counts answers the offline rules gave instead, which cost no request.
    """

    requests: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    offline_steps: int = 0

    def add(self, requests: int, input_tokens: int, output_tokens: int) -> None:
        self.requests += requests
        self.input_tokens += input_tokens
        self.output_tokens += output_tokens


EventSink = Callable[[StageEvent], None]


@dataclass
class Budget:
    """What one turn may spend on providers: requests (validation retries included) and wall time.

    Enforced in one place, `core.llm`: a node whose provider call would exceed either answers with
    its offline rules instead.
    """

    max_requests: int = 5
    seconds: float = 60.0
    started: float = field(default_factory=time.monotonic)

    def seconds_left(self) -> float:
        return self.seconds - (time.monotonic() - self.started)


@dataclass(frozen=True)
class TurnResult:
    """What the turn's action did, typed (what metrics count): the action, who routed it ("model",
    "offline" or "fallback"), one of its declared outcomes, and counts by its declared names."""

    action: str
    routed_by: str
    outcome: str | None = None
    tally: Mapping[str, int] = field(default_factory=dict)


@dataclass
class Trace:
    """Collects stage events, node timings and model usage for one request."""

    sink: EventSink | None = None
    events: list[StageEvent] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    timings_ms: dict[str, float] = field(default_factory=dict)
    model_calls: dict[str, int] = field(default_factory=dict)
    notes: dict[str, Any] = field(default_factory=dict)
    budget: Budget = field(default_factory=Budget)
    offline_steps: dict[str, int] = field(default_factory=dict)
    absorbed: bool = False  # its usage was added to another trace (which reports it)
    result: TurnResult | None = None  # set by the pipeline once the action answered

    def __post_init__(self) -> None:
        watched = _WATCHED.get()
        if watched is not None:
            watched.append(self)

    def emit(
        self,
        stage: str,
        status: StageStatus,
        message: str,
        data: dict[str, Any] | None = None,
        elapsed_ms: float | None = None,
    ) -> StageEvent:
        event = StageEvent(stage, status, message, dict(data or {}), elapsed_ms)
        self.events.append(event)
        if self.sink is not None:
            self.sink(event)
        return event

    @contextmanager
    def node(self, stage: str, start_message: str) -> Iterator[NodeSpan]:
        """Times one node: emits `start` now and `end` (or `error`) when the block exits."""
        self.emit(stage, "start", start_message)
        node = NodeSpan()
        factory = _SPANS.get()  # no span name or attributes are built when tracing is off
        scope = nullcontext() if factory is None else factory(f"node {stage}", {"suikou.node": stage})
        began = time.perf_counter()
        try:
            with scope:
                yield node
        except BaseException as exc:
            elapsed = (time.perf_counter() - began) * 1000
            self._record_time(stage, elapsed)
            # The class only: the stream reaches the client, and an exception's text can name hosts,
            # ports or SQL. The server log has the whole error (app.turns.log_failure).
            self.emit(stage, "error", f"失败：{type(exc).__name__}", {"error": type(exc).__name__}, elapsed)
            raise
        elapsed = (time.perf_counter() - began) * 1000
        self._record_time(stage, elapsed)
        self.emit(stage, "end", node.message or "完成", node.data, elapsed)

    def _record_time(self, stage: str, elapsed_ms: float) -> None:
        self.timings_ms[stage] = round(self.timings_ms.get(stage, 0.0) + elapsed_ms, 3)

    def count_model_call(self, node: str, requests: int, input_tokens: int, output_tokens: int) -> None:
        self.model_calls[node] = self.model_calls.get(node, 0) + requests
        self.usage.add(requests, input_tokens, output_tokens)

    def count_offline(self, node: str) -> None:
        """One answer from the offline rules: no provider request, reported apart from requests."""
        self.offline_steps[node] = self.offline_steps.get(node, 0) + 1
        self.usage.offline_steps += 1

    def requests_left(self) -> int:
        return self.budget.max_requests - self.usage.requests

    def absorb(self, other: Trace) -> None:
        """Adds another trace's model usage to this one (its events stay where they were)."""
        other.absorbed = True
        for node, requests in other.model_calls.items():
            self.model_calls[node] = self.model_calls.get(node, 0) + requests
        for node, steps in other.offline_steps.items():
            self.offline_steps[node] = self.offline_steps.get(node, 0) + steps
        self.usage.add(other.usage.requests, other.usage.input_tokens, other.usage.output_tokens)
        self.usage.offline_steps += other.usage.offline_steps

    def stages(self) -> list[str]:
        """Compact `stage:status` list, used by snapshots and the log line."""
        return [f"{e.stage}:{e.status}" for e in self.events]


@dataclass
class NodeSpan:
    """What a node reports when it finishes."""

    message: str = ""
    data: dict[str, Any] = field(default_factory=dict)

    def done(self, message: str, **data: Any) -> None:
        self.message = message
        self.data.update(data)
