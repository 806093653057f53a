"""Prometheus metrics at /metrics: every family is there, values move with requests, labels stay
bounded, and /metrics is behind the API keys once any exist (docs/fdr/0017)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families
from pydantic_ai.exceptions import ModelHTTPError
from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models.function import AgentInfo, FunctionModel

from app.actions import build_registry
from app.main import create_app
from app.metrics import MULTIPROC_ENV, TALLY_COUNTERS, Metrics, rate_limited, reset_multiprocess_dir
from core.llm import ModelHub
from core.trace import Trace
from support.harness import Harness, make_harness

FAMILIES = {
    "suikou_http_requests",
    "suikou_http_request_duration_seconds",
    "suikou_open_streams",
    "suikou_stream_first_byte_seconds",
    "suikou_actions_routed",
    "suikou_node_duration_seconds",
    "suikou_provider_requests",
    "suikou_provider_failures",
    "suikou_offline_fallbacks",
    "suikou_broadenings",
    "suikou_reflect_retries",
    "suikou_notes_written",
    "suikou_notes_deduplicated",
    "suikou_note_near_duplicate_warnings",
    "suikou_rate_limited",
    "suikou_action_outcomes",
}
QUERY = "这周有什么要交的"
NOTE = "帮我记一下明天下午三点交报告"


@pytest.fixture
def api(harness: Harness) -> Iterator[tuple[TestClient, dict[str, str]]]:
    key = harness.api_key("alice")
    with harness.client() as client:
        yield client, {"Authorization": f"Bearer {key}"}


def chat(client: TestClient, headers: dict[str, str], text: str, **extra: Any) -> Any:
    body = {"model": "suikou", "messages": [{"role": "user", "content": text}], **extra}
    response = client.post("/v1/chat/completions", headers=headers, json=body)
    assert response.status_code == 200
    return response


def value(client: TestClient, name: str, labels: dict[str, str] | None = None) -> float:
    metrics: Metrics = client.app.state.metrics  # type: ignore[attr-defined]
    return metrics.registry.get_sample_value(name, labels or {}) or 0.0


def test_every_family_is_exposed(api: tuple[TestClient, dict[str, str]]) -> None:
    client, headers = api
    chat(client, headers, QUERY)
    response = client.get("/metrics", headers=headers)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain")
    names = {family.name for family in text_string_to_metric_families(response.text)}
    assert names >= FAMILIES
    assert "process_cpu_seconds" in names  # one process: the process collector is on


def test_a_task_query_is_routed_timed_and_counted(api: tuple[TestClient, dict[str, str]]) -> None:
    client, headers = api
    chat(client, headers, QUERY)
    chat(client, headers, QUERY)
    assert value(client, "suikou_actions_routed_total", {"action": "task_query", "how": "offline"}) == 2
    assert value(client, "suikou_node_duration_seconds_count", {"node": "plan"}) == 2
    assert value(client, "suikou_node_duration_seconds_count", {"node": "tool_query"}) >= 2
    assert value(client, "suikou_node_duration_seconds_sum", {"node": "tool_query"}) > 0
    labels = {"route": "/v1/chat/completions", "method": "POST", "status": "200"}
    assert value(client, "suikou_http_requests_total", labels) == 2
    assert value(client, "suikou_provider_requests_total", {"node": "route"}) == 0  # offline: no requests


def test_an_empty_query_is_broadened(api: tuple[TestClient, dict[str, str]], harness: Harness) -> None:
    client, headers = api
    chat(client, headers, QUERY)  # nothing stored yet: no match, so the query is broadened once
    assert value(client, "suikou_broadenings_total") == 1
    harness.add("交报告", deadline="2026-12-02 15:00")
    chat(client, headers, "这周有什么要交的？")
    assert value(client, "suikou_broadenings_total") == 1  # a match: nothing to broaden


def test_notes_written_deduplicated_and_held_back(api: tuple[TestClient, dict[str, str]]) -> None:
    client, headers = api
    retry = {**headers, "X-Client-Message-Id": "attempt-1"}
    chat(client, retry, NOTE)
    assert value(client, "suikou_notes_written_total") == 1
    chat(client, retry, NOTE)  # the client's retry of the same attempt: the same task, not a new one
    assert value(client, "suikou_notes_written_total") == 1
    assert value(client, "suikou_notes_deduplicated_total") == 1
    chat(client, headers, "提醒我明天下午三点交报告")  # a new request saying the same: ask first
    assert value(client, "suikou_note_near_duplicate_warnings_total") == 1
    assert value(client, "suikou_notes_written_total") == 1


def test_a_stream_is_counted_while_open_and_its_first_byte_timed(api: tuple[TestClient, dict[str, str]]) -> None:
    client, headers = api
    body = {"model": "suikou", "stream": True, "messages": [{"role": "user", "content": QUERY}]}
    with client.stream("POST", "/v1/chat/completions", headers=headers, json=body) as response:
        lines = response.iter_lines()
        assert next(lines).startswith("data: ")
        assert value(client, "suikou_open_streams") == 1
        assert "data: [DONE]" in list(lines)
    assert value(client, "suikou_open_streams") == 0
    assert value(client, "suikou_stream_first_byte_seconds_count") == 1
    assert value(client, "suikou_actions_routed_total", {"action": "task_query", "how": "offline"}) == 1


def test_labels_are_templates_never_paths_or_input(api: tuple[TestClient, dict[str, str]]) -> None:
    client, headers = api
    assert client.get("/tasks/12345", headers=headers).status_code == 404
    assert client.get("/no/such/path-with-secret", headers=headers).status_code == 404
    assert client.post("/tasks", headers=headers, content=b"x" * (2 * 1024 * 1024)).status_code == 413
    assert value(client, "suikou_http_requests_total", {"route": "/tasks/{task_id}", "method": "GET", "status": "404"})
    assert value(client, "suikou_http_requests_total", {"route": "unmatched", "method": "GET", "status": "404"})
    assert value(client, "suikou_http_requests_total", {"route": "/tasks", "method": "POST", "status": "413"})
    text = client.get("/metrics", headers=headers).text
    assert "12345" not in text and "secret" not in text and "alice" not in text


def test_rate_limited_counts_by_kind_and_never_by_input(api: tuple[TestClient, dict[str, str]]) -> None:
    client, _ = api
    rate_limited(client.app, "chat")
    rate_limited(client.app, "chat")
    rate_limited(client.app, "Bearer sk-123 / anything a caller passes")
    assert value(client, "suikou_rate_limited_total", {"kind": "chat"}) == 2
    assert value(client, "suikou_rate_limited_total", {"kind": "other"}) == 1


def test_metrics_need_a_key_once_keys_exist(api: tuple[TestClient, dict[str, str]]) -> None:
    client, headers = api
    assert client.get("/metrics").status_code == 401
    assert client.get("/metrics", headers={"Authorization": "Bearer wrong"}).status_code == 401
    assert client.get("/metrics", headers=headers).status_code == 200


def test_keyless_local_mode_serves_metrics_openly(harness: Harness) -> None:
    with harness.client() as client:
        assert client.get("/metrics").status_code == 200


def test_metrics_can_be_switched_off(database_url: str) -> None:
    h = make_harness(database_url, metrics=False)
    with TestClient(create_app(h.state.settings, state=h.state)) as client:
        assert client.get("/metrics").status_code == 404
        assert not hasattr(client.app.state, "metrics")  # type: ignore[attr-defined]
        rate_limited(client.app, "chat")  # a no-op, not an error
    h.state.engine.dispose()


def test_two_apps_in_one_process_keep_their_own_counts(harness: Harness) -> None:
    with harness.client() as first, harness.client() as second:
        chat(first, {}, QUERY)
        assert value(first, "suikou_actions_routed_total", {"action": "task_query", "how": "offline"}) == 1
        assert value(second, "suikou_actions_routed_total", {"action": "task_query", "how": "offline"}) == 0


def _failing(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    raise ModelHTTPError(503, "fake-router", "unavailable")


def test_a_failing_provider_counts_requests_failures_and_fallbacks(database_url: str) -> None:
    hub = ModelHub(injected={"route": FunctionModel(_failing, model_name="fake-router")})
    h = make_harness(database_url, hub=hub)
    with h.client() as client:
        chat(client, {}, QUERY)
        assert value(client, "suikou_provider_requests_total", {"node": "route"}) == 1
        assert value(client, "suikou_provider_failures_total", {"node": "route"}) == 1
        fallback = {"node": "route", "reason": "provider_error"}
        assert value(client, "suikou_offline_fallbacks_total", fallback) == 1
        assert value(client, "suikou_actions_routed_total", {"action": "task_query", "how": "fallback"}) == 1
    h.state.engine.dispose()


def test_a_budget_fallback_is_not_a_provider_failure() -> None:
    metrics, trace = Metrics(), Trace()
    trace.emit("fallback", "info", "budget", {"node": "plan", "error": "budget"})
    metrics.observe_trace(trace)
    assert metrics.registry.get_sample_value("suikou_offline_fallbacks_total", {"node": "plan", "reason": "budget"})
    assert metrics.registry.get_sample_value("suikou_provider_failures_total", {"node": "plan"}) is None


def test_an_absorbed_trace_counts_its_events_not_its_requests_twice() -> None:
    metrics, outer, quiet = Metrics(), Trace(), Trace()
    quiet.count_model_call("chat", 1, 10, 5)
    outer.absorb(quiet)
    for trace in (outer, quiet):
        metrics.observe_trace(trace)
    assert metrics.registry.get_sample_value("suikou_provider_requests_total", {"node": "chat"}) == 1


def test_every_declared_tally_moves_a_counter() -> None:
    """An action's tally names (its metrics labels) and the counters they move agree both ways."""
    declared = {name for action in build_registry() for name in action.tallies}
    assert declared == set(TALLY_COUNTERS)
    assert all(hasattr(Metrics(), counter) for counter in TALLY_COUNTERS.values())


