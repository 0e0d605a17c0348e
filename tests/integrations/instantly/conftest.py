"""Shared helpers of the Instantly tests: recorded fixtures, a client of its own, posting a
webhook the way Instantly would (URL token + `x-webhook-secret` header)."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest
import responses

from integrations.instantly import config
from integrations.instantly.client import InstantlyClient
from integrations.instantly.ratelimit import WorkspaceLimiter, workspace_key

PACKAGE = Path(config.__file__).parent
API_FIXTURES = PACKAGE / "fixtures" / "api"
WEBHOOK_FIXTURES = PACKAGE / "fixtures" / "webhooks"
BASE = "https://api.instantly.ai"
CAMPAIGN_ID = "019ffad2-9c4e-7be6-8364-ed444afb02d5"
LEAD_EMAIL = "ion.popescu@agroferma-example.ro"


def api_body(name: str):
    return json.loads((API_FIXTURES / f"{name}.json").read_text(encoding="utf-8"))


def webhook_body(name: str) -> dict:
    return json.loads((WEBHOOK_FIXTURES / f"{name}.json").read_text(encoding="utf-8"))


def webhook_raw(name: str) -> bytes:
    return (WEBHOOK_FIXTURES / f"{name}.json").read_bytes()


def post_webhook(client, tenant, raw: bytes | dict, *, secret: str | None = None, token=None):
    """POST as Instantly: the tenant's URL token and its `x-webhook-secret` (or `secret`;
    "" sends no header at all)."""
    if isinstance(raw, dict):
        raw = json.dumps(raw, ensure_ascii=False).encode()
    value = config.webhook_secret(tenant.webhook_token) if secret is None else secret
    headers = {config.HEADER: value} if value else {}
    return client.post(
        f"/webhooks/instantly/{token or tenant.webhook_token}/",
        raw,
        content_type="application/json",
        headers=headers,
    )


@pytest.fixture
def api_key():
    """A key of its own per test: the rate-limit counters and back-off (Redis) are keyed by
    it, so tests never share them."""
    return f"test-key-{uuid.uuid4()}"


@pytest.fixture
def instantly(api_key):
    limiter = WorkspaceLimiter(workspace_key(api_key), max_wait=0.2)
    return InstantlyClient(api_key=api_key, limiter=limiter)


@pytest.fixture
def rsps():
    with responses.RequestsMock(assert_all_requests_are_fired=False) as mock:
        yield mock


@pytest.fixture
def registered(settings):
    """Instantly in settings.INTEGRATIONS (a no-op once settings.py lists it)."""
    if "integrations.instantly" not in settings.INTEGRATIONS:
        settings.INTEGRATIONS = [*settings.INTEGRATIONS, "integrations.instantly"]
    return settings
