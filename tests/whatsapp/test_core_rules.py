"""The core's WhatsApp rules, called as a provider package calls them: an inbound message
(hitl.whatsapp_inbound) and a status or an account state reported (outreach.whatsapp_status).
Both backends (TimelinesAI, the Cloud API) only parse their payloads into these."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from cerniq.provider_errors import AccountBanned, AccountRestricted, InvalidRecipient
from hitl import whatsapp_inbound
from hitl.whatsapp_inbound import WhatsAppEcho, WhatsAppInbound
from outreach.models import Journey, Lead, Message
from outreach.whatsapp_status import StatusReport, account_reported, status_reported
from tests.factories import make_lead, make_message, make_phone
from whatsapp.models import Phone

AT = datetime(2026, 11, 23, 9, 30, tzinfo=UTC)
BSUID = "RO.1234567890123456789"


@pytest.fixture
def phone(tenant):
    return make_phone(tenant, account_id="106540352242922")


def test_a_message_without_a_number_finds_its_lead_by_the_user_id(tenant, phone):
    lead = make_lead(tenant, whatsapp_user_id=BSUID)
    stored = whatsapp_inbound.receive(
        tenant,
        WhatsAppInbound(
            "wamid.A", "Bună, cât costă?", AT, our_account_id=phone.account_id, sender_user_id=BSUID
        ),
    )
    assert stored is not None and stored.lead_id == lead.pk
    assert stored.phone_id == phone.pk and stored.counterpart == BSUID
    # The reply path ran: automation stopped for the lead.
    assert Journey.objects.get(lead=lead).last_reply_at is not None
    assert Message.objects.get(pk=stored.pk).analysis["pending"] is True


def test_the_user_id_is_learnt_from_a_message_that_has_the_number(tenant, phone):
    lead = make_lead(tenant)
    whatsapp_inbound.receive(
        tenant,
        WhatsAppInbound(
            "wamid.B",
            "Da",
            AT,
            our_number=phone.number,
            sender_phone=lead.phone,
            sender_user_id=BSUID,
        ),
    )
    assert Lead.objects.get(pk=lead.pk).whatsapp_user_id == BSUID
    # ... so the next one, without the number, still finds Ana.
    later = whatsapp_inbound.receive(
        tenant, WhatsAppInbound("wamid.C", "Mai aveți?", AT, sender_user_id=BSUID)
    )
    assert later is not None and later.lead_id == lead.pk


def test_a_redelivered_message_is_stored_once_and_a_stranger_is_kept(tenant, phone):
    first = WhatsAppInbound("wamid.D", "Cine sunteți?", AT, sender_phone="+40711000999")
    assert whatsapp_inbound.receive(tenant, first).lead_id is None
    assert whatsapp_inbound.receive(tenant, first) is None
    assert Message.objects.filter(provider_message_id="wamid.D").count() == 1


def test_an_echo_teaches_our_send_its_chat_or_is_kept_once(tenant, phone):
    lead = make_lead(tenant)
    ours = make_message(lead, phone=phone, status="SENT", provider_message_id="uid-1")
    whatsapp_inbound.record_echo(tenant, WhatsAppEcho("uid-1", "Bună ziua!", AT, chat_id="77"))
    assert Message.objects.get(pk=ours.pk).provider_thread_id == "77"
    other = WhatsAppEcho(
        "uid-2",
        "scris din telefon",
        AT,
        our_number=phone.number,
        recipient_phone=lead.phone,
        chat_id="77",
    )
    whatsapp_inbound.record_echo(tenant, other)
    whatsapp_inbound.record_echo(tenant, other)
    kept = Message.objects.get(provider_message_id="uid-2")
    assert kept.is_manual and kept.lead_id == lead.pk and kept.phone_id == phone.pk


def test_a_status_only_moves_forward(tenant, phone):
    lead = make_lead(tenant)
    sent = make_message(lead, phone=phone, status="SENT", provider_message_id="wamid.S")
    assert status_reported(tenant, StatusReport("wamid.S", "READ", AT))
    assert not status_reported(tenant, StatusReport("wamid.S", "DELIVERED", AT))
    assert Message.objects.get(pk=sent.pk).status == "READ"
    assert not status_reported(tenant, StatusReport("wamid.unknown", "READ", AT))


def test_another_tenants_send_is_never_moved(tenant, other_tenant, phone):
    theirs = make_message(make_lead(other_tenant), status="SENT", provider_message_id="wamid.T")
    assert not status_reported(tenant, StatusReport("wamid.T", "READ", AT))
    assert Message.objects.get(pk=theirs.pk).status == "SENT"


def test_a_failure_after_sending_has_the_consequences_of_one_at_sending(tenant, phone):
    lead = make_lead(tenant)
    make_message(lead, phone=phone, status="SENT", provider_message_id="wamid.F1")
    status_reported(tenant, StatusReport("wamid.F1", "FAILED", AT, InvalidRecipient("131026")))
    assert Lead.objects.get(pk=lead.pk).phone_reachable is False

    make_message(make_lead(tenant), phone=phone, status="SENT", provider_message_id="wamid.F2")
    status_reported(tenant, StatusReport("wamid.F2", "FAILED", AT, AccountBanned("368")))
    assert Phone.objects.get(pk=phone.pk).status == Phone.Status.BANNED


def test_account_reports_change_a_phone_once_and_only_a_reinstatement_lifts_a_ban(tenant, phone):
    assert account_reported(phone, connected=False, reason="gone") != ""
    assert account_reported(phone, connected=False, reason="gone") == ""
    assert account_reported(phone, connected=True) != ""
    assert Phone.objects.get(pk=phone.pk).status == Phone.Status.ACTIVE
    account_reported(phone, connected=False, reason="DISABLE", banned=True)
    assert account_reported(phone, connected=True) == ""
    assert Phone.objects.get(pk=phone.pk).status == Phone.Status.BANNED
    account_reported(phone, connected=True, reinstated=True)
    assert Phone.objects.get(pk=phone.pk).status == Phone.Status.ACTIVE


def test_a_restriction_pauses_new_chats(tenant, phone):
    account_reported(phone, connected=True, restricted=True, reason=str(AccountRestricted("x")))
    phone.refresh_from_db()
    assert phone.status == Phone.Status.PAUSED
    assert phone.new_contacts_paused_until is not None
