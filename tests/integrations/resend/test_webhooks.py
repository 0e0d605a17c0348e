"""Resend webhooks through the real intake: who may post (URL token and Svix signature),
what is refused at the door, dedupe on svix-id, and what each event does to our messages
and leads (through outreach.email_events)."""

from __future__ import annotations

import json
import time

import pytest

from cerniq.models import WebhookEvent
from cerniq.webhooks import process_event
from integrations.resend.receiver import ResendReceiver
from outreach.models import Lead, Message, Suppression
from tests.factories import make_lead, make_tenant
from tests.integrations.resend.conftest import (
    ADDRESS,
    EMAIL_ID,
    SECRET,
    WEBHOOK_FIXTURES,
    post_webhook,
    tagged,
    webhook_fixture,
)

Status = WebhookEvent.Status


def deliver(client, tenant, name_or_body, **kw) -> WebhookEvent:
    """Post an event and run its processing as a worker would; the stored row."""
    body = webhook_fixture(name_or_body) if isinstance(name_or_body, str) else name_or_body
    response = post_webhook(client, tenant, body, **kw)
    assert response.status_code == 200, response.content
    answer = response.json()
    if answer["status"] == "accepted":
        assert process_event(answer["id"]) in ("processed", "ignored")
        return WebhookEvent.objects.get(pk=answer["id"])
    return WebhookEvent.objects.order_by("-pk").first()


# --- at the door ------------------------------------------------------------------------


def test_a_signed_event_is_accepted_and_stored_under_its_svix_id(client, tenant):
    response = post_webhook(client, tenant, webhook_fixture("email_delivered"), msg_id="msg_a1")
    assert response.status_code == 200 and response.json()["status"] == "accepted"
    event = WebhookEvent.objects.get(pk=response.json()["id"])
    assert event.provider == "resend" and event.event_type == "email.delivered"
    assert event.provider_event_id == f"{tenant.pk}:msg_a1" and event.verified


def _tamper_body(raw, headers):
    return raw.replace(b"office@", b"other@"), headers


@pytest.mark.parametrize(
    "tamper",
    [
        _tamper_body,
        lambda raw, h: (raw, {k: v for k, v in h.items() if k != "svix-signature"}),
        lambda raw, h: (raw, {k: v for k, v in h.items() if k != "svix-id"}),
        lambda raw, h: (raw, {k: v for k, v in h.items() if k != "svix-timestamp"}),
        lambda raw, h: (raw, {}),
        lambda raw, h: (raw, {**h, "svix-id": "msg_other"}),
        lambda raw, h: (raw, _signed(raw, secret="whsec_" + "b3RoZXIta2V5LW90aGVyLWtleQ==")),
        lambda raw, h: (raw, _signed(raw, timestamp=int(time.time()) - 310)),
        lambda raw, h: (raw, _signed(raw, timestamp=int(time.time()) + 310)),
    ],
    ids=[
        "body-changed",
        "no-signature",
        "no-id",
        "no-timestamp",
        "no-headers",
        "id-changed",
        "wrong-secret",
        "expired",
        "from-the-future",
    ],
)
def test_a_bad_missing_or_expired_signature_is_401_and_stores_nothing(client, tenant, tamper):
    from integrations.resend.receiver import sign

    raw = json.dumps(webhook_fixture("email_bounced")).encode()
    raw, headers = tamper(raw, sign(raw, SECRET, msg_id="msg_1"))
    response = client.post(
        f"/webhooks/resend/{tenant.webhook_token}/",
        raw,
        content_type="application/json",
        headers=headers,
    )
    assert response.status_code == 401
    assert not WebhookEvent.objects.exists()


def _signed(raw, *, secret=SECRET, timestamp=None):
    from integrations.resend.receiver import sign

    return sign(raw, secret, msg_id="msg_1", timestamp=timestamp)


def test_a_wrong_token_is_401_even_when_signed(client, tenant):
    raw = json.dumps(webhook_fixture("email_bounced")).encode()
    response = client.post(
        "/webhooks/resend/not-the-token/",
        raw,
        content_type="application/json",
        headers=_signed(raw),
    )
    assert response.status_code == 401 and not WebhookEvent.objects.exists()


