"""The Instantly door: per-tenant secret header, strict schema, ignored labels, dedupe.

Deliveries go through the real intake (`/webhooks/instantly/<token>/`) with the recorded
fixtures; nothing is processed here except where a test says so."""

from __future__ import annotations

import hashlib
import hmac
import json

import pytest

from cerniq.models import WebhookEvent
from cerniq.webhooks import process_event
from integrations.instantly import config
from integrations.instantly.receiver import InstantlyReceiver, dedupe_key
from integrations.instantly.schemas import MAX_EXTRA_KEYS, validate
from tests.factories import make_tenant
from tests.integrations.instantly.conftest import post_webhook, webhook_body, webhook_raw

Status = WebhookEvent.Status
pytestmark = pytest.mark.usefixtures("registered")


def test_a_delivery_with_the_tenants_secret_is_accepted(client, tenant):
    response = post_webhook(client, tenant, webhook_raw("email_sent"))
    assert response.status_code == 200 and response.json()["status"] == "accepted"
    event = WebhookEvent.objects.get(pk=response.json()["id"])
    assert (event.tenant, event.provider, event.status) == (tenant, "instantly", Status.RECEIVED)
    assert event.verified and event.event_type == "email_sent"
    assert "x-webhook-secret" not in {k.lower() for k in event.headers}  # never stored


@pytest.mark.parametrize("secret", ["", "wrong", "0" * 64])
def test_a_missing_or_wrong_secret_is_401_and_stores_nothing(client, tenant, secret):
    response = post_webhook(client, tenant, webhook_raw("reply_received"), secret=secret)
    assert response.status_code == 401
    assert not WebhookEvent.objects.exists()


def test_another_tenants_secret_does_not_open_this_tenants_url(client, tenant, other_tenant):
    their_secret = config.webhook_secret(other_tenant.webhook_token)
    response = post_webhook(client, tenant, webhook_raw("reply_received"), secret=their_secret)
    assert response.status_code == 401
    response = post_webhook(client, tenant, webhook_raw("reply_received"), token="not-a-token")
    assert response.status_code == 401
    assert not WebhookEvent.objects.exists()


def test_the_secret_is_hmac_of_the_configured_key_over_the_token(settings, tenant):
    settings.INSTANTLY_WEBHOOK_SECRET = "k" * 40
    expected = hmac.new(
        b"k" * 40, f"instantly-webhook:{tenant.webhook_token}".encode(), hashlib.sha256
    ).hexdigest()
    assert config.webhook_secret(tenant.webhook_token) == expected
    other = make_tenant()
    assert config.webhook_secret(other.webhook_token) != expected


def test_without_the_variable_the_key_comes_from_secret_key(settings, tenant):
    settings.INSTANTLY_WEBHOOK_SECRET = ""
    derived = config.webhook_secret(tenant.webhook_token)
    assert len(derived) == 64 and settings.SECRET_KEY not in derived
    settings.SECRET_KEY = "another-secret-key-for-this-test-only-0123456789"
    assert config.webhook_secret(tenant.webhook_token) != derived


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"lead_email": None}, "lead_email"),
        ({"lead_email": "ion@"}, "lead_email"),
        ({"lead_email": "ion@ferma"}, "lead_email"),  # no dot in the domain
        ({"email_account": "a..b@agro.ro"}, "email_account"),
        ({"email_id": None}, "email_id"),
        ({"step": "1"}, "step"),  # strict: a string is not a number
        ({"timestamp": "2026-10-06 09:03:55"}, "timestamp"),
        ({"timestamp": "2026-02-30T09:03:55.000Z"}, "timestamp"),
        ({"campaign_id": 12}, "campaign_id"),
        ({"reply_text": ["a"]}, "reply_text"),
    ],
)
def test_a_malformed_handled_event_is_400_naming_the_field(client, tenant, change, field):
    body = {**webhook_body("reply_received"), **change}
    response = post_webhook(client, tenant, body)
    assert response.status_code == 400
    assert response.json()["field"] == field and response.json()["problem"]
    event = WebhookEvent.objects.get()
    assert event.status == Status.MALFORMED and event.event_type == "reply_received"
    assert process_event(event.pk) == "skipped"  # never processed


