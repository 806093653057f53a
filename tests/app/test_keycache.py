"""Who a key belongs to is remembered for a few seconds, and no longer."""

from __future__ import annotations

from typing import Any

from sqlmodel import select

from core.accounts import create_api_key, revoke_api_key
from core.models import ApiKey
from support.harness import Harness


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def keyed(harness: Harness) -> tuple[Any, str, FakeClock]:
    key = harness.api_key("alice")
    clock = FakeClock()
    harness.state.key_cache.clock = clock
    return harness.client(), key, clock


def test_a_revoked_key_works_until_the_cache_forgets_it(harness: Harness) -> None:
    client, key, clock = keyed(harness)
    with client:
        headers = {"Authorization": f"Bearer {key}"}
        assert client.get("/tasks", headers=headers).status_code == 200
        with harness.state.session() as session:
            assert revoke_api_key(session, key)
            session.commit()
        clock.now += 4.9  # within SUIKOU_AUTH_CACHE_SECONDS (5)
        assert client.get("/tasks", headers=headers).status_code == 200
        clock.now += 0.2
        assert client.get("/tasks", headers=headers).status_code == 401


def test_unknown_keys_are_never_remembered(harness: Harness) -> None:
    client, key, _ = keyed(harness)
    with client:
        bad = {"Authorization": f"Bearer {key}x"}
        assert client.get("/tasks", headers=bad).status_code == 401
        assert client.get("/tasks", headers=bad).status_code == 401
    assert harness.state.key_cache._entries == {}


def test_the_cache_keeps_hashes_not_keys(harness: Harness) -> None:
    client, key, _ = keyed(harness)
    with client:
        assert client.get("/tasks", headers={"Authorization": f"Bearer {key}"}).status_code == 200
    [stored] = harness.state.key_cache._entries
    assert key not in stored
    with harness.state.session() as session:
        assert stored in {k.key_hash for k in session.exec(select(ApiKey)).all()}


def test_each_key_is_its_own_user(harness: Harness) -> None:
    alice = harness.api_key("alice")
    with harness.state.session() as session:
        bob = create_api_key(session, "bob")
        session.commit()
    harness.add("爱丽丝的任务", user="alice")
    harness.add("鲍勃的任务", user="bob")
    with harness.client() as client:
        for _ in range(2):  # the second round is served from the cache
            for key, title in ((alice, "爱丽丝的任务"), (bob, "鲍勃的任务")):
                items = client.get("/tasks", headers={"Authorization": f"Bearer {key}"}).json()["items"]
                assert [item["title"] for item in items] == [title]


def test_a_zero_ttl_turns_the_cache_off(harness: Harness) -> None:
    client, key, _ = keyed(harness)
    harness.state.key_cache.ttl_s = 0
    with client:
        headers = {"Authorization": f"Bearer {key}"}
        assert client.get("/tasks", headers=headers).status_code == 200
        with harness.state.session() as session:
            assert revoke_api_key(session, key)
            session.commit()
        assert client.get("/tasks", headers=headers).status_code == 401
