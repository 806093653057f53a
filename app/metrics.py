"""Prometheus metrics: HTTP requests, open streams, and what each chat turn did (docs/fdr/0017).

One `Metrics` (a `CollectorRegistry` of its own) per app, so tests can build many apps in one
process. HTTP families come from `MetricsMiddleware`, a plain ASGI middleware; the Suikou families
are read from each turn's `core.trace.Trace` once the request is over (`observe_trace`), so the
action packages and core never import prometheus. Every label value comes from a closed set: route
templates, HTTP methods and codes, action and node names, a few enums. Never a user, key, message
or title.

With `PROMETHEUS_MULTIPROC_DIR` set (several `suikou serve` workers), each worker writes its values
to files there and `/metrics` sums every worker's files on each scrape, whichever worker answers.
"""

from __future__ import annotations

import os
import re
import shutil
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from fastapi import APIRouter, FastAPI, Request, Response
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    gc_collector,
    generate_latest,
    multiprocess,
    platform_collector,
    process_collector,
)
from starlette.routing import Match
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.deps import CurrentUser
from core.llm import SKIPS_NOTE
from core.trace import StageEvent, Trace, watch_traces

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"
METRICS_PATH = "/metrics"
_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
_KIND = re.compile(r"[a-z][a-z0-9_]{0,31}")
# Seconds. Node and first-byte times are mostly milliseconds offline, seconds with a provider.
_FAST_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30)


def multiprocess_dir() -> str | None:
    return os.environ.get(MULTIPROC_ENV) or None


def reset_multiprocess_dir(path: str | Path) -> None:
    """Empties (or creates) the directory workers write to: call it in the parent before the workers
    start, with `PROMETHEUS_MULTIPROC_DIR` set before any prometheus_client import."""
    shutil.rmtree(path, ignore_errors=True)
    Path(path).mkdir(parents=True, exist_ok=True)


