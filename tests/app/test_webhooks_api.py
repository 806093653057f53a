"""REST `/webhooks` and reminders on `/tasks`: shapes, refusals (SSRF, bad input), isolation between
users, and events from every write surface (REST, chat, MCP, undo) reaching a receiver through the
worker `suikou serve` runs. NOW is Monday 2026-11-30 10:00 Asia/Shanghai."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from support.fake_receivers import receiver
from support.harness import NOW, Harness, make_harness
from webhooks import engine, safety

DUE = "2026-12-03T15:00:00+08:00"


@pytest.fixture
def private_ok(database_url: str) -> Iterator[Harness]:
    """A service that may deliver to 127.0.0.1 (where the fakes listen)."""
    h = make_harness(database_url, webhook_allow_private=True)
    yield h
    h.state.engine.dispose()


def _client(h: Harness, key: str | None = None) -> TestClient:
    c = h.client()
    if key:
        c.headers["Authorization"] = f"Bearer {key}"
    return c


def _pass(h: Harness) -> int:
    worker = engine.Engine(h.state.session, h.state.clock, engine.EngineConfig(allow_private=True))
    return asyncio.run(worker.run_once())


def test_create_list_delete_and_the_secret_shown_once(private_ok: Harness) -> None:
    with _client(private_ok) as c, receiver("generic") as fake:
        made = c.post("/webhooks", json={"url": fake.url, "events": ["task.created", "reminder.due"]})
        assert made.status_code == 201, made.text
        body = made.json()
        assert body["secret"].startswith("whsec_") and body["secret_set"] is True
        assert body["events"] == ["reminder.due", "task.created"] and body["timezone"] == "Asia/Shanghai"
        listed = c.get("/webhooks").json()["items"]
        assert [h["id"] for h in listed] == [body["id"]] and "secret" not in listed[0]
        assert c.delete(f"/webhooks/{body['id']}").status_code == 204
        assert c.delete(f"/webhooks/{body['id']}").status_code == 404
        assert c.get("/webhooks").json()["items"] == []


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("http://127.0.0.1:9/h", "private, loopback"),
        ("http://localhost/h", "private, loopback"),
        ("http://169.254.169.254/latest/meta-data", "metadata"),
        ("http://[::1]/h", "private, loopback"),
        ("http://10.1.2.3/h", "private"),
        ("http://192.168.1.10/h", "private"),
        ("http://[::ffff:127.0.0.1]/h", "private"),
        ("http://100.100.100.200/h", "metadata"),
        ("ftp://example.com/h", "https://"),
        ("https://user:pw@example.com/h", "user name or password"),
        ("http://0.0.0.0/h", "private"),
    ],
)
def test_private_and_odd_urls_are_refused(harness: Harness, url: str, why: str) -> None:
    with _client(harness) as c:
        r = c.post("/webhooks", json={"url": url, "events": ["*"]})
    assert r.status_code == 400, r.text
    assert why in r.json()["error"]["message"] and r.json()["error"]["param"] == "url"


def test_a_name_that_resolves_to_a_private_address_is_refused_when_sending(monkeypatch: pytest.MonkeyPatch) -> None:
    """DNS rebinding: public when the webhook was made, 127.0.0.1 when a delivery goes out."""
    answers = iter([("93.184.216.34", 80), ("127.0.0.1", 80)])

    def fake_getaddrinfo(*_a: Any, **_k: Any) -> list[Any]:
        ip, port = next(answers)
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (ip, port))]

    monkeypatch.setattr(socket, "getaddrinfo", fake_getaddrinfo)
    first = asyncio.run(safety.resolve("http://hooks.example.com/h", allow_private=False))
    assert first.address == "93.184.216.34" and first.pinned_url() == "http://93.184.216.34:80/h"
    with pytest.raises(safety.Refused, match=r"127\.0\.0\.1"):
        asyncio.run(safety.resolve("http://hooks.example.com/h", allow_private=False))


@pytest.mark.parametrize(
    ("body", "param"),
    [
        ({"url": "https://example.com/h", "events": []}, "events"),
        ({"url": "https://example.com/h", "events": ["task.exploded"]}, "events"),
        ({"url": "https://example.com/h", "events": ["*"], "kind": "slack"}, "kind"),
        ({"url": "https://example.com/h", "events": ["*"], "kind": "wecom", "secret": "x"}, "secret"),
        ({"url": "https://example.com/h", "events": ["*"], "kind": "ntfy", "secret": "带空格 token"}, "secret"),
    ],
)
def test_bad_bodies_are_400s_naming_the_field(harness: Harness, body: dict[str, Any], param: str) -> None:
    with _client(harness) as c:
        r = c.post("/webhooks", json=body)
    assert r.status_code == 400, r.text
    assert param in (r.json()["error"]["param"] or "")


def test_another_users_webhooks_and_deliveries_are_404(private_ok: Harness) -> None:
    alice, bob = private_ok.api_key("alice"), private_ok.api_key("bob")
    with receiver("generic") as fake:
        with _client(private_ok, alice) as a:
            hook = a.post("/webhooks", json={"url": fake.url, "events": ["*"]}).json()
            a.post("/tasks", json={"title": "交报告", "deadline_at": DUE})
        _pass(private_ok)
        fake.wait(1)
        with _client(private_ok, alice) as a:
            [delivery] = a.get(f"/webhooks/{hook['id']}/deliveries").json()["items"]
        with _client(private_ok, bob) as b:
            assert b.get("/webhooks").json()["items"] == []
            assert b.get(f"/webhooks/{hook['id']}/deliveries").status_code == 404
            assert b.delete(f"/webhooks/{hook['id']}").status_code == 404
            r = b.post(f"/webhooks/{hook['id']}/deliveries/{delivery['id']}/redeliver")
            assert r.status_code == 404
            b.post("/tasks", json={"title": "bob 的任务"})
        assert _pass(private_ok) == 0  # bob has no webhook: nothing of his goes to alice's
    assert delivery["status"] == "succeeded" and delivery["event_type"] == "task.created"


def test_every_write_surface_emits_its_event(private_ok: Harness) -> None:
    """REST create/update/complete/reopen/delete, a chat note, undo: each one event, in order."""
    with receiver("generic") as fake, _client(private_ok) as c:
        c.post("/webhooks", json={"url": fake.url, "events": ["*"]})
        task = c.post("/tasks", json={"title": "交报告", "deadline_at": DUE}).json()
        c.patch(f"/tasks/{task['id']}", json={"title": "交季度报告"})
        c.post(f"/tasks/{task['id']}/complete")
        c.post(f"/tasks/{task['id']}/complete", json={"completed": False})
        gone = c.delete(f"/tasks/{task['id']}")
        c.post(f"/changes/{gone.headers['X-Suikou-Change']}/revert")
        asyncio.run(private_ok.ask("帮我记一下明天下午三点开会", user="local"))
        _pass(private_ok)
        got = fake.wait(7)
    types = [r.json()["type"] for r in got]
    assert sorted(types) == sorted(
        [
            "task.created",
            "task.updated",
            "task.completed",
            "task.reopened",
            "task.deleted",
            "task.created",
            "task.created",
        ]
    )
    undone = [r.json()["data"] for r in got if r.json()["data"].get("undo")]
    assert len(undone) == 1 and undone[0]["task"]["title"] == "交季度报告"


def _instants(reminders: list[dict[str, Any]]) -> list[tuple[str, str | None]]:
    from datetime import datetime
    from zoneinfo import ZoneInfo

    zone = ZoneInfo("Asia/Shanghai")
    return [(f"{datetime.fromisoformat(r['at']).astimezone(zone):%Y-%m-%d %H:%M}", r["before"]) for r in reminders]


def test_reminders_on_rest_tasks_read_back_resolved(harness: Harness) -> None:
    with _client(harness) as c:
        r = c.post(
            "/tasks",
            json={
                "title": "开会",
                "deadline_at": DUE,
                "reminders": [{"before": "PT30M"}, {"at": "2026-12-03T09:00:00+08:00"}],
            },
        )
        assert r.status_code == 201, r.text
        task = r.json()
        assert _instants(task["reminders"]) == [("2026-12-03 14:30", "PT30M"), ("2026-12-03 09:00", None)]
        # Moving the deadline moves the relative one; what was read can be sent back as it is.
        moved = c.patch(
            f"/tasks/{task['id']}", json={"deadline_at": "2026-12-04T15:00:00+08:00", "reminders": task["reminders"]}
        )
        assert _instants(moved.json()["reminders"]) == [("2026-12-04 14:30", "PT30M"), ("2026-12-03 09:00", None)]
        assert c.patch(f"/tasks/{task['id']}", json={"reminders": None}).json()["reminders"] == []
        bad = [
            c.post("/tasks", json={"title": "x", "reminders": [{"before": "PT30M"}]}),  # no deadline
            c.post("/tasks", json={"title": "x", "deadline_at": DUE, "reminders": [{"before": "P400D"}]}),
            c.post("/tasks", json={"title": "x", "deadline_at": DUE, "reminders": [{"before": "30 minutes"}]}),
            c.post("/tasks", json={"title": "x", "deadline_at": DUE, "reminders": [{}]}),
        ]
        assert [b.status_code for b in bad] == [400, 400, 400, 400]
        assert "needs a deadline" in bad[0].json()["error"]["message"]


def test_serve_runs_the_worker_a_reminder_reaches_a_bot(database_url: str) -> None:
    """The worker inside `suikou serve` (the app's lifespan) sends a reminder due within a second."""
    import time
    from datetime import datetime, timedelta
    from zoneinfo import ZoneInfo

    from support.live import serve

    now = datetime.now(ZoneInfo("Asia/Shanghai"))
    h = make_harness(database_url, now=now, webhook_allow_private=True, deliveries=True, worker_poll_s=0.1)
    h.state.clock = lambda: datetime.now(ZoneInfo("Asia/Shanghai"))
    try:
        with receiver("ntfy") as fake, serve(h.state) as base:
            import httpx

            root = base.removesuffix("/v1")
            assert (
                httpx.post(
                    f"{root}/webhooks", json={"url": fake.url, "events": ["reminder.due"], "kind": "ntfy"}
                ).status_code
                == 201
            )
            at = (datetime.now(ZoneInfo("Asia/Shanghai")) + timedelta(seconds=1)).isoformat()
            made = httpx.post(f"{root}/tasks", json={"title": "喝水", "reminders": [{"at": at}]})
            assert made.status_code == 201, made.text
            started = time.monotonic()
            [got] = fake.wait(1, timeout=15)
            assert got.body.decode().startswith("⏰ 提醒：喝水")
            assert got.headers["priority"] == "high" and time.monotonic() - started < 10
    finally:
        h.state.engine.dispose()
    assert NOW.year == 2026


async def test_mcp_sets_reminders_and_its_writes_are_events(private_ok: Harness) -> None:
    from tests.app.test_mcp import call, error, in_process

    task_id = private_ok.add("交电费", 1, "2026-12-01 18:00", user="alice")
    with receiver("generic") as fake:
        with private_ok.state.session() as session:
            from webhooks import service

            await service.create(
                session, private_ok.user("alice"), url=fake.url, events=["task.updated"], timezone="Asia/Shanghai",
                now=NOW, allow_private=True,
            )  # fmt: skip
        async with in_process(private_ok, "alice") as client:
            out = await call(client, "update_task", task_id=task_id, reminders=["PT30M", "2026-12-01T09:00:00+08:00"])
            assert [r["before"] for r in out["task"]["reminders"]] == ["PT30M", None]
            assert "PT30M" in (await client.call_tool("find_tasks", {})).content[0].text  # type: ignore[union-attr]
            assert "nothing was changed" in await error(
                client, "update_task", task_id=task_id, reminders=["30 minutes"]
            )
        await asyncio.to_thread(_pass, private_ok)
        [got] = fake.wait(1)
    assert got.json()["type"] == "task.updated" and len(got.json()["data"]["task"]["reminders"]) == 2


def test_deliveries_are_counted_in_metrics(private_ok: Harness) -> None:
    from app.metrics import Metrics

    metrics = Metrics()
    with receiver("dingtalk", "sec") as fake, _client(private_ok) as c:
        c.post("/webhooks", json={"url": fake.url, "events": ["*"], "kind": "dingtalk", "secret": "sec"})
        c.post("/tasks", json={"title": "交报告"})
        worker = engine.Engine(
            private_ok.state.session, private_ok.state.clock, engine.EngineConfig(allow_private=True)
        )
        worker.observer = metrics
        asyncio.run(worker.run_once())
        metrics.queue_depth(worker.pending())
        fake.wait(1)
    text = metrics.exposition().decode()
    assert 'suikou_webhook_deliveries_total{event="task.created",kind="dingtalk",outcome="succeeded"} 1.0' in text
    assert "suikou_webhook_deliveries_pending 0.0" in text and "suikou_webhook_delivery_lag_seconds_count" in text
