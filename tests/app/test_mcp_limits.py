"""/mcp under the REST API's limits (app/mcp_server.py `McpEndpoint`, docs/fdr/0023): each POST counts
against the key's request budget, a call of a tool that runs a turn against its model budget while a
real model is configured, and there is no standalone GET stream to hold open (405, `Allow: POST`)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pydantic_ai.models
import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from core.llm import ModelHub
from support.fake_openai import FakeOpenAI
from support.harness import Harness, make_harness
from support.live import serve

HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


def rpc(method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": 1, "method": method, "params": params or {}}


def tool_call(name: str, **arguments: Any) -> dict[str, Any]:
    return rpc("tools/call", {"name": name, "arguments": arguments})


ASK = tool_call("ask_tasks", question="今天有什么任务")
FIND = tool_call("find_tasks")


def post(client: TestClient, body: dict[str, Any]) -> Any:
    return client.post("/mcp", json=body, headers=HEADERS)


def assert_429(r: Any, kind: str) -> None:
    assert r.status_code == 429, r.text
    assert r.json()["error"]["type"] == "rate_limit_error" and r.json()["error"]["code"] == "rate_limit_exceeded"
    assert kind in r.json()["error"]["message"]
    assert 1 <= int(r.headers["Retry-After"]) <= 60


@pytest.fixture
def limited(database_url: str) -> Iterator[Harness]:
    h = make_harness(database_url, rate_limit="3/minute")
    yield h
    h.state.engine.dispose()


def test_no_standalone_stream_get_and_delete_answer_405(harness: Harness) -> None:
    """Over a real socket: before, GET held an idle SSE stream open (here: until the client gave up)."""
    with serve(harness.state) as base, httpx.Client(timeout=5) as client:
        url = base.removesuffix("/v1") + "/mcp"
        for method in ("GET", "DELETE"):
            r = client.request(method, url, headers={"accept": "text/event-stream"})
            assert r.status_code == 405, r.text
            assert r.headers["allow"] == "POST"
            assert r.json() == {
                "error": {
                    "message": "Method Not Allowed",
                    "type": "invalid_request_error",
                    "param": None,
                    "code": "method_not_allowed",
                }
            }
        assert client.post(url, json=rpc("tools/list"), headers=HEADERS).status_code == 200


def test_each_post_counts_against_the_request_budget_rest_shares(limited: Harness) -> None:
    alice, bob = limited.api_key("alice"), limited.api_key("bob")
    with TestClient(create_app(limited.state.settings, state=limited.state)) as client:
        client.headers["Authorization"] = f"Bearer {alice}"
        assert [post(client, rpc("tools/list")).status_code, post(client, FIND).status_code] == [200, 200]
        assert client.get("/tasks").status_code == 200  # the third request of the minute, any kind
        assert_429(post(client, FIND), "requests")
        assert_429(client.get("/tasks"), "requests")
        client.headers["Authorization"] = f"Bearer {bob}"
        assert post(client, FIND).status_code == 200  # another key has its own budget
        client.headers["Authorization"] = "Bearer sk-nope"
        assert post(client, FIND).status_code == 401  # auth first: an unknown key counts for no one


@pytest.mark.parametrize("backed", [False, True])
def test_model_tools_count_against_the_model_budget_only_with_a_real_model(
    database_url: str, fake: FakeOpenAI, backed: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake.reset()
    monkeypatch.setattr(pydantic_ai.models, "ALLOW_MODEL_REQUESTS", True)  # to the fake on 127.0.0.1 only
    hub = ModelHub(default="gpt-4o-mini", base_url=fake.base_url, api_key="test") if backed else None
    h = make_harness(database_url, hub=hub, model_rate_limit="1/minute")
    try:
        with TestClient(create_app(h.state.settings, state=h.state)) as client:
            first = post(client, ASK)
            assert first.status_code == 200 and first.json()["result"]["isError"] is False, first.text
            again = post(client, ASK)
            capture = post(client, tool_call("capture_note", text="明天下午三点交电费"))
            if backed:
                assert_429(again, "model requests")
                assert_429(capture, "model requests")
            else:  # the offline model costs nothing: no model budget
                assert (again.status_code, capture.status_code) == (200, 200)
            # Reading by exact filters never reaches a model: REST's GET /tasks as a tool.
            assert post(client, FIND).status_code == 200
            assert post(client, rpc("tools/list")).status_code == 200
            client.portal.call(h.state.hub.aclose)  # its provider connections, on the loop they were made on
    finally:
        h.state.engine.dispose()


def test_the_model_tools_are_the_ones_that_run_a_turn() -> None:
    """`ToolSpec.uses_model` is data beside each tool: it must follow the tool (a tool that starts running
    a turn, or stops, changes what the model budget counts)."""
    from app.mcp_server import MODEL_TOOLS, tool_specs

    runs_a_turn = {spec.name for spec in tool_specs() if "turn" in spec.run.__code__.co_names}
    assert runs_a_turn == MODEL_TOOLS == {"ask_tasks", "capture_note"}
