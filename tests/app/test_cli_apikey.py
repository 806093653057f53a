"""`suikou apikey create`: the first key ends keyless mode (a warning on stderr says so), keys map
to the user `local` by default so the keyless / demo tasks stay reachable, and stdout is the key
alone (scripts capture it)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.routing import Route
from typer.testing import CliRunner

from app.cli import cli
from app.demo import DEMO_TASKS
from app.settings import get_settings
from core.accounts import KEY_PREFIX, LOCAL_USER, list_api_keys, user_for_api_key
from support.harness import Harness, make_harness

WARNING = "keyless mode ends now"


@pytest.fixture
def db(database_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """The CLI's settings point at a fresh database; cwd is a temporary directory (no .env)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SUIKOU_DATABASE_URL", database_url)
    get_settings.cache_clear()
    yield database_url
    get_settings.cache_clear()


@pytest.fixture
def service(db: str) -> Iterator[Harness]:
    """The service on the same database, to check what a key can reach."""
    h = make_harness(db)
    yield h
    h.state.engine.dispose()


def run(*args: str) -> Any:
    result = CliRunner().invoke(cli, list(args))
    assert result.exit_code == 0, (result.output, result.exception)
    return result


def create(*args: str) -> tuple[str, str]:
    """(key, stderr) of `suikou apikey create ARGS`, checking stdout is exactly the key."""
    result = run("apikey", "create", *args)
    lines = result.stdout.splitlines()
    assert len(lines) == 1 and result.stdout == lines[0] + "\n", result.stdout
    key = lines[0]
    assert key.startswith(KEY_PREFIX) and len(key) > len(KEY_PREFIX) + 20 and " " not in key
    return key, result.stderr


def bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def titles(client: TestClient, key: str | None) -> set[str]:
    r = client.get("/tasks", headers=bearer(key) if key else {}, params={"include_completed": True, "limit": 100})
    assert r.status_code == 200, r.text
    return {t["title"] for t in r.json()["items"]}


# --- the warning --------------------------------------------------------------------------------


def test_first_key_warns_that_keyless_mode_ends_and_the_second_does_not(db: str) -> None:
    key, stderr = create()
    assert WARNING in stderr
    assert "Authorization: Bearer <key>" in stderr
    assert "maps to user 'local'" in stderr
    assert "tasks of user 'local' are reachable with it" in stderr
    assert key not in stderr  # the key is shown once, on stdout only

    second, stderr = create()
    assert stderr == ""
    assert second != key


def test_first_key_for_another_user_names_that_user_and_says_local_tasks_are_out_of_reach(db: str) -> None:
    _, stderr = create("--user", "alice")
    assert WARNING in stderr
    assert "Authorization: Bearer <key>" in stderr
    assert "maps to user 'alice'" in stderr
    assert "tasks of user 'local'" in stderr and "not reachable" in stderr
    assert "--user local" in stderr
    _, stderr = create("--user", "bob")
    assert stderr == ""


def every_route(routes: Any) -> Iterator[Route]:
    for route in routes:
        included = getattr(route, "original_router", None)  # FastAPI 0.16x keeps included routers whole
        if included is not None:
            yield from every_route(included.routes)
        elif isinstance(route, Route):
            yield route


def open_routes(client: TestClient) -> set[str]:
    """The path template of each route that answers something other than 401 without a key."""
    found = set()
    for route in every_route(client.app.routes):  # type: ignore[attr-defined]
        for method in sorted(route.methods or {"POST"}):  # /mcp is a plain Route serving POST
            path = re.sub(r"\{[^}]+\}", "1", route.path)
            if method != "HEAD" and client.request(method, path).status_code != 401:
                found.add(route.path)
    return found


def test_the_warning_names_exactly_the_routes_that_stay_open(service: Harness) -> None:
    _, stderr = create()
    with service.client() as client:
        still_open = open_routes(client)
    named = set(re.findall(r"(?<![\w/])/[\w./{}-]*", stderr))
    # The reference page's own scripts and styles come with /docs.
    assert {path for path in still_open if not path.startswith("/docs/")} == named, stderr
    assert {"/healthz", "/readyz", "/"} <= named and "/metrics" not in named and "/mcp" not in named


def test_no_warning_when_keys_exist_even_if_all_are_revoked(service: Harness) -> None:
    key, stderr = create()
    assert WARNING in stderr
    assert run("apikey", "revoke", key).stdout == "revoked\n"
    # Revoked keys still count: keyless mode does not come back, so it cannot end again.
    _, stderr = create()
    assert stderr == ""


def test_no_warning_when_a_key_was_created_outside_the_cli(service: Harness) -> None:
    service.api_key("alice")
    _, stderr = create()
    assert stderr == ""


# --- the default user ---------------------------------------------------------------------------


def test_default_user_is_local(service: Harness) -> None:
    key, _ = create()
    with service.state.session() as session:
        user = user_for_api_key(session, key)
        assert user is not None and user.name == LOCAL_USER == "local"
        assert [info.user_name for info in list_api_keys(session)] == ["local"]
    listed = run("apikey", "list").stdout
    assert "\tlocal\tactive" in listed and key not in listed


def test_explicit_user_is_kept(service: Harness) -> None:
    key, _ = create("--user", "carol")
    with service.state.session() as session:
        user = user_for_api_key(session, key)
        assert user is not None and user.name == "carol"


# --- what the key reaches -----------------------------------------------------------------------


def test_first_default_key_keeps_the_keyless_tasks_reachable(service: Harness) -> None:
    service.add("本地任务", 2, "2026-12-02 10:00", user="local")
    service.add("别人的任务", 2, "2026-12-02 10:00", user="alice")
    now = [1000.0]
    service.state.key_cache.clock = lambda: now[0]
    with service.client() as client:
        assert titles(client, None) == {"本地任务"}  # keyless mode: everyone is `local`
        key, stderr = create()
        assert WARNING in stderr
        now[0] += service.state.key_cache.ttl_s  # once the server's key cache forgets it
        assert client.get("/tasks").status_code == 401  # keyless mode is over
        assert titles(client, key) == {"本地任务"}


def test_key_sees_the_demo_tasks(service: Harness) -> None:
    seeded = run("demo")
    assert f"Added {len(DEMO_TASKS)} demo tasks for user 'local'" in seeded.stdout
    key, stderr = create()
    assert WARNING in stderr
    demo_titles = {title for title, *_ in DEMO_TASKS}
    with service.client() as client:
        assert client.get("/tasks").status_code == 401
        assert titles(client, key) == demo_titles
        body = {"model": "suikou", "messages": [{"role": "user", "content": "全部任务"}]}
        r = client.post("/v1/chat/completions", json=body, headers=bearer(key))
        assert r.status_code == 200, r.text
        answer = r.json()["choices"][0]["message"]["content"]
        assert "（共 " in answer and "\n\n1. " in answer  # a list, its count in the header
        assert any(title in answer for title in demo_titles)
