"""The MCP server (app/mcp_server.py) through the SDK's own client: in-process and over HTTP at /mcp.

The harness clock is fixed (Monday 2026-11-30 10:00 Shanghai), so every result is deterministic.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from typing import Any

import httpx2
import jsonschema
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.types import CallToolResult

from app.main import create_app
from app.mcp_server import CALLER, make_mcp
from support.harness import Harness
from support.live import serve

TOOLS = {"ask_tasks", "find_tasks", "capture_note", "complete_task", "update_task", "delete_tasks", "undo"}
MODES = ["auto", "legacy"]


def seed(h: Harness) -> dict[str, int]:
    return {
        "bill": h.add("交电费", 1, "2026-11-30 18:00"),
        "report": h.add("写周报", 2, "2026-12-04 17:00"),
        "late": h.add("还书", 3, "2026-11-28 12:00"),
        "bob": h.add("bob 的秘密", 1, "2026-11-30 20:00", user="bob"),
    }


@asynccontextmanager
async def in_process(h: Harness, user: str, mode: str = "auto") -> AsyncIterator[Client]:
    token = CALLER.set(h.user(user))  # what `suikou mcp --user` and the /mcp endpoint set
    try:
        async with Client(make_mcp(lambda: h.state), mode=mode, cache=None) as client:
            yield client
    finally:
        CALLER.reset(token)


@asynccontextmanager
async def over_http(h: Harness, key: str | None, mode: str = "auto") -> AsyncIterator[Client]:
    app = create_app(h.state.settings, state=h.state)
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    async with (
        app.router.lifespan_context(app),
        httpx2.AsyncClient(transport=httpx2.ASGITransport(app=app), headers=headers) as http,
        Client(streamable_http_client("http://testserver/mcp", http_client=http), mode=mode, cache=None) as client,
    ):
        yield client


async def call(client: Client, name: str, **arguments: Any) -> dict[str, Any]:
    """The structured result, checked against the tool's published output schema."""
    result = await client.call_tool(name, arguments)
    assert not result.is_error, result.content
    tool = next(t for t in (await client.list_tools()).tools if t.name == name)
    assert tool.output_schema is not None
    jsonschema.validate(result.structured_content, tool.output_schema)
    assert result.content and result.content[0].type == "text"
    assert result.structured_content is not None
    return result.structured_content


async def error(client: Client, name: str, **arguments: Any) -> str:
    result: CallToolResult = await client.call_tool(name, arguments)
    assert result.is_error
    text: str = result.content[0].text  # type: ignore[union-attr]
    assert "Traceback" not in text
    return text


@pytest.mark.parametrize("mode", MODES)
async def test_tools_are_listed_with_valid_schemas_and_hints(harness: Harness, mode: str) -> None:
    async with in_process(harness, "alice", mode) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
    assert set(tools) == TOOLS
    for tool in tools.values():
        jsonschema.Draft202012Validator.check_schema(tool.input_schema)
        assert tool.output_schema is not None
        jsonschema.Draft202012Validator.check_schema(tool.output_schema)
        assert tool.description and len(tool.description) > 40
        assert tool.annotations is not None
    assert tools["ask_tasks"].annotations.read_only_hint is True  # type: ignore[union-attr]
    assert tools["find_tasks"].annotations.read_only_hint is True  # type: ignore[union-attr]
    assert tools["undo"].annotations.destructive_hint is True  # type: ignore[union-attr]
    assert tools["capture_note"].annotations.read_only_hint is False  # type: ignore[union-attr]
    # find_tasks publishes GET /tasks's own bounds
    limit = tools["find_tasks"].input_schema["properties"]["limit"]
    assert (limit["minimum"], limit["maximum"], limit["default"]) == (1, 200, 50)


@pytest.mark.parametrize("mode", MODES)
async def test_find_tasks_filters_like_rest(harness: Harness, mode: str) -> None:
    ids = seed(harness)
    async with in_process(harness, "alice", mode) as client:
        everything = await call(client, "find_tasks")
        overdue = await call(client, "find_tasks", only_overdue=True)
        keyword = await call(client, "find_tasks", keyword="周报")
        urgent = await call(client, "find_tasks", quadrants=[1], sort_by="id")
    assert [t["id"] for t in everything["items"]] == [ids["late"], ids["bill"], ids["report"]]
    assert (everything["total"], everything["total_exact"]) == (3, True)
    assert [t["id"] for t in overdue["items"]] == [ids["late"]]
    assert [t["title"] for t in keyword["items"]] == ["写周报"]
    assert [t["id"] for t in urgent["items"]] == [ids["bill"]]


