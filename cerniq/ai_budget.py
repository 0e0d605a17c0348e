"""A workspace's budget of AI requests: at most AI_REQUESTS_PER_MINUTE calls to the AI
model a minute per tenant, whatever asks (reply triage, brochure drafting), counted in one
window per tenant by Dramatiq's rate limiter (Redis in production, the stub in tests).

Past the budget the caller answers without the model (its offline rules); nothing here
waits or retries.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from django_dramatiq import apps as django_dramatiq_apps
from dramatiq.rate_limits import WindowRateLimiter

AI_REQUESTS_PER_MINUTE = 60
AI_LIMIT_KEY = "ai-triage-{tenant_id}"


@contextmanager
def ai_request(
    tenant_id: int, *, limit: int | None = None, key: str | None = None
) -> Iterator[bool]:
    """True inside when the tenant may make one more AI request now (it is counted),
    False past the budget. `limit` and `key` default to this module's values."""
    limiter = WindowRateLimiter(
        django_dramatiq_apps.RATE_LIMITER_BACKEND,
        (key or AI_LIMIT_KEY).format(tenant_id=tenant_id),
        limit=limit or AI_REQUESTS_PER_MINUTE,
        window=60,
    )
    with limiter.acquire(raise_on_failure=False) as acquired:
        yield acquired
