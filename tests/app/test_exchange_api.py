"""POST /import and GET /tasks/export over HTTP: summaries, dry runs, one-change imports that revert
whole, idempotent re-imports, 400s naming row and column, and the export's round trip.

NOW is Monday 2026-11-30 10:00 Asia/Shanghai (support.harness).
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import icalendar
import pytest
from fastapi.testclient import TestClient

from support.harness import Harness

DATA = Path(__file__).resolve().parents[1] / "data" / "exchange"
TICKTICK = (DATA / "ticktick_backup.csv").read_bytes()
TODOIST = (DATA / "todoist_template.csv").read_bytes()
CSV = {"Content-Type": "text/csv"}


@pytest.fixture
def client(harness: Harness) -> Iterator[TestClient]:
    with harness.client() as c:
        yield c


def _import(c: TestClient, data: bytes, source: str, **params: Any) -> dict[str, Any]:
    r = c.post("/import", params={"source": source, **params}, content=data, headers=CSV)
    assert r.status_code == 200, r.text
    return dict(r.json())


def _titles(c: TestClient) -> list[str]:
    return sorted(
        t["title"] for t in c.get("/tasks", params={"limit": 100, "include_completed": "true"}).json()["items"]
    )


def test_a_dry_run_says_what_it_would_do_and_writes_nothing(harness: Harness, client: TestClient) -> None:
    summary = _import(client, TODOIST, "todoist", dry_run="true")
    assert summary["dry_run"] is True and summary["created"] >= 5 and summary["task_ids"] == []
    assert summary["by_reason"] == {"note": 1, "section": 1}
    assert summary["not_kept"]["description"] >= 1
    assert "tags" not in summary["not_kept"]  # @labels are kept as labels
    assert {s["title"] for s in summary["sample"]} and len(summary["sample"]) <= 5
    assert harness.tasks("local") == [] and harness.changes() == []


def test_an_import_is_one_change_that_one_revert_takes_back(harness: Harness, client: TestClient) -> None:
    summary = _import(client, TICKTICK, "ticktick")
    assert summary["created"] == len(summary["task_ids"]) == len(summary["change_ids"]) > 3
    assert len(harness.tasks("local")) == summary["created"]
    assert {"周会", "购物"} <= {i["name"] for i in client.get("/lists").json()["items"]}
    assert {"work", "home"} <= {i["name"] for i in client.get("/labels").json()["items"]}
    turns = {c.turn_key for c in harness.changes()}
    assert len(turns) == 1 and next(iter(turns)).startswith("import:")
    reverted = client.post(f"/changes/{summary['change_ids'][-1]}/revert")
    assert reverted.status_code == 200 and sorted(reverted.json()["reverted"]) == sorted(summary["change_ids"])
    assert harness.tasks("local") == []
    again = client.post(f"/changes/{summary['change_ids'][0]}/revert").json()
    assert again["already"] is True and again["reverted"] == []


def test_the_same_file_twice_creates_nothing_new(harness: Harness, client: TestClient) -> None:
    first = _import(client, TODOIST, "todoist")
    second = _import(client, TODOIST, "todoist")
    assert second["created"] == 0 and second["by_reason"]["duplicate"] == first["created"]
    assert len(harness.tasks("local")) == first["created"]
    # undone, the same file comes in again
    client.post(f"/changes/{first['change_ids'][0]}/revert")
    assert _import(client, TODOIST, "todoist")["created"] == first["created"]


def test_a_retry_with_the_idempotency_key_answers_as_the_first(harness: Harness, client: TestClient) -> None:
    key = {"Idempotency-Key": "import-1", **CSV}
    first = client.post("/import", params={"source": "ticktick"}, content=TICKTICK, headers=key)
    retry = client.post("/import", params={"source": "ticktick"}, content=TICKTICK, headers=key)
    assert first.status_code == retry.status_code == 200
    assert retry.json()["created"] == first.json()["created"] > 0
    assert retry.json()["task_ids"] == first.json()["task_ids"]
    other = client.post("/import", params={"source": "todoist"}, content=TODOIST, headers=key)
    assert other.status_code == 409


def test_ticktick_semantics_survive_the_http_path(client: TestClient) -> None:
    _import(client, TICKTICK, "ticktick")
    tasks = {
        t["title"]: t for t in client.get("/tasks", params={"limit": 100, "include_completed": "true"}).json()["items"]
    }
    renew = tasks["Renew passport 护照续签"]  # all day, 2026-12-09T23:00Z in Berlin is 10 December
    assert renew["deadline_at"].startswith("2026-12-10T22:59:59")
    slides = tasks["准备周会 slides"]
    assert slides["recurrence"]["rule"] == "FREQ=WEEKLY;INTERVAL=1;BYDAY=MO" and slides["priority_group"] == 1
    assert {r.get("before") for r in slides["reminders"]} >= {"PT15M", "PT0S"}
    assert tasks["Pay the electricity bill 电费"]["is_completed"] is True
    assert tasks["Old archived errand 旧事"]["is_completed"] is True  # status 2 (archived) is done


@pytest.mark.parametrize(
    ("source", "body", "column"),
    [
        ("todoist", b"TYPE,CONTENT,PRIORITY,DATE\ntask,ok,1,\ntask,bad priority,9,\n", "PRIORITY"),
        ("todoist", b"TYPE,CONTENT,PRIORITY,DATE\nchore,what is this,1,\n", "TYPE"),
        ("suikou", b'{"format": "suikou-tasks", "tasks": [{"title": "x", "deadline_at": "next week"}]}', "deadline_at"),
        ("suikou", b"id,title,priority_group\n1,ok,2\n2,bad,7\n", "priority_group"),
    ],
)
def test_a_malformed_file_is_a_400_naming_row_and_column_and_writes_nothing(
    harness: Harness, client: TestClient, source: str, body: bytes, column: str
) -> None:
    r = client.post("/import", params={"source": source}, content=body, headers=CSV)
    assert r.status_code == 400, r.text
    error = r.json()["error"]
    assert error["param"] == column and "row " in error["message"], error
    assert harness.tasks("local") == []


@pytest.mark.parametrize(
    ("body", "headers", "status"),
    [
        (b"", CSV, 400),
        (b"\xff\xfe not utf-8", CSV, 400),
        (b"a,b\n", {"Content-Type": "image/png"}, 415),
        (b"Folder Name\n" + b"x" * (5 * 1024 * 1024 + 1), CSV, 413),
    ],
)
def test_bad_uploads_are_refused_clearly(client: TestClient, body: bytes, headers: dict[str, str], status: int) -> None:
    r = client.post("/import", params={"source": "ticktick"}, content=body, headers=headers)
    assert r.status_code == status, r.text
    assert "error" in r.json()


def test_an_unknown_source_is_a_400(client: TestClient) -> None:
    r = client.post("/import", params={"source": "wunderlist"}, content=b"x", headers=CSV)
    assert r.status_code == 400 and r.json()["error"]["param"] == "source"


def _seed(c: TestClient) -> None:
    bodies: list[dict[str, Any]] = [
        {"title": "交周报", "deadline_at": "2026-12-07T09:00:00+08:00", "recurrence": {"rule": "FREQ=WEEKLY;BYDAY=MO"},
         "reminders": [{"before": "PT30M"}], "list": "工作 Work", "labels": ["周报", "Team A"]},
        {"title": "打卡", "deadline_at": "2026-12-01T09:00:00+08:00", "recurrence": {"rule": "FREQ=DAILY;X-DAYS=CN-WORKDAY"}},
        {"title": "拜神", "deadline_at": "2026-12-09T08:00:00+08:00",
         "recurrence": {"rule": "RSCALE=CHINESE;FREQ=MONTHLY;BYMONTHDAY=1"}},
        {"title": "买菜, \"大\"采购", "deadline_at": "2026-12-02T23:59:59+08:00", "priority_group": 3},
        {"title": "开会", "deadline_at": "2026-12-03T15:00:00+08:00", "priority_group": 1,
         "reminders": [{"at": "2026-12-03T08:00:00+08:00"}]},
        {"title": "想想年假", "priority_group": 4, "estimate_minutes": 90, "labels": ["假期"]},
    ]  # fmt: skip
    for body in bodies:
        assert c.post("/tasks", json=body).status_code == 201
    done = c.post("/tasks", json={"title": "交电费", "deadline_at": "2026-11-29T20:00:00+08:00"}).json()
    c.post(f"/tasks/{done['id']}/complete")


_KEPT = (
    "title", "priority_group", "deadline_at", "is_completed", "recurrence", "reminders", "estimate_minutes", "list",
    "labels",
)  # fmt: skip


def _kept(c: TestClient) -> list[tuple[Any, ...]]:
    items = c.get("/tasks", params={"limit": 100, "include_completed": "true"}).json()["items"]
    return sorted(tuple(json.dumps(t[k], sort_keys=True) for k in _KEPT) for t in items)


@pytest.mark.parametrize("fmt", ["json", "csv", "ics"])
def test_an_export_imports_back_whole_into_another_account(harness: Harness, fmt: str) -> None:
    alice, bob = harness.api_key("alice"), harness.api_key("bob")
    with harness.client() as a, harness.client() as b:
        a.headers["Authorization"], b.headers["Authorization"] = f"Bearer {alice}", f"Bearer {bob}"
        _seed(a)
        exported = a.get("/tasks/export", params={"format": fmt})
        assert exported.status_code == 200 and "attachment" in exported.headers["content-disposition"]
        summary = _import(b, exported.content, "suikou")
        assert summary["created"] == 7 and summary["not_kept"] == {}
        assert _kept(b) == _kept(a)
        assert _import(b, exported.content, "suikou")["created"] == 0


def test_the_export_shapes(client: TestClient) -> None:
    _seed(client)
    doc = client.get("/tasks/export").json()
    assert doc["format"] == "suikou-tasks" and len(doc["tasks"]) == 7
    weekly = next(t for t in doc["tasks"] if t["title"] == "交周报")
    assert weekly["recurrence"]["text"].startswith("每周一") and weekly["reminders"] == [{"before": "PT30M"}]
    rows = list(
        csv.DictReader(io.StringIO(client.get("/tasks/export", params={"format": "csv"}).text.lstrip("\ufeff")))
    )
    assert len(rows) == 7 and {"id", "title", "recurrence_rule", "reminders"} <= set(rows[0])
    cal = icalendar.Calendar.from_ical(client.get("/tasks/export", params={"format": "ics"}).content)
    assert len(cal.walk("VTODO")) == 7


def test_export_is_only_the_callers_and_only_read(harness: Harness) -> None:
    alice, bob = harness.api_key("alice"), harness.api_key("bob")
    with harness.client() as c:
        c.post("/tasks", json={"title": "爱丽丝的事"}, headers={"Authorization": f"Bearer {alice}"})
        r = c.get("/tasks/export", headers={"Authorization": f"Bearer {bob}"})
        assert r.json()["tasks"] == []
        assert c.get("/tasks/export").status_code == 401
        refused = c.delete("/tasks/export", headers={"Authorization": f"Bearer {bob}"})
        assert refused.status_code == 405 and refused.headers["allow"] == "GET"
        assert (
            c.get("/tasks/export", params={"format": "xml"}, headers={"Authorization": f"Bearer {bob}"}).status_code
            == 400
        )