def test_without_a_configured_secret_nothing_resend_signs_is_accepted(client, tenant, settings):
    """Only the deployment's own deliveries (fixture replay, the demo) verify then."""
    options = {**settings.PROVIDERS["email.resend"]["OPTIONS"], "webhook_secret": ""}
    settings.PROVIDERS = {
        **settings.PROVIDERS,
        "email.resend": {**settings.PROVIDERS["email.resend"], "OPTIONS": options},
    }
    response = post_webhook(client, tenant, webhook_fixture("email_delivered"))
    assert response.status_code == 401 and not WebhookEvent.objects.exists()
    raw = json.dumps(webhook_fixture("email_delivered")).encode()
    token, headers = ResendReceiver().delivery(tenant, raw)
    response = client.post(
        f"/webhooks/resend/{token}/", raw, content_type="application/json", headers=headers
    )
    assert response.status_code == 200 and response.json()["status"] == "accepted"


def test_a_malformed_secret_refuses_everything(client, tenant, settings):
    options = {**settings.PROVIDERS["email.resend"]["OPTIONS"], "webhook_secret": "whsec_"}
    settings.PROVIDERS = {
        **settings.PROVIDERS,
        "email.resend": {**settings.PROVIDERS["email.resend"], "OPTIONS": options},
    }
    response = post_webhook(client, tenant, webhook_fixture("email_delivered"))
    assert response.status_code == 401 and not WebhookEvent.objects.exists()


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (lambda b: b["data"]["bounce"].update(type="Soft"), "data.bounce.type"),
        (lambda b: b["data"]["bounce"].pop("type"), "data.bounce.type"),
        (lambda b: b["data"].pop("bounce"), "data.bounce"),
        (lambda b: b["data"].update(email_id="49a3999c"), "data.email_id"),
        (lambda b: b["data"].update(email_id=123), "data.email_id"),
        (lambda b: b["data"].update(to="office@fermaverde.ro"), "data.to"),
        (lambda b: b["data"].update(to=[]), "data.to"),
        (lambda b: b["data"].update(to=["not-an-address"]), "data.to[0]"),
        (lambda b: b["data"].update(tags=[{"name": "a", "value": "b"}]), "data.tags"),
        (lambda b: b["data"].update(tags={"tenant_id": 7}), "data.tags.tenant_id"),
        (lambda b: b.update(created_at="2026-08-01 10:00:00"), "created_at"),
        (lambda b: b.update(created_at="2026-02-30T10:00:00Z"), "created_at"),
        (lambda b: b.update(data="x"), "data"),
        (lambda b: b.pop("data"), "data"),
    ],
)
def test_a_payload_breaking_the_schema_is_400_naming_the_field(client, tenant, change, field):
    body = webhook_fixture("email_bounced")
    change(body)
    response = post_webhook(client, tenant, body)
    assert response.status_code == 400, response.content
    assert response.json()["field"] == field and response.json()["problem"]
    event = WebhookEvent.objects.get()
    assert event.status == Status.MALFORMED and event.event_type == "email.bounced"


@pytest.mark.parametrize(
    ("fixture", "change", "field"),
    [
        ("email_failed", lambda b: b["data"]["failed"].pop("reason"), "data.failed.reason"),
        (
            "email_suppressed",
            lambda b: b["data"]["suppressed"].update(reason="previous_spam"),
            "data.suppressed.reason",
        ),
    ],
)
def test_event_objects_are_checked_too(client, tenant, fixture, change, field):
    body = webhook_fixture(fixture)
    change(body)
    response = post_webhook(client, tenant, body)
    assert response.status_code == 400 and response.json()["field"] == field


@pytest.mark.parametrize("name", ["email_scheduled", "contact_created", "domain_updated"])
def test_known_events_we_do_not_act_on_are_ignored(client, tenant, name):
    response = post_webhook(client, tenant, webhook_fixture(name))
    assert response.status_code == 200 and response.json()["status"] == "ignored"
    assert WebhookEvent.objects.get().status == Status.IGNORED


