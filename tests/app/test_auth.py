"""API keys and users: who may call, and that two users never see each other's tasks."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from core.accounts import KEY_PREFIX, revoke_api_key
from support.check_stream import schema_errors
from support.live import free_port

CHAT = "/v1/chat/completions"


def bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def ask(client: TestClient, key: str | None, text: str, *, stream: bool = False, message_id: str | None = None) -> str:
    headers = bearer(key) if key else {}
    if message_id:
        headers["X-Client-Message-Id"] = message_id
    body = {"model": "suikou", "messages": [{"role": "user", "content": text}], "stream": stream}
    r = client.post(CHAT, json=body, headers=headers)
    assert r.status_code == 200, r.text
    if not stream:
        return r.json()["choices"][0]["message"]["content"]
    payloads = [line[len("data: ") :] for line in r.text.split("\n") if line.startswith("data: ")]
    assert payloads[-1] == "[DONE]"
    chunks = [json.loads(p) for p in payloads[:-1]]
    return "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks if c["choices"])


def titles(client: TestClient, key: str | None, **params: Any) -> list[str]:
    r = client.get("/tasks", headers=bearer(key) if key else {}, params={"include_completed": True, **params})
    assert r.status_code == 200, r.text
    return [t["title"] for t in r.json()["items"]]


def assert_401(r: Any) -> None:
    assert r.status_code == 401, r.text
    assert schema_errors("error_response", r.json()) == []
    assert r.json()["error"]["code"] == "invalid_api_key"
    assert r.headers["www-authenticate"] == "Bearer"


# --- keys ------------------------------------------------------------------------------------------


@pytest.fixture
def two_users(harness: Any) -> Iterator[tuple[TestClient, str, str]]:
    alice = harness.api_key("alice")
    bob = harness.api_key("bob")
    harness.add("交周报", 1, "2026-12-01 15:00", user="alice")
    harness.add("写年终总结", 2, "2026-12-04 18:00", user="alice")
    harness.add("买猫粮", 3, "2026-12-01 19:00", user="bob")
    harness.add("修自行车", 4, "2026-12-03 10:00", user="bob")
    with harness.client() as client:
        yield client, alice, bob


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("get", "/v1/models"),
        ("get", "/v1/models/suikou"),
        ("get", "/tasks"),
        ("post", "/tasks"),
        ("get", "/tasks/1"),
        ("patch", "/tasks/1"),
        ("post", "/tasks/1/complete"),
        ("delete", "/tasks/1"),
        ("post", CHAT),
        ("post", "/agent/chat"),
    ],
)
@pytest.mark.parametrize("auth", [None, "Bearer sk-suikou-not-a-real-key", "Bearer nonsense", "Basic abc"])
def test_every_endpoint_needs_a_valid_key(
    two_users: tuple[TestClient, str, str], method: str, path: str, auth: str | None
) -> None:
    client, _, _ = two_users
    headers = {"Authorization": auth} if auth else {}
    kwargs: dict[str, Any] = {"json": {"title": "x"}} if method in ("post", "patch") else {}
    assert_401(client.request(method, path, headers=headers, **kwargs))
    assert titles(client, two_users[1]) == ["交周报", "写年终总结"]  # nothing changed


def test_healthz_needs_no_key(two_users: tuple[TestClient, str, str]) -> None:
    client, _, _ = two_users
    assert client.get("/healthz").status_code == 200


def test_scheme_is_case_insensitive(two_users: tuple[TestClient, str, str]) -> None:
    client, alice, _ = two_users
    assert client.get("/v1/models", headers={"Authorization": f"bearer {alice}"}).status_code == 200


def test_revoked_key_is_refused(harness: Any, two_users: tuple[TestClient, str, str]) -> None:
    client, alice, bob = two_users
    with harness.state.session() as session:
        assert revoke_api_key(session, alice)
        session.commit()
    assert_401(client.get("/tasks", headers=bearer(alice)))
    assert titles(client, bob) == ["买猫粮", "修自行车"]


def test_revoking_every_key_does_not_reopen_local_mode(harness: Any, two_users: tuple[TestClient, str, str]) -> None:
    client, alice, bob = two_users
    with harness.state.session() as session:
        assert revoke_api_key(session, alice) and revoke_api_key(session, bob)
        session.commit()
    assert_401(client.get("/tasks"))
    assert_401(client.post(CHAT, json={"model": "suikou", "messages": [{"role": "user", "content": "全部任务"}]}))


# --- isolation through REST -------------------------------------------------------------------------


def test_rest_lists_only_the_callers_tasks(two_users: tuple[TestClient, str, str]) -> None:
    client, alice, bob = two_users
    assert titles(client, alice) == ["交周报", "写年终总结"]
    assert titles(client, bob) == ["买猫粮", "修自行车"]
    assert titles(client, alice, keyword="猫") == []
    assert client.get("/tasks", headers=bearer(alice)).json()["total"] == 2


def test_rest_cannot_touch_another_users_task(two_users: tuple[TestClient, str, str]) -> None:
    client, alice, bob = two_users
    theirs = client.get("/tasks", headers=bearer(bob)).json()["items"][0]
    tid = theirs["id"]
    attempts = [
        client.get(f"/tasks/{tid}", headers=bearer(alice)),
        client.patch(f"/tasks/{tid}", headers=bearer(alice), json={"title": "被改了", "priority_group": 1}),
        client.post(f"/tasks/{tid}/complete", headers=bearer(alice)),
        client.post(f"/tasks/{tid}/complete", headers=bearer(alice), json={"completed": False}),
        client.delete(f"/tasks/{tid}", headers=bearer(alice)),
    ]
    for r in attempts:
        assert r.status_code == 404, r.text
        assert schema_errors("error_response", r.json()) == []
        # Same answer as for an id that does not exist: nothing tells alice the task is there.
        assert r.json() == client.get("/tasks/999999", headers=bearer(alice)).json() | {
            "error": {**r.json()["error"], "message": f"No task with id {tid}."}
        }
    assert client.get(f"/tasks/{tid}", headers=bearer(bob)).json() == theirs


def test_created_task_belongs_to_the_caller(two_users: tuple[TestClient, str, str]) -> None:
    client, alice, bob = two_users
    r = client.post("/tasks", headers=bearer(bob), json={"title": "换灯泡", "priority_group": 3})
    assert r.status_code == 201
    assert "换灯泡" in titles(client, bob)
    assert "换灯泡" not in titles(client, alice)
    assert client.get(f"/tasks/{r.json()['id']}", headers=bearer(alice)).status_code == 404


# --- isolation through chat -------------------------------------------------------------------------


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
def test_chat_query_lists_only_the_callers_tasks(two_users: tuple[TestClient, str, str], stream: bool) -> None:
    client, alice, bob = two_users
    for question in ["全部任务", "这周有什么要交的", "有没有关于猫的任务"]:
        a = ask(client, alice, question, stream=stream)
        b = ask(client, bob, question, stream=stream)
        assert "买猫粮" not in a and "修自行车" not in a, a
        assert "交周报" not in b and "写年终总结" not in b, b
    assert "交周报" in ask(client, alice, "全部任务", stream=stream)
    assert "买猫粮" in ask(client, bob, "全部任务", stream=stream)


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
def test_quick_note_lands_in_the_callers_list(two_users: tuple[TestClient, str, str], stream: bool) -> None:
    client, alice, bob = two_users
    answer = ask(client, bob, "帮我记一下明天下午三点交报告", stream=stream)
    assert answer.startswith("好，已记下：交报告")
    assert "交报告" in titles(client, bob)
    assert "交报告" not in titles(client, alice)
    # The same words from another user are that user's own new turn, not a replay of bob's.
    ask(client, alice, "帮我记一下明天下午三点交报告", stream=stream)
    assert titles(client, alice).count("交报告") == 1
    assert titles(client, bob).count("交报告") == 1
    assert "交报告" in ask(client, alice, "全部任务")


def test_same_client_message_id_from_two_users(two_users: tuple[TestClient, str, str]) -> None:
    client, alice, bob = two_users
    ask(client, alice, "帮我记一下周五交房租", message_id="m-1")
    ask(client, bob, "帮我记一下周五交房租", message_id="m-1")
    assert titles(client, alice).count("交房租") == 1
    assert titles(client, bob).count("交房租") == 1


# --- no keys: the local user ------------------------------------------------------------------------


def test_local_mode_without_keys(harness: Any) -> None:
    harness.add("本地任务", 2, "2026-12-02 10:00", user="local")
    harness.add("别人的任务", 2, "2026-12-02 10:00", user="alice")
    # The cache's own clock, moved by hand only: a slow machine must not age the entries below.
    now = [time.monotonic()]
    harness.state.key_cache.clock = lambda: now[0]
    with harness.client() as client:
        assert titles(client, None) == ["本地任务"]
        # Any Authorization header is ignored while no key exists.
        assert client.get("/tasks", headers={"Authorization": "Bearer whatever"}).status_code == 200
        assert client.get("/v1/models").status_code == 200
        ask(client, None, "帮我记一下明天下午三点交报告")
        assert titles(client, None) == ["交报告", "本地任务"]
        assert "本地任务" in ask(client, None, "全部任务")

        # The first key ends local mode: anonymous calls are refused once the key cache
        # (SUIKOU_AUTH_CACHE_SECONDS, 5 s) forgets who anonymous was.
        assert client.get("/tasks").status_code == 200
        key = harness.api_key("alice")
        now[0] += 4.9
        assert client.get("/tasks").status_code == 200  # within the window
        now[0] += 0.2
        assert_401(client.get("/tasks"))
        assert_401(client.post(CHAT, json={"model": "suikou", "messages": [{"role": "user", "content": "全部任务"}]}))
        assert titles(client, key) == ["别人的任务"]


# --- the CLI --------------------------------------------------------------------------------------------


def run_cli(args: list[str], database_url: str, cwd: Path, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SUIKOU_")}
    env["SUIKOU_DATABASE_URL"] = database_url
    # cwd is a temporary directory, so no developer .env file is read.
    return subprocess.run(
        [sys.executable, "-c", "from app.cli import main; main()", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def test_cli_apikey_create_prints_only_the_key(harness: Any, database_url: str, tmp_path: Path) -> None:
    harness.add("命令行用户的任务", 2, "2026-12-02 10:00", user="carol")
    done = run_cli(["apikey", "create", "--user", "carol"], database_url, tmp_path)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 1 and done.stdout == lines[0] + "\n"
    key = lines[0]
    assert key.startswith(KEY_PREFIX) and len(key) > len(KEY_PREFIX) + 20 and " " not in key
    with harness.client() as client:
        assert titles(client, key) == ["命令行用户的任务"]
    listed = run_cli(["apikey", "list"], database_url, tmp_path)
    assert listed.returncode == 0
    assert "carol" in listed.stdout and key not in listed.stdout


def test_cli_serve_refuses_public_bind_without_keys(harness: Any, database_url: str, tmp_path: Path) -> None:
    # If the refusal were missing, the server would start and the timeout would fail the test
    # (subprocess.run kills the child on timeout, so no server is left running).
    done = run_cli(["serve", "--host", "0.0.0.0", "--port", str(free_port())], database_url, tmp_path, timeout=30)
    assert done.returncode != 0
    assert "Refusing to serve on 0.0.0.0" in done.stderr
    assert "suikou apikey create" in done.stderr
    assert done.stdout == ""
