"""core.accounts: users and hashed API keys, on SQLite and PostgreSQL."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime

import sqlalchemy as sa
from sqlmodel import Session, select

from core.accounts import (
    KEY_PREFIX,
    create_api_key,
    ensure_user,
    list_api_keys,
    revoke_api_key,
    user_for_api_key,
)
from core.models import ApiKey, User

NOW = datetime(2026, 3, 10, 9, 0, tzinfo=UTC)


def test_ensure_user_is_idempotent(session: Session) -> None:
    a = ensure_user(session, "alice", now=NOW)
    b = ensure_user(session, " alice ", now=NOW)
    session.commit()
    assert a.id == b.id
    assert len(session.exec(select(User)).all()) == 1
    assert a.created_at == NOW


def test_key_is_returned_once_and_only_its_hash_is_stored(session: Session) -> None:
    key = create_api_key(session, "alice", now=NOW)
    session.commit()
    assert key.startswith(KEY_PREFIX)
    assert len(key) == len(KEY_PREFIX) + 43  # 32 random bytes, url-safe base64

    row = session.exec(select(ApiKey)).one()
    assert row.key_hash == hashlib.sha256(key.encode()).hexdigest()
    assert row.prefix == key[len(KEY_PREFIX) : len(KEY_PREFIX) + 8]
    # the plaintext appears nowhere in the table
    dumped = session.execute(sa.text("SELECT * FROM api_keys")).all()
    assert all(key not in str(value) for r in dumped for value in r)


def test_lookup_and_revocation(session: Session) -> None:
    k1 = create_api_key(session, "alice", now=NOW)
    k2 = create_api_key(session, "alice", now=NOW)
    k3 = create_api_key(session, "bob", now=NOW)
    session.commit()

    alice = user_for_api_key(session, k1)
    assert alice is not None and alice.name == "alice"
    other = user_for_api_key(session, k2)
    assert other is not None and other.id == alice.id
    bob = user_for_api_key(session, k3)
    assert bob is not None and bob.name == "bob"
    assert user_for_api_key(session, k1 + "x") is None
    assert user_for_api_key(session, "") is None
    assert user_for_api_key(session, "not-a-key") is None
    assert len(list_api_keys(session, include_revoked=False)) == 3

    prefix = k1[len(KEY_PREFIX) : len(KEY_PREFIX) + 8]
    assert revoke_api_key(session, prefix, now=NOW) is True
    session.commit()
    assert user_for_api_key(session, k1) is None
    assert user_for_api_key(session, k2) is not None
    assert revoke_api_key(session, prefix) is False  # already revoked
    assert len(list_api_keys(session, include_revoked=False)) == 2

    keys = list_api_keys(session)
    assert [(k.user_name, k.active) for k in keys] == [("alice", False), ("alice", True), ("bob", True)]
    assert keys[0].revoked_at == NOW
    assert all(k.prefix and len(k.prefix) == 8 for k in keys)
    assert len(list_api_keys(session, include_revoked=False)) == 2

    assert revoke_api_key(session, keys[2].id) is True  # by id
    assert revoke_api_key(session, str(keys[1].id)) is True  # by id as text
    session.commit()
    assert len(list_api_keys(session, include_revoked=False)) == 0
    assert user_for_api_key(session, k3) is None
    assert revoke_api_key(session, 12345) is False


def test_revoke_by_full_key(session: Session) -> None:
    key = create_api_key(session, "carol", now=NOW)
    session.commit()
    assert revoke_api_key(session, key) is True
    session.commit()
    assert user_for_api_key(session, key) is None