async def test_find_tasks_bad_filters_get_rests_messages(harness: Harness) -> None:
    key = harness.api_key("alice")
    with harness.client() as rest:
        headers = {"Authorization": f"Bearer {key}"}
        rest_limit = rest.get("/tasks", params={"limit": 500}, headers=headers).json()["error"]["message"]
        rest_quadrant = rest.get("/tasks", params={"quadrants": 7}, headers=headers).json()["error"]["message"]
    async with in_process(harness, "alice") as client:
        assert rest_limit in await error(client, "find_tasks", limit=500)
        assert rest_quadrant in await error(client, "find_tasks", quadrants=[7])
        assert "sort_by" in await error(client, "find_tasks", sort_by="title")
        assert "Extra inputs" in await error(client, "find_tasks", colour="red")


@pytest.mark.parametrize("mode", MODES)
async def test_ask_tasks_runs_the_query_graph(harness: Harness, mode: str) -> None:
    ids = seed(harness)
    async with in_process(harness, "alice", mode) as client:
        today = await call(client, "ask_tasks", question="今天要做什么")
        two = await call(client, "ask_tasks", question="最重要的两件事")
    assert {t["id"] for t in today["items"]} == {ids["bill"], ids["late"]}  # today's, and what is overdue
    assert today["total"] == 2 and today["answer"]
    assert today["plan"]["window_start"] is not None and today["plan"]["window_end"] is not None
    assert "[suikou]" not in today["answer"]  # the carried record is for chat clients
    assert two["plan"]["explicit_limit"] == 2 and two["plan"]["limit"] == 2
    assert len(two["items"]) == 2
    assert all(item["id"] != ids["bob"] for item in today["items"] + two["items"])


async def test_capture_is_idempotent_and_undoable(harness: Harness) -> None:
    async with in_process(harness, "alice") as client:
        first = await call(client, "capture_note", text="明天下午三点交电费", client_message_id="m-1")
        again = await call(client, "capture_note", text="明天下午三点交电费", client_message_id="m-1")
        [task] = first["tasks"]
        assert first["written"] and first["question"] is None and first["change_ids"]
        assert task["deadline_at"] == "2026-12-01T15:00:00+08:00"  # in the user's offset
        assert [t["id"] for t in again["tasks"]] == [task["id"]]
        assert again["change_ids"] == first["change_ids"]
        assert len(harness.changes("create")) == 1
        undone = await call(client, "undo", change_ids=first["change_ids"])
        assert [c["effect"] for c in undone["undone"]] == ["deleted"]
        listed = await call(client, "find_tasks")
        assert listed["total"] == 0


async def test_concurrent_capture_retries_write_once_and_all_return_the_change_ids(harness: Harness) -> None:
    """A client retrying a capture before the first answered: every copy can undo what was written."""
    async with in_process(harness, "alice") as client:
        results = await asyncio.gather(
            *(call(client, "capture_note", text="明天下午三点交电费", client_message_id="m-9") for _ in range(5))
        )
    assert len(harness.changes("create")) == 1
    assert {tuple(r["change_ids"]) for r in results} == {(harness.changes("create")[0].id,)}


async def test_capture_that_needs_a_question_writes_nothing(harness: Harness) -> None:
    async with in_process(harness, "alice") as client:
        asked = await call(client, "capture_note", text="嗯")
    assert not asked["written"] and asked["tasks"] == [] and asked["change_ids"] == []
    assert asked["question"] == asked["answer"]
    assert harness.changes() == []


async def test_complete_update_undo(harness: Harness) -> None:
    ids = seed(harness)
    async with in_process(harness, "alice") as client:
        done = await call(client, "complete_task", task_id=ids["bill"])
        assert done["task"]["is_completed"] and done["change_id"]
        same = await call(client, "complete_task", task_id=ids["bill"])
        assert same["change_id"] is None  # already done: nothing written, nothing to undo
        moved = await call(
            client, "update_task", task_id=ids["report"], deadline_at="2026-12-02T09:00:00+08:00", priority_group=1
        )
        assert datetime.fromisoformat(moved["task"]["deadline_at"]) == datetime(2026, 12, 2, 1, tzinfo=UTC)
        assert moved["task"]["priority_group"] == 1
        await call(client, "undo", change_ids=[done["change_id"], moved["change_id"]])
        twice = await call(client, "undo", change_ids=[done["change_id"]])
        assert twice["already"] is True
    assert not harness.task(ids["bill"]).is_completed
    report = harness.task(ids["report"])
    assert report.priority_group == 2 and report.deadline_at is not None and report.deadline_at.day == 4