class Metrics:
    """The app's metric families, in a registry of its own."""

    def __init__(self) -> None:
        self.registry = reg = CollectorRegistry()
        if multiprocess_dir() is None:  # the multiprocess collector cannot sum these per worker
            process_collector.ProcessCollector(registry=reg)
            platform_collector.PlatformCollector(registry=reg)
            gc_collector.GCCollector(registry=reg)
        http = ("route", "method")
        self.http_requests = Counter("suikou_http_requests", "HTTP requests", [*http, "status"], registry=reg)
        self.http_seconds = Histogram(
            "suikou_http_request_duration_seconds", "Request time to the last byte", http, registry=reg
        )
        self.open_streams = Gauge(
            "suikou_open_streams", "Chat answers streaming now", registry=reg, multiprocess_mode="livesum"
        )
        self.first_byte = Histogram(
            "suikou_stream_first_byte_seconds",
            "Request start to the first body byte of a stream",
            registry=reg,
            buckets=_FAST_BUCKETS,
        )
        self.routed = Counter(
            "suikou_actions_routed", "Turns routed, by action and by who chose", ["action", "how"], registry=reg
        )
        self.node_seconds = Histogram(
            "suikou_node_duration_seconds", "Time per pipeline node", ["node"], registry=reg, buckets=_FAST_BUCKETS
        )
        self.provider_requests = Counter("suikou_provider_requests", "Model provider requests", ["node"], registry=reg)
        self.provider_failures = Counter(
            "suikou_provider_failures", "Provider calls that failed (then the rules answered)", ["node"], registry=reg
        )
        self.fallbacks = Counter(
            "suikou_offline_fallbacks", "Nodes answered by the offline rules instead", ["node", "reason"], registry=reg
        )
        self.provider_skipped = Counter(
            "suikou_provider_skipped",
            "Provider calls not sent: the provider's breaker was open after repeated failures",
            ["node"],
            registry=reg,
        )
        self.breakers_open = Gauge(
            "suikou_provider_breakers_open",
            "Providers skipped now after repeated failures (per worker, summed)",
            registry=reg,
            multiprocess_mode="livesum",
        )
        self.broadenings = Counter("suikou_broadenings", "Empty task queries broadened", registry=reg)
        self.reflect_retries = Counter("suikou_reflect_retries", "Task queries re-run after reflection", registry=reg)
        self.notes_written = Counter("suikou_notes_written", "Tasks created by quick notes", registry=reg)
        self.notes_deduplicated = Counter(
            "suikou_notes_deduplicated", "Notes not written again: a replay of the same attempt", registry=reg
        )
        self.near_duplicates = Counter(
            "suikou_note_near_duplicate_warnings", "Notes held back: an open task already says this", registry=reg
        )
        self.rate_limited = Counter("suikou_rate_limited", "Requests refused by a rate limit", ["kind"], registry=reg)
        self.outcomes = Counter(
            "suikou_action_outcomes", "Turns by action and what it did (its declared outcomes)", ["action", "outcome"],
            registry=reg,
        )  # fmt: skip

        self.deliveries = Counter(
            "suikou_webhook_deliveries",
            "Webhook delivery attempts, by receiver kind, event type and outcome (succeeded, retry, failed)",
            ["kind", "event", "outcome"],
            registry=reg,
        )
        self.delivery_lag = Histogram(
            "suikou_webhook_delivery_lag_seconds",
            "From when a delivery was due (its event, or its retry) to its attempt's end",
            ["kind"],
            registry=reg,
            buckets=(0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300, 1800),
        )
        self.delivery_queue = Gauge(
            "suikou_webhook_deliveries_pending",
            "Deliveries waiting to be sent (as the last delivery pass saw them)",
            registry=reg,
            multiprocess_mode="max",
        )

    # The webhooks engine's observer (webhooks.engine.Observer): feature code never imports metrics.
    def delivered(self, kind: str, event_type: str, outcome: str, lag_s: float) -> None:
        self.deliveries.labels(kind, event_type, outcome).inc()
        self.delivery_lag.labels(kind).observe(lag_s)

    def queue_depth(self, pending: int) -> None:
        self.delivery_queue.set(pending)

    def observe_trace(self, trace: Trace) -> None:
        """Counts what one turn did: node times and fallbacks from its stage events (telemetry of the
        nodes), what the action did from its typed result (`Trace.result`: action, outcome, tally)."""
        for event in trace.events:
            self._observe_event(event)
        for node, skipped in trace.notes.get(SKIPS_NOTE, {}).items():
            self.provider_skipped.labels(node).inc(skipped)
        if trace.absorbed:  # its requests are in the trace that absorbed it
            return
        for node, requests in trace.model_calls.items():
            self.provider_requests.labels(node).inc(requests)
        result = trace.result
        if result is None:
            return
        self.routed.labels(result.action, result.routed_by).inc()
        if result.outcome is not None:
            self.outcomes.labels(result.action, result.outcome).inc()
        for name, count in result.tally.items():
            counter = TALLY_COUNTERS.get(name)
            if counter is not None:
                getattr(self, counter).inc(count)

    def _observe_event(self, event: StageEvent) -> None:
        if event.elapsed_ms is not None and event.status in ("end", "error"):
            self.node_seconds.labels(event.stage).observe(event.elapsed_ms / 1000)
        if event.stage == "fallback":
            node, error = str(event.data.get("node")), event.data.get("error")
            reason = error if error in ("budget", "breaker") else "provider_error"
            self.fallbacks.labels(node, reason).inc()
            if reason == "provider_error":
                self.provider_failures.labels(node).inc()

    def observe_breakers(self, app: Any) -> None:
        """The open-breaker gauge from the app's model hub (after each request and on each scrape)."""
        state = getattr(getattr(app, "state", None), "suikou", None)
        if state is not None:
            self.breakers_open.set(state.hub.breakers.open_count())

    def exposition(self) -> bytes:
        if multiprocess_dir() is None:
            return generate_latest(self.registry)
        # Every worker's files, summed; a fresh registry each scrape (prometheus_client's recipe).
        merged = CollectorRegistry()
        multiprocess.MultiProcessCollector(merged)
        return generate_latest(merged)


# An action's tally names (Answer.tally, declared in its Action) → the counter each moves.
TALLY_COUNTERS: dict[str, str] = {
    "broadenings": "broadenings",
    "reflect_retries": "reflect_retries",
    "notes_written": "notes_written",
    "notes_deduplicated": "notes_deduplicated",
    "near_duplicates": "near_duplicates",
}


