"""The retry table (docs/design.md), in one function: what to do after a provider call failed.

| failure                  | decision                                    |
| network timeout / 5xx    | retry 3 times, exponential (15 s, 30 s, 60 s) |
| 429 rate limited         | retry 5 times, fixed (Retry-After or 60 s)  |
| provider quota exceeded  | retry at the next day's window (caller)      |
| recipient limited        | retry once, after 24 hours at least          |
| other 4xx, banned, auth  | no retry: dead letter (caller alerts)        |
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from cerniq.provider_errors import (
    PermanentProviderError,
    ProviderError,
    ProviderTimeout,
    QuotaExceeded,
    RateLimited,
    RecipientLimited,
)

BACKOFF_BASE = timedelta(seconds=15)
MAX_RETRIES_TRANSIENT = 3
MAX_RETRIES_RATE_LIMITED = 5
RATE_LIMIT_DELAY = timedelta(seconds=60)
MAX_RETRIES_RECIPIENT_LIMITED = 1
RECIPIENT_LIMIT_DELAY = timedelta(hours=24)


@dataclass(frozen=True)
class Decision:
    retry_in: timedelta | None
    reason: str
    next_day: bool = False

    @property
    def give_up(self) -> bool:
        return self.retry_in is None and not self.next_day


def error_class(error: ProviderError) -> str:
    """The row of the table an error belongs to: each row counts its own retries."""
    if isinstance(error, PermanentProviderError):
        return "permanent"
    if isinstance(error, QuotaExceeded):
        return "quota"
    if isinstance(error, RecipientLimited):
        return "recipient_limited"
    if isinstance(error, RateLimited):
        return "rate_limited"
    if isinstance(error, ProviderTimeout):
        return "timeout"
    return "unavailable"  # 5xx, refused or dropped connections


def decide(error: ProviderError, attempts: int) -> Decision:
    """`attempts` counts the failures of this error's class so far, this one included
    (`error_class`): five 429s allow five more tries whatever timeouts came before."""
    retries_done = attempts - 1
    name = type(error).__name__
    if isinstance(error, PermanentProviderError):
        return Decision(None, f"{name}: not retried")
    if isinstance(error, QuotaExceeded):
        return Decision(None, f"{name}: retry in the next day's window", next_day=True)
    if isinstance(error, RecipientLimited):
        if retries_done >= MAX_RETRIES_RECIPIENT_LIMITED:
            return Decision(None, f"{name}: gave up after {retries_done} retry")
        asked = timedelta(seconds=error.retry_after or 0)
        return Decision(max(asked, RECIPIENT_LIMIT_DELAY), f"{name}: retry once, after 24 h")
    if isinstance(error, RateLimited):
        if retries_done >= MAX_RETRIES_RATE_LIMITED:
            return Decision(None, f"{name}: gave up after {retries_done} retries")
        delay = timedelta(seconds=error.retry_after) if error.retry_after else RATE_LIMIT_DELAY
        return Decision(delay, f"{name}: retry {retries_done + 1}/{MAX_RETRIES_RATE_LIMITED}")
    if retries_done >= MAX_RETRIES_TRANSIENT:
        return Decision(None, f"{name}: gave up after {retries_done} retries")
    delay = BACKOFF_BASE * (2**retries_done)
    return Decision(delay, f"{name}: retry {retries_done + 1}/{MAX_RETRIES_TRANSIENT}")
