"""Who a key belongs to, remembered for a few seconds: a request then costs no database work for auth.

The cost is a bounded delay: a revoked key keeps working, and a server that just left keyless mode
keeps serving anonymous requests, for at most `ttl_s` (SUIKOU_AUTH_CACHE_SECONDS, default 5; 0
turns the cache off). Only successful lookups are remembered, under the key's hash, never the key.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from core.accounts import hash_api_key
from core.models import User


@dataclass
class KeyCache:
    ttl_s: float = 5.0
    max_entries: int = 1024
    clock: Callable[[], float] = time.monotonic
    _entries: dict[str, tuple[float, User]] = field(default_factory=dict, repr=False)

    def get(self, key: str) -> User | None:
        digest = _digest(key)
        hit = self._entries.get(digest)
        if hit is None:
            return None
        expires, user = hit
        if expires <= self.clock():
            self._entries.pop(digest, None)
            return None
        return user

    def put(self, key: str, user: User) -> None:
        if self.ttl_s <= 0:
            return
        if len(self._entries) >= self.max_entries:
            self._entries.pop(next(iter(self._entries)), None)  # the oldest
        self._entries[_digest(key)] = (self.clock() + self.ttl_s, user)


def _digest(key: str) -> str:
    return hash_api_key(key) if key else ""
