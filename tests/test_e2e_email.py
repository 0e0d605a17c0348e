"""End to end, the email channels with provider HTTP faked at the boundary (`responses`,
payloads shaped like docs/providers.md) and everything else real (issue #11, "Done means"):

- a 3-step sequence, WhatsApp first: a lead without a reachable phone gets cold email
  instead, pushed into the sequence's Instantly campaign; a lead on both channels gets its
  WhatsApp follow-up queued after a cold first step;
- Instantly's `reply_received` for that lead stops its WhatsApp follow-up;
- a burst of `email_bounced` over 3 % pauses the campaign at Instantly and raises one alert;
- a Resend send retried after a timeout reuses the same Idempotency-Key;
- a one-click unsubscribe stops every channel.
"""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
import requests
import responses
import time_machine
from django.test import Client

from cerniq.models import Alert
from cerniq.webhooks import process_event
from email_channels.models import EmailCampaign
from outreach import delivery, dispatch, unsubscribe
from outreach.dispatch import dispatch_due
from outreach.manual import send_manual
from outreach.models import (
    Channel,
    Journey,
    Lead,
    Message,
    Sequence,
    SequenceStep,
    Stage,
    Template,
    TemplateVersion,
)
from outreach.pushing import push_due
from outreach.sending import send_message
from outreach.sequences import enroll_many
from tests.drain import run_triage
from tests.factories import make_lead, make_outreach_world
from tests.integrations.instantly import instantly_fake as fake
from tests.integrations.instantly.conftest import BASE, CAMPAIGN_ID, api_body, post_webhook
from tests.integrations.instantly.conftest import webhook_body as instantly_event
from tests.whatsapp.conftest import MONDAY_10

pytestmark = pytest.mark.django_db
RESEND = "https://api.resend.com"
Status = Message.Status


@pytest.fixture
def world(tenant, settings, monkeypatch, django_capture_on_commit_callbacks):
    monkeypatch.setattr(delivery, "plan_push", lambda tenant_id, at=None: None)
    monkeypatch.setattr(dispatch, "plan_push", lambda tenant_id, at=None: None)
    if "integrations.instantly" not in settings.INTEGRATIONS:
        settings.INTEGRATIONS = [*settings.INTEGRATIONS, "integrations.instantly"]
    settings.PROVIDERS = {
        **settings.PROVIDERS,
        "email.instantly": {
            "BACKEND": "integrations.instantly.backend.InstantlyEmail",
            "OPTIONS": {
                "api_key": "e2e-instantly-key",
                "base_url": BASE,
                "senders": "vanzari@cerniq-mail.ro",
                "daily_limit": "30",
            },
        },
        "email.resend": {
            "BACKEND": "integrations.resend.client.ResendEmail",
            "OPTIONS": {
                "api_key": "re_e2e_key",
                "base_url": RESEND,
                "from_address": "Cerniq Agro <oferte@agrofirma.ro>",
            },
        },
    }
    monkeypatch.setenv("INSTANTLY_API_KEY", "e2e-instantly-key")
    with time_machine.travel(MONDAY_10, tick=False):
        world = make_outreach_world(tenant, leads=2, phones=1, steps=3)  # WhatsApp first
        email_template = Template.objects.create(tenant=tenant, name="Rece", channel="EMAIL_COLD")
        TemplateVersion.objects.create(
            tenant=tenant,
            template=email_template,
            version=1,
            subject="{Ofertă|Propunere} pentru {{company_name}}",
            body="Bună ziua, {{contact_name|stimate client}}, vă scriem despre irigații.",
        )
        fallback = Sequence.objects.create(tenant=tenant, name="Email rece")
        SequenceStep.objects.create(
            tenant=tenant,
            sequence=fallback,
            position=1,
            channel="EMAIL_COLD",
            template=email_template,
        )
        Sequence.objects.filter(pk=world["sequence"].pk).update(fallback_sequence=fallback)
        no_phone, both = world["leads"]
        Lead.objects.filter(pk=no_phone.pk).update(
            phone_reachable=False, email="fara.telefon@agro.ro", email_status="valid"
        )
        Lead.objects.filter(pk=both.pk).update(
            email="ion.popescu@agroferma-example.ro", email_status="valid"
        )
        with django_capture_on_commit_callbacks(execute=True):
            dispatch_due(tenant)
        yield world


