"""MCP `delete_tasks`: all or nothing, the caller's own tasks only, revertible with `undo`."""

from __future__ import annotations

from typing import Any

from mcp import Client

from app.mcp_server import CALLER, make_mcp
from support.harness import Harness


async def _call(h: Harness, user: str, name: str, **arguments: Any) -> Any:
    token = CALLER.set(h.user(user))
    try:
        async with Client(make_mcp(lambda: h.state), cache=None) as client:
            listed = {t.name: t for t in (await client.list_tools()).tools}
            return listed, await client.call_tool(name, arguments)
    finally:
        CALLER.reset(token)


async def test_delete_tasks_is_destructive_and_undo_brings_them_back(harness: Harness) -> None:
    first, second = harness.add("取快递", 3), harness.add("交报告", 1, "2026-12-01 15:00")
    listed, result = await _call(harness, "alice", "delete_tasks", task_ids=[first, second])
    hints = listed["delete_tasks"].annotations
    assert hints is not None and hints.destructive_hint is True and hints.read_only_hint is False
    assert not result.is_error
    data = result.structured_content
    assert [t["title"] for t in data["deleted"]] == ["取快递", "交报告"] and len(data["change_ids"]) == 2
    _listed, undone = await _call(harness, "alice", "undo", change_ids=data["change_ids"])
    assert [c["effect"] for c in undone.structured_content["undone"]] == ["restored", "restored"]
    assert harness.task(second).deadline_at is not None


async def test_an_id_that_is_not_yours_deletes_nothing(harness: Harness) -> None:
    mine, theirs = harness.add("取快递", 3), harness.add("bob 的任务", 3, user="bob")
    _listed, result = await _call(harness, "alice", "delete_tasks", task_ids=[mine, theirs])
    assert result.is_error and "nothing was deleted" in result.content[0].text  # type: ignore[union-attr]
    assert harness.task(mine).title == "取快递" and harness.task(theirs, "bob").title == "bob 的任务"
    assert harness.changes("delete") == []
