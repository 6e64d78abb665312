"""The token bucket behind the per-key rate limit, on a clock the test moves by hand."""

from __future__ import annotations

import pytest

from arena.v1 import agent_service_pb2 as pb
from arena_server import limits
from arena_server.limits import RateLimiter


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_burst_then_the_rate_with_the_wait_until_the_next_token():
    clock = Clock()
    limiter = RateLimiter(rate=2.0, burst=3, clock=clock)
    assert [limiter.acquire("k") for _ in range(3)] == [0.0, 0.0, 0.0]
    assert limiter.acquire("k") == pytest.approx(0.5, abs=0.001)      # rounded up to the millisecond
    clock.now += 0.25
    assert limiter.acquire("k") == pytest.approx(0.25, abs=0.001)     # a refused call takes nothing
    clock.now += 0.25
    assert limiter.acquire("k") == 0.0
    clock.now += 60
    assert [limiter.acquire("k") for _ in range(4)][-1] == pytest.approx(0.5, abs=0.001)   # saves at most the burst
    assert limiter.acquire("another key") == 0.0


def test_waiting_the_quoted_time_always_suffices():
    clock = Clock()
    limiter = RateLimiter(rate=3.0, burst=1, clock=clock)
    for _ in range(200):
        limiter.acquire("k")
        wait = limiter.acquire("k")
        assert wait > 0
        clock.now += wait
        assert limiter.acquire("k") == 0.0
        clock.now += 0.0137


def test_a_rate_of_zero_limits_nothing_and_bad_settings_are_refused():
    limiter = RateLimiter(rate=0, burst=0)
    assert not limiter.enabled
    assert all(limiter.acquire("k") == 0.0 for _ in range(10_000))
    assert limiter.refuse_message("k", pb.ConnectRequest(heartbeat=pb.Heartbeat())) is None
    with pytest.raises(ValueError):
        RateLimiter(rate=-1, burst=5)
    with pytest.raises(ValueError):
        RateLimiter(rate=5, burst=0.5)


def test_a_refused_stream_message_is_answered_with_rate_limited_naming_the_decision():
    clock = Clock()
    limiter = RateLimiter(rate=1.0, burst=1, clock=clock)
    decision = pb.ConnectRequest(decision=pb.Decision(match_id="m_1", decision_id=7, action_id=0))
    assert limiter.refuse_message("k", decision) is None
    error = limiter.refuse_message("k", decision)
    assert error.code == pb.ERROR_CODE_RATE_LIMITED
    assert (error.match_id, error.decision_id) == ("m_1", 7)
    assert "retry after 1.000 s" in error.message
    assert limiter.refuse_message(None, decision) is None       # no key: the call was refused already


def test_idle_keys_are_forgotten_once_many_are_tracked(monkeypatch):
    monkeypatch.setattr(limits, "MAX_TRACKED_KEYS", 10)
    clock = Clock()
    limiter = RateLimiter(rate=1.0, burst=2, clock=clock)
    for i in range(10):
        limiter.acquire(f"key{i}")
    limiter.acquire("busy")         # over the bound, but every bucket is still refilling
    assert len(limiter._buckets) == 11
    clock.now += 5                  # everything refilled: forgetting changes nothing
    limiter.acquire("newcomer")
    assert set(limiter._buckets) == {"newcomer"}
