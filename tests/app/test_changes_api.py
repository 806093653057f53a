"""REST writes are logged like chat writes: change ids, `POST /changes/{id}/revert`, `GET /changes`.

Keyless local mode (the user is "local"); NOW is Monday 2026-11-30 10:00 Asia/Shanghai.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient

from support.harness import NOW, Harness

DUE = "2026-12-02T20:00:00+08:00"


@pytest.fixture
def client(harness: Harness) -> Iterator[TestClient]:
    with harness.client() as c:
        yield c


def created(client: TestClient, title: str = "取快递", **extra: Any) -> dict[str, Any]:
    r = client.post("/tasks", json={"title": title, "deadline_at": DUE, **extra})
    assert r.status_code == 201, r.text
    body: dict[str, Any] = r.json()
    assert r.headers["X-Suikou-Change"] == str(body["change_id"])
    return body


def test_every_rest_write_answers_with_its_change(client: TestClient) -> None:
    task = created(client)
    patched = client.patch(f"/tasks/{task['id']}", json={"title": "取两个快递"})
    done = client.post(f"/tasks/{task['id']}/complete")
    same = client.post(f"/tasks/{task['id']}/complete")  # already done: no change
    gone = client.delete(f"/tasks/{task['id']}")
    ids = [task["change_id"], patched.json()["change_id"], done.json()["change_id"]]
    assert len(set(ids)) == 3 and all(isinstance(i, int) for i in ids)
    assert same.json()["change_id"] is None and "X-Suikou-Change" not in same.headers
    assert gone.status_code == 204 and int(gone.headers["X-Suikou-Change"]) > max(ids)
    listed = client.get("/changes", params={"limit": 10}).json()["items"]
    assert [c["kind"] for c in listed] == ["delete", "complete", "update", "create"]
    assert listed[0]["summary"] == "删除「取两个快递」（原定 12月2日 周三 20:00 截止）"


def test_a_rest_change_reverts_and_a_second_revert_says_so(harness: Harness, client: TestClient) -> None:
    task = created(client)
    patched = client.patch(f"/tasks/{task['id']}", json={"priority_group": 1}).json()
    client.patch(f"/tasks/{task['id']}", json={"title": "取快递和信"})  # a later edit of another field
    first = client.post(f"/changes/{patched['change_id']}/revert")
    second = client.post(f"/changes/{patched['change_id']}/revert")
    assert first.status_code == 200 and first.json()["already"] is False
    assert first.json()["change"]["effect"] == "restored"
    assert second.status_code == 200 and second.json()["already"] is True
    now = client.get(f"/tasks/{task['id']}").json()
    assert (now["priority_group"], now["title"]) == (2, "取快递和信")  # only its own field went back


def test_a_rest_delete_is_undone_exactly_even_by_chat(harness: Harness, client: TestClient) -> None:
    task = created(client)
    gone = client.delete(f"/tasks/{task['id']}")
    reverted = client.post(f"/changes/{gone.headers['X-Suikou-Change']}/revert").json()
    assert reverted["change"]["effect"] == "restored"
    back = client.get(f"/tasks/{task['id']}")
    assert back.status_code == 200 and back.json()["title"] == "取快递" and back.json()["deadline_at"]


def test_another_users_change_is_a_404(harness: Harness) -> None:
    alice_key, bob_key = harness.api_key("alice"), harness.api_key("bob")
    with harness.client() as client:
        alice = {"Authorization": f"Bearer {alice_key}"}
        bob = {"Authorization": f"Bearer {bob_key}"}
        task = client.post("/tasks", json={"title": "alice 的任务"}, headers=alice).json()
        refused = client.post(f"/changes/{task['change_id']}/revert", headers=bob)
        assert refused.status_code == 404 and refused.json()["error"]["code"] == "not_found"
        assert client.get("/changes", headers=bob).json()["items"] == []
        assert client.get(f"/tasks/{task['id']}", headers=alice).status_code == 200
        assert client.post("/changes/999999/revert", headers=alice).status_code == 404


def test_an_idempotency_key_makes_a_retry_write_nothing_more(harness: Harness, client: TestClient) -> None:
    headers = {"Idempotency-Key": "create-milk-1"}
    first = client.post("/tasks", json={"title": "买牛奶"}, headers=headers)
    harness.state.clock = lambda: NOW + timedelta(days=30)  # a client id never goes stale
    again = client.post("/tasks", json={"title": "买牛奶"}, headers=headers)
    assert (first.status_code, again.status_code) == (201, 201)
    assert again.json()["id"] == first.json()["id"] and again.json()["change_id"] == first.json()["change_id"]
    assert client.get("/tasks").json()["total"] == 1
    assert len(harness.changes("create")) == 1


def test_an_idempotency_key_sent_with_another_request_is_a_409(harness: Harness, client: TestClient) -> None:
    """A key names one request (route and body): reusing it elsewhere writes nothing and says why,
    instead of answering with what the first request wrote (a 404 for a task it never named)."""
    task = created(client)
    key = {"Idempotency-Key": "k-1"}
    assert client.delete(f"/tasks/{task['id']}", headers=key).status_code == 204
    reused = [
        client.post("/tasks", json={"title": "另一件事"}, headers=key),
        client.post(f"/tasks/{task['id']}/complete", headers=key),
        client.delete(f"/tasks/{task['id'] + 1}", headers=key),
    ]
    assert [r.status_code for r in reused] == [409, 409, 409]
    assert reused[0].json()["error"]["code"] == "idempotency_key_reused"
    assert reused[0].json()["error"]["param"] == "Idempotency-Key"
    assert client.get("/tasks").json()["total"] == 0
    first = client.post("/tasks", json={"title": "买牛奶"}, headers={"Idempotency-Key": "k-2"})
    other_body = client.post("/tasks", json={"title": "买面包"}, headers={"Idempotency-Key": "k-2"})
    assert (first.status_code, other_body.status_code) == (201, 409)
    assert [t["title"] for t in client.get("/tasks").json()["items"]] == ["买牛奶"]


def test_long_idempotency_keys_fit_the_columns_and_stay_distinct(harness: Harness, client: TestClient) -> None:
    """Keys up to the documented 200 characters: stored as a digest past 100, never cut (two keys that
    share a long prefix are two attempts), and the task's source key fits its 128-character column."""
    head = "x" * 150
    one = client.post("/tasks", json={"title": "买牛奶"}, headers={"Idempotency-Key": head + "1"})
    two = client.post("/tasks", json={"title": "买牛奶"}, headers={"Idempotency-Key": head + "2"})
    again = client.post("/tasks", json={"title": "买牛奶"}, headers={"Idempotency-Key": head + "1"})
    assert (one.status_code, two.status_code, again.status_code) == (201, 201, 201)
    assert one.json()["id"] != two.json()["id"] and again.json()["id"] == one.json()["id"]
    keys = [harness.task(t["id"], user="local").source_key or "" for t in (one.json(), two.json())]
    assert len(set(keys)) == 2 and all(0 < len(k) <= 128 for k in keys)


def test_a_chat_undo_takes_back_a_chat_write_after_a_rest_edit(harness: Harness, client: TestClient) -> None:
    """Chat, REST and MCP share one log: a REST edit of another field survives a chat "撤销"."""
    harness.add("交报告", 2, "2026-12-02 15:00", user="local")
    body = {"model": "suikou", "messages": [{"role": "user", "content": "交报告做完了"}]}
    answer = client.post("/v1/chat/completions", json=body).json()["choices"][0]["message"]["content"]
    [task] = client.get("/tasks", params={"include_completed": True}).json()["items"]
    client.patch(f"/tasks/{task['id']}", json={"title": "交季度报告"})
    body["messages"] += [{"role": "assistant", "content": answer}, {"role": "user", "content": "撤销"}]
    client.post("/v1/chat/completions", json=body)
    now = client.get(f"/tasks/{task['id']}").json()
    assert (now["is_completed"], now["title"]) == (False, "交季度报告")
