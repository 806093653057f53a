"""Estimates on every surface: REST create/patch/read with its bounds, a change reverted, lists and MCP
showing it, update_task setting and clearing it.

NOW is Monday 2026-11-30 10:00 Asia/Shanghai (support.harness).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from core.store import TaskFilter, query_tasks
from support.harness import Harness
from taskquery.rendering import task_line
from tests.app.test_mcp import call, error, in_process, seed


@pytest.fixture
def client(harness: Harness) -> Iterator[TestClient]:
    with harness.client() as c:
        yield c


def test_rest_keeps_and_changes_an_estimate(client: TestClient) -> None:
    made = client.post("/tasks", json={"title": "写周报", "estimate_minutes": 60})
    assert made.status_code == 201 and made.json()["estimate_minutes"] == 60
    task_id = made.json()["id"]
    patched = client.patch(f"/tasks/{task_id}", json={"estimate_minutes": 90}).json()
    assert patched["estimate_minutes"] == 90
    reverted = client.post(f"/changes/{patched['change_id']}/revert").json()
    assert reverted["change"]["summary"] == "修改「写周报」（预计用时改回1小时）"
    assert client.get(f"/tasks/{task_id}").json()["estimate_minutes"] == 60
    cleared = client.patch(f"/tasks/{task_id}", json={"estimate_minutes": None}).json()
    assert cleared["estimate_minutes"] is None
    assert client.post("/tasks", json={"title": "没说多久"}).json()["estimate_minutes"] is None


@pytest.mark.parametrize("value", [0, -5, 14401, "60", True, 1.5])
def test_an_estimate_out_of_bounds_or_not_a_number_is_a_400(client: TestClient, value: Any) -> None:
    r = client.post("/tasks", json={"title": "写周报", "estimate_minutes": value})
    assert r.status_code == 400, r.text
    assert "estimate_minutes" in (r.json()["error"]["param"] or "")
    assert client.get("/tasks").json()["total"] == 0


def test_lists_show_the_estimate_of_open_tasks(harness: Harness, client: TestClient) -> None:
    client.post("/tasks", json={"title": "写周报", "deadline_at": "2026-12-04T17:00:00+08:00", "estimate_minutes": 90})
    with harness.state.session() as session:
        [row] = query_tasks(session, harness.user("local"), TaskFilter(), now=harness.now).items
    assert row.estimate_minutes == 90
    assert task_line(1, row, "Asia/Shanghai", harness.now).endswith("；预计1小时30分）")
    assert "about 1 h 30 min" in task_line(1, row, "Asia/Shanghai", harness.now, locale="en")


async def test_mcp_update_task_sets_and_clears_an_estimate(harness: Harness) -> None:
    ids = seed(harness)
    async with in_process(harness, "alice") as client:
        set_ = await call(client, "update_task", task_id=ids["report"], estimate_minutes=45)
        assert set_["task"]["estimate_minutes"] == 45
        found = await client.call_tool("find_tasks", {"keyword": "周报"})
        assert "takes about 45 min" in found.content[0].text  # type: ignore[union-attr]
        cleared = await call(client, "update_task", task_id=ids["report"], estimate_minutes=0)
        assert cleared["task"]["estimate_minutes"] is None
        assert "estimate_minutes" in await error(client, "update_task", task_id=ids["report"], estimate_minutes=99999)
