"""Shared helpers of the Meta tests: recorded answers, a configured Cloud API backend, a
Cloud API phone, and posting a webhook the way Meta would (signed with the app secret)."""

from __future__ import annotations

import hashlib
import hmac
import json
from pathlib import Path

import pytest

from integrations import meta
from tests.factories import make_phone

PACKAGE = Path(meta.__file__).parent
API = PACKAGE / "fixtures" / "api"
WEBHOOKS = PACKAGE / "fixtures" / "webhooks"
GRAPH = "https://graph.facebook.com/v23.0"
NUMBER_ID = "106540352242922"  # the fixtures' phone_number_id
APP_SECRET = "test-app-secret-9f1c"
VERIFY_TOKEN = "verify-me-7731"
TOKEN = "EAAG-test-access-token"
PAGE_TOKEN = "EAAG-page-token"


def api_body(name: str) -> dict:
    return json.loads((API / f"{name}.json").read_text(encoding="utf-8"))


def webhook_raw(name: str) -> bytes:
    return (WEBHOOKS / f"{name}.json").read_bytes()


def signature(raw: bytes, secret: str = APP_SECRET) -> str:
    return "sha256=" + hmac.new(secret.encode(), raw, hashlib.sha256).hexdigest()


@pytest.fixture(autouse=True)
def meta_configured(settings):
    settings.PROVIDERS = {
        **settings.PROVIDERS,
        "whatsapp.meta": {
            "BACKEND": "integrations.meta.cloud.CloudAPI",
            "OPTIONS": {
                "access_token": TOKEN,
                "waba_id": "102290129340398",
                "api_version": "v23.0",
                "base_url": "https://graph.facebook.com",
                "app_secret": APP_SECRET,
                "verify_token": VERIFY_TOKEN,
                "page_tokens": f"153125381133={PAGE_TOKEN}",
            },
        },
    }


@pytest.fixture
def cloud_phone(tenant):
    return make_phone(tenant, provider="meta", number="+40740000201", account_id=NUMBER_ID)


def post(client, tenant, raw: bytes, *, sig: str | None = None, token: str | None = None):
    headers = {} if sig == "" else {"X-Hub-Signature-256": sig or signature(raw)}
    return client.post(
        f"/webhooks/meta/{token or tenant.webhook_token}/",
        raw,
        content_type="application/json",
        headers=headers,
    )