WORKER = """
import sys
from app.metrics import Metrics, worker_exited
metrics = Metrics()
metrics.notes_written.inc(int(sys.argv[1]))
metrics.open_streams.inc()
if sys.argv[2] == "exit":
    worker_exited()
sys.stdout.write(metrics.exposition().decode())
"""


def test_workers_report_totals_through_the_multiprocess_dir(tmp_path: Path) -> None:
    """Each worker writes its own files; whichever answers the scrape reports every worker's sum.
    A worker that shut down leaves its counters in the total, not its open streams."""
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, MULTIPROC_ENV: str(tmp_path / "prom")}
    reset_multiprocess_dir(tmp_path / "prom")

    def worker(notes: int, how: str) -> dict[str, float]:
        cmd = [sys.executable, "-c", WORKER, str(notes), how]
        out = subprocess.run(cmd, cwd=root, env=env, capture_output=True, text=True, timeout=60, check=True).stdout
        return {s.name: s.value for f in text_string_to_metric_families(out) for s in f.samples}

    worker(2, "exit")
    worker(3, "stay")
    totals = worker(0, "stay")
    assert totals["suikou_notes_written_total"] == 5
    assert totals["suikou_open_streams"] == 2  # the two live workers' streams; the exited one's is gone
    assert "process_cpu_seconds_total" not in totals  # per-process collectors cannot be summed


def test_a_provider_that_keeps_failing_is_skipped_and_shown(database_url: str) -> None:
    # The breaker's defaults: 3 failures in 60 s; the 4th turn sends nothing, and /metrics says so.
    hub = ModelHub(injected={"route": FunctionModel(_failing, model_name="fake-router")})
    h = make_harness(database_url, hub=hub)
    with h.client() as client:
        for _ in range(4):
            chat(client, {}, QUERY)
        assert value(client, "suikou_provider_requests_total", {"node": "route"}) == 3
        assert value(client, "suikou_provider_skipped_total", {"node": "route"}) == 1
        assert value(client, "suikou_provider_breakers_open") == 1
        assert value(client, "suikou_offline_fallbacks_total", {"node": "route", "reason": "breaker"}) == 1
    h.state.engine.dispose()
