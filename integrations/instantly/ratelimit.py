"""Instantly's workspace-wide request limits, shared by every process that calls it.

Instantly allows 100 requests a second *and* 6,000 a minute per workspace, counted over
API v1 and v2 and every key together (docs/providers.md §2.5); past either it answers 429. Our
web processes, workers and commands all call with the same key, so the count must live
outside any one process: it uses Dramatiq's configured rate limiter backend (Redis in
production, the stub in embedded mode and tests) through `WindowRateLimiter`, as
hitl.replies does for the AI budget. Nothing here is a distributed limiter of our own.

We stay 10 % under: the workspace may have other callers (Instantly's own integrations, a
person's script) that we cannot count. Only the second is counted: 90 a calendar second is
at most 90 × 61 = 5,490 in any 60 seconds, under the minute's 6,000 (which is the same
rate, 100/s), so a minute window (60 keys summed on every call) would never refuse anything
the second window had granted.

After a 429 every process stops calling until Retry-After has passed (`back_off`), through
the Django cache (Redis in production): retrying at once from 20 workers would only extend
the penalty.
"""

from __future__ import annotations

import hashlib
import math
import time
from collections.abc import Callable

from django.core.cache import cache
from django_dramatiq import apps as django_dramatiq_apps
from dramatiq.rate_limits import WindowRateLimiter

from cerniq.provider_errors import RateLimited

PER_SECOND = 90  # of 100 (docs/providers.md §2.5); implies the 6,000 a minute
DEFAULT_MAX_WAIT = 2.0  # seconds a call may wait for a slot before it raises RateLimited
_POLL = 0.05


def workspace_key(api_key: str) -> str:
    """A name for the workspace's counters that does not reveal the key."""
    return "instantly:" + hashlib.sha256(api_key.encode()).hexdigest()[:16]


class WorkspaceLimiter:
    """One slot per HTTP request: `acquire()` before each call, `back_off()` after a 429."""

    def __init__(
        self,
        key: str,
        *,
        max_wait: float = DEFAULT_MAX_WAIT,
        backend: object | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.key = key
        self.max_wait = max_wait
        self._backend = backend
        self._clock = clock
        self._sleep = sleep

    def _limiter(self) -> WindowRateLimiter:
        backend = (
            self._backend or django_dramatiq_apps.DjangoDramatiqConfig.get_rate_limiter_backend()
        )
        return WindowRateLimiter(backend, f"{self.key}:s", limit=PER_SECOND, window=1)

    def backed_off_for(self) -> int:
        """Seconds left of a back-off ordered by a 429 (0: none)."""
        until = cache.get(f"{self.key}:backoff")
        if until is None:
            return 0
        return max(0, math.ceil(float(until) - time.time()))

    def back_off(self, seconds: int) -> None:
        """Every process stops calling for `seconds` (Instantly answered 429)."""
        seconds = max(1, int(seconds))
        cache.set(f"{self.key}:backoff", time.time() + seconds, timeout=seconds)

    def acquire(self) -> None:
        """Take one request slot, waiting up to `max_wait` seconds; RateLimited otherwise
        (no request was made, so the caller's retry table applies as for a 429)."""
        left = self.backed_off_for()
        if left:
            raise RateLimited(
                f"Instantly rate limit: backing off for {left} s after a 429", retry_after=left
            )
        per_second = self._limiter()
        deadline = self._clock() + self.max_wait
        while True:
            with per_second.acquire(raise_on_failure=False) as granted:
                if granted:
                    return
            if self._clock() + _POLL > deadline:
                raise RateLimited(
                    f"Instantly rate limit: no request slot within {self.max_wait:g} s "
                    f"({PER_SECOND}/s shared by the workspace)",
                    retry_after=1,
                )
            self._sleep(_POLL)