def test_an_unknown_event_type_is_2xx_ignored(client, tenant):
    response = post_webhook(client, tenant, {"type": "email.teleported", "data": {}})
    assert response.status_code == 200 and response.json()["status"] == "ignored"
    assert "unknown event type" in WebhookEvent.objects.get().error


def test_a_redelivery_with_the_same_svix_id_is_a_duplicate(client, tenant):
    body = webhook_fixture("email_delivered")
    first = post_webhook(client, tenant, body, msg_id="msg_same")
    again = post_webhook(client, tenant, body, msg_id="msg_same")
    later = post_webhook(client, tenant, body, msg_id="msg_other")
    assert first.json()["status"] == "accepted" and later.json()["status"] == "accepted"
    assert again.status_code == 200 and again.json()["status"] == "duplicate"
    assert WebhookEvent.objects.count() == 2


def test_the_same_svix_id_at_two_tenants_is_two_deliveries(client, tenant):
    """One Resend account posts each message to every registered endpoint."""
    other = make_tenant()
    body = webhook_fixture("email_delivered")
    assert post_webhook(client, tenant, body, msg_id="msg_x").json()["status"] == "accepted"
    assert post_webhook(client, other, body, msg_id="msg_x").json()["status"] == "accepted"


def test_the_declaration():
    receiver = ResendReceiver()
    assert receiver.provider == "resend"
    assert {"email.bounced", "email.suppressed", "email.sent"} <= receiver.HANDLED_EVENTS
    assert receiver.is_ignored("contact.deleted") and receiver.is_ignored("domain.created")


# --- what each event does ---------------------------------------------------------------


def test_delivered_then_opened_then_clicked(client, tenant, sent_email):
    deliver(client, tenant, tagged(webhook_fixture("email_delivered"), tenant), msg_id="m1")
    sent_email.refresh_from_db()
    assert sent_email.status == Message.Status.DELIVERED
    assert sent_email.delivered_at.isoformat().startswith("2026-08-01T10:00:02")
    deliver(client, tenant, tagged(webhook_fixture("email_opened"), tenant), msg_id="m2")
    sent_email.refresh_from_db()
    assert sent_email.status == Message.Status.READ
    deliver(client, tenant, tagged(webhook_fixture("email_clicked"), tenant), msg_id="m3")
    sent_email.refresh_from_db()
    assert sent_email.status == Message.Status.READ


def test_a_late_delivered_never_undoes_a_bounce(client, tenant, sent_email):
    deliver(client, tenant, tagged(webhook_fixture("email_bounced"), tenant), msg_id="m1")
    deliver(client, tenant, tagged(webhook_fixture("email_delivered"), tenant), msg_id="m2")
    sent_email.refresh_from_db()
    assert sent_email.status == Message.Status.BOUNCED


def test_a_hard_bounce_marks_the_address_and_suppresses_it(client, tenant, sent_email):
    twin = make_lead(tenant, email=ADDRESS.upper(), email_status=Lead.EmailStatus.VALID)
    event = deliver(client, tenant, tagged(webhook_fixture("email_bounced"), tenant))
    assert event.status == Status.PROCESSED
    sent_email.refresh_from_db()
    assert sent_email.status == Message.Status.BOUNCED
    assert "NoEmail" in sent_email.error and "550 5.1.1" in sent_email.error
    for lead in (sent_email.lead, twin):
        lead.refresh_from_db()
        assert lead.email_status == Lead.EmailStatus.BOUNCED
    assert Suppression.objects.filter(tenant=tenant, email=ADDRESS).exists()


def test_a_soft_bounce_is_only_noted(client, tenant, sent_email):
    deliver(client, tenant, tagged(webhook_fixture("email_bounced__transient"), tenant))
    sent_email.refresh_from_db()
    sent_email.lead.refresh_from_db()
    assert sent_email.status == Message.Status.SENT and "soft bounce" in sent_email.error
    assert sent_email.lead.email_status == Lead.EmailStatus.VALID
    assert not Suppression.objects.exists()


