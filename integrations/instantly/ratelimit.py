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
import time
from collections.abc import Callable

from cerniq.provider_limits import SharedRequestLimiter

PER_SECOND = 90  # of 100 (docs/providers.md §2.5); implies the 6,000 a minute
DEFAULT_MAX_WAIT = 2.0  # seconds a call may wait for a slot before it raises RateLimited


def workspace_key(api_key: str) -> str:
    """A name for the workspace's counters that does not reveal the key."""
    return "instantly:" + hashlib.sha256(api_key.encode()).hexdigest()[:16]


class WorkspaceLimiter(SharedRequestLimiter):
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
        super().__init__(
            key,
            per_second=PER_SECOND,
            max_wait=max_wait,
            label="Instantly rate limit",
            budget=f"{PER_SECOND}/s shared by the workspace",
            backend=backend,
            clock=clock,
            sleep=sleep,
        )
