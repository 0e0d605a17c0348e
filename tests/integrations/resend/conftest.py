"""Resend registered and configured for these tests (until settings.INTEGRATIONS lists it
the override adds it), with a test signing secret; the shared rate-limit state empty."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest
from django.core.cache import cache

from cerniq.providers import get_backend
from integrations.resend import errors
from integrations.resend.receiver import sign
from outreach.models import Channel, Lead, Message
from tests.factories import make_lead, make_message

PACKAGE = Path(__file__).resolve().parents[3] / "integrations" / "resend"
API_FIXTURES = PACKAGE / "fixtures" / "api"
WEBHOOK_FIXTURES = PACKAGE / "fixtures" / "webhooks"
SECRET = "whsec_" + base64.b64encode(b"resend-test-signing-key-32bytes!").decode()
API_KEY = "re_test_123456789"
SENDER = "Cerniq Agro <oferte@agrofirma.ro>"
EMAIL_ID = "56761188-7520-42d8-8898-ff6fc54ce618"  # the fixtures' email
ADDRESS = "office@fermaverde.ro"


def api_fixture(name: str) -> dict:
    return json.loads((API_FIXTURES / f"{name}.json").read_text())


def webhook_fixture(name: str) -> dict:
    return json.loads((WEBHOOK_FIXTURES / f"{name}.json").read_text())


@pytest.fixture(autouse=True)
def resend(settings):
    """The real client behind `email.resend`, and the receiver at /webhooks/resend/."""
    if "integrations.resend" not in settings.INTEGRATIONS:
        settings.INTEGRATIONS = [*settings.INTEGRATIONS, "integrations.resend"]
    settings.PROVIDERS = {
        **settings.PROVIDERS,
        "email.resend": {
            "BACKEND": "integrations.resend.client.ResendEmail",
            "OPTIONS": {
                "api_key": API_KEY,
                "base_url": "https://api.resend.com",
                "from_address": SENDER,
                "webhook_secret": SECRET,
                "max_per_second": "100",
            },
        },
    }
    cache.delete_many([errors.LIMIT_KEY, errors.PAUSE_KEY])
    yield get_backend("email.resend")
    cache.delete_many([errors.LIMIT_KEY, errors.PAUSE_KEY])


def post_webhook(client, tenant, body: dict | bytes, *, msg_id="msg_2mYt0Q1Y8f3pKq", **sign_kw):
    raw = body if isinstance(body, bytes) else json.dumps(body).encode()
    headers = sign(raw, sign_kw.pop("secret", SECRET), msg_id=msg_id, **sign_kw)
    return client.post(
        f"/webhooks/resend/{tenant.webhook_token}/",
        raw,
        content_type="application/json",
        headers=headers,
    )


@pytest.fixture
def sent_email(tenant):
    """A warm email we sent to the fixtures' address, SENT with the fixtures' email id."""
    lead = make_lead(tenant, email=ADDRESS, email_status=Lead.EmailStatus.VALID)
    return make_message(
        lead,
        channel=Channel.EMAIL_WARM,
        status=Message.Status.SENT,
        counterpart=ADDRESS,
        subject="Oferta de semințe pentru toamnă",
        provider_message_id=EMAIL_ID,
    )


def tagged(body: dict, tenant) -> dict:
    """The fixture as Resend sends it for `tenant`'s email (our tenant tag)."""
    body["data"]["tags"] = {**body["data"].get("tags", {}), "tenant_id": str(tenant.pk)}
    return body
