"""Which pages may reach the service (app/guard.py, docs/fdr/0022-host-and-origin.md).

- A page on another origin cannot write: a state-changing request with a foreign `Origin` (or,
  without one, `Sec-Fetch-Site: cross-site`) is a 403 and changes nothing, even the body-less
  `POST /tasks/{id}/complete` a browser sends without asking.
- A DNS-rebinding page (its own name resolving to this server) gets nothing: a `Host` that is not
  on the list is a 421 on every route, REST, chat, `/mcp` and the pages alike.
- Same-origin requests (the playground) and requests without `Origin` (curl, SDKs, server-side
  clients) pass, with or without API keys.

Starlette's test client sends `Host: testserver`, which the harness allows explicitly; the tests of
the production defaults build their service with `allowed_hosts=""`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx2
import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from app.cli import cli
from app.guard import Authority, policy_for
from app.main import create_app
from app.settings import get_settings
from core.models import Task, TaskChange
from support.harness import Harness, make_harness

CHAT = "/v1/chat/completions"
NOTE = "帮我记一下明天下午三点交报告"
EVIL = "http://evil.example"
MCP_HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
MCP_LIST = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
LAN = Authority("192.168.1.5", 8000)


@pytest.fixture(params=["keyless", "keys"])
def auth(request: pytest.FixtureRequest, harness: Harness) -> dict[str, str]:
    """No key (the quick start's local user), or a key once keys exist: the same rules hold."""
    if request.param == "keyless":
        return {}
    return {"Authorization": f"Bearer {harness.api_key('local')}"}


@pytest.fixture
def client(harness: Harness) -> Iterator[TestClient]:
    with harness.client() as c:
        yield c


def written(h: Harness) -> tuple[list[tuple[Any, ...]], int]:
    """Every task as stored, and the number of write-log entries."""
    with h.state.session() as session:
        tasks = session.execute(sa.select(Task).order_by(Task.id)).scalars().all()  # type: ignore[arg-type]
        changes = session.execute(sa.select(sa.func.count()).select_from(TaskChange)).scalar_one()
        return [(t.id, t.title, t.priority_group, t.deadline_at, t.is_completed) for t in tasks], changes


def assert_refused(r: Any, status: int, code: str) -> None:
    assert r.status_code == status, r.text
    assert r.headers["content-type"] == "application/json"
    assert r.json() == {
        "error": {"message": r.json()["error"]["message"], "type": "invalid_request_error", "param": None, "code": code}
    }
    assert len(r.json()["error"]["message"]) > 20


def writes(task_id: int) -> dict[str, dict[str, Any]]:
    """One of each state-changing request, as a page could send it (JSON ones need a preflight
    cross-origin, but a rebinding or a same-site page would not)."""
    return {
        "complete (no body)": {"method": "POST", "url": f"/tasks/{task_id}/complete"},
        "complete": {"method": "POST", "url": f"/tasks/{task_id}/complete", "json": {"completed": True}},
        "create": {"method": "POST", "url": "/tasks", "json": {"title": "钓鱼", "priority_group": 1}},
        "update": {"method": "PATCH", "url": f"/tasks/{task_id}", "json": {"title": "改掉"}},
        "delete": {"method": "DELETE", "url": f"/tasks/{task_id}"},
        "chat note": {
            "method": "POST",
            "url": CHAT,
            "json": {"model": "suikou", "messages": [{"role": "user", "content": NOTE}]},
        },
        "chat note as text/plain": {
            "method": "POST",
            "url": CHAT,
            "headers": {"content-type": "text/plain"},
            "content": '{"model": "suikou", "messages": [{"role": "user", "content": "x"}]}',
        },
    }


def send(client: TestClient, request: dict[str, Any], headers: dict[str, str]) -> Any:
    request = dict(request)
    own = request.pop("headers", {})
    return client.request(**request, headers={**own, **headers})


# --- a page on another origin -------------------------------------------------------------------


def test_a_foreign_page_cannot_complete_the_local_users_tasks(
    harness: Harness, client: TestClient, auth: dict[str, str]
) -> None:
    # The attack: a page elsewhere posts /tasks/{id}/complete for every id, no body at all.
    ids = [harness.add(f"任务{i}", 2, user="local") for i in range(5)]
    before = written(harness)
    for task_id in ids:
        r = client.post(f"/tasks/{task_id}/complete", headers={**auth, "Origin": EVIL})
        assert_refused(r, 403, "cross_origin_request")
        assert EVIL in r.json()["error"]["message"] and "SUIKOU_ALLOWED_ORIGINS" in r.json()["error"]["message"]
    assert written(harness) == before


@pytest.mark.parametrize("name", list(writes(0)))
@pytest.mark.parametrize(
    "foreign",
    [
        {"Origin": EVIL},
        {"Origin": "null"},  # a sandboxed frame, a file:// page, a redirect from elsewhere
        {"Origin": "http://testserver.evil.example"},
        {"Origin": "https://testserver:444"},  # same name, another port: another origin
        {"Sec-Fetch-Site": "cross-site"},  # a browser that sent no Origin still says where it came from
        {"Sec-Fetch-Site": "same-site"},  # another port or subdomain of the same site
        {"Origin": "not an origin"},
    ],
    ids=["evil", "null", "lookalike", "other-port", "fetch-cross-site", "fetch-same-site", "malformed"],
)
def test_every_write_from_a_foreign_page_is_refused_and_changes_nothing(
    harness: Harness, client: TestClient, auth: dict[str, str], name: str, foreign: dict[str, str]
) -> None:
    task_id = harness.add("交电费", 2, "2026-12-01 15:00", user="local")
    before = written(harness)
    r = send(client, writes(task_id)[name], {**auth, **foreign})
    assert_refused(r, 403, "cross_origin_request")
    assert written(harness) == before


@pytest.mark.parametrize(
    "own",
    [
        {"Origin": "http://testserver"},  # the playground, served from this origin
        {"Origin": "http://testserver", "Sec-Fetch-Site": "same-origin"},
        {"Sec-Fetch-Site": "same-origin"},
        {"Sec-Fetch-Site": "none"},  # typed by the user
        {},  # curl, SDKs, Open WebUI's backend: no Origin at all
    ],
    ids=["origin", "origin+fetch", "fetch-same-origin", "fetch-none", "no-origin"],
)
def test_same_origin_and_originless_writes_work(
    harness: Harness, client: TestClient, auth: dict[str, str], own: dict[str, str]
) -> None:
    task_id = harness.add("交电费", 2, user="local")
    r = client.post(f"/tasks/{task_id}/complete", headers={**auth, **own})
    assert r.status_code == 200, r.text
    assert r.json()["is_completed"] is True
    r = client.post(
        CHAT, json={"model": "suikou", "messages": [{"role": "user", "content": NOTE}]}, headers={**auth, **own}
    )
    assert r.status_code == 200, r.text
    assert "交报告" in {row[1] for row in written(harness)[0]}


def test_reads_from_any_origin_are_served(harness: Harness, client: TestClient, auth: dict[str, str]) -> None:
    # A read changes nothing, and without CORS headers the foreign page cannot see the answer.
    harness.add("交电费", 2, user="local")
    r = client.get("/tasks", headers={**auth, "Origin": EVIL, "Sec-Fetch-Site": "cross-site"})
    assert r.status_code == 200
    assert "access-control-allow-origin" not in r.headers


def test_listed_origins_may_write(database_url: str) -> None:
    h = make_harness(database_url, allowed_origins="https://tasks.example.com, NULL")
    try:
        task_id = h.add("交电费", 2, user="local")
        with h.client() as client:
            for origin in ("https://tasks.example.com", "https://TASKS.example.com:443", "null"):
                r = client.post(f"/tasks/{task_id}/complete", headers={"Origin": origin}, json={"completed": True})
                assert r.status_code == 200, (origin, r.text)
            r = client.post(f"/tasks/{task_id}/complete", headers={"Origin": "http://tasks.example.com"})
            assert_refused(r, 403, "cross_origin_request")  # another scheme is another origin
    finally:
        h.state.engine.dispose()


# --- a rebinding page: a name that is not ours --------------------------------------------------

REBOUND_REQUESTS = {
    "list tasks": {"method": "GET", "url": "/tasks"},
    "complete": {"method": "POST", "url": "/tasks/1/complete"},
    "chat": {
        "method": "POST",
        "url": CHAT,
        "json": {"model": "suikou", "messages": [{"role": "user", "content": NOTE}]},
    },
    "models": {"method": "GET", "url": "/v1/models"},
    "mcp": {"method": "POST", "url": "/mcp", "json": MCP_LIST, "headers": MCP_HEADERS},
    "playground": {"method": "GET", "url": "/"},
    "docs": {"method": "GET", "url": "/docs"},
    "openapi": {"method": "GET", "url": "/openapi.json"},
    "metrics": {"method": "GET", "url": "/metrics"},
    "unknown path": {"method": "GET", "url": "/nope"},
}


@pytest.mark.parametrize("name", list(REBOUND_REQUESTS))
@pytest.mark.parametrize(
    "host", ["evil.example:8000", "evil.example", "localhost.evil.example", "127.0.0.1.nip.io:8000"]
)
def test_a_rebinding_host_gets_nothing_anywhere(
    harness: Harness, client: TestClient, auth: dict[str, str], name: str, host: str
) -> None:
    harness.add("交电费", 2, user="local")
    before = written(harness)
    # Same-origin as far as the browser knows: the page's own name, its own Origin.
    r = send(client, REBOUND_REQUESTS[name], {**auth, "Host": host, "Origin": f"http://{host}"})
    assert_refused(r, 421, "host_not_allowed")
    assert host in r.json()["error"]["message"] and "SUIKOU_ALLOWED_HOSTS" in r.json()["error"]["message"]
    assert "交电费" not in r.text
    assert written(harness) == before


@pytest.mark.parametrize(
    "host",
    ["", "evil.example@localhost", "localhost:abc", "localhost:8000:1", "[::1", "::1", "local host", "localhost/x"],
)
def test_a_malformed_host_is_refused(client: TestClient, host: str) -> None:
    assert_refused(client.get("/tasks", headers={"Host": host}), 421, "host_not_allowed")


def defaults(database_url: str, **settings: Any) -> Harness:
    """The service with the production Host list (the harness's test host left out)."""
    return make_harness(database_url, allowed_hosts=settings.pop("allowed_hosts", ""), **settings)


def statuses(h: Harness, hosts: list[str]) -> dict[str, int]:
    with TestClient(create_app(h.state.settings, state=h.state)) as client:
        return {host: client.get("/tasks", headers={"Host": host}).status_code for host in hosts}


def test_by_default_only_loopback_names_and_the_bound_address_are_served(database_url: str) -> None:
    h = defaults(database_url)
    try:
        loopback = [
            "localhost",
            "localhost:8000",
            "LOCALHOST:8000",
            "127.0.0.1:8000",
            "127.0.0.1",
            "[::1]:8000",
            "[::1]",
        ]
        others = ["testserver", "0.0.0.0:8000", "192.168.1.5:8000", "evil.example:8000", "localhost."]
        assert statuses(h, loopback + others) == {**dict.fromkeys(loopback, 200), **dict.fromkeys(others, 421)}
    finally:
        h.state.engine.dispose()
    bound = defaults(database_url, host="192.168.1.5")
    try:
        assert statuses(bound, ["192.168.1.5:8000", "localhost:8000", "192.168.1.6:8000"]) == {
            "192.168.1.5:8000": 200,
            "localhost:8000": 200,
            "192.168.1.6:8000": 421,
        }
    finally:
        bound.state.engine.dispose()
    wildcard = defaults(database_url, host="0.0.0.0")  # binds every address, names none of them
    try:
        assert statuses(wildcard, ["0.0.0.0:8000", "localhost:8000"]) == {"0.0.0.0:8000": 421, "localhost:8000": 200}
    finally:
        wildcard.state.engine.dispose()


def test_allowed_hosts_add_names_and_patterns(database_url: str) -> None:
    h = defaults(database_url, allowed_hosts="tasks.example.com, *.lan.example, [fd00::1]")
    try:
        served = [
            "tasks.example.com",
            "TASKS.example.com:443",
            "a.lan.example",
            "b.a.lan.example:8000",
            "[fd00::1]:8000",
            "localhost:8000",
        ]
        refused = ["example.com", "lan.example", "evil-lan.example", "tasks.example.com.evil.example"]
        assert statuses(h, served + refused) == {**dict.fromkeys(served, 200), **dict.fromkeys(refused, 421)}
    finally:
        h.state.engine.dispose()
    anything = defaults(database_url, allowed_hosts="*")
    try:
        assert statuses(anything, ["evil.example:8000", "10.1.2.3:8000"]) == {
            "evil.example:8000": 200,
            "10.1.2.3:8000": 200,
        }
    finally:
        anything.state.engine.dispose()


@pytest.mark.parametrize(
    ("setting", "value"),
    [
        ("allowed_hosts", "localhost:8000"),  # ports are not matched: a port here is a mistake
        ("allowed_hosts", "http://tasks.example.com"),
        ("allowed_hosts", "tasks.*.com"),
        ("allowed_origins", "tasks.example.com"),  # an origin has a scheme
        ("allowed_origins", "https://tasks.example.com/app"),
        ("allowed_origins", "*"),
    ],
)
def test_a_bad_list_stops_create_app(database_url: str, setting: str, value: str) -> None:
    h = make_harness(database_url, **{setting: value})
    try:
        with pytest.raises(ValueError, match=f"SUIKOU_{setting.upper()}"):
            create_app(h.state.settings, state=h.state)
    finally:
        h.state.engine.dispose()


# --- /mcp: the SDK's own rebinding protection is on, with the same list -------------------------


async def test_mcp_refuses_a_rebinding_host_even_without_the_guard(harness: Harness) -> None:
    # app.router is the app without its middleware: what answers here is the MCP SDK's own check.
    app = create_app(harness.state.settings, state=harness.state)
    async with (
        app.router.lifespan_context(app),
        httpx2.AsyncClient(transport=httpx2.ASGITransport(app=app.router), base_url="http://testserver") as http,
    ):
        ours = await http.post("/mcp", json=MCP_LIST, headers=MCP_HEADERS)
        rebound = await http.post("/mcp", json=MCP_LIST, headers={**MCP_HEADERS, "host": "evil.example:8000"})
        foreign = await http.post("/mcp", json=MCP_LIST, headers={**MCP_HEADERS, "origin": EVIL})
    assert ours.status_code == 200, ours.text
    assert rebound.status_code == 421
    assert foreign.status_code == 403


def test_serve_passes_its_bind_address_to_the_app(
    harness: Harness, database_url: str, tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `suikou serve --host 192.168.1.5`: a phone on the LAN opens http://192.168.1.5:8000/.
    harness.api_key("local")  # beyond loopback, serve wants keys
    monkeypatch.chdir(tmp_path)  # no .env
    monkeypatch.setenv("SUIKOU_DATABASE_URL", database_url)
    monkeypatch.setenv("SUIKOU_HOST", "127.0.0.1")  # restored after the test, whatever serve sets
    served: list[bool] = []
    # What the app factory will build, in this process or in a worker.
    monkeypatch.setattr("uvicorn.run", lambda *a, **kw: served.append(policy_for(get_settings()).serves(LAN)))
    get_settings.cache_clear()
    try:
        result = CliRunner().invoke(cli, ["serve", "--host", "192.168.1.5", "--migrate"])
    finally:
        get_settings.cache_clear()
    assert result.exit_code == 0, result.output
    assert served == [True]