def test_lead_columns_are_allowed_as_extra_keys_but_bounded(client, tenant):
    body = webhook_body("email_sent")
    assert post_webhook(client, tenant, body).status_code == 200  # has judet, website, …
    too_many = {**body, **{f"col_{i}": "x" for i in range(MAX_EXTRA_KEYS + 1)}}
    answer = post_webhook(client, tenant, too_many)
    assert answer.status_code == 400
    too_deep = {**body, "timestamp": "2026-10-06T07:12:05.000Z", "col": {"a": {"b": {"c": {}}}}}
    answer = post_webhook(client, tenant, too_deep)
    assert answer.status_code == 400 and answer.json()["field"].startswith("col")
    too_long = {**body, "timestamp": "2026-10-06T07:12:06.000Z", "note": "x" * 10_001}
    assert post_webhook(client, tenant, too_long).status_code == 400


@pytest.mark.parametrize("fixture", ["custom_label__hot_lead", "lead_neutral", "lead_no_show"])
def test_custom_labels_and_unused_labels_are_200_ignored(client, tenant, fixture):
    response = post_webhook(client, tenant, webhook_raw(fixture))
    assert response.status_code == 200 and response.json()["status"] == "ignored"
    assert WebhookEvent.objects.get().status == Status.IGNORED


def test_an_unknown_event_is_ignored_even_with_fields_we_would_refuse(client, tenant):
    body = {"event_type": "Custom: Callback", "timestamp": "yesterday", "workspace": 1}
    response = post_webhook(client, tenant, body)
    assert response.status_code == 200 and response.json()["status"] == "ignored"


def test_the_same_delivery_twice_is_a_duplicate_and_a_later_event_is_not(client, tenant):
    raw = webhook_raw("email_opened")
    assert post_webhook(client, tenant, raw).json()["status"] == "accepted"
    assert post_webhook(client, tenant, raw).json()["status"] == "duplicate"
    later = {**json.loads(raw), "timestamp": "2026-10-07T06:00:00.000Z"}  # opened again
    assert post_webhook(client, tenant, later).json()["status"] == "accepted"
    assert WebhookEvent.objects.filter(event_type="email_opened").count() == 2


def test_the_same_time_for_another_email_or_event_type_is_not_a_duplicate(client, tenant):
    body = webhook_body("email_sent")
    assert post_webhook(client, tenant, body).json()["status"] == "accepted"
    step_two = {**body, "email_id": "019ffad3-1a2b-7c3d-8e4f-5a6b7c8d9e02", "step": 2}
    assert post_webhook(client, tenant, step_two).json()["status"] == "accepted"
    bounced = {**body, "event_type": "email_bounced"}
    assert post_webhook(client, tenant, bounced).json()["status"] == "accepted"


def test_the_dedupe_key_is_bounded_for_very_long_addresses():
    body = webhook_body("lead_unsubscribed")
    body["lead_email"] = "a" * 64 + "@" + ("b" * 60 + ".") * 3 + "ro"
    key = dedupe_key(validate(body))
    assert len(key) <= 255 and key.startswith("lead_unsubscribed:sha256:")
    short = dedupe_key(validate(webhook_body("lead_unsubscribed")))
    assert short == (
        "lead_unsubscribed:019ffad2-9c4e-7be6-8364-ed444afb02d5:"
        "ion.popescu@agroferma-example.ro:2026-10-07T10:20:00.000Z"
    )


def test_delivery_replays_a_fixture_with_the_right_header(tenant):
    token, headers = InstantlyReceiver().delivery(tenant, b"{}")
    assert token == tenant.webhook_token
    assert headers == {"x-webhook-secret": config.webhook_secret(tenant.webhook_token)}
