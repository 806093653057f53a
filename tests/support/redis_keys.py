"""The test Redis (127.0.0.1:6379, started by the machine and by .ci/run) and a key prefix per test."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator

import pytest

from support.harness import in_ci

REDIS_URL = os.environ.get("SUIKOU_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")


@pytest.fixture
def redis_prefix() -> Iterator[str]:
    """A unique key prefix on the test Redis, deleted afterwards; skips without Redis (fails under CI)."""
    import redis

    client = redis.Redis.from_url(REDIS_URL, socket_connect_timeout=1)
    try:
        client.ping()
    except redis.RedisError as exc:  # pragma: no cover - environment dependent
        if in_ci():
            pytest.fail(f"Redis unreachable under CI=true: {exc}")
        pytest.skip(f"Redis unreachable: {exc}")
    prefix = f"suikou-test-{uuid.uuid4().hex[:10]}:"
    try:
        yield prefix
    finally:
        keys = list(client.scan_iter(match=prefix + "*"))
        if keys:
            client.delete(*keys)
        client.close()
