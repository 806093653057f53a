"""What an MCP tool result says: the text carries what the structured content does, moments are in the
user's offset on every tool, argument errors read as REST's, an unchanged write says so and writes no
change, update_task's conflicts are refused and its groups are the product's names.

The harness clock is fixed (Monday 2026-11-30 10:00 Shanghai, the harness's zone).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.types import CallToolResult

from app.main import create_app
from core.display import GROUP_LABELS
from support.harness import Harness
from tests.app.test_mcp import call, error, in_process, seed

README = Path(__file__).resolve().parents[2] / "README.md"
SHANGHAI = "+08:00"


def moments(value: Any, key: str = "") -> list[str]:
    """Every moment string of a structured result (the `*_at` fields and ask_tasks' window)."""
    if isinstance(value, dict):
        return [m for k, v in value.items() for m in moments(v, k)]
    if isinstance(value, list):
        return [m for v in value for m in moments(v, key)]
    is_moment = key.endswith("_at") or key in ("window_start", "window_end")
    return [value] if is_moment and isinstance(value, str) else []


def tasks_in(value: Any) -> list[dict[str, Any]]:
    if isinstance(value, dict):
        own = [value] if {"id", "title", "effective_group"} <= value.keys() else []
        return own + [t for v in value.values() for t in tasks_in(v)]
    if isinstance(value, list):
        return [t for v in value for t in tasks_in(v)]
    return []


async def raw(client: Client, name: str, **arguments: Any) -> tuple[str, dict[str, Any]]:
    result: CallToolResult = await client.call_tool(name, arguments)
    assert not result.is_error, result.content
    assert result.structured_content is not None
    return result.content[0].text, result.structured_content  # type: ignore[union-attr]


def says_every_task(text: str, data: dict[str, Any]) -> None:
    """Each task of the structured content has its line: id, title, deadline, group name, status."""
    for task in tasks_in(data):
        [line] = [ln for ln in text.splitlines() if f"#{task['id']} {task['title']} · " in ln]
        assert f"deadline {task['deadline_at'] or 'none'}" in line
        assert f"group {task['effective_group']} {GROUP_LABELS['zh'][task['effective_group']]}" in line
        status = "done" if task["is_completed"] else "overdue" if task["overdue"] else "open"
        assert f" · {status}" in line


# --- 1. the text says what the structured content says ---------------------------------------------


async def test_find_tasks_text_lists_every_task_in_the_users_offset(harness: Harness) -> None:
    ids = seed(harness)
    async with in_process(harness, "alice") as client:
        text, data = await raw(client, "find_tasks")
    assert text.splitlines()[0] == "3 of 3 tasks"
    says_every_task(text, data)
    assert f"#{ids['late']} 还书 · deadline 2026-11-28T12:00:00+08:00 · group 3 简单不重要 · overdue" in text
    assert f"#{ids['bill']} 交电费 · deadline 2026-11-30T18:00:00+08:00 · group 1 重要且紧急 · open" in text
    assert "bob" not in text


async def test_a_raised_group_and_a_task_without_deadline_are_said(harness: Harness) -> None:
    raised = harness.add("备课", 4, "2026-12-03 09:00", threshold="2026-11-29 09:00")
    bare = harness.add("读书", 2)
    async with in_process(harness, "alice") as client:
        text, data = await raw(client, "find_tasks", sort_by="id")
    says_every_task(text, data)
    assert f"#{raised} 备课 · deadline 2026-12-03T09:00:00+08:00 · group 3 简单不重要 (raised from 4" in text
    assert "rises at 2026-11-29T09:00:00+08:00" in text
    assert f"#{bare} 读书 · deadline none · group 2 重要不紧急 · open" in text


async def test_update_and_complete_say_what_changed_before_and_after(harness: Harness) -> None:
    ids = seed(harness)
    async with in_process(harness, "alice") as client:
        moved, data = await raw(
            client, "update_task", task_id=ids["report"], deadline_at="2026-12-02T09:00:00+08:00", priority_group=1
        )
        done, _ = await raw(client, "complete_task", task_id=ids["bill"])
    assert moved.splitlines()[0] == "updated: 写周报"
    assert "deadline_at: 2026-12-04T17:00:00+08:00 → 2026-12-02T09:00:00+08:00" in moved
    assert "priority_group: 2 → 1" in moved
    assert f"change_id: {data['change_id']}" in moved
    says_every_task(moved, data)
    assert "is_completed: false → true" in done
    assert (
        f"#{ids['bill']} 交电费 · deadline 2026-11-30T18:00:00+08:00 · group 1 重要且紧急 · done 2026-11-30T10:00"
        in done
    )


async def test_every_tools_text_names_its_tasks_and_change_ids(harness: Harness) -> None:
    ids = seed(harness)
    async with in_process(harness, "alice") as client:
        asked, asked_data = await raw(client, "ask_tasks", question="今天要做什么")
        noted, noted_data = await raw(client, "capture_note", text="周五下午买牛奶", client_message_id="m-1")
        gone, gone_data = await raw(client, "delete_tasks", task_ids=[ids["late"]])
        undone, _ = await raw(client, "undo", change_ids=gone_data["change_ids"])
    says_every_task(asked, asked_data)
    assert asked.startswith(asked_data["answer"]) and asked.count(asked_data["answer"]) == 1
    assert "window_start=2026-11-30T00:00:00+08:00" in asked  # how the question was read
    says_every_task(noted, noted_data)
    assert f"change_ids: {noted_data['change_ids']}" in noted
    assert f"id={ids['late']}, title=还书" in gone and f"change_ids: {gone_data['change_ids']}" in gone
    assert "effect=restored" in undone


# --- 2. argument errors read as REST's ------------------------------------------------------------


async def test_bad_arguments_get_rests_wording_as_tool_errors(harness: Harness) -> None:
    ids = seed(harness)
    key = harness.api_key("alice")
    with harness.client() as rest:
        headers = {"Authorization": f"Bearer {key}"}
        rest_missing = rest.post("/tasks", json={}, headers=headers).json()["error"]["message"]
        rest_wrong = rest.patch(f"/tasks/{ids['bill']}", json={"title": 5}, headers=headers).json()["error"]
    assert rest_missing == "Invalid value for 'title': Field required"
    assert rest_wrong["message"] == "Invalid value for 'title': Input should be a valid string"
    async with in_process(harness, "alice") as client:
        missing = await error(client, "ask_tasks")
        wrong = await error(client, "ask_tasks", question=5)
        extra = await error(client, "complete_task", task_id=ids["bill"], colour="red")
        not_int = await error(client, "complete_task", task_id="abc")
        bounds = await error(client, "delete_tasks", task_ids=[])
    # REST's wording (app.errors.validation_message); an unknown argument is refused, as find_tasks
    # always did, so a misspelt one (deadline for deadline_at) is not silently dropped.
    assert missing.endswith("Invalid value for 'question': Field required")
    assert wrong.endswith("Invalid value for 'question': Input should be a valid string")
    assert extra.endswith("Invalid value for 'colour': Extra inputs are not permitted")
    assert "Invalid value for 'task_id': Input should be a valid integer" in not_int
    assert "Invalid value for 'task_ids'" in bounds
    for text in (missing, wrong, extra, not_int, bounds):
        assert "pydantic" not in text and "Arguments" not in text and "input_value" not in text
    assert not harness.task(ids["bill"]).is_completed  # an extra argument wrote nothing


async def test_tools_publish_that_unknown_arguments_are_refused(harness: Harness) -> None:
    async with in_process(harness, "alice") as client:
        tools = (await client.list_tools()).tools
    assert {t.name: t.input_schema.get("additionalProperties") for t in tools} == {t.name: False for t in tools}


async def test_a_list_sent_as_a_json_string_is_still_read(harness: Harness) -> None:
    """The SDK's leniency for clients that send `"[3]"` for a list is kept by our own check."""
    ids = seed(harness)
    async with in_process(harness, "alice") as client:
        data = await call(client, "delete_tasks", task_ids=f"[{ids['late']}]")
    assert [t["id"] for t in data["deleted"]] == [ids["late"]]


# --- 3. an unchanged write says so and records nothing --------------------------------------------


async def test_a_write_that_changes_nothing_says_so_and_records_no_change(harness: Harness) -> None:
    ids = seed(harness)
    async with in_process(harness, "alice") as client:
        first, first_data = await raw(client, "complete_task", task_id=ids["bill"])
        recorded = len(harness.changes())
        again, again_data = await raw(client, "complete_task", task_id=ids["bill"])
        reopen, reopen_data = await raw(client, "complete_task", task_id=ids["report"], completed=False)
        same, same_data = await raw(client, "update_task", task_id=ids["report"], priority_group=2)
    assert first.startswith("completed: 交电费") and first_data["changed"] is True
    assert again.splitlines()[0] == "nothing changed: 交电费 was already done"
    assert reopen.splitlines()[0] == "nothing changed: 写周报 was already open"
    assert same.splitlines()[0] == "nothing changed: 写周报 already had these values"
    for text, data in ((again, again_data), (reopen, reopen_data), (same, same_data)):
        assert data["changed"] is False and data["change_id"] is None
        assert "→" not in text and "completed:" not in text and "reopened" not in text
    assert len(harness.changes()) == recorded == 1


# --- 4. one datetime format: the user's offset, on every tool --------------------------------------


async def test_every_tool_returns_moments_in_the_users_offset(harness: Harness) -> None:
    ids = seed(harness)
    async with in_process(harness, "alice") as client:
        results = [
            await call(client, "find_tasks", include_completed=True),
            await call(client, "ask_tasks", question="今天要做什么"),
            await call(client, "capture_note", text="周五下午买牛奶", client_message_id="m-2"),
            await call(client, "complete_task", task_id=ids["bill"]),  # completed_at: the write's own clock
            await call(client, "complete_task", task_id=ids["bill"]),  # read back from the database
            await call(client, "update_task", task_id=ids["report"], deadline_at="2026-12-02T01:00:00Z"),
        ]
    seen = [m for r in results for m in moments(r)]
    assert len(seen) > 20
    assert all(m.endswith(SHANGHAI) and "Z" not in m for m in seen), seen
    assert results[5]["task"]["deadline_at"] == "2026-12-02T09:00:00+08:00"
    assert results[3]["task"]["completed_at"] == results[4]["task"]["completed_at"]


async def test_a_tools_timezone_argument_sets_the_offset_of_its_result(harness: Harness) -> None:
    seed(harness)
    async with in_process(harness, "alice") as client:
        asked = await call(client, "ask_tasks", question="今天要做什么", timezone="America/New_York")
    seen = moments(asked)
    assert seen and all(m.endswith("-05:00") for m in seen), seen


async def test_over_http_the_timezone_header_sets_the_offset(harness: Harness) -> None:
    seed(harness)
    key = harness.api_key("alice")
    app = create_app(harness.state.settings, state=harness.state)
    headers = {"Authorization": f"Bearer {key}", "X-Suikou-Timezone": "America/New_York"}
    async with (
        app.router.lifespan_context(app),
        httpx2.AsyncClient(transport=httpx2.ASGITransport(app=app), headers=headers) as http,
        Client(streamable_http_client("http://testserver/mcp", http_client=http), cache=None) as client,
    ):
        found = await call(client, "find_tasks")
        http.headers["X-Suikou-Timezone"] = "Mars/Base"
        unknown = await error(client, "find_tasks")
    seen = moments(found)
    assert seen and all(m.endswith("-05:00") for m in seen), seen
    assert "Unknown timezone 'Mars/Base'" in unknown


# --- 5. the groups' names are the product's -----------------------------------------------------


async def test_update_task_names_the_groups_as_the_readme_does(harness: Harness) -> None:
    async with in_process(harness, "alice") as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
    described = tools["update_task"].input_schema["properties"]["priority_group"]["description"]
    table = dict(re.findall(r"^\| ([1-4]) \| (\S+) \|", README.read_text(encoding="utf-8"), flags=re.M))
    assert set(table) == {"1", "2", "3", "4"}
    for group, label in table.items():
        assert f"{group} {label}" in described
        assert GROUP_LABELS["zh"][int(group)] == label
    assert "3 urgent" not in described


# --- 6. deadline_at with clear_deadline is a conflict ---------------------------------------------


async def test_deadline_and_clear_deadline_together_are_refused(harness: Harness) -> None:
    ids = seed(harness)
    async with in_process(harness, "alice") as client:
        text = await error(
            client, "update_task", task_id=ids["report"], deadline_at="2026-12-02T09:00:00+08:00", clear_deadline=True
        )
    assert "either deadline_at or clear_deadline" in text and "nothing was changed" in text
    report = harness.task(ids["report"])
    assert report.deadline_at is not None and report.deadline_at.day == 4
    assert harness.changes() == []
