"""A lead answers a warm email, end to end: our sequence sends step 1 through Resend (its
Reply-To routes back to us), the lead's mail client replies to that address, Resend posts
`email.received` (metadata only) and we fetch the body with `GET /emails/receiving/{id}`.
Provider HTTP is faked at the boundary (`responses`) with the recorded Resend payloads.

The reply is stored once however often it is delivered, triaged from the lead's own words
(not our quoted email below them), stops the sequence, and a typed "stop" opts the lead out
of every channel.
"""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
import responses
import time_machine

from cerniq.models import WebhookEvent
from cerniq.webhooks import process_event
from hitl.models import ReviewItem
from outreach import delivery, dispatch
from outreach.dispatch import dispatch_due
from outreach.models import Channel, Enrollment, Journey, Lead, Message, Stage, Suppression
from outreach.sending import send_message
from tests.drain import run_triage
from tests.factories import make_outreach_world
from tests.integrations.resend.conftest import api_fixture, post_webhook, webhook_fixture
from tests.whatsapp.conftest import MONDAY_10

pytestmark = pytest.mark.django_db
RESEND = "https://api.resend.com"
INBOUND_DOMAIN = "raspuns.agrofirma.ro"
Status = Message.Status


@pytest.fixture
def inbound_domain(settings):
    entry = settings.PROVIDERS["email.resend"]
    settings.PROVIDERS = {
        **settings.PROVIDERS,
        "email.resend": {
            **entry,
            "OPTIONS": {**entry["OPTIONS"], "inbound_domain": INBOUND_DOMAIN},
        },
    }


@pytest.fixture
def sent_step(tenant, inbound_domain, monkeypatch, django_capture_on_commit_callbacks):
    """A lead already contacted by cold email, whose sequence's next email (warm: a
    follow-up) went out through Resend; the request it made."""
    monkeypatch.setattr(delivery, "plan_push", lambda tenant_id, at=None: None)
    monkeypatch.setattr(dispatch, "plan_push", lambda tenant_id, at=None: None)
    with time_machine.travel(MONDAY_10, tick=False):
        world = make_outreach_world(tenant, leads=1, phones=1, steps=3, channel=Channel.EMAIL_WARM)
        lead = world["leads"][0]
        Lead.objects.filter(pk=lead.pk).update(email="office@fermaverde.ro", email_status="valid")
        Journey.objects.filter(lead=lead).update(stage=Stage.CONTACTED_EMAIL)
        with django_capture_on_commit_callbacks(execute=True):
            dispatch_due(tenant)
        message = Message.objects.get(lead=lead)
        assert message.channel == Channel.EMAIL_WARM
        with responses.RequestsMock() as rsps:
            rsps.post(f"{RESEND}/emails", json=api_fixture("send_ok"))
            assert send_message(message.pk).kind == "sent"
            request = json.loads(rsps.calls[0].request.body)
    message.refresh_from_db()
    assert message.status == Status.SENT
    return message, request


def received(reply_to: str, *, email_id: str | None = None) -> dict:
    """Resend's `email.received` for a reply written to `reply_to`."""
    body = webhook_fixture("email_received")
    body["data"]["to"] = [reply_to]
    body["data"]["received_for"] = [reply_to]
    if email_id:
        body["data"]["email_id"] = email_id
    return body


def fetched(text: str, *, email_id: str | None = None) -> dict:
    """`GET /emails/receiving/{id}`'s answer with the lead's `text` above our quoted email."""
    body = api_fixture("received_email")
    quote = body["text"][body["text"].index("În vin.") :]
    body["text"] = f"{text}\n\n{quote}"
    if email_id:
        body["id"] = email_id
    return body


def deliver(client, tenant, body: dict, msg_id: str) -> dict:
    response = post_webhook(client, tenant, body, msg_id=msg_id)
    assert response.status_code == 200, response.content
    return response.json()


def test_a_reply_is_stored_once_triaged_and_stops_the_sequence(client, tenant, sent_step):
    message, request = sent_step
    reply_to = request["reply_to"]
    assert reply_to.startswith(f"reply+{tenant.pk}-{message.pk}-")
    assert reply_to.endswith(f"@{INBOUND_DOMAIN}")
    body = received(f"Cerniq Agro <{reply_to}>")
    email_id = body["data"]["email_id"]
    text = "Bună ziua,\nNe interesează oferta. Puteți trimite prețul pentru 10 tone?\nIon"
    with (
        time_machine.travel(MONDAY_10 + timedelta(hours=3), tick=False),
        responses.RequestsMock() as rsps,
    ):
        get = rsps.get(f"{RESEND}/emails/receiving/{email_id}", json=fetched(text))
        first = deliver(client, tenant, body, "msg_reply_1")
        again = deliver(client, tenant, body, "msg_reply_1")  # Svix retries: same id
        replayed = deliver(client, tenant, body, "msg_reply_2")  # replayed: a new id
        assert first["status"] == "accepted" and again["status"] == "duplicate"
        assert process_event(first["id"]) == "processed"
        assert process_event(replayed["id"]) == "processed"
        assert get.call_count == 1  # the replay found the reply stored: no second call
        assert rsps.calls[0].request.headers["Authorization"] == "Bearer re_test_123456789"

    # Stored and the sequence stopped at once; the analysis is the ai.triage worker's.
    assert Enrollment.objects.get(lead=message.lead).status == Enrollment.Status.STOPPED
    with time_machine.travel(MONDAY_10 + timedelta(hours=3, seconds=5), tick=False):
        assert len(run_triage()) == 1  # one reply, triaged once
    (reply,) = Message.objects.filter(direction=Message.Direction.INBOUND)
    assert reply.lead_id == message.lead_id and reply.channel == Channel.EMAIL_WARM
    assert reply.provider_message_id == email_id
    assert reply.provider_thread_id == "<CAF=abc123@mail.gmail.com>"
    assert reply.counterpart == "office@fermaverde.ro"
    assert reply.body == text  # our quoted email (with its "răspundeți STOP") left out
    assert reply.raw_response["answers_message"] == message.pk
    assert "răspundeți STOP" in reply.raw_response["text"]  # kept with the message
    assert reply.raw_response["attachments"] == ["comanda.pdf"]
    assert reply.analysis["triage"]["intent"] and reply.analysis["decision"]
    assert WebhookEvent.objects.filter(status=WebhookEvent.Status.PROCESSED).count() == 2

    enrollment = Enrollment.objects.get(lead=message.lead)
    assert enrollment.status == Enrollment.Status.STOPPED and enrollment.next_run_at is None
    journey = Journey.objects.get(lead=message.lead)
    assert journey.stage == Stage.WARM_REPLY and journey.reply_count == 1
    assert not journey.email_opted_out and not journey.whatsapp_opted_out
    assert ReviewItem.objects.filter(lead=message.lead, message=reply).exists()
    with time_machine.travel(MONDAY_10 + timedelta(days=7), tick=False):
        dispatch_due(tenant)  # step 2 would be due by now
    assert not Message.objects.filter(lead=message.lead, status=Status.QUEUED).exists()


