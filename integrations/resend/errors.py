"""Resend's answers → `cerniq.provider_errors`, and what its rate-limit headers tell us.

Error body `{"statusCode", "message", "name"}`; the table of docs/providers.md §3.2, row by row:

| HTTP | name                                              | raised                              |
| 400  | validation_error, invalid_idempotency_key         | RejectedRequest                     |
| 401  | missing_api_key, restricted_api_key               | AuthenticationFailed                |
| 403  | invalid_api_key; validation_error (unverified     | AuthenticationFailed: the account's |
|      | domain, testing-only key)                         | setup fails every send alike, and   |
|      |                                                   | this class alerts an operator       |
| 403  | a non-JSON page (Cloudflare "error 1010")         | ProviderUnavailable (a WAF block)   |
| 404, 405 | not_found, method_not_allowed                 | RejectedRequest (our bug)           |
| 409  | concurrent_idempotent_requests                    | ProviderUnavailable, uncertain,     |
|      |                                                   | retry_after 1: the first is running |
| 409  | invalid_idempotent_request                        | AlreadyAccepted: Resend holds an    |
|      |                                                   | earlier request under this key, so  |
|      |                                                   | that attempt reached it; the send   |
|      |                                                   | path records the email as sent      |
| 422  | invalid_attachment, invalid_from_address, …       | RejectedRequest; InvalidRecipient   |
|      |                                                   | when the message is about `to`      |
| 429  | rate_limit_exceeded                               | RateLimited(retry_after)            |
| 429  | daily_quota_exceeded, monthly_quota_exceeded      | QuotaExceeded(retry_after)          |
| 451  | security_error                                    | RejectedRequest (contact support)   |
| 5xx  | application_error, internal_server_error, gateway | ProviderUnavailable, uncertain      |
|      |                                                   | (503: the request was not taken)    |

Rate-limit state is kept in Django's cache (Redis in production, so every worker sees it):
Resend's `ratelimit-limit` (requests per second for the team) for an hour, and "pause until"
when `ratelimit-remaining` reached 0 (for `ratelimit-reset` seconds) or after a 429 (for
`retry-after`).
"""

from __future__ import annotations

import math
import time
from datetime import UTC, datetime, timedelta
from typing import Any

from django.core.cache import cache

from cerniq.logging import mask_pii
from cerniq.provider_errors import (
    AlreadyAccepted,
    AuthenticationFailed,
    ErrorDetails,
    InvalidRecipient,
    ProviderError,
    ProviderUnavailable,
    QuotaExceeded,
    RateLimited,
)
from cerniq.provider_http import Answer, ProviderHTTP, retry_after_seconds

LIMIT_KEY = "resend:ratelimit-limit"
PAUSE_KEY = "resend:paused-until"
LIMIT_TTL = 3600  # seconds a learnt ratelimit-limit is trusted
DEFAULT_RETRY_AFTER = 1  # seconds, for a 429 without retry-after: Resend's window is 1 s
MAX_PAUSE = 24 * 3600
_EXCERPT = 200


# --- rate-limit headers -------------------------------------------------------------------


def _seconds(value: Any) -> int | None:
    text = str(value or "").strip()
    return int(text) if text.isdigit() and len(text) <= 9 else None


def remember_limits(headers: Any) -> None:
    """Note what Resend announced (`ratelimit-limit`, `ratelimit-remaining`,
    `ratelimit-reset`) for every process's next send."""
    limit = _seconds(headers.get("ratelimit-limit"))
    if limit:
        cache.set(LIMIT_KEY, limit, LIMIT_TTL)
    remaining = _seconds(headers.get("ratelimit-remaining"))
    reset = _seconds(headers.get("ratelimit-reset"))
    if remaining == 0 and reset:
        pause(reset)


def pause(seconds: int) -> None:
    seconds = max(1, min(seconds, MAX_PAUSE))
    cache.set(PAUSE_KEY, time.time() + seconds, seconds + 1)


