"""REST `/tasks`: create, list with filters, read, update, complete, delete, and validation errors."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from typing import Any

import pytest
from fastapi.testclient import TestClient

from core import store
from support.check_stream import schema_errors

# The harness clock: Monday 2026-11-30 10:00 in Shanghai (02:00 UTC).


@pytest.fixture
def api(harness: Any) -> Iterator[tuple[TestClient, dict[str, str]]]:
    key = harness.api_key("alice")
    with harness.client() as client:
        yield client, {"Authorization": f"Bearer {key}"}


def instant(value: str) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


def create(client: TestClient, headers: dict[str, str], **body: Any) -> dict[str, Any]:
    r = client.post("/tasks", headers=headers, json=body)
    assert r.status_code == 201, r.text
    return r.json()


def listed(client: TestClient, headers: dict[str, str], **params: Any) -> list[str]:
    r = client.get("/tasks", headers=headers, params=params)
    assert r.status_code == 200, r.text
    return [t["title"] for t in r.json()["items"]]


def assert_400(r: Any, param: str | None = None) -> dict[str, Any]:
    assert r.status_code == 400, r.text
    assert r.headers["content-type"].startswith("application/json")
    body = r.json()
    assert schema_errors("error_response", body) == []
    assert body["error"]["type"] == "invalid_request_error"
    if param is not None:
        assert body["error"]["param"] == param
    return body["error"]


# --- CRUD --------------------------------------------------------------------------------------------


def test_create_and_read(api: tuple[TestClient, dict[str, str]]) -> None:
    client, h = api
    task = create(client, h, title="  交季度报告  ", priority_group=1, deadline_at="2026-12-01T15:00:00+08:00")
    assert task["title"] == "交季度报告"  # trimmed
    assert task["priority_group"] == 1 and task["effective_group"] == 1 and not task["promoted"]
    assert instant(task["deadline_at"]) == instant("2026-12-01T07:00:00Z")
    assert instant(task["created_at"]) == instant("2026-11-30T02:00:00Z")  # the harness clock
    assert task["is_completed"] is False and task["completed_at"] is None
    assert task["urgency_threshold_at"] is None
    got = client.get(f"/tasks/{task['id']}", headers=h)
    assert got.status_code == 200
    read = got.json()
    assert {k: read[k] for k in ("id", "title", "priority_group", "effective_group", "is_completed")} == {
        k: task[k] for k in ("id", "title", "priority_group", "effective_group", "is_completed")
    }
    assert instant(read["deadline_at"]) == instant(task["deadline_at"])


def test_create_defaults(api: tuple[TestClient, dict[str, str]]) -> None:
    client, h = api
    task = create(client, h, title="随便记记")
    assert task["priority_group"] == 2
    assert task["deadline_at"] is None


def test_promotion_when_the_urgency_threshold_has_passed(api: tuple[TestClient, dict[str, str]]) -> None:
    client, h = api
    task = create(
        client,
        h,
        title="体检",
        priority_group=2,
        deadline_at="2026-12-10T09:00:00+08:00",
        urgency_threshold_at="2026-11-29T09:00:00+08:00",
    )
    assert task["priority_group"] == 2
    assert task["effective_group"] == 1 and task["promoted"] is True
    assert listed(client, h, quadrants=1) == ["体检"]
    assert listed(client, h, quadrants=2) == []


def test_overdue_is_read_at_the_service_clock(api: tuple[TestClient, dict[str, str]]) -> None:
    client, h = api
    late = create(client, h, title="交电费", priority_group=1, deadline_at="2026-11-30T09:59:00+08:00")
    due = create(client, h, title="交水费", priority_group=1, deadline_at="2026-11-30T10:01:00+08:00")
    undated = create(client, h, title="学吉他", priority_group=2)
    assert (late["overdue"], due["overdue"], undated["overdue"]) == (True, False, False)
    done = client.post(f"/tasks/{late['id']}/complete", headers=h).json()
    assert done["overdue"] is False  # finished work is never overdue
    rows = client.get("/tasks", headers=h, params={"include_completed": True}).json()["items"]
    assert {t["title"]: t["overdue"] for t in rows} == {"交电费": False, "交水费": False, "学吉他": False}


def test_update_is_partial(api: tuple[TestClient, dict[str, str]]) -> None:
    client, h = api
    task = create(client, h, title="写周报", priority_group=2, deadline_at="2026-12-04T18:00:00+08:00")
    r = client.patch(f"/tasks/{task['id']}", headers=h, json={"title": "写月报"})
    assert r.status_code == 200
    assert r.json()["title"] == "写月报"
    assert r.json()["priority_group"] == 2
    assert instant(r.json()["deadline_at"]) == instant("2026-12-04T10:00:00Z")
    r = client.patch(f"/tasks/{task['id']}", headers=h, json={"deadline_at": None, "priority_group": 4})
    assert r.json()["deadline_at"] is None and r.json()["priority_group"] == 4
    assert r.json()["title"] == "写月报"
    r = client.patch(f"/tasks/{task['id']}", headers=h, json={"is_completed": True})
    assert r.json()["is_completed"] is True and r.json()["completed_at"] is not None


def test_complete_and_reopen(api: tuple[TestClient, dict[str, str]]) -> None:
    client, h = api
    task = create(client, h, title="买牛奶", priority_group=3)
    r = client.post(f"/tasks/{task['id']}/complete", headers=h)
    assert r.status_code == 200
    assert r.json()["is_completed"] is True
    assert instant(r.json()["completed_at"]) == instant("2026-11-30T02:00:00Z")
    assert listed(client, h) == []
    assert listed(client, h, include_completed=True) == ["买牛奶"]
    r = client.post(f"/tasks/{task['id']}/complete", headers=h, json={"completed": False})
    assert r.json()["is_completed"] is False and r.json()["completed_at"] is None
    assert listed(client, h) == ["买牛奶"]


def test_delete(api: tuple[TestClient, dict[str, str]]) -> None:
    client, h = api
    task = create(client, h, title="临时任务")
    r = client.delete(f"/tasks/{task['id']}", headers=h)
    assert r.status_code == 204 and r.content == b""
    for again in (
        client.get(f"/tasks/{task['id']}", headers=h),
        client.delete(f"/tasks/{task['id']}", headers=h),
        client.patch(f"/tasks/{task['id']}", headers=h, json={"title": "x"}),
        client.post(f"/tasks/{task['id']}/complete", headers=h),
    ):
        assert again.status_code == 404
        assert schema_errors("error_response", again.json()) == []
        assert again.json()["error"]["code"] == "not_found"
    assert listed(client, h, include_completed=True) == []


# --- list filters ---------------------------------------------------------------------------------------


@pytest.fixture
def seeded(harness: Any, api: tuple[TestClient, dict[str, str]]) -> tuple[TestClient, dict[str, str]]:
    harness.add("交周报", 1, "2026-12-01 15:00")
    harness.add("买猫粮", 3, "2026-12-01 19:00")
    harness.add("整理书架", 4, "2026-12-05 10:00")
    harness.add("读一本书", 2, None)
    harness.add("缴电费", 1, "2026-11-28 18:00")  # overdue
    harness.add("旧报告", 2, "2026-11-20 10:00", completed_at="2026-11-21 09:00")
    return api


def test_openapi_documents_the_no_deadline_filter(seeded: tuple[TestClient, dict[str, str]]) -> None:
    client, _ = seeded
    params = client.get("/openapi.json").json()["paths"]["/tasks"]["get"]["parameters"]
    (param,) = [p for p in params if p["name"] == "no_deadline"]
    assert param["in"] == "query" and param["schema"]["type"] == "boolean" and param["schema"]["default"] is False
    assert "without a deadline" in param["description"]


def test_default_list_is_open_tasks_by_deadline(seeded: tuple[TestClient, dict[str, str]]) -> None:
    client, h = seeded
    r = client.get("/tasks", headers=h)
    assert r.json()["total"] == 5
    # Deadline ascending, tasks without a deadline last.
    assert [t["title"] for t in r.json()["items"]] == ["缴电费", "交周报", "买猫粮", "整理书架", "读一本书"]


def test_filters(seeded: tuple[TestClient, dict[str, str]]) -> None:
    client, h = seeded
    assert listed(client, h, quadrants=[1]) == ["缴电费", "交周报"]
    assert listed(client, h, quadrants=[3, 4]) == ["买猫粮", "整理书架"]
    assert listed(client, h, only_overdue=True) == ["缴电费"]
    assert listed(client, h, no_deadline=True) == ["读一本书"]
    assert listed(client, h, no_deadline=True, quadrants=[1]) == []
    assert listed(client, h, keyword="报") == ["交周报"]
    assert listed(client, h, keyword="报", include_completed=True) == ["旧报告", "交周报"]
    window = {"time_after": "2026-12-01T00:00:00+08:00", "time_before": "2026-12-01T23:59:59+08:00"}
    assert listed(client, h, **window) == ["交周报", "买猫粮"]
    completed = {
        "time_field": "completed",
        "include_completed": True,
        "time_after": "2026-11-21T00:00:00+08:00",
        "time_before": "2026-11-21T23:59:59+08:00",
    }
    assert listed(client, h, **completed) == ["旧报告"]
    assert listed(client, h, sort_by="priority") == ["缴电费", "交周报", "读一本书", "买猫粮", "整理书架"]
    assert listed(client, h, order="desc") == ["整理书架", "买猫粮", "交周报", "缴电费", "读一本书"]
    assert listed(client, h, sort_by="id") == ["交周报", "买猫粮", "整理书架", "读一本书", "缴电费"]


def test_paging(seeded: tuple[TestClient, dict[str, str]]) -> None:
    client, h = seeded
    page = client.get("/tasks", headers=h, params={"limit": 2, "offset": 1}).json()
    assert page["total"] == 5
    assert [t["title"] for t in page["items"]] == ["交周报", "买猫粮"]
    assert client.get("/tasks", headers=h, params={"offset": 10}).json() == {
        "total": 5,
        "total_exact": True,
        "items": [],
    }


def test_total_past_the_count_cap_is_a_marked_bound(
    seeded: tuple[TestClient, dict[str, str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    client, h = seeded
    monkeypatch.setattr(store, "TOTAL_CAP", 2)
    page = client.get("/tasks", headers=h, params={"limit": 1}).json()
    assert (page["total"], page["total_exact"], [t["title"] for t in page["items"]]) == (2, False, ["缴电费"])
    deep = client.get("/tasks", headers=h, params={"limit": 2, "offset": 3}).json()
    assert (deep["total"], deep["total_exact"]) == (5, True)  # the page's end raises the bound


# --- validation ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "param"),
    [
        ({}, "title"),
        ({"title": ""}, "title"),
        ({"title": "   "}, "title"),
        ({"title": "x" * 501}, "title"),
        ({"title": 42}, "title"),
        ({"title": "x", "priority_group": 0}, "priority_group"),
        ({"title": "x", "priority_group": 5}, "priority_group"),
        ({"title": "x", "priority_group": "high"}, "priority_group"),
        ({"title": "x", "deadline_at": "2026-12-01T15:00:00"}, "deadline_at"),  # naive
        ({"title": "x", "deadline_at": "明天下午三点"}, "deadline_at"),
        ({"title": "x", "urgency_threshold_at": "2026-12-01"}, "urgency_threshold_at"),
    ],
)
def test_create_validation(api: tuple[TestClient, dict[str, str]], body: dict[str, Any], param: str) -> None:
    client, h = api
    assert_400(client.post("/tasks", headers=h, json=body), param)
    assert listed(client, h, include_completed=True) == []


@pytest.mark.parametrize(
    ("content", "content_type"),
    [
        (b"{not json", "application/json"),
        (b'["a list"]', "application/json"),
        (b'{"title": "plain text"}', "text/plain"),
        (b"title=form", "application/x-www-form-urlencoded"),
        (b"", "application/json"),
    ],
)
def test_create_with_a_bad_body(api: tuple[TestClient, dict[str, str]], content: bytes, content_type: str) -> None:
    client, h = api
    r = client.post("/tasks", headers={**h, "Content-Type": content_type}, content=content)
    assert 400 <= r.status_code < 500
    assert schema_errors("error_response", r.json()) == []
    assert listed(client, h, include_completed=True) == []


@pytest.mark.parametrize(
    "body",
    [
        {"title": ""},
        {"title": "x" * 501},
        {"priority_group": 9},
        {"deadline_at": "2026-12-01T15:00:00"},
        {"is_completed": "maybe"},
    ],
)
def test_update_validation_changes_nothing(api: tuple[TestClient, dict[str, str]], body: dict[str, Any]) -> None:
    client, h = api
    task = create(client, h, title="原样", priority_group=2, deadline_at="2026-12-01T15:00:00+08:00")
    assert_400(client.patch(f"/tasks/{task['id']}", headers=h, json=body))
    after = client.get(f"/tasks/{task['id']}", headers=h).json()
    assert after["title"] == "原样" and after["priority_group"] == 2 and after["is_completed"] is False
    assert instant(after["deadline_at"]) == instant(task["deadline_at"])
    assert after["updated_at"] == after["created_at"]


def test_complete_validation(api: tuple[TestClient, dict[str, str]]) -> None:
    client, h = api
    task = create(client, h, title="原样")
    assert_400(client.post(f"/tasks/{task['id']}/complete", headers=h, json={"completed": "maybe"}), "completed")
    assert client.get(f"/tasks/{task['id']}", headers=h).json()["is_completed"] is False


@pytest.mark.parametrize(
    ("params", "param"),
    [
        ({"quadrants": 5}, "quadrants"),
        ({"quadrants": 0}, "quadrants"),
        ({"quadrants": "x"}, None),
        ({"limit": 0}, None),
        ({"limit": 201}, None),
        ({"offset": -1}, None),
        ({"sort_by": "title"}, None),
        ({"order": "up"}, None),
        ({"time_field": "updated"}, None),
        ({"time_after": "2026-12-01T00:00:00"}, "time_after"),  # naive
        ({"time_before": "2026-12-01T00:00:00"}, "time_before"),
        ({"time_after": "tomorrow"}, None),
        ({"include_completed": "maybe"}, None),
    ],
)
def test_list_validation(api: tuple[TestClient, dict[str, str]], params: dict[str, Any], param: str | None) -> None:
    client, h = api
    assert_400(client.get("/tasks", headers=h, params=params), param)


@pytest.mark.parametrize("task_id", ["abc", "1.5", "0", "-1", "99999999999999999999", str(2**31)])
@pytest.mark.parametrize("method", ["get", "patch", "delete", "post"])
def test_bad_task_ids_are_4xx_not_500(api: tuple[TestClient, dict[str, str]], task_id: str, method: str) -> None:
    client, h = api
    path = f"/tasks/{task_id}/complete" if method == "post" else f"/tasks/{task_id}"
    kwargs: dict[str, Any] = {"json": {"title": "x"}} if method == "patch" else {}
    r = client.request(method, path, headers=h, **kwargs)
    assert r.status_code in (400, 404), r.text
    assert schema_errors("error_response", r.json()) == []
