"""OpenTelemetry traces: request → node → store spans, pydantic-ai's spans under the node that asked,
no message text unless SUIKOU_TRACE_CONTENT, and never the process-wide provider."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode
from pydantic_ai.exceptions import ModelHTTPError
from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models.function import AgentInfo, FunctionModel

from app.main import create_app
from app.settings import Settings
from app.tracing import Tracing, TracingMiddleware, tracing_wanted
from core.llm import ModelHub
from core.trace import Trace, bind_spans
from support.harness import Harness, make_harness

QUERY = "这周有什么要交的"


@pytest.fixture
def exporter() -> InMemorySpanExporter:
    return InMemorySpanExporter()


def provider_for(exporter: InMemorySpanExporter) -> TracerProvider:
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return provider


def traced_client(h: Harness, exporter: InMemorySpanExporter) -> TestClient:
    return TestClient(create_app(h.state.settings, state=h.state, tracer_provider=provider_for(exporter)))


def ask(client: TestClient, text: str) -> None:
    body = {"model": "suikou", "messages": [{"role": "user", "content": text}]}
    assert client.post("/v1/chat/completions", json=body).status_code == 200


def by_name(spans: tuple[ReadableSpan, ...], name: str) -> ReadableSpan:
    found = [s for s in spans if s.name == name]
    assert found, f"no span {name!r} in {[s.name for s in spans]}"
    return found[0]


def parent_of(spans: tuple[ReadableSpan, ...], span: ReadableSpan) -> ReadableSpan | None:
    wanted = span.parent.span_id if span.parent else None
    return next((s for s in spans if s.context is not None and s.context.span_id == wanted), None)


def ancestors(spans: tuple[ReadableSpan, ...], span: ReadableSpan) -> list[str]:
    names, current = [], parent_of(spans, span)
    while current is not None:
        names.append(current.name)
        current = parent_of(spans, current)
    return names


def text_in_attributes(spans: tuple[ReadableSpan, ...], text: str) -> list[str]:
    return [f"{s.name}.{k}" for s in spans for k, v in (s.attributes or {}).items() if text in str(v)]


def test_a_chat_request_is_a_tree_of_request_node_and_store_spans(
    harness: Harness, exporter: InMemorySpanExporter
) -> None:
    with traced_client(harness, exporter) as client:
        ask(client, QUERY)
    spans = exporter.get_finished_spans()
    server = by_name(spans, "POST /v1/chat/completions")
    store = by_name(spans, "store.query_tasks")
    assert parent_of(spans, store) == by_name(spans, "node tool_query")
    assert ancestors(spans, store) == ["node tool_query", "POST /v1/chat/completions"]
    assert parent_of(spans, by_name(spans, "node plan")) == server
    assert {s.context.trace_id for s in spans if s.context} == {server.context.trace_id}
    assert by_name(spans, "node plan").attributes == {"suikou.node": "plan"}
    assert server.attributes is not None and server.attributes["http.route"] == "/v1/chat/completions"


def _failing(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    raise ModelHTTPError(503, "fake-planner", "unavailable")


def planner_hub() -> ModelHub:
    return ModelHub(injected={"plan": FunctionModel(_failing, model_name="fake-planner")})


def model_spans(spans: tuple[ReadableSpan, ...]) -> list[ReadableSpan]:
    return [s for s in spans if (s.attributes or {}).get("gen_ai.request.model") == "fake-planner"]


def test_model_spans_nest_under_the_node_that_asked(database_url: str, exporter: InMemorySpanExporter) -> None:
    h = make_harness(database_url, hub=planner_hub())
    with traced_client(h, exporter) as client:
        ask(client, QUERY)
    spans = exporter.get_finished_spans()
    found = model_spans(spans)
    assert found
    assert all("node plan" in ancestors(spans, s) for s in found)
    assert "invoke_agent" in " ".join(ancestors(spans, found[0])) + found[0].name  # the agent run's span too
    assert not text_in_attributes(spans, QUERY)  # the prompt is the user's message: not recorded
    h.state.engine.dispose()


def test_content_is_recorded_only_when_asked(database_url: str, exporter: InMemorySpanExporter) -> None:
    h = make_harness(database_url, hub=planner_hub(), trace_content=True)
    with traced_client(h, exporter) as client:
        ask(client, QUERY)
    assert text_in_attributes(exporter.get_finished_spans(), QUERY)
    h.state.engine.dispose()


def test_query_values_are_redacted_by_default(harness: Harness, exporter: InMemorySpanExporter) -> None:
    with traced_client(harness, exporter) as client:
        assert client.get("/tasks", params={"keyword": "交报告", "limit": 3}).status_code == 200
    server = by_name(exporter.get_finished_spans(), "GET /tasks")
    assert server.attributes is not None and server.attributes["url.query"] == "keyword=REDACTED&limit=REDACTED"


def test_the_process_wide_provider_is_never_set(harness: Harness, exporter: InMemorySpanExporter) -> None:
    with traced_client(harness, exporter) as client:
        ask(client, QUERY)
    assert isinstance(trace.get_tracer_provider(), trace.ProxyTracerProvider)


def test_tracing_is_off_by_default(harness: Harness, no_otel_env: None) -> None:
    app = create_app(harness.state.settings, state=harness.state)
    assert all(m.cls is not TracingMiddleware for m in app.user_middleware)
    assert harness.state.hub.instrumentation is None


def _settings(**values: Any) -> Settings:
    return Settings(_env_file=None, **values)  # type: ignore[call-arg]


ENDPOINT = {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"}


@pytest.mark.parametrize(
    ("tracing", "env", "wanted"),
    [
        (None, {}, False),
        (None, ENDPOINT, True),
        (None, {"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://127.0.0.1:4318/v1/traces"}, True),
        (True, {}, True),
        (False, ENDPOINT, False),
        (True, {**ENDPOINT, "OTEL_SDK_DISABLED": "true"}, False),
    ],
)
def test_when_tracing_is_on(tracing: bool | None, env: dict[str, str], wanted: bool) -> None:
    assert tracing_wanted(_settings(tracing=tracing), env) is wanted


@pytest.fixture
def no_otel_env(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for name in ("OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_SDK_DISABLED"):
        monkeypatch.delenv(name, raising=False)
    yield


def test_a_streamed_answer_traces_the_same_tree(harness: Harness, exporter: InMemorySpanExporter) -> None:
    body = {"model": "suikou", "stream": True, "messages": [{"role": "user", "content": QUERY}]}
    with traced_client(harness, exporter) as client:
        assert "data: [DONE]" in client.post("/v1/chat/completions", json=body).text
    spans = exporter.get_finished_spans()
    store = by_name(spans, "store.query_tasks")
    assert ancestors(spans, store) == ["node tool_query", "POST /v1/chat/completions"]
    assert not text_in_attributes(spans, QUERY)


def test_a_failing_node_names_the_error_type_only(exporter: InMemorySpanExporter) -> None:
    tracing = Tracing(provider_for(exporter), content=False)
    trace_ = Trace()
    with bind_spans(tracing.span), pytest.raises(ValueError), trace_.node("plan", "理解问题"):
        raise ValueError(f"cannot read {QUERY}")
    (span,) = exporter.get_finished_spans()
    assert span.status.status_code is StatusCode.ERROR and span.status.description == "ValueError"
    assert not span.events  # no exception event with its message


def test_probes_and_scrapes_are_not_traced(harness: Harness, exporter: InMemorySpanExporter) -> None:
    with traced_client(harness, exporter) as client:
        assert client.get("/healthz").status_code == 200
        assert client.get("/metrics").status_code == 200
        assert client.get("/v1/models").status_code == 200
    assert [s.name for s in exporter.get_finished_spans()] == ["GET /v1/models"]
