"""REST repeating tasks: `recurrence` on create, update and read, the occurrences endpoint, and a
completion moving the series.

The harness clock is Monday 2026-11-30 10:00 in Shanghai, the server's default zone.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from typing import Any

import pytest
from fastapi.testclient import TestClient

Api = tuple[TestClient, dict[str, str]]
MONDAY_9 = "2026-12-07T09:00:00+08:00"


@pytest.fixture
def api(harness: Any) -> Iterator[Api]:
    key = harness.api_key("alice")
    with harness.client() as client:
        yield client, {"Authorization": f"Bearer {key}"}


def create(client: TestClient, headers: dict[str, str], **body: Any) -> dict[str, Any]:
    r = client.post("/tasks", headers=headers, json=body)
    assert r.status_code == 201, r.text
    return r.json()


def weekly(client: TestClient, headers: dict[str, str]) -> dict[str, Any]:
    return create(client, headers, title="周会", deadline_at=MONDAY_9, recurrence={"rule": "FREQ=WEEKLY;BYDAY=MO"})


def instant(value: str) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


def refused(r: Any, param: str) -> str:
    assert r.status_code == 400, r.text
    error = r.json()["error"]
    assert error["type"] == "invalid_request_error" and error["param"] == param, error
    message: str = error["message"]
    return message


def test_a_rule_on_create_reads_back_with_its_words(api: Api) -> None:
    client, h = api
    task = weekly(client, h)
    assert task["recurrence"] == {"rule": "FREQ=WEEKLY;BYDAY=MO", "text": "每周一 09:00"}
    read = client.get(f"/tasks/{task['id']}", headers=h).json()
    assert read["recurrence"] == task["recurrence"]
    listed = client.get("/tasks", headers=h).json()["items"]
    assert [t["recurrence"] for t in listed] == [task["recurrence"]]


def test_the_rule_prefix_and_the_read_text_are_accepted(api: Api) -> None:
    client, h = api
    body = {"rule": "RRULE:FREQ=DAILY", "text": "whatever the client last read"}
    task = create(client, h, title="吃药", deadline_at="2026-12-01T08:00:00+08:00", recurrence=body)
    assert task["recurrence"] == {"rule": "FREQ=DAILY", "text": "每天 08:00"}


def test_a_one_off_has_no_recurrence(api: Api) -> None:
    client, h = api
    assert create(client, h, title="交报告", recurrence=None)["recurrence"] is None


def test_the_rule_is_read_in_the_users_timezone(api: Api) -> None:
    client, h = api
    body = {"title": "standup", "deadline_at": "2026-12-07T01:00:00Z", "recurrence": {"rule": "FREQ=DAILY"}}
    r = client.post("/tasks", headers={**h, "X-Suikou-Timezone": "Europe/Berlin"}, json=body)
    assert r.status_code == 201, r.text
    assert r.json()["recurrence"]["text"] == "每天 02:00"


def test_patch_changes_the_rule_and_null_ends_it(api: Api) -> None:
    client, h = api
    task = weekly(client, h)
    r = client.patch(f"/tasks/{task['id']}", headers=h, json={"recurrence": {"rule": "FREQ=WEEKLY;INTERVAL=2"}})
    assert r.status_code == 200, r.text
    assert r.json()["recurrence"] == {"rule": "FREQ=WEEKLY;INTERVAL=2", "text": "每两周 09:00"}
    r = client.patch(f"/tasks/{task['id']}", headers=h, json={"title": "周会（改）"})
    assert r.json()["recurrence"]["rule"] == "FREQ=WEEKLY;INTERVAL=2"  # absent: left as it was
    r = client.patch(f"/tasks/{task['id']}", headers=h, json={"recurrence": None})
    assert r.status_code == 200 and r.json()["recurrence"] is None
    assert r.json()["deadline_at"] is not None  # the deadline stays: the task is now a one-off


def test_patch_a_rule_onto_a_one_off_uses_its_deadline_or_the_new_one(api: Api) -> None:
    client, h = api
    task = create(client, h, title="倒垃圾", deadline_at="2026-12-01T20:00:00+08:00")
    r = client.patch(f"/tasks/{task['id']}", headers=h, json={"recurrence": {"rule": "FREQ=DAILY"}})
    assert r.json()["recurrence"]["text"] == "每天 20:00"
    body = {"deadline_at": "2026-12-02T21:30:00+08:00", "recurrence": {"rule": "FREQ=DAILY"}}
    r = client.patch(f"/tasks/{task['id']}", headers=h, json=body)
    assert r.json()["recurrence"]["text"] == "每天 21:30"


def test_a_repeating_task_keeps_a_deadline(api: Api) -> None:
    client, h = api
    task = weekly(client, h)
    r = client.patch(f"/tasks/{task['id']}", headers=h, json={"deadline_at": None})
    assert "needs a deadline" in refused(r, "deadline_at")
    r = client.patch(f"/tasks/{task['id']}", headers=h, json={"deadline_at": None, "recurrence": None})
    assert r.status_code == 200 and r.json()["deadline_at"] is None and r.json()["recurrence"] is None


BAD_RULES = {
    "hourly": ("FREQ=HOURLY", "FREQ must be DAILY"),
    "interval 0": ("FREQ=DAILY;INTERVAL=0", "INTERVAL must be a whole number from 1 to 400"),
    "count too big": ("FREQ=DAILY;COUNT=100000", "COUNT must be a whole number from 1 to 1000"),
    "count and until": ("FREQ=DAILY;COUNT=3;UNTIL=20270101", "COUNT and UNTIL must not both be given"),
    "too long": ("FREQ=DAILY;" + ";".join(["BYMONTH=1"] * 40), "at most 300 characters"),
    "garbage": ("every monday please", "NAME=VALUE"),
    "twice": ("FREQ=DAILY;FREQ=WEEKLY", "FREQ is given twice"),
    "lower case": ("freq=daily", "upper case"),
    "never": ("FREQ=DAILY;UNTIL=20261101", "never occurs"),
}


@pytest.mark.parametrize(("rule", "problem"), list(BAD_RULES.values()), ids=list(BAD_RULES))
@pytest.mark.parametrize("how", ["create", "update"])
def test_an_invalid_rule_is_a_400_naming_the_problem(api: Api, rule: str, problem: str, how: str) -> None:
    client, h = api
    body = {"deadline_at": MONDAY_9, "recurrence": {"rule": rule}}
    if how == "create":
        r = client.post("/tasks", headers=h, json={"title": "坏规则", **body})
    else:
        task = create(client, h, title="坏规则")
        r = client.patch(f"/tasks/{task['id']}", headers=h, json=body)
    assert problem in refused(r, "recurrence.rule")
    titles = [t["recurrence"] for t in client.get("/tasks", headers=h).json()["items"]]
    assert titles in ([], [None])  # nothing repeating was written


def test_a_rule_without_a_deadline_is_a_400(api: Api) -> None:
    client, h = api
    r = client.post("/tasks", headers=h, json={"title": "每周", "recurrence": {"rule": "FREQ=WEEKLY"}})
    assert "needs a deadline" in refused(r, "recurrence")
    task = create(client, h, title="无期限")
    r = client.patch(f"/tasks/{task['id']}", headers=h, json={"recurrence": {"rule": "FREQ=WEEKLY"}})
    assert "needs a deadline" in refused(r, "recurrence")


def test_occurrences_of_a_repeating_task(api: Api) -> None:
    client, h = api
    task = weekly(client, h)
    r = client.get(f"/tasks/{task['id']}/occurrences", headers=h, params={"limit": 3})
    assert r.status_code == 200, r.text
    assert r.json() == {
        "items": ["2026-12-07T09:00:00+08:00", "2026-12-14T09:00:00+08:00", "2026-12-21T09:00:00+08:00"]
    }
    r = client.get(f"/tasks/{task['id']}/occurrences", headers=h, params={"after": "2026-12-14T09:00:00+08:00"})
    items = r.json()["items"]
    assert len(items) == 10 and items[0] == "2026-12-21T09:00:00+08:00"  # later than `after`, ten by default


def test_occurrences_stop_where_the_rule_does(api: Api) -> None:
    client, h = api
    task = create(client, h, title="三次", deadline_at=MONDAY_9, recurrence={"rule": "FREQ=DAILY;COUNT=3"})
    items = client.get(f"/tasks/{task['id']}/occurrences", headers=h, params={"limit": 100}).json()["items"]
    assert items == ["2026-12-07T09:00:00+08:00", "2026-12-08T09:00:00+08:00", "2026-12-09T09:00:00+08:00"]


def test_occurrences_of_a_one_off_is_its_deadline(api: Api) -> None:
    client, h = api
    once = create(client, h, title="一次", deadline_at="2026-12-01T07:00:00Z")
    assert client.get(f"/tasks/{once['id']}/occurrences", headers=h).json() == {"items": ["2026-12-01T15:00:00+08:00"]}
    later = {"after": "2026-12-02T00:00:00+08:00"}
    assert client.get(f"/tasks/{once['id']}/occurrences", headers=h, params=later).json() == {"items": []}
    undated = create(client, h, title="无期限")
    assert client.get(f"/tasks/{undated['id']}/occurrences", headers=h).json() == {"items": []}
    client.post(f"/tasks/{once['id']}/complete", headers=h)
    assert client.get(f"/tasks/{once['id']}/occurrences", headers=h).json() == {"items": []}  # done


def test_a_series_marked_done_has_nothing_coming(api: Api) -> None:
    client, h = api
    # Marking an ongoing series done completes its occurrence and moves it on, as POST /complete does.
    task = weekly(client, h)
    r = client.patch(f"/tasks/{task['id']}", headers=h, json={"is_completed": True})
    assert r.status_code == 200 and not r.json()["is_completed"]
    assert instant(r.json()["deadline_at"]) == instant("2026-12-14T09:00:00+08:00")
    # Its last occurrence done, the task is done, with nothing coming.
    last = create(client, h, title="年检", deadline_at=MONDAY_9, recurrence={"rule": "FREQ=WEEKLY;COUNT=1"})
    r = client.patch(f"/tasks/{last['id']}", headers=h, json={"is_completed": True})
    assert r.status_code == 200 and r.json()["is_completed"]
    assert client.get(f"/tasks/{last['id']}/occurrences", headers=h).json() == {"items": []}


@pytest.mark.parametrize("params", [{"limit": 0}, {"limit": 101}, {"after": "2026-12-01"}])
def test_occurrences_bounds(api: Api, params: dict[str, Any]) -> None:
    client, h = api
    task = weekly(client, h)
    r = client.get(f"/tasks/{task['id']}/occurrences", headers=h, params=params)
    assert r.status_code == 400, r.text


def test_another_users_task_is_not_found(api: Api, harness: Any) -> None:
    client, h = api
    task = weekly(client, h)
    bob = {"Authorization": f"Bearer {harness.api_key('bob')}"}
    for r in (
        client.get(f"/tasks/{task['id']}/occurrences", headers=bob),
        client.get("/tasks/999999/occurrences", headers=h),
        client.patch(f"/tasks/{task['id']}", headers=bob, json={"recurrence": None}),
    ):
        assert r.status_code == 404, r.text
        assert r.json()["error"]["code"] == "not_found"
    assert client.get(f"/tasks/{task['id']}", headers=h).json()["recurrence"] is not None


def test_completing_a_repeating_task_moves_it(api: Api) -> None:
    client, h = api
    task = weekly(client, h)
    r = client.post(f"/tasks/{task['id']}/complete", headers=h)
    assert r.status_code == 200, r.text
    moved = r.json()
    assert moved["id"] == task["id"] and not moved["is_completed"]
    assert instant(moved["deadline_at"]) == instant("2026-12-14T09:00:00+08:00")  # the next Monday
    assert moved["recurrence"] == task["recurrence"] and moved["change_id"] is not None
    done = client.get("/tasks", headers=h, params={"include_completed": True}).json()["items"]
    copies = [t for t in done if t["is_completed"]]
    assert [(c["title"], c["recurrence"]) for c in copies] == [("周会", None)]  # the occurrence done


def test_the_list_filters_repeating_tasks_and_a_later_window_shows_the_series(api: Api) -> None:
    client, h = api
    series = weekly(client, h)
    create(client, h, title="交电费", deadline_at="2026-12-15T18:00:00+08:00")
    only = client.get("/tasks", headers=h, params={"repeating": "true"}).json()
    assert [t["id"] for t in only["items"]] == [series["id"]] and only["total"] == 1
    window = {"time_after": "2026-12-14T00:00:00+08:00", "time_before": "2026-12-20T23:59:59+08:00"}
    page = client.get("/tasks", headers=h, params=window).json()
    # The series is listed at its first occurrence in the window (its open one is Dec 7).
    assert [(t["title"], instant(t["deadline_at"])) for t in page["items"]] == [
        ("周会", instant("2026-12-14T09:00:00+08:00")),
        ("交电费", instant("2026-12-15T18:00:00+08:00")),
    ]
    assert page["total"] == 2
