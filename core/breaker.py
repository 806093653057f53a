"""A circuit breaker per provider endpoint (docs/fdr/0028-provider-budgets.md).

A provider that keeps failing (errors, timeouts, unusable output) costs every turn its whole
budget. After `failures` failures within `window_s` seconds the breaker for that endpoint opens:
nodes answer with their rules, sending nothing, for `cooldown_s`. Then one trial request is let
through (half-open): a success closes the breaker, a failure opens it again. The clock is
injectable so tests need no sleeps.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

State = Literal["closed", "open", "half-open"]


@dataclass
class _Endpoint:
    failures: deque[float] = field(default_factory=deque)
    opened_at: float | None = None
    trial_at: float | None = None  # when the half-open trial went out (None: no trial in flight)


@dataclass
class Breakers:
    """One breaker per key (a provider endpoint and model). `failures` <= 0 turns them all off."""

    failures: int = 3
    window_s: float = 60.0
    cooldown_s: float = 30.0
    clock: Callable[[], float] = time.monotonic
    skipped: dict[str, int] = field(default_factory=dict)  # calls not sent, by key (for /metrics)
    _endpoints: dict[str, _Endpoint] = field(default_factory=dict, repr=False)

    def state(self, key: str) -> State:
        ep = self._endpoints.get(key)
        if ep is None or ep.opened_at is None:
            return "closed"
        return "open" if self.clock() - ep.opened_at < self.cooldown_s else "half-open"

    def allow(self, key: str) -> bool:
        """May a request go to `key` now? In half-open, only one trial at a time (a trial that never
        reported back is given up after a cool-down, so a cancelled request cannot wedge it)."""
        state = self.state(key)
        if state == "closed":
            return True
        ep = self._endpoints[key]
        now = self.clock()
        if state == "half-open" and (ep.trial_at is None or now - ep.trial_at >= self.cooldown_s):
            ep.trial_at = now
            return True
        self.skipped[key] = self.skipped.get(key, 0) + 1
        return False

    def success(self, key: str) -> None:
        self._endpoints.pop(key, None)

    def failure(self, key: str) -> None:
        if self.failures <= 0:
            return
        ep = self._endpoints.setdefault(key, _Endpoint())
        now = self.clock()
        if ep.opened_at is not None:  # the half-open trial failed (or a straggler did): open again
            ep.opened_at, ep.trial_at = now, None
            return
        ep.failures.append(now)
        while ep.failures and now - ep.failures[0] > self.window_s:
            ep.failures.popleft()
        if len(ep.failures) >= self.failures:
            ep.failures.clear()
            ep.opened_at = now

    def open_count(self) -> int:
        """Breakers not closed now (open or waiting for their trial)."""
        return sum(1 for key in self._endpoints if self.state(key) != "closed")
