"""The calendar feed: valid iCalendar with the tasks' due dates, rules and alarms; RRULEs a calendar app
expands to GET /tasks/{id}/occurrences; 304s for polling; subscribe links private and revocable.

NOW is Monday 2026-11-30 10:00 Asia/Shanghai (support.harness).
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import icalendar
import pytest
import recurring_ical_events
from fastapi.testclient import TestClient

from support.harness import NOW, Harness

SH = ZoneInfo("Asia/Shanghai")


@pytest.fixture
def alice(harness: Harness) -> Iterator[TestClient]:
    key = harness.api_key("alice")
    with harness.client() as c:
        c.headers["Authorization"] = f"Bearer {key}"
        yield c


def _task(c: TestClient, title: str, due: str | None = None, **extra: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"title": title, **extra}
    if due is not None:
        body["deadline_at"] = due
    r = c.post("/tasks", json=body)
    assert r.status_code == 201, r.text
    return dict(r.json())


def _feed(c: TestClient, **params: Any) -> icalendar.Calendar:
    r = c.get("/calendar.ics", params=params)
    assert r.status_code == 200, r.text
    assert r.headers["content-type"].startswith("text/calendar")
    return icalendar.Calendar.from_ical(r.content)


def _todos(cal: icalendar.Calendar) -> dict[str, Any]:
    return {str(t["summary"]): t for t in cal.walk("VTODO")}


def test_each_open_task_is_a_vtodo_with_its_due_zone_priority_and_stable_uid(alice: TestClient) -> None:
    report = _task(alice, "交季度报告", "2026-12-03T18:00:00+08:00", priority_group=1)
    _task(alice, "买菜", "2026-12-02T23:59:59+08:00", priority_group=3)
    _task(alice, "想想年假去哪", priority_group=4)
    todos = _todos(_feed(alice))
    assert set(todos) == {"交季度报告", "买菜", "想想年假去哪"}
    due = todos["交季度报告"]["due"]
    assert due.dt == datetime(2026, 12, 3, 18, tzinfo=SH) and due.params["TZID"] == "Asia/Shanghai"
    assert todos["买菜"]["due"].dt == date(2026, 12, 2)  # a day-only deadline is a DATE
    assert "due" not in todos["想想年假去哪"]
    assert [int(todos[t]["priority"]) for t in ("交季度报告", "买菜", "想想年假去哪")] == [1, 7, 9]
    assert all(str(t["status"]) == "NEEDS-ACTION" for t in todos.values())
    alice.patch(f"/tasks/{report['id']}", json={"title": "交季度报告终稿"})
    again = _todos(_feed(alice))
    assert str(again["交季度报告终稿"]["uid"]) == str(todos["交季度报告"]["uid"]) == f"task-{report['id']}@suikou"


def test_the_feed_names_a_vtimezone_for_every_tzid(alice: TestClient) -> None:
    _task(alice, "和纽约开会", "2026-12-03T09:00:00-05:00")
    cal = _feed(alice, events="false")
    zones = {str(z["tzid"]) for z in cal.walk("VTIMEZONE")}
    tzids = {p.params["TZID"] for t in cal.walk("VTODO") for p in [t["due"]] if "TZID" in p.params}
    assert tzids <= zones and "Asia/Shanghai" in zones


def test_a_completed_task_shows_completed_then_leaves_after_thirty_days(harness: Harness, alice: TestClient) -> None:
    task = _task(alice, "交电费", "2026-12-01T20:00:00+08:00")
    alice.post(f"/tasks/{task['id']}/complete")
    [todo] = _feed(alice).walk("VTODO")
    assert str(todo["status"]) == "COMPLETED" and int(todo["percent-complete"]) == 100
    assert todo["completed"].dt == NOW
    harness.now = NOW + timedelta(days=31)
    harness.state.clock = lambda: harness.now
    assert _feed(alice).walk("VTODO") == []


def _expanded(cal: icalendar.Calendar, uid: str, days: int) -> list[datetime]:
    found = recurring_ical_events.of(cal, components=["VTODO"]).between(NOW, NOW + timedelta(days=days))
    return sorted(c["due"].dt for c in found if str(c["uid"]) == uid)


@pytest.mark.parametrize(
    ("rule", "due"),
    [
        ("FREQ=WEEKLY;BYDAY=MO", "2026-12-07T09:00:00+08:00"),
        ("FREQ=WEEKLY;INTERVAL=2;BYDAY=FR", "2026-12-04T20:00:00+08:00"),
        ("FREQ=MONTHLY;BYMONTHDAY=-1", "2026-12-31T18:00:00+08:00"),
        ("FREQ=MONTHLY;BYDAY=1MO;COUNT=4", "2026-12-07T10:00:00+08:00"),
        ("FREQ=DAILY;UNTIL=20261220", "2026-12-01T08:00:00+08:00"),
        ("FREQ=WEEKLY;BYDAY=TU;UNTIL=20270112T010000Z", "2026-12-01T09:00:00+08:00"),
        ("FREQ=WEEKLY;BYDAY=FR;UNTIL=20270115", "2026-12-04T23:59:59+08:00"),  # day-only: DATE DTSTART and UNTIL
        ("FREQ=DAILY;X-DAYS=CN-WORKDAY", "2026-12-01T09:00:00+08:00"),  # Suikou's own: RDATEs
        ("RSCALE=CHINESE;FREQ=MONTHLY;BYMONTHDAY=1", "2026-12-09T08:00:00+08:00"),
    ],
)
def test_a_calendar_app_expands_the_repetition_as_occurrences_gives_it(alice: TestClient, rule: str, due: str) -> None:
    task = _task(alice, "重复的事", due, recurrence={"rule": rule})
    cal = _feed(alice)
    got = _expanded(cal, f"task-{task['id']}@suikou", 120)
    listed = alice.get(f"/tasks/{task['id']}/occurrences", params={"limit": 100, "after": NOW.isoformat()})
    want = [datetime.fromisoformat(t) for t in listed.json()["items"]]
    want = [t for t in want if t < NOW + timedelta(days=120)]
    if due.endswith("23:59:59+08:00"):  # a day-only series: the calendar app has its days
        want = [t.astimezone(SH).date() for t in want]  # type: ignore[misc]
    assert got == want and len(got) >= 2


def test_a_moved_series_with_count_keeps_only_the_occurrences_it_has_left(harness: Harness, alice: TestClient) -> None:
    task = _task(alice, "复诊", "2026-12-01T09:00:00+08:00", recurrence={"rule": "FREQ=WEEKLY;COUNT=3"})
    alice.post(f"/tasks/{task['id']}/complete")  # the series moves on: two left
    got = _expanded(_feed(alice), f"task-{task['id']}@suikou", 60)
    assert got == [datetime(2026, 12, 8, 9, tzinfo=SH), datetime(2026, 12, 15, 9, tzinfo=SH)]


def test_reminders_are_valarms_relative_to_due_or_at_a_moment(alice: TestClient) -> None:
    _task(
        alice, "开会", "2026-12-03T15:00:00+08:00", reminders=[{"before": "PT30M"}, {"at": "2026-12-03T08:00:00+08:00"}]
    )
    _task(alice, "交材料", "2026-12-04T23:59:59+08:00", reminders=[{"before": "PT14H59M59S"}])  # that morning 09:00
    todos = _todos(_feed(alice))
    triggers = [(a["trigger"].dt, a["trigger"].params.get("RELATED")) for a in todos["开会"].walk("VALARM")]
    assert (timedelta(minutes=-30), "END") in triggers
    assert [t for t, _ in triggers if isinstance(t, datetime)] == [datetime(2026, 12, 3, 0, tzinfo=ZoneInfo("UTC"))]
    [day] = todos["交材料"].walk("VALARM")
    assert day["trigger"].dt == timedelta(hours=9) and day["trigger"].params["RELATED"] == "END"


def test_events_add_an_all_day_vevent_per_task_with_a_deadline(harness: Harness, alice: TestClient) -> None:
    _task(alice, "交季度报告", "2026-12-03T18:00:00+08:00")
    _task(alice, "没有日期的事")
    cal = _feed(alice, events="true")
    [event] = cal.walk("VEVENT")
    assert event["dtstart"].dt == date(2026, 12, 3) and str(event["summary"]) == "18:00 交季度报告"
    assert _feed(alice).walk("VEVENT") == []  # off by default (SUIKOU_CALENDAR_EVENTS)


def test_polling_gets_304_until_a_task_changes_or_goes(alice: TestClient) -> None:
    task = _task(alice, "交季度报告", "2026-12-03T18:00:00+08:00")
    first = alice.get("/calendar.ics")
    etag, modified = first.headers["etag"], first.headers["last-modified"]
    same = alice.get("/calendar.ics", headers={"If-None-Match": etag})
    assert same.status_code == 304 and same.content == b"" and same.headers["etag"] == etag
    assert alice.get("/calendar.ics", headers={"If-Modified-Since": modified}).status_code == 304
    alice.patch(f"/tasks/{task['id']}", json={"priority_group": 1})
    changed = alice.get("/calendar.ics", headers={"If-None-Match": etag})
    assert changed.status_code == 200 and changed.headers["etag"] != etag
    etag = changed.headers["etag"]
    alice.patch(f"/tasks/{task['id']}", json={"estimate_minutes": 30})  # in the VTODO: a new text
    estimated = alice.get("/calendar.ics", headers={"If-None-Match": etag})
    assert estimated.status_code == 200 and b"ESTIMATED-DURATION:PT30M" in estimated.content
    etag = estimated.headers["etag"]
    alice.delete(f"/tasks/{task['id']}")
    gone = alice.get("/calendar.ics", headers={"If-None-Match": etag})
    assert gone.status_code == 200 and b"VTODO" not in gone.content


def test_the_feed_needs_a_key_and_shows_only_the_callers_tasks(harness: Harness) -> None:
    alice_key, bob_key = harness.api_key("alice"), harness.api_key("bob")
    with harness.client() as c:
        c.post("/tasks", json={"title": "爱丽丝的事"}, headers={"Authorization": f"Bearer {alice_key}"})
        assert c.get("/calendar.ics").status_code == 401
        r = c.get("/calendar.ics", headers={"Authorization": f"Bearer {bob_key}"})
    assert r.status_code == 200 and "爱丽丝".encode() not in r.content


def test_a_subscribe_link_opens_its_owners_feed_until_revoked(harness: Harness) -> None:
    alice_key, bob_key = harness.api_key("alice"), harness.api_key("bob")
    a, b = {"Authorization": f"Bearer {alice_key}"}, {"Authorization": f"Bearer {bob_key}"}
    with harness.client() as c:
        c.post("/tasks", json={"title": "爱丽丝的事", "deadline_at": "2026-12-03T18:00:00+08:00"}, headers=a)
        c.post("/tasks", json={"title": "鲍勃的事"}, headers=b)
        made = c.post("/calendar/links", json={"events": True}, headers={**a, "X-Suikou-Timezone": "Europe/Berlin"})
        assert made.status_code == 201, made.text
        link = made.json()
        path = link["url"].removeprefix("http://testserver")
        assert path.startswith("/calendar/cal_") and len(path) > 50
        feed = c.get(path)  # no key: the token is the credential
        assert feed.status_code == 200 and "爱丽丝的事".encode() in feed.content and "鲍勃".encode() not in feed.content
        cal = icalendar.Calendar.from_ical(feed.content)
        assert cal.walk("VEVENT") and cal.walk("VTODO")[0]["due"].params["TZID"] == "Europe/Berlin"
        listed = c.get("/calendar/links", headers=a).json()["items"]
        assert [i["id"] for i in listed] == [link["id"]] and "url" not in listed[0]
        assert c.get("/calendar/links", headers=b).json()["items"] == []
        assert c.delete(f"/calendar/links/{link['id']}", headers=b).status_code == 404  # not bob's to revoke
        assert c.get(path).status_code == 200
        assert c.delete(f"/calendar/links/{link['id']}", headers=a).status_code == 204
        revoked = c.get(path)
        assert revoked.status_code == 404 and revoked.json()["error"]["code"] == "not_found"
        assert c.get("/calendar/cal_nonsense.ics").status_code == 404
        assert c.delete(f"/calendar/links/{link['id']}", headers=a).status_code == 404


def test_a_public_url_makes_the_links(database_url: str) -> None:
    from support.harness import make_harness

    h = make_harness(database_url, public_url="https://tasks.example.com/")
    try:
        with h.client() as c:
            url = c.post("/calendar/links").json()["url"]
        assert url.startswith("https://tasks.example.com/calendar/cal_") and url.endswith(".ics")
    finally:
        h.state.engine.dispose()
