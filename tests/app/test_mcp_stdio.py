"""`suikou mcp --user NAME` over stdio: the real process, spoken to by the SDK's client."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters
from sqlmodel import col, select

from core.models import User
from support.harness import Harness

SUIKOU = Path(sys.executable).with_name("suikou")


def params(database_url: str, cwd: Path, *args: str) -> StdioServerParameters:
    # cwd: a directory without a .env, so only this environment configures the process
    env = {"SUIKOU_DATABASE_URL": database_url, "SUIKOU_TIMEZONE": "Asia/Shanghai"}
    return StdioServerParameters(command=str(SUIKOU), args=["mcp", *args], env=env, cwd=str(cwd))


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_stdio_serves_the_named_user(harness: Harness, database_url: str, tmp_path: Path, mode: str) -> None:
    mine = harness.add("bob 的报告", 2, user="bob")
    theirs = harness.add("alice 的", 1)
    async with Client(params(database_url, tmp_path, "--user", "bob"), mode=mode, cache=None) as client:
        names = {t.name for t in (await client.list_tools()).tools}
        listed = await client.call_tool("find_tasks", {"keyword": "报告"})
        other = await client.call_tool("complete_task", {"task_id": theirs})
    assert "capture_note" in names and "ask_tasks" in names
    assert listed.structured_content is not None
    assert [t["id"] for t in listed.structured_content["items"]] == [mine]
    assert other.is_error and f"task {theirs} not found" in other.content[0].text  # type: ignore[union-attr]


def test_stdout_carries_only_the_protocol(harness: Harness, database_url: str, tmp_path: Path) -> None:
    """A new user is created, and nothing but JSON-RPC reaches stdout (migrations, logs: stderr)."""
    hello: dict[str, Any] = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "probe", "version": "0"},
        },
    }
    p = params(database_url, tmp_path, "--user", "newcomer")
    done = subprocess.run(
        [p.command, *p.args],
        input=json.dumps(hello) + "\n",
        capture_output=True,
        text=True,
        env={"PATH": "/usr/bin:/bin", **(p.env or {})},
        cwd=p.cwd,
        timeout=60,
    )
    lines = [line for line in done.stdout.splitlines() if line.strip()]
    assert lines, done.stderr
    replies = [json.loads(line) for line in lines]  # every line is JSON
    assert replies[0]["id"] == 1 and replies[0]["result"]["serverInfo"]["name"] == "suikou"
    assert "Suikou" in replies[0]["result"]["instructions"]
    with harness.state.session() as session:
        assert session.exec(select(User).where(col(User.name) == "newcomer")).first() is not None
