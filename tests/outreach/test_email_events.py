"""outreach.email_events: what email providers report, applied the same way whoever reports
it (forward-only statuses, hard bounces suppress, complaints and unsubscribes stop every
channel), and hitl.replies.receive_email_reply, the email reply path."""

from __future__ import annotations

import pytest

from hitl.replies import receive_email_reply
from outreach import email_events
from outreach.models import Channel, Journey, Lead, Message, Stage
from outreach.suppression import is_suppressed
from tests.drain import run_triage
from tests.factories import make_lead, make_message, make_tenant

Status = Message.Status
EmailStatus = Lead.EmailStatus
pytestmark = pytest.mark.django_db


@pytest.fixture
def lead(tenant):
    return make_lead(tenant, email="Ion.Popescu@Agro.ro", email_status=EmailStatus.VALID)


def sent_email(lead, provider_id="em-1", **kw):
    return make_message(
        lead,
        channel=Channel.EMAIL_WARM,
        status=Status.SENT,
        counterpart=lead.email,
        provider_message_id=provider_id,
        **kw,
    )


def status_of(message) -> str:
    return Message.objects.values_list("status", flat=True).get(pk=message.pk)


def test_statuses_only_move_forward(tenant, lead):
    message = sent_email(lead)
    assert email_events.message_event(tenant, provider_message_id="em-1", status=Status.READ)
    # A late "delivered" after the open changes nothing.
    assert not email_events.message_event(
        tenant, provider_message_id="em-1", status=Status.DELIVERED
    )
    assert status_of(message) == Status.READ
    message.refresh_from_db()
    assert message.read_at is not None


def test_a_bounce_is_final(tenant, lead):
    message = sent_email(lead)
    email_events.bounced(tenant, email=lead.email, permanent=True, provider_message_id="em-1")
    for late in (Status.DELIVERED, Status.READ):
        assert not email_events.message_event(tenant, provider_message_id="em-1", status=late)
    assert status_of(message) == Status.BOUNCED


def test_an_event_for_an_email_we_did_not_send_changes_nothing(tenant, lead):
    sent_email(lead)
    assert not email_events.message_event(tenant, provider_message_id="other", status=Status.READ)
    # Nor for another tenant's email with the same provider id.
    assert not email_events.message_event(
        make_tenant(), provider_message_id="em-1", status=Status.READ
    )


def test_a_hard_bounce_marks_every_lead_with_the_address_and_suppresses_it(tenant, lead):
    twin = make_lead(tenant, email="ion.popescu@agro.ro", email_status=EmailStatus.VALID)
    other_tenant_lead = make_lead(make_tenant(), email=lead.email)
    message = sent_email(lead)
    ids = email_events.bounced(
        tenant, email="", permanent=True, provider_message_id="em-1", reason="550 user unknown"
    )
    assert sorted(ids) == sorted([lead.pk, twin.pk])
    assert set(Lead.objects.filter(pk__in=ids).values_list("email_status", flat=True)) == {
        EmailStatus.BOUNCED
    }
    assert is_suppressed(tenant, email="ION.POPESCU@agro.ro")
    message.refresh_from_db()
    assert (message.status, message.error) == (Status.BOUNCED, "hard bounce: 550 user unknown")
    other_tenant_lead.refresh_from_db()
    assert other_tenant_lead.email_status == EmailStatus.UNKNOWN


def test_a_soft_bounce_is_only_noted(tenant, lead):
    message = sent_email(lead)
    assert (
        email_events.bounced(
            tenant, email=lead.email, permanent=False, provider_message_id="em-1", reason="full"
        )
        == []
    )
    message.refresh_from_db()
    lead.refresh_from_db()
    assert (message.status, message.error) == (Status.SENT, "soft bounce: full")
    assert lead.email_status == EmailStatus.VALID
    assert not is_suppressed(tenant, email=lead.email)


def test_a_complaint_stops_every_channel(tenant, lead):
    sent_email(lead)
    queued = make_message(lead, channel=Channel.WHATSAPP)  # the next WhatsApp step
    email_events.complained(tenant, email="", provider_message_id="em-1")
    journey = Journey.objects.get(lead=lead)
    assert journey.email_opted_out and journey.whatsapp_opted_out
    lead.refresh_from_db()
    assert lead.email_status == EmailStatus.COMPLAINED
    assert status_of(queued) == Status.CANCELLED
    assert is_suppressed(tenant, email=lead.email)
    assert is_suppressed(tenant, phone=lead.phone)


def test_an_unsubscribe_stops_every_channel_and_outranks_a_bounce(tenant, lead):
    email_events.bounced(tenant, email=lead.email, permanent=True)
    email_events.unsubscribed(tenant, email=lead.email.upper(), source="one-click")
    lead.refresh_from_db()
    journey = Journey.objects.get(lead=lead)
    assert lead.email_status == EmailStatus.UNSUBSCRIBED
    assert journey.email_opted_out and journey.whatsapp_opted_out
    # A later bounce does not make an unsubscribed address look merely bounced.
    email_events.bounced(tenant, email=lead.email, permanent=True)
    lead.refresh_from_db()
    assert lead.email_status == EmailStatus.UNSUBSCRIBED


