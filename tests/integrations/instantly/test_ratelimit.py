"""The shared workspace limit: at most 90 requests a second from all our processes together,
counted in Dramatiq's rate limiter backend (which also keeps us under 6,000 a minute), and
the back-off every process honours after a 429."""

from __future__ import annotations

import uuid

import pytest
from dramatiq.rate_limits.backends import StubBackend

from cerniq.provider_errors import RateLimited
from integrations.instantly.ratelimit import PER_SECOND, WorkspaceLimiter

FROZEN = 1_000_000.0


class FrozenClock:
    def __init__(self):
        self.now = 0.0
        self.slept = 0.0

    def __call__(self):
        return self.now

    def sleep(self, seconds):
        self.now += seconds
        self.slept += seconds


def limiters(count: int, backend, **kw):
    key = f"test:{uuid.uuid4()}"
    clock = FrozenClock()
    made = [
        WorkspaceLimiter(key, backend=backend, clock=clock, sleep=clock.sleep, **kw)
        for _ in range(count)
    ]
    return made, clock


def test_it_grants_90_a_second_then_refuses_after_waiting_at_most_max_wait(monkeypatch):
    monkeypatch.setattr("time.time", lambda: FROZEN)  # one window second throughout
    (made,), clock = limiters(1, StubBackend(), max_wait=0.2)
    for _ in range(PER_SECOND):
        made.acquire()
    with pytest.raises(RateLimited) as refused:
        made.acquire()
    assert refused.value.retry_after == 1 and refused.value.status_code is None
    assert 0 < clock.slept <= 0.25


def test_processes_with_the_same_workspace_share_the_count(monkeypatch):
    monkeypatch.setattr("time.time", lambda: FROZEN)
    first, second = limiters(2, StubBackend(), max_wait=0)[0]
    for _ in range(PER_SECOND // 2):
        first.acquire()
        second.acquire()
    with pytest.raises(RateLimited):
        second.acquire()


def test_the_next_second_grants_again(monkeypatch):
    now = [FROZEN]
    monkeypatch.setattr("time.time", lambda: now[0])
    (made,), _ = limiters(1, StubBackend(), max_wait=0)
    for _ in range(PER_SECOND):
        made.acquire()
    now[0] += 1
    made.acquire()


def test_back_off_refuses_at_once_until_it_expires():
    (made,), clock = limiters(1, StubBackend())
    made.back_off(30)
    with pytest.raises(RateLimited) as refused:
        made.acquire()
    assert 29 <= refused.value.retry_after <= 30 and clock.slept == 0