def test_cold_email_fallback_then_a_reply_stops_the_whatsapp_follow_up(
    client, tenant, world, django_capture_on_commit_callbacks
):
    no_phone, both = world["leads"]
    first = {m.lead_id: m for m in Message.objects.all()}
    assert first[no_phone.pk].channel == Channel.EMAIL_COLD  # no reachable phone: email
    assert first[no_phone.pk].subject.endswith(no_phone.name)
    follow_up = first[both.pk]  # WhatsApp, waiting for its phone's turn
    assert follow_up.channel == Channel.WHATSAPP and follow_up.status == Status.QUEUED
    with responses.RequestsMock(assert_all_requests_are_fired=False) as rsps:
        fake.mock_campaign_creation(rsps)
        rsps.add_callback("POST", fake.ADD_URL, callback=fake.leads_add())
        with time_machine.travel(MONDAY_10, tick=False):
            assert push_due(tenant.pk).sent == 1
        (add,) = fake.calls_to(rsps, fake.ADD_URL)
        assert [lead["email"] for lead in fake.body(add)["leads"]] == ["fara.telefon@agro.ro"]
    # The lead on both channels answers an email of ours (Instantly's unibox) before its
    # WhatsApp message goes out: the WhatsApp message is dropped.

    reply = instantly_event("reply_received")  # from ion.popescu@agroferma-example.ro
    answer = post_webhook(client, tenant, reply).json()
    assert answer["status"] == "accepted" and process_event(answer["id"]) == "processed"
    follow_up.refresh_from_db()
    assert follow_up.status == Status.CANCELLED  # at once, before the triage
    run_triage()
    assert Journey.objects.get(lead=both).stage == Stage.WARM_REPLY
    inbound = Message.objects.get(lead=both, direction=Message.Direction.INBOUND)
    assert inbound.channel == Channel.EMAIL_COLD and "ne interesează" in inbound.body


def test_a_bounce_burst_over_three_percent_pauses_the_campaign_once(client, tenant, world):
    campaign = EmailCampaign.objects.create(
        tenant=tenant,
        provider="instantly",
        name="Ferme Moldova Q4",
        external_id=CAMPAIGN_ID,
        sent=120,
        bounced=3,
    )
    with responses.RequestsMock(assert_all_requests_are_fired=False) as rsps:
        pause = rsps.post(
            f"{BASE}/api/v2/campaigns/{CAMPAIGN_ID}/pause", json=api_body("campaign_pause")
        )
        for n in range(5):  # the 4th bounce in 120 sends is 3.33 %
            body = instantly_event("email_bounced")
            body["lead_email"] = f"gresit{n}@ferma-{n}.ro"
            body["timestamp"] = f"2026-10-06T09:0{n}:00.000Z"
            answer = post_webhook(client, tenant, body).json()
            assert process_event(answer["id"]) == "processed"
        assert pause.call_count == 1
    campaign.refresh_from_db()
    assert campaign.status == EmailCampaign.Status.PAUSED and campaign.bounced == 8
    assert Alert.objects.filter(kind=Alert.Kind.BOUNCE_RATE).count() == 1


def test_a_resend_send_retried_after_a_timeout_reuses_its_idempotency_key(tenant, world):
    no_phone = world["leads"][0]
    message = send_manual(
        no_phone, "Vă trimit oferta.", channel=Channel.EMAIL_WARM, subject="Oferta"
    )
    with responses.RequestsMock() as rsps:
        rsps.post(f"{RESEND}/emails", body=requests.exceptions.ReadTimeout("read timed out"))
        rsps.post(f"{RESEND}/emails", json={"id": "49a3999c-0ce1-4ea6-ab68-afcd6dc2e794"})
        first = send_message(message.pk)
        assert first.kind == "retry"
        message.refresh_from_db()
        later = max(message.scheduled_for, message.attempt_started_at + timedelta(minutes=6))
        with time_machine.travel(later, tick=False):
            for _ in range(5):
                if send_message(message.pk).kind == "sent":
                    break
        keys = [c.request.headers["Idempotency-Key"] for c in rsps.calls]
    message.refresh_from_db()
    assert message.status == Status.SENT
    assert message.provider_message_id == "49a3999c-0ce1-4ea6-ab68-afcd6dc2e794"
    assert len(keys) == 2 and len(set(keys)) == 1 and keys[0] == message.idempotency_key


def test_a_one_click_unsubscribe_stops_every_channel(tenant, world):
    both = world["leads"][1]
    queued = Message.objects.get(lead=both)  # its WhatsApp first step
    response = Client().post(
        f"/u/{unsubscribe.token_for(both)}/", {"List-Unsubscribe": "One-Click"}
    )
    assert response.status_code == 200
    journey = Journey.objects.get(lead=both)
    assert journey.whatsapp_opted_out and journey.email_opted_out
    queued.refresh_from_db()
    assert queued.status == Status.CANCELLED
    assert Lead.objects.get(pk=both.pk).email_status == Lead.EmailStatus.UNSUBSCRIBED
    assert not Message.objects.filter(lead=both, status=Status.QUEUED).exists()


