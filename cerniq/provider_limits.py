"""A provider's request budget shared by every process that calls it: so many requests a
second per workspace (Dramatiq's rate limiter backend: Redis in production, the stub in
embedded mode and tests, through `WindowRateLimiter`), and after a 429 every process waits
until Retry-After has passed (the Django cache). Each integration names its budget
(Instantly's workspace limits, TimelinesAI's history fetches)."""

from __future__ import annotations

import math
import time
from collections.abc import Callable

from django.core.cache import cache
from django_dramatiq import apps as django_dramatiq_apps
from dramatiq.rate_limits import WindowRateLimiter

from cerniq.provider_errors import RateLimited

_POLL = 0.05


class SharedRequestLimiter:
    """One slot per HTTP request: `acquire()` before each call, `back_off()` after a 429.
    Raises `RateLimited` (no request made) when no slot frees within `max_wait`, so the
    caller's retry table applies as for a 429."""

    def __init__(
        self,
        key: str,
        *,
        per_second: int,
        max_wait: float,
        label: str,
        budget: str,
        backend: object | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.key = key
        self.per_second = per_second
        self.max_wait = max_wait
        self._label = label  # "Instantly rate limit": how errors begin
        self._budget = budget  # "90/s shared by the workspace": what the wait was for
        self._backend = backend
        self._clock = clock
        self._sleep = sleep

    def _limiter(self) -> WindowRateLimiter:
        backend = (
            self._backend or django_dramatiq_apps.DjangoDramatiqConfig.get_rate_limiter_backend()
        )
        return WindowRateLimiter(backend, f"{self.key}:s", limit=self.per_second, window=1)

    def backed_off_for(self) -> int:
        """Seconds left of a back-off ordered by a 429 (0: none)."""
        until = cache.get(f"{self.key}:backoff")
        return max(0, math.ceil(float(until) - time.time())) if until is not None else 0

    def back_off(self, seconds: int) -> None:
        """Every process stops calling for `seconds` (the provider answered 429)."""
        seconds = max(1, int(seconds))
        cache.set(f"{self.key}:backoff", time.time() + seconds, timeout=seconds)

    def acquire(self) -> None:
        """Take one request slot, waiting up to `max_wait` seconds; RateLimited otherwise."""
        left = self.backed_off_for()
        if left:
            raise RateLimited(
                f"{self._label}: backing off for {left} s after a 429", retry_after=left
            )
        per_second = self._limiter()
        deadline = self._clock() + self.max_wait
        while True:
            with per_second.acquire(raise_on_failure=False) as granted:
                if granted:
                    return
            if self._clock() + _POLL > deadline:
                raise RateLimited(
                    f"{self._label}: no request slot within {self.max_wait:g} s ({self._budget})",
                    retry_after=1,
                )
            self._sleep(_POLL)
