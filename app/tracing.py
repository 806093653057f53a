"""OpenTelemetry traces, off unless asked for (README "Operating Suikou" → Traces).

A request span (FastAPI's own telemetry), one span per pipeline node and per store query (core
hooks bound per request: core/trace.py), and pydantic-ai's agent and model spans under the node
that asked. The tracer provider is the app's own, never the process-wide one: one process may hold
several apps (tests), and `trace.set_tracer_provider` works once per process.

On: `SUIKOU_TRACING=true`, or unset with `OTEL_EXPORTER_OTLP_ENDPOINT` (or `..._TRACES_ENDPOINT`)
set. The exporter is configured by the standard `OTEL_*` variables. Nothing here is imported while
tracing is off.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping, MutableMapping
from contextlib import AbstractContextManager, contextmanager
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl, urlencode

from starlette.types import ASGIApp, Receive, Scope, Send

from app.settings import Settings
from core.trace import bind_spans

if TYPE_CHECKING:
    from fastapi.telemetry import TelemetryConfig
    from opentelemetry.sdk.trace import TracerProvider

_ENDPOINTS = ("OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")


def tracing_wanted(settings: Settings, env: Mapping[str, str] = os.environ) -> bool:
    """SUIKOU_TRACING decides when set; unset, an OTLP endpoint in the environment turns it on.
    OTEL_SDK_DISABLED=true always wins (the OpenTelemetry convention)."""
    if env.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return False
    if settings.tracing is not None:
        return settings.tracing
    return any(env.get(name) for name in _ENDPOINTS)


def provider_from_env(settings: Settings) -> TracerProvider | None:
    """A provider exporting as OTEL_TRACES_EXPORTER says (otlp, the default; console; none), or None
    when tracing is off. The caller shuts it down (that flushes the batch)."""
    if not tracing_wanted(settings):
        return None
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor, ConsoleSpanExporter

    # Resource.create reads OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES; ours is only the default.
    provider = TracerProvider(resource=Resource.create({"service.name": os.environ.get("OTEL_SERVICE_NAME", "suikou")}))
    for name in os.environ.get("OTEL_TRACES_EXPORTER", "otlp").split(","):
        exporter: Any = None
        if name.strip() == "otlp":
            # Imported only here: the exporter reads OTEL_EXPORTER_OTLP_* (endpoint, headers, timeout) itself.
            from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

            exporter = OTLPSpanExporter()
        elif name.strip() == "console":
            exporter = ConsoleSpanExporter()
        if exporter is not None:
            provider.add_span_processor(BatchSpanProcessor(exporter))
    return provider


class Tracing:
    """One app's tracer: spans for core's hooks, the FastAPI config, pydantic-ai's settings."""

    def __init__(self, provider: TracerProvider, *, content: bool, owned: bool = False) -> None:
        self.provider = provider
        self.content = content
        self.owned = owned  # built here from OTEL_*: shut down (flushed) with the app
        self.tracer = provider.get_tracer("suikou")
        if not content:
            provider.add_span_processor(_redact_query_processor())

    def span(self, name: str, attributes: Mapping[str, Any]) -> AbstractContextManager[Any]:
        if self.content:
            return self.tracer.start_as_current_span(name, attributes=dict(attributes))
        return self._quiet_span(name, attributes)

    @contextmanager
    def _quiet_span(self, name: str, attributes: Mapping[str, Any]) -> Iterator[Any]:
        """A span whose failure names the exception's type only: its text may quote the user."""
        from opentelemetry.trace import StatusCode

        with self.tracer.start_as_current_span(
            name, attributes=dict(attributes), record_exception=False, set_status_on_exception=False
        ) as span:
            try:
                yield span
            except BaseException as exc:
                span.set_status(StatusCode.ERROR, type(exc).__name__)
                raise

    def fastapi_telemetry(self) -> TelemetryConfig:
        # No operation spans (dependencies, endpoint, serialization): request → node → store is the
        # tree operators read; metrics and logs stay with Prometheus and the request log.
        return {
            "tracer_provider": self.provider,
            "metrics": False,
            "logs": False,
            "operation_spans": False,
            "exclude": _untraced,
        }

    def instrumentation(self) -> Any:
        """pydantic-ai's settings for this app's runs: prompts and answers only with SUIKOU_TRACE_CONTENT."""
        from pydantic_ai.models.instrumented import InstrumentationSettings

        return InstrumentationSettings(tracer_provider=self.provider, include_content=self.content)

    def started(self, hub: Any) -> None:
        """Once the app's state exists: its provider runs report model spans too."""
        hub.instrumentation = self.instrumentation()

    def close(self) -> None:
        if self.owned:
            self.provider.shutdown()


def app_tracing(settings: Settings, provider: TracerProvider | None = None) -> Tracing | None:
    """The app's tracing: with the given provider (tests), else from the environment, else None."""
    if provider is not None:
        return Tracing(provider, content=settings.trace_content)
    built = provider_from_env(settings)
    return None if built is None else Tracing(built, content=settings.trace_content, owned=True)


# Scrapes and probes, every few seconds from every poller: they would bury the traces worth reading.
UNTRACED_PATHS = frozenset({"/metrics", "/healthz", "/readyz"})


def _untraced(scope: MutableMapping[str, Any]) -> bool:
    return scope.get("path") in UNTRACED_PATHS


class TracingMiddleware:
    """Binds the app's span factory for the request, so core's node and store spans reach it."""

    def __init__(self, app: ASGIApp, tracing: Tracing) -> None:
        self.app = app
        self.tracing = tracing

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        with bind_spans(self.tracing.span):
            await self.app(scope, receive, send)


def _redacted_query(query: str) -> str:
    return urlencode([(key, "REDACTED") for key, _ in parse_qsl(query, keep_blank_values=True)])


def _redact_query_processor() -> Any:
    from opentelemetry.sdk.trace import SpanProcessor

    class RedactQuery(SpanProcessor):
        """Query values (`/v1/tasks?keyword=…` may hold a task's title) become REDACTED; keys stay."""

        def on_start(self, span: Any, parent_context: Any = None) -> None:
            query = (span.attributes or {}).get("url.query")
            if isinstance(query, str):
                span.set_attribute("url.query", _redacted_query(query))

    return RedactQuery()