@pytest.mark.parametrize("typed", ["stop", "STOP!", "Dezabonare vă rog"])
def test_a_typed_stop_opts_the_lead_out_of_every_channel(client, tenant, sent_step, typed):
    message, request = sent_step
    body = received(request["reply_to"])
    email_id = body["data"]["email_id"]
    with (
        time_machine.travel(MONDAY_10 + timedelta(hours=3), tick=False),
        responses.RequestsMock() as rsps,
    ):
        rsps.get(f"{RESEND}/emails/receiving/{email_id}", json=fetched(typed))
        answer = deliver(client, tenant, body, "msg_stop")
        assert process_event(answer["id"]) == "processed"
    journey = Journey.objects.get(lead=message.lead)
    assert journey.email_opted_out and journey.whatsapp_opted_out
    lead = message.lead
    assert Suppression.objects.filter(tenant=tenant, email=lead.email).exists()
    assert Suppression.objects.filter(tenant=tenant, phone=lead.phone).exists()
    assert Enrollment.objects.get(lead=lead).status == Enrollment.Status.STOPPED
    reply = Message.objects.get(direction=Message.Direction.INBOUND)
    assert "opt" in reply.analysis["decision"].lower()


def test_thanks_above_our_quoted_unsubscribe_line_is_not_an_opt_out(client, tenant, sent_step):
    """Our email ends with "răspundeți STOP": quoted under a reply, it must not opt out."""
    message, request = sent_step
    body = received(request["reply_to"])
    email_id = body["data"]["email_id"]
    with (
        time_machine.travel(MONDAY_10 + timedelta(hours=3), tick=False),
        responses.RequestsMock() as rsps,
    ):
        rsps.get(f"{RESEND}/emails/receiving/{email_id}", json=fetched("Mulțumesc, revin."))
        assert process_event(deliver(client, tenant, body, "msg_thanks")["id"]) == "processed"
    journey = Journey.objects.get(lead=message.lead)
    assert not journey.email_opted_out and not journey.whatsapp_opted_out
    assert Enrollment.objects.get(lead=message.lead).status == Enrollment.Status.STOPPED


def test_the_html_part_is_read_when_there_is_no_text(client, tenant, sent_step):
    message, request = sent_step
    body = received(request["reply_to"])
    email_id = body["data"]["email_id"]
    answer = {**api_fixture("received_email"), "text": None}
    with responses.RequestsMock() as rsps:
        rsps.get(f"{RESEND}/emails/receiving/{email_id}", json=answer)
        assert process_event(deliver(client, tenant, body, "msg_html")["id"]) == "processed"
    reply = Message.objects.get(direction=Message.Direction.INBOUND)
    assert reply.body.startswith("Bună ziua,\nNe interesează oferta.")
    assert "STOP" not in reply.body and "a scris" not in reply.body
    assert not Journey.objects.get(lead=message.lead).email_opted_out


def test_a_failed_fetch_fails_the_event_and_its_retry_stores_the_reply(client, tenant, sent_step):
    message, request = sent_step
    body = received(request["reply_to"])
    email_id = body["data"]["email_id"]
    answer = deliver(client, tenant, body, "msg_retry")
    with responses.RequestsMock() as rsps:
        rsps.get(
            f"{RESEND}/emails/receiving/{email_id}",
            status=500,
            json=api_fixture("error_500_internal_server_error"),
        )
        with pytest.raises(Exception, match="500"):
            process_event(answer["id"])
    assert WebhookEvent.objects.get(pk=answer["id"]).status == WebhookEvent.Status.FAILED
    assert not Message.objects.filter(direction=Message.Direction.INBOUND).exists()
    with responses.RequestsMock() as rsps:
        rsps.get(f"{RESEND}/emails/receiving/{email_id}", json=fetched("Da, sunați-mă."))
        assert process_event(answer["id"]) == "processed"
    assert Message.objects.filter(direction=Message.Direction.INBOUND).count() == 1
