"""core.breaker: a provider that keeps failing is skipped for a cool-down, then tried once."""

from __future__ import annotations

from core.breaker import Breakers

KEY = "openai-compatible:m@http://127.0.0.1:1/v1"


class Clock:
    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def test_three_failures_in_the_window_open_it_for_the_cool_down() -> None:
    clock = Clock()
    breakers = Breakers(3, 60, 30, clock)
    for _ in range(2):
        breakers.failure(KEY)
        assert breakers.allow(KEY)
    breakers.failure(KEY)
    assert breakers.state(KEY) == "open"
    assert not breakers.allow(KEY) and not breakers.allow(KEY)
    assert breakers.skipped == {KEY: 2}
    assert breakers.open_count() == 1
    assert breakers.allow("another:model@x")  # one breaker per endpoint


def test_failures_spread_wider_than_the_window_do_not_open_it() -> None:
    clock = Clock()
    breakers = Breakers(3, 60, 30, clock)
    for _ in range(5):
        breakers.failure(KEY)
        clock.now += 31  # two failures at most within any 60 s
    assert breakers.state(KEY) == "closed"
    assert breakers.allow(KEY)


def test_after_the_cool_down_one_trial_goes_out_and_its_outcome_decides() -> None:
    clock = Clock()
    breakers = Breakers(3, 60, 30, clock)
    for _ in range(3):
        breakers.failure(KEY)
    clock.now += 30
    assert breakers.state(KEY) == "half-open"
    assert breakers.allow(KEY)  # the trial
    assert not breakers.allow(KEY)  # only one at a time
    breakers.failure(KEY)  # the trial failed: open again, for a whole cool-down
    assert breakers.state(KEY) == "open"
    clock.now += 29
    assert not breakers.allow(KEY)
    clock.now += 1
    assert breakers.allow(KEY)
    breakers.success(KEY)  # the trial answered: closed, failures forgotten
    assert breakers.state(KEY) == "closed" and breakers.open_count() == 0
    breakers.failure(KEY)
    assert breakers.allow(KEY)


def test_a_trial_that_never_reports_back_is_given_up_after_a_cool_down() -> None:
    clock = Clock()
    breakers = Breakers(1, 60, 30, clock)
    breakers.failure(KEY)
    clock.now += 30
    assert breakers.allow(KEY)  # a trial that was cancelled, say: no success, no failure
    clock.now += 29
    assert not breakers.allow(KEY)
    clock.now += 1
    assert breakers.allow(KEY)


def test_zero_failures_turns_breakers_off() -> None:
    breakers = Breakers(0, 60, 30, Clock())
    for _ in range(10):
        breakers.failure(KEY)
    assert breakers.allow(KEY) and breakers.open_count() == 0