def test_a_complaint_opts_the_lead_out_everywhere(client, tenant, sent_email):
    deliver(client, tenant, tagged(webhook_fixture("email_complained"), tenant))
    lead = Lead.objects.get(pk=sent_email.lead_id)
    assert lead.email_status == Lead.EmailStatus.COMPLAINED
    assert lead.journey.email_opted_out and lead.journey.whatsapp_opted_out
    assert Suppression.objects.filter(tenant=tenant, email=ADDRESS).exists()


def test_failed_marks_the_message_failed(client, tenant, sent_email):
    deliver(client, tenant, tagged(webhook_fixture("email_failed"), tenant))
    sent_email.refresh_from_db()
    assert sent_email.status == Message.Status.FAILED
    assert "reached_daily_quota" in sent_email.error


def test_suppressed_after_a_bounce_is_a_hard_bounce(client, tenant, sent_email):
    deliver(client, tenant, tagged(webhook_fixture("email_suppressed"), tenant))
    sent_email.refresh_from_db()
    sent_email.lead.refresh_from_db()
    assert sent_email.status == Message.Status.BOUNCED
    assert sent_email.lead.email_status == Lead.EmailStatus.BOUNCED


def test_suppressed_after_a_complaint_is_a_complaint(client, tenant, sent_email):
    deliver(client, tenant, tagged(webhook_fixture("email_suppressed__complaint"), tenant))
    sent_email.refresh_from_db()
    lead = Lead.objects.get(pk=sent_email.lead_id)
    assert sent_email.status == Message.Status.FAILED
    assert lead.email_status == Lead.EmailStatus.COMPLAINED and lead.journey.email_opted_out


@pytest.mark.parametrize("name", ["email_sent", "email_delivery_delayed"])
def test_sent_and_delayed_are_handled_and_change_nothing(client, tenant, sent_email, name):
    event = deliver(client, tenant, tagged(webhook_fixture(name), tenant))
    assert event.status == Status.PROCESSED
    sent_email.refresh_from_db()
    assert sent_email.status == Message.Status.SENT


def test_an_event_tagged_for_another_tenant_is_ignored(client, tenant, sent_email):
    body = webhook_fixture("email_bounced")
    body["data"]["tags"]["tenant_id"] = str(tenant.pk + 1000)
    event = deliver(client, tenant, body)
    assert event.status == Status.IGNORED
    sent_email.refresh_from_db()
    sent_email.lead.refresh_from_db()
    assert sent_email.status == Message.Status.SENT
    assert sent_email.lead.email_status == Lead.EmailStatus.VALID
    assert not Suppression.objects.exists()


def test_an_untagged_event_acts_only_on_this_tenants_email(client, tenant, sent_email):
    other = make_tenant()
    twin = make_lead(other, email=ADDRESS, email_status=Lead.EmailStatus.VALID)
    body = webhook_fixture("email_bounced")
    del body["data"]["tags"]
    assert deliver(client, other, body, msg_id="m1").status == Status.IGNORED  # not its email
    twin.refresh_from_db()
    assert twin.email_status == Lead.EmailStatus.VALID
    assert deliver(client, tenant, body, msg_id="m1").status == Status.PROCESSED
    sent_email.refresh_from_db()
    assert sent_email.status == Message.Status.BOUNCED


def test_an_event_about_an_email_we_never_stored_changes_nothing(client, tenant):
    body = tagged(webhook_fixture("email_delivered"), tenant)
    assert deliver(client, tenant, body).status == Status.PROCESSED
    assert not Message.objects.exists()


@pytest.mark.parametrize("path", sorted(WEBHOOK_FIXTURES.glob("*.json")), ids=lambda p: p.stem)
def test_every_fixture_is_known(path):
    event_type = json.loads(path.read_bytes())["type"]
    receiver = ResendReceiver()
    assert receiver.is_handled(event_type) or receiver.is_ignored(event_type)


def test_the_fixtures_use_the_documented_email_id(path=WEBHOOK_FIXTURES / "email_bounced.json"):
    assert json.loads(path.read_bytes())["data"]["email_id"] == EMAIL_ID