async def test_errors_read_as_messages(harness: Harness) -> None:
    ids = seed(harness)
    async with in_process(harness, "alice") as client:
        assert "task 999 not found" in await error(client, "complete_task", task_id=999)
        assert f"task {ids['bob']} not found" in await error(client, "complete_task", task_id=ids["bob"])
        assert f"task {ids['bob']} not found" in await error(client, "update_task", task_id=ids["bob"], title="x")
        assert "priority_group" in await error(client, "update_task", task_id=ids["bill"], priority_group=9)
        assert "Unknown timezone" in await error(client, "ask_tasks", question="今天", timezone="Mars/Base")
        # the chat endpoint's text checks, with its messages
        assert "maximum is 20000" in await error(client, "ask_tasks", question="问" * 20_001)
        assert "Text " in await error(client, "capture_note", text="交\x00电费")
        assert "nothing to change" in await error(client, "update_task", task_id=ids["bill"])
        bob_change = (await _bob_completes(harness, ids["bob"]))["change_id"]
        undone = await call(client, "undo", change_ids=[bob_change])
        assert undone["missing"] and undone["undone"] == []
    assert harness.task(ids["bob"], user="bob").is_completed  # alice could not undo bob's change


async def _bob_completes(h: Harness, task_id: int) -> dict[str, Any]:
    async with in_process(h, "bob") as client:
        return await call(client, "complete_task", task_id=task_id)


# --- over HTTP ---------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
async def test_http_scopes_each_key_to_its_user(harness: Harness, mode: str) -> None:
    ids = seed(harness)
    alice, bob = harness.api_key("alice"), harness.api_key("bob")
    async with over_http(harness, alice, mode) as client:
        mine = await call(client, "find_tasks", include_completed=True)
        assert "not found" in await error(client, "complete_task", task_id=ids["bob"])
    async with over_http(harness, bob, mode) as client:
        theirs = await call(client, "ask_tasks", question="今天要做什么")
    assert ids["bob"] not in {t["id"] for t in mine["items"]} and mine["total"] == 3
    assert [t["id"] for t in theirs["items"]] == [ids["bob"]]


async def test_http_without_a_key_is_401_once_keys_exist(harness: Harness) -> None:
    harness.api_key("alice")
    app = create_app(harness.state.settings, state=harness.state)
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    headers = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
    async with (
        app.router.lifespan_context(app),
        httpx2.AsyncClient(transport=httpx2.ASGITransport(app=app), base_url="http://testserver") as http,
    ):
        missing = await http.post("/mcp", json=body, headers=headers)
        wrong = await http.post("/mcp", json=body, headers={**headers, "authorization": "Bearer sk-nope"})
    for response in (missing, wrong):
        assert response.status_code == 401
        assert response.headers["www-authenticate"] == "Bearer"
        assert response.json()["error"]["code"] == "invalid_api_key"


@pytest.mark.parametrize("mode", MODES)
async def test_http_keyless_mode_serves_the_local_user(harness: Harness, mode: str) -> None:
    mine = harness.add("本地任务", 2, user="local")
    harness.add("alice 的", 2)
    async with over_http(harness, None, mode) as client:
        listed = await call(client, "find_tasks")
    assert [t["id"] for t in listed["items"]] == [mine]


async def test_mcp_stays_out_of_the_openapi_document(harness: Harness) -> None:
    with harness.client() as rest:
        doc = rest.get("/openapi.json").json()
        direct = rest.post("/mcp", json={}, follow_redirects=False)
    assert direct.status_code not in (307, 308, 404)  # exactly /mcp: no redirect for a client to chase
    assert not any(path.startswith("/mcp") for path in doc["paths"])


@pytest.mark.parametrize("mode", MODES)
async def test_live_server_over_a_real_socket(harness: Harness, mode: str) -> None:
    ids = seed(harness)
    key = harness.api_key("alice")
    with serve(harness.state) as base:
        url = base.removesuffix("/v1") + "/mcp"
        async with (
            httpx2.AsyncClient(headers={"Authorization": f"Bearer {key}"}) as http,
            Client(streamable_http_client(url, http_client=http), mode=mode, cache=None) as client,
        ):
            found = await call(client, "find_tasks", keyword="电费")
    assert [t["id"] for t in found["items"]] == [ids["bill"]]
