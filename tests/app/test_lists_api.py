"""Lists and labels over REST: a task's `list`/`labels`, filters on /tasks (series included), /lists and
/labels with counts, rename and delete through the write path (reverted, the list comes back), bad
names, isolation.

NOW is Monday 2026-11-30 10:00 Asia/Shanghai (support.harness).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from support.harness import Harness
from tests.app.test_mcp import call, error, in_process, seed


@pytest.fixture
def client(harness: Harness) -> Iterator[TestClient]:
    with harness.client() as c:
        yield c


def _titles(client: TestClient, **params: Any) -> list[str]:
    r = client.get("/tasks", params=params)
    assert r.status_code == 200, r.text
    return [t["title"] for t in r.json()["items"]]


def test_a_task_keeps_its_list_and_labels(client: TestClient) -> None:
    made = client.post("/tasks", json={"title": "买牛奶", "list": "购物清单", "labels": ["#家里", "急", "家里"]})
    assert made.status_code == 201, made.text
    body = made.json()
    assert body["list"] == "购物清单" and body["labels"] == ["家里", "急"]
    task_id = body["id"]
    assert client.get(f"/tasks/{task_id}").json()["list"] == "购物清单"
    patched = client.patch(f"/tasks/{task_id}", json={"list": "家务", "labels": []}).json()
    assert patched["list"] == "家务" and patched["labels"] == []
    reverted = client.post(f"/changes/{patched['change_id']}/revert").json()
    assert reverted["change"]["summary"] == "修改「买牛奶」（清单改回购物清单，标签改回家里、急）"
    back = client.get(f"/tasks/{task_id}").json()
    assert back["list"] == "购物清单" and back["labels"] == ["家里", "急"]
    assert client.patch(f"/tasks/{task_id}", json={"list": None}).json()["list"] is None


def test_filters_read_lists_and_labels_ignoring_case(client: TestClient) -> None:
    client.post("/tasks", json={"title": "写方案", "list": "Work", "labels": ["Urgent"]})
    client.post("/tasks", json={"title": "回邮件", "list": "work"})
    client.post("/tasks", json={"title": "买菜", "labels": ["urgent", "家里"]})
    client.post("/tasks", json={"title": "无关"})
    assert sorted(_titles(client, list="WORK")) == ["写方案", "回邮件"]
    assert sorted(_titles(client, label="#urgent")) == ["买菜", "写方案"]
    assert _titles(client, list="work", label="urgent") == ["写方案"]
    assert _titles(client, label="没有的") == []
    assert client.get("/tasks", params={"list": " , "}).status_code == 400


def test_a_series_in_a_window_is_filtered_by_its_list(client: TestClient) -> None:
    client.post(
        "/tasks",
        json={"title": "交周报", "deadline_at": "2026-11-23T09:00:00+08:00", "recurrence": {"rule": "FREQ=WEEKLY"},
              "list": "工作", "labels": ["周报"]},
    )  # fmt: skip
    client.post("/tasks", json={"title": "别的", "deadline_at": "2026-12-01T09:00:00+08:00"})
    window = {"time_after": "2026-12-07T00:00:00+08:00", "time_before": "2026-12-07T23:59:59+08:00"}
    assert _titles(client, list="工作", **window) == ["交周报"]
    assert _titles(client, label="周报", **window) == ["交周报"]
    assert _titles(client, list="家务", **window) == []


def test_lists_are_counted_renamed_and_deleted_through_the_write_path(client: TestClient) -> None:
    a = client.post("/tasks", json={"title": "牛奶", "list": "购物"}).json()["id"]
    client.post("/tasks", json={"title": "鸡蛋", "list": "购物"})
    client.post(f"/tasks/{a}/complete")
    empty = client.post("/lists", json={"name": "旅行"})
    assert empty.status_code == 201 and empty.json()["total"] == 0
    assert client.post("/lists", json={"name": "#旅行"}).json()["id"] == empty.json()["id"]
    items = {i["name"]: (i["open"], i["total"]) for i in client.get("/lists").json()["items"]}
    assert items == {"购物": (1, 2), "旅行": (0, 0)}
    shop = next(i["id"] for i in client.get("/lists").json()["items"] if i["name"] == "购物")
    clash = client.patch(f"/lists/{shop}", json={"name": "旅行"})
    assert clash.status_code == 409 and clash.json()["error"]["code"] == "conflict"
    renamed = client.patch(f"/lists/{shop}", json={"name": "采购"}).json()
    assert renamed["tasks"] == 2 and len(renamed["change_ids"]) == 2
    assert sorted(_titles(client, list="采购", include_completed=True)) == ["牛奶", "鸡蛋"]
    gone = client.delete(f"/lists/{shop}").json()
    assert gone == {"name": "采购", "tasks": 2, "change_ids": gone["change_ids"]}
    assert [i["name"] for i in client.get("/lists").json()["items"]] == ["旅行"]
    assert _titles(client, list="采购") == []
    # Taking one move back puts the task in the list again, and the list is back.
    client.post(f"/changes/{gone['change_ids'][1]}/revert")
    assert [i["name"] for i in client.get("/lists").json()["items"]] == ["旅行", "采购"]
    assert _titles(client, list="采购") == ["鸡蛋"]
    assert client.delete(f"/lists/{shop + 100}").status_code == 404


def test_labels_are_counted_renamed_and_removed(client: TestClient) -> None:
    client.post("/tasks", json={"title": "a", "labels": ["工作", "急"]})
    client.post("/tasks", json={"title": "b", "labels": ["工作"]})
    labels = client.get("/labels").json()["items"]
    assert labels == [{"name": "工作", "open": 2, "total": 2}, {"name": "急", "open": 1, "total": 1}]
    moved = client.patch("/labels/工作", json={"name": "公司"}).json()
    assert moved["tasks"] == 2
    assert [t["labels"] for t in client.get("/tasks").json()["items"]] == [["公司", "急"], ["公司"]]
    removed = client.delete("/labels/%23急").json()
    assert removed["tasks"] == 1
    assert client.get("/labels").json()["items"] == [{"name": "公司", "open": 2, "total": 2}]
    assert client.delete("/labels/没有").status_code == 404


@pytest.mark.parametrize(
    "body",
    [{"list": ""}, {"list": "a,b"}, {"list": "x" * 41}, {"list": 3}, {"labels": "工作"}, {"labels": ["#"]},
     {"labels": [f"l{i}" for i in range(21)]}, {"labels": ["a;b"]}],
)  # fmt: skip
def test_bad_names_are_a_400_and_write_nothing(client: TestClient, body: dict[str, Any]) -> None:
    r = client.post("/tasks", json={"title": "写方案", **body})
    assert r.status_code == 400, r.text
    assert client.get("/tasks").json()["total"] == 0
    assert client.get("/lists").json()["items"] == []


def test_another_users_lists_and_labels_are_not_seen(harness: Harness, client: TestClient) -> None:
    alice = {"Authorization": f"Bearer {harness.api_key('alice')}"}
    bob = {"Authorization": f"Bearer {harness.api_key('bob')}"}
    client.post("/tasks", json={"title": "我的", "list": "私事", "labels": ["秘密"]}, headers=alice)
    assert client.get("/lists", headers=bob).json()["items"] == []
    assert client.get("/labels", headers=bob).json()["items"] == []
    assert client.get("/tasks", params={"list": "私事"}, headers=bob).json()["total"] == 0
    mine = client.get("/lists", headers=alice).json()["items"][0]["id"]
    assert client.delete(f"/lists/{mine}", headers=bob).status_code == 404
    assert client.patch(f"/lists/{mine}", json={"name": "偷"}, headers=bob).status_code == 404
    assert client.delete("/labels/秘密", headers=bob).status_code == 404
    assert client.get("/tasks", params={"label": "秘密"}, headers=alice).json()["total"] == 1
    assert client.get("/lists", headers=alice).json()["items"][0]["name"] == "私事"


async def test_mcp_moves_labels_and_finds_by_list(harness: Harness) -> None:
    ids = seed(harness)
    async with in_process(harness, "alice") as client:
        moved = await call(client, "update_task", task_id=ids["report"], list_name="工作", labels=["#周报", "急"])
        assert moved["task"]["list"] == "工作" and moved["task"]["labels"] == ["周报", "急"]
        found = await client.call_tool("find_tasks", {"list": "工作"})
        text = found.content[0].text  # type: ignore[union-attr]
        assert "in list 工作" in text and "labels #周报 #急" in text
        assert "1 of 1" in text
        by_label = await client.call_tool("find_tasks", {"label": "急"})
        assert "1 of 1" in by_label.content[0].text  # type: ignore[union-attr]
        out = await call(client, "update_task", task_id=ids["report"], list_name="", labels=[])
        assert out["task"]["list"] is None and out["task"]["labels"] == []
        assert "labels" in await error(client, "update_task", task_id=ids["report"], labels=["a,b"])
    async with in_process(harness, "bob") as other:
        assert "0 of 0" in (await other.call_tool("find_tasks", {"list": "工作"})).content[0].text  # type: ignore[union-attr]