def test_an_unsubscribe_from_an_unknown_address_suppresses_it(tenant):
    assert email_events.unsubscribed(tenant, email="nobody@agro.ro", source="instantly") == []
    assert is_suppressed(tenant, email="nobody@agro.ro")


def test_an_email_reply_goes_through_the_reply_path_once(tenant, lead):
    Journey.objects.filter(lead=lead).update(stage=Stage.CONTACTED_EMAIL)
    queued = make_message(lead, channel=Channel.WHATSAPP)  # a follow-up still queued
    fields = {
        "channel": Channel.EMAIL_COLD,
        "email": "ION.popescu@agro.ro",
        "text": "Bună ziua, ce preț aveți la semințe de porumb?",
        "subject": "Re: Oferta",
        "provider_message_id": "reply-1",
        "thread_id": "thread-1",
    }
    message = receive_email_reply(tenant, **fields)
    assert message is not None
    assert (message.lead_id, message.direction, message.counterpart) == (
        lead.pk,
        Message.Direction.INBOUND,
        "ion.popescu@agro.ro",
    )
    assert status_of(queued) == Status.CANCELLED  # the sequence stopped at once, every channel
    run_triage()
    assert Journey.objects.get(lead=lead).stage == Stage.WARM_REPLY
    assert receive_email_reply(tenant, **fields) is None  # a redelivery
    assert Message.objects.filter(provider_message_id="reply-1").count() == 1


def test_a_stop_by_email_opts_out_of_every_channel(tenant, lead):
    receive_email_reply(
        tenant,
        channel=Channel.EMAIL_COLD,
        email=lead.email,
        text="Vă rog să nu mă mai contactați.",
        provider_message_id="reply-2",
    )
    journey = Journey.objects.get(lead=lead)
    assert journey.email_opted_out and journey.whatsapp_opted_out


def test_a_stop_from_an_unknown_email_sender_is_suppressed(tenant):
    message = receive_email_reply(
        tenant,
        channel=Channel.EMAIL_WARM,
        email="cineva@ferma.ro",
        text="Dezabonare",
        provider_message_id="reply-3",
    )
    assert message.lead_id is None
    assert is_suppressed(tenant, email="cineva@ferma.ro")


def test_an_answer_to_an_email_goes_back_in_its_thread(tenant, lead):
    from outreach.manual import answer

    inbound = receive_email_reply(
        tenant,
        channel=Channel.EMAIL_COLD,
        email=lead.email,
        text="Ce preț aveți pentru 20 de tone?",
        subject="Re: Oferta îngrășăminte",
        provider_message_id="reply-9",
        thread_id="019ffad3-4b5c-7d6e-8f70-8192a3b4c5d6",
        raw={"email_account": "vanzari@cerniq-mail.ro"},
    )
    reply = answer(lead, "Prețul este 2.100 lei/t.", to=inbound, reason="test", is_manual=False)
    assert (reply.channel, reply.subject, reply.provider_thread_id, reply.counterpart) == (
        Channel.EMAIL_COLD,
        "Re: Oferta îngrășăminte",
        "019ffad3-4b5c-7d6e-8f70-8192a3b4c5d6",
        lead.email,
    )
    assert reply.raw_request == {"sender": "vanzari@cerniq-mail.ro"}
    # What the backend will get: the thread and the account, no campaign (not a push).
    from outreach.delivery import is_pushed
    from outreach.email_transport import outgoing_email

    email = outgoing_email(reply)
    assert (email.in_reply_to, email.sender, email.campaign) == (
        "019ffad3-4b5c-7d6e-8f70-8192a3b4c5d6",
        "vanzari@cerniq-mail.ro",
        "",
    )
    assert not is_pushed(reply)


def test_an_answer_to_a_whatsapp_message_stays_on_whatsapp(tenant, lead):
    from outreach.manual import answer
    from tests.factories import make_phone

    make_phone(tenant)
    inbound = make_message(
        lead, direction="IN", status=Status.RECEIVED, idempotency_key=None, body="Da"
    )
    reply = answer(lead, "Mulțumim!", to=inbound, reason="test", is_manual=False)
    assert reply.channel == Channel.WHATSAPP


def test_the_list_entry_says_what_made_it(tenant, lead):
    """The do-not-contact page shows an entry's source: a complaint, an unsubscribe or a
    bounce says so, even when the lead's opt-out listed the address first; an entry there
    before keeps what it said."""
    from outreach.models import Suppression

    email_events.complained(tenant, email=lead.email)
    complaint = Suppression.objects.get(email=lead.email.lower())
    assert complaint.source == "complaint" and complaint.reason == "suppression.complaint"
    assert Suppression.objects.get(phone=lead.phone).source == "opt_out"  # its number too
    email_events.unsubscribed(tenant, email=lead.email, source="one-click")
    assert Suppression.objects.get(email=lead.email.lower()).source == "complaint"  # kept
    email_events.unsubscribed(tenant, email="alt@agro.ro", source="instantly")
    assert Suppression.objects.get(email="alt@agro.ro").source == "unsubscribe"
    email_events.bounced(tenant, email="nu.exista@agro.ro", permanent=True)
    assert Suppression.objects.get(email="nu.exista@agro.ro").source == "bounce"