def announced_limit() -> int | None:
    value = cache.get(LIMIT_KEY)
    return value if isinstance(value, int) and value > 0 else None


def paused_for() -> int:
    """Seconds left before Resend wants to hear from us again (0: go ahead)."""
    until = cache.get(PAUSE_KEY)
    if not isinstance(until, int | float):
        return 0
    return max(0, math.ceil(until - time.time()))


def retry_after(headers: Any, default: int = DEFAULT_RETRY_AFTER) -> int:
    """`retry-after` (seconds or an HTTP date), else `ratelimit-reset`, else `default`."""
    reset = _seconds(headers.get("ratelimit-reset"))
    return retry_after_seconds(headers, reset if reset is not None else default)


def _until_next_utc_day() -> int:
    now = datetime.now(UTC)
    tomorrow = (now + timedelta(days=1)).replace(hour=0, minute=0, second=0, microsecond=0)
    return max(1, math.ceil((tomorrow - now).total_seconds()))


# --- errors -------------------------------------------------------------------------------


def classify(http: ProviderHTTP, answer: Answer) -> ProviderError:
    """The error for a non-2xx answer (or a 2xx that is not a JSON object): Resend's own
    rows, then the ones every provider shares (cerniq.provider_http)."""
    status = answer.status
    payload = answer.payload
    if payload is None:
        return _not_json(http, answer)
    name = str(payload.get("name") or "")
    message = str(payload.get("message") or payload.get("error") or "")
    text = f"Resend {answer.where}: HTTP {status} {name or '(no name)'}: "
    text += mask_pii(message)[:_EXCERPT]
    common: ErrorDetails = {"status_code": status, "provider_message": message, "error_code": name}

    if name in ("daily_quota_exceeded", "monthly_quota_exceeded"):
        # The daily quota comes back at midnight UTC; the monthly one needs a bigger plan,
        # so its retries come a day apart while an operator sees the dead letters.
        default = _until_next_utc_day() if name == "daily_quota_exceeded" else 86_400
        return QuotaExceeded(text, retry_after=retry_after(answer.headers, default), **common)
    if status == 429 or name == "rate_limit_exceeded":
        wait = retry_after(answer.headers)
        pause(wait)  # every process waits, not only the one that was told
        return RateLimited(text, retry_after=wait, **common)
    if name == "concurrent_idempotent_requests":
        # The first request with this key is still being handled: it may send. Asking
        # again soon with the same key returns its answer.
        return ProviderUnavailable(text, retry_after=1, uncertain=True, **common)
    if name == "invalid_idempotent_request":
        # Our keys name one message, and every attempt of a message sends the request that
        # was rendered for it once (outreach.transports): a request Resend already holds
        # under the key is an earlier attempt of this email, which it took. Looking it up
        # is not possible (no look-up by key), and failing it would dead-letter a sent email.
        return AlreadyAccepted(text + " (an earlier attempt holds this key)", **common)
    if name in ("missing_api_key", "restricted_api_key", "invalid_api_key"):
        return AuthenticationFailed(text, **common)
    if name in ("application_error", "internal_server_error") and status < 500:
        return ProviderUnavailable(text, uncertain=answer.sends, **common)
    if status == 422 and "`to`" in message:
        return InvalidRecipient(text, **common)
    return http.error(answer, message=message, code=name)


def _not_json(http: ProviderHTTP, answer: Answer) -> ProviderError:
    kind = answer.headers.get("Content-Type", "no content type")
    note = f"a non-JSON body ({kind})"
    if answer.status == 429:
        wait = retry_after(answer.headers)
        pause(wait)
        return http.error(answer, note=note, retry_after=wait)
    if answer.status == 403:  # the API's own 403s are JSON: this is the WAF in front of it
        return ProviderUnavailable(
            f"Resend {answer.where}: HTTP 403 with {note}: {answer.excerpt()!r}"
            " (blocked before the API: User-Agent?)",
            status_code=403,
            provider_message=answer.excerpt(),
        )
    return http.error(answer, note=note)