def test_an_in_thread_answer_whose_outcome_was_lost_is_found_not_sent_twice(client, tenant, world):
    """Instantly's reply endpoint takes no idempotency key: an answer whose POST timed out
    is looked for among the lead's emails before the send path would send it again."""
    from outreach.manual import answer

    both = world["leads"][1]
    posted = post_webhook(client, tenant, instantly_event("reply_received")).json()
    assert process_event(posted["id"]) == "processed"
    inbound = Message.objects.get(lead=both, direction=Message.Direction.INBOUND)
    message = answer(both, "Vă trimit oferta.", to=inbound, reason="e2e", is_manual=True)
    with responses.RequestsMock() as rsps:
        rsps.post(
            f"{BASE}/api/v2/emails/reply", body=requests.exceptions.ReadTimeout("read timed out")
        )
        outcome = send_message(message.pk)
        message.refresh_from_db()
        assert outcome.kind == "retry", (outcome, message.error)
        listed = api_body("emails_list")
        ours = listed["items"][0]
        ours["subject"] = message.subject
        ours["timestamp_created"] = (message.attempt_started_at + timedelta(seconds=2)).isoformat()
        lookup = rsps.get(f"{BASE}/api/v2/emails", json=listed)
        later = max(message.scheduled_for, message.attempt_started_at + timedelta(minutes=6))
        with time_machine.travel(later, tick=False):
            for _ in range(5):
                if send_message(message.pk).kind in ("sent", "reconciled"):
                    break
        replies = [c for c in rsps.calls if c.request.url.endswith("/emails/reply")]
    message.refresh_from_db()
    assert message.status == Status.SENT
    assert message.provider_message_id == ours["id"]
    assert len(replies) == 1 and lookup.call_count >= 1  # answered once, found, not resent


def _one_click(headers: dict[str, str], lead: Lead) -> None:
    """RFC 8058: an https List-Unsubscribe URL that is the lead's, and the one-click POST."""
    assert headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    urls = [part.strip().strip("<>") for part in headers["List-Unsubscribe"].split(",")]
    assert any(
        url.startswith("https://") and url.endswith(f"/u/{unsubscribe.token_for(lead)}/")
        for url in urls
    ), urls


def test_every_email_path_carries_one_click_unsubscribe(tenant, world, settings):
    """Gmail and Yahoo ask bulk senders for RFC 8058 one-click unsubscribe. Warm email
    (Resend) carries the headers on every email: a sequence's step and a person's message;
    cold email (Instantly, which takes no headers per email) has its campaign insert them."""
    settings.PUBLIC_BASE_URL = "https://outreach.example.ro"
    no_phone = world["leads"][0]
    warm_template = Template.objects.create(tenant=tenant, name="Cald", channel="EMAIL_WARM")
    TemplateVersion.objects.create(
        tenant=tenant, template=warm_template, version=1, subject="Oferta", body="Bună ziua."
    )
    warm = Sequence.objects.create(tenant=tenant, name="Cald")
    SequenceStep.objects.create(
        tenant=tenant, sequence=warm, position=1, channel="EMAIL_WARM", template=warm_template
    )
    reader = make_lead(tenant, phone="", email="citeste@agro.ro", email_status="valid")
    with time_machine.travel(MONDAY_10, tick=False):
        enroll_many([reader], warm)
        # Warm email is for a lead past COLD (one who answered); a cold one gets cold email.
        Journey.objects.filter(lead=reader).update(stage=Stage.CONTACTED_EMAIL)
        dispatch_due(tenant)
    automated = Message.objects.get(lead=reader, channel=Channel.EMAIL_WARM)
    manual = send_manual(
        no_phone, "Vă trimit oferta.", channel=Channel.EMAIL_WARM, subject="Ofertă"
    )
    with responses.RequestsMock() as rsps:
        rsps.post(f"{RESEND}/emails", json={"id": "49a3999c-0ce1-4ea6-ab68-afcd6dc2e794"})
        rsps.post(f"{RESEND}/emails", json={"id": "5b1c0a52-6f2e-4f39-9d1c-0b6f6d1f2a11"})
        for message in (automated, manual):
            with time_machine.travel(MONDAY_10, tick=False):
                outcome = send_message(message.pk)
            assert outcome.kind == "sent", (message.pk, outcome)
        sent = [json.loads(call.request.body) for call in rsps.calls]
    assert len(sent) == 2
    _one_click(sent[0]["headers"], reader)
    _one_click(sent[1]["headers"], Lead.objects.get(pk=no_phone.pk))
    with responses.RequestsMock(assert_all_requests_are_fired=False) as rsps:
        fake.mock_campaign_creation(rsps)
        rsps.add_callback("POST", fake.ADD_URL, callback=fake.leads_add())
        with time_machine.travel(MONDAY_10, tick=False):
            assert push_due(tenant.pk).sent == 1
        (created,) = fake.calls_to(rsps, fake.CAMPAIGNS_URL)
    assert fake.body(created)["insert_unsubscribe_header"] is True
