"""Users and API keys.

A key is ``sk-suikou-<43 url-safe characters>`` (32 random bytes). Only its SHA-256 hex digest is
stored, plus the first 8 characters of the random part as a display prefix. Lookup hashes the
presented key and finds the row by the (unique, indexed) digest: the comparison that matters
happens on a digest the caller cannot steer byte by byte, so it leaks nothing useful through
timing, and the plaintext never reaches the database.

Like :mod:`core.store`, these functions ``flush`` but never ``commit``.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from datetime import datetime

import sqlalchemy as sa
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from core.models import ApiKey, User, utcnow

KEY_PREFIX = "sk-suikou-"
DISPLAY_PREFIX_LEN = 8
# The user every request acts as while no key exists (keyless mode); `suikou demo` and `suikou ask`
# fill and use this user by default, and `suikou apikey create` maps keys to it by default.
LOCAL_USER = "local"


def hash_api_key(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def _display_prefix(key: str) -> str:
    body = key.removeprefix(KEY_PREFIX)
    return body[:DISPLAY_PREFIX_LEN]


@dataclass(frozen=True)
class ApiKeyInfo:
    """An API key as listed for an operator: never the key itself."""

    id: int
    user_name: str
    prefix: str
    created_at: datetime
    revoked_at: datetime | None

    @property
    def active(self) -> bool:
        return self.revoked_at is None


def get_user(session: Session, name: str) -> User | None:
    return session.exec(select(User).where(col(User.name) == name)).first()


def ensure_user(session: Session, name: str, *, now: datetime | None = None) -> User:
    """The user called ``name``, created if missing (safe against a concurrent creator)."""
    name = name.strip()
    if not name:
        raise ValueError("user name must not be blank")
    user = get_user(session, name)
    if user is not None:
        return user
    dialect = session.get_bind().dialect.name
    if dialect in ("sqlite", "postgresql"):
        insert = sqlite_insert if dialect == "sqlite" else pg_insert
        stmt = (
            insert(User)
            .values(name=name, created_at=now or utcnow())
            .on_conflict_do_nothing(index_elements=["name"])
            .returning(User)
        )
        created = session.scalars(stmt).first()
        if created is not None:
            return created
    else:  # pragma: no cover - only SQLite and PostgreSQL are supported backends
        try:
            with session.begin_nested():
                created = User(name=name, created_at=now or utcnow())
                session.add(created)
            return created
        except IntegrityError:
            pass
    user = get_user(session, name)  # a concurrent creator won
    if user is None:  # pragma: no cover
        raise RuntimeError(f"could not create or find user {name!r}")
    return user


def create_api_key(session: Session, user_name: str, *, now: datetime | None = None) -> str:
    """Create a key for ``user_name`` (creating the user if needed) and return the plaintext.

    The plaintext is shown once; only its hash is stored.
    """
    user = ensure_user(session, user_name, now=now)
    assert user.id is not None
    key = KEY_PREFIX + secrets.token_urlsafe(32)
    session.add(
        ApiKey(
            user_id=user.id,
            key_hash=hash_api_key(key),
            prefix=_display_prefix(key),
            created_at=now or utcnow(),
        )
    )
    session.flush()
    return key


def user_for_api_key(session: Session, key: str) -> User | None:
    """The user a presented key belongs to; unknown, malformed or revoked keys give ``None``."""
    if not key or not key.startswith(KEY_PREFIX):
        return None
    digest = hash_api_key(key)
    row = session.exec(
        select(ApiKey, User)
        .join(User, col(User.id) == col(ApiKey.user_id))
        .where(col(ApiKey.key_hash) == digest, col(ApiKey.revoked_at).is_(None))
    ).first()
    if row is None:
        return None
    api_key, user = row
    if not hmac.compare_digest(api_key.key_hash, digest):  # belt and braces
        return None
    return user


def list_api_keys(session: Session, *, include_revoked: bool = True) -> list[ApiKeyInfo]:
    stmt = select(ApiKey, User).join(User, col(User.id) == col(ApiKey.user_id)).order_by(col(ApiKey.id))
    if not include_revoked:
        stmt = stmt.where(col(ApiKey.revoked_at).is_(None))
    out: list[ApiKeyInfo] = []
    for api_key, user in session.exec(stmt):
        assert api_key.id is not None
        out.append(
            ApiKeyInfo(
                id=api_key.id,
                user_name=user.name,
                prefix=api_key.prefix,
                created_at=api_key.created_at,
                revoked_at=api_key.revoked_at,
            )
        )
    return out


def revoke_api_key(session: Session, prefix_or_id: str | int, *, now: datetime | None = None) -> bool:
    """Revoke the active key with this id or display prefix.

    An ``int`` (or an all-digit string that matches a key id) is taken as an id; otherwise the
    display prefix (the ``sk-suikou-`` part is optional) or the full key. Returns ``False`` when
    nothing active matches or a prefix is ambiguous (matches several active keys).
    """
    active = col(ApiKey.revoked_at).is_(None)
    candidates: list[ApiKey] = []
    if isinstance(prefix_or_id, int) or (isinstance(prefix_or_id, str) and prefix_or_id.isdigit()):
        by_id = session.exec(select(ApiKey).where(col(ApiKey.id) == int(prefix_or_id), active)).first()
        if by_id is not None:
            candidates = [by_id]
    if not candidates and isinstance(prefix_or_id, str):
        text = prefix_or_id.strip()
        if text.startswith(KEY_PREFIX) and len(text) > len(KEY_PREFIX) + DISPLAY_PREFIX_LEN:
            cond = col(ApiKey.key_hash) == hash_api_key(text)  # a full key
        else:
            cond = col(ApiKey.prefix) == _display_prefix(text)
        candidates = list(session.exec(select(ApiKey).where(cond, active)).all())
    if len(candidates) != 1:
        return False
    key = candidates[0]
    key.revoked_at = now or utcnow()
    session.add(key)
    session.flush()
    return True


def keys_configured(session: Session) -> bool:
    """Whether any key was ever created. Revoked keys count: revoking the last key must not turn
    a server back into keyless (anonymous) mode."""
    return session.execute(sa.select(col(ApiKey.id)).limit(1)).first() is not None


__all__ = [
    "KEY_PREFIX",
    "LOCAL_USER",
    "ApiKeyInfo",
    "create_api_key",
    "ensure_user",
    "get_user",
    "hash_api_key",
    "keys_configured",
    "list_api_keys",
    "revoke_api_key",
    "user_for_api_key",
]