def rate_limited(app: Any, kind: str) -> None:
    """Counts one request refused by a rate limit. `app`: the FastAPI app (`request.app`, or
    `scope["app"]` in a middleware); `kind` a constant such as "chat" or "streams" (anything else
    is counted as "other", so a label never carries input)."""
    metrics: Metrics | None = getattr(app.state, "metrics", None)
    if metrics is not None:
        metrics.rate_limited.labels(kind if _KIND.fullmatch(kind) else "other").inc()


class MetricsMiddleware:
    """HTTP counts and latencies by route template, open streams, time to a stream's first byte,
    and each request's turns (read when the response is over: for a stream, after its last byte)."""

    def __init__(self, app: ASGIApp, metrics: Metrics) -> None:
        self.app = app
        self.metrics = metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] == METRICS_PATH:
            await self.app(scope, receive, send)
            return
        began = time.perf_counter()
        seen = _Response()

        async def watch(message: Message) -> None:
            seen.update(message, began, self.metrics)
            await send(message)

        try:
            with watch_traces() as traces:
                await self.app(scope, receive, watch)
        finally:
            self._record(scope, seen, time.perf_counter() - began, traces)

    def _record(self, scope: Scope, seen: _Response, seconds: float, traces: Iterable[Trace]) -> None:
        if seen.streaming:
            self.metrics.open_streams.dec()
        route, method = route_template(scope), scope["method"] if scope["method"] in _METHODS else "other"
        self.metrics.http_requests.labels(route, method, str(seen.status)).inc()
        self.metrics.http_seconds.labels(route, method).observe(seconds)
        for trace in traces:
            self.metrics.observe_trace(trace)
        self.metrics.observe_breakers(scope.get("app"))


class _Response:
    """What the middleware saw of a response: its status, whether it streams, its first byte."""

    __slots__ = ("first_byte", "status", "streaming")

    def __init__(self) -> None:
        self.status = 500  # nothing sent: the server will answer 500 (or nothing at all)
        self.streaming = False
        self.first_byte = False

    def update(self, message: Message, began: float, metrics: Metrics) -> None:
        if message["type"] == "http.response.start":
            self.status = message["status"]
            self.streaming = any(
                k == b"content-type" and v.startswith(b"text/event-stream") for k, v in message["headers"]
            )
            if self.streaming:
                metrics.open_streams.inc()
        elif self.streaming and not self.first_byte and message.get("body"):
            self.first_byte = True
            metrics.first_byte.observe(time.perf_counter() - began)


def route_template(scope: Scope) -> str:
    """The matched route's template (`/v1/tasks/{task_id}`), never the raw path."""
    route = scope.get("route")
    if route is None:  # refused before routing (a 413 from the body gate): find what it was for
        route = _matching(getattr(scope.get("app"), "routes", ()), scope)
    path = getattr(route, "path", None)
    return path if isinstance(path, str) and path else "unmatched"


def _matching(routes: Iterable[Any], scope: Scope) -> Any:
    for route in routes:
        included = getattr(route, "original_router", None)  # FastAPI 0.16x keeps included routers whole
        found = _matching(included.routes, scope) if included is not None else None
        if found is not None or (included is None and route.matches(scope)[0] == Match.FULL):
            return found or route
    return None


def install_metrics(app: FastAPI) -> Metrics:
    """Adds `/metrics` (behind the API's own Bearer keys when any exist) and the middleware."""
    metrics = Metrics()
    app.state.metrics = metrics
    router = APIRouter()

    @router.get(METRICS_PATH, include_in_schema=False)
    async def prometheus(request: Request, _user: CurrentUser) -> Response:
        metrics.observe_breakers(request.app)
        return Response(metrics.exposition(), media_type=CONTENT_TYPE_LATEST)

    app.include_router(router)
    app.add_middleware(MetricsMiddleware, metrics=metrics)
    return metrics


def worker_exited() -> None:
    """In a worker's shutdown: its `livesum` gauges (open streams) stop counting."""
    if multiprocess_dir() is not None:
        multiprocess.mark_process_dead(os.getpid())
