"""Counting a caller's attempts in the cache and refusing it for a while past a limit.

Used where a caller may try something a bounded number of times: wrong API keys per address
(api.auth), password reset requests per address and per e-mail address
(console.views.password_reset). After its `limit`-th attempt in a `window`, a caller is
refused for `block`. Cheap on the path that passes: one cache read (`retry_after`);
counting adds two writes. The end of a block is kept in the value, not left to the cache's
expiry, so it holds on any backend and under a test's travelling clock. The cache is Redis
in production (every web process sees the same counts), the process's memory in embedded
mode. Callers are hashed into the keys: an e-mail address is never a cache key in clear.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from datetime import timedelta

from django.core.cache import cache
from django.utils import timezone

PREFIX = "attempts"


@dataclass(frozen=True)
class AttemptLimit:
    name: str  # part of the cache keys: one name per kind of attempt
    limit: int
    window: timedelta
    block: timedelta

    def retry_after(self, caller: str) -> int:
        """Whole seconds until `caller` may try again; 0 when it may now."""
        until = cache.get(self._key("blocked", caller))
        if until is None:
            return 0
        return max(0, math.ceil(until - timezone.now().timestamp()))

    def record(self, caller: str) -> int:
        """Count one attempt by `caller`; at the limit it is refused for `block`. Returns the
        attempts counted in the current window.

        Windows are fixed slices of time (a count per slice, its key expiring with it), so
        the count never depends on when the cache expires a key: a caller straddling two
        slices gets at most twice the limit before it is refused."""
        now = timezone.now().timestamp()
        window = max(1, int(self.window.total_seconds()))
        key = self._key(f"count:{int(now // window)}", caller)
        cache.add(key, 0, timeout=window)
        try:
            count = cache.incr(key)
        except ValueError:  # the key expired between add and incr
            cache.set(key, 1, timeout=window)
            count = 1
        if count >= self.limit:
            seconds = self.block.total_seconds()
            cache.set(self._key("blocked", caller), now + seconds, timeout=math.ceil(seconds))
            cache.delete(key)  # after the block, counting starts afresh
        return count

    def _key(self, kind: str, caller: str) -> str:
        digest = hashlib.sha256(caller.encode()).hexdigest()[:32]
        return f"{PREFIX}:{self.name}:{kind}:{digest}"
