"""The suppression list: an address that asked us to stop is never used again, whoever
carries it, on every path (the webhook, import, dispatch, manual sends, the send path)."""

from __future__ import annotations

import io
import json

import pytest
import time_machine

from cerniq import reasons
from cerniq.models import WebhookEvent
from cerniq.webhooks import process_event
from outreach import optout
from outreach.dispatch import dispatch_due
from outreach.importing import import_csv
from outreach.manual import SendRefused, send_manual
from outreach.models import Channel, Journey, Lead, Message, Suppression
from outreach.sending import send_message
from outreach.suppression import is_suppressed, suppress
from tests.factories import make_lead, make_outreach_world
from tests.whatsapp.conftest import MONDAY_10, WEBHOOK_FIXTURES

STRANGER = "+40733999888"


def post_from(client, tenant, phone: str, text: str):
    payload = json.loads((WEBHOOK_FIXTURES / "message_received_new__text.json").read_text())
    payload["chat"]["phone"] = payload["message"]["sender"]["phone"] = phone
    payload["chat"]["chat_id"] = 99887766
    payload["message"]["text"] = text
    response = client.post(
        f"/webhooks/timelinesai/{tenant.webhook_token}/",
        json.dumps(payload),
        content_type="application/json",
    )
    assert response.status_code == 200, response.content
    for event in WebhookEvent.objects.filter(status="RECEIVED"):
        process_event(event.pk)


def test_a_stop_from_an_unknown_sender_suppresses_the_number(client, tenant):
    post_from(client, tenant, STRANGER, "Nu mai trimiteți mesaje. STOP")
    row = Suppression.objects.get(tenant=tenant)
    assert row.phone == STRANGER and row.source_message.body.endswith("STOP")
    inbound = Message.objects.get(counterpart=STRANGER)
    assert inbound.analysis == {"decision": "opt-out: unknown sender suppressed"}
    assert not Message.objects.filter(direction="OUT").exists()  # nothing sent back


def test_a_plain_message_from_an_unknown_sender_suppresses_nothing(client, tenant):
    post_from(client, tenant, STRANGER, "Bună ziua, cine sunteți?")
    assert not Suppression.objects.exists()
    assert Message.objects.get(counterpart=STRANGER).analysis == {
        "decision": "unknown sender: kept"
    }


def test_an_import_after_the_stop_opts_the_new_lead_out_and_dispatch_skips_whatsapp(tenant):
    suppress(tenant, phone=STRANGER, reason="stop from an unknown sender")
    csv = f"name,phone,email\nFerma Noua SRL,{STRANGER},\nAlt Agro SRL,+40733111222,\n"
    assert import_csv(tenant, io.StringIO(csv)).created == 2
    Lead.objects.update(phone_reachable=True)  # checked on WhatsApp since
    stopped = Journey.objects.get(lead__phone=STRANGER)
    assert stopped.whatsapp_opted_out and stopped.whatsapp_opted_out_at
    assert not Journey.objects.get(lead__phone="+40733111222").whatsapp_opted_out
    with time_machine.travel(MONDAY_10, tick=False):
        world = make_outreach_world(tenant, leads=0, phones=1)
        from outreach.sequences import enroll_many

        enroll_many(Lead.objects.filter(tenant=tenant), world["sequence"])
        dispatch_due(tenant)
    assert list(Message.objects.values_list("counterpart", flat=True)) == ["+40733111222"]


def test_a_lead_that_opts_out_suppresses_its_number_for_the_other_leads_carrying_it(tenant):
    first = make_lead(tenant, phone="+40744555666", email="a@ferma.ro")
    second = make_lead(tenant, phone="+40744555666", cui="", name="Ferma Doi SRL")
    optout.opt_out(first, Channel.WHATSAPP)
    assert is_suppressed(tenant, phone="+40744555666")
    assert Journey.objects.get(lead=second).whatsapp_opted_out
    assert not Journey.objects.get(lead=second).email_opted_out  # it has no email
    assert is_suppressed(tenant, email="a@ferma.ro")  # every channel stops (issue #11 §8)


def test_manual_sends_refuse_a_suppressed_number(tenant):
    lead = make_lead(tenant, phone="+40744555777")
    make_outreach_world(tenant, leads=0, phones=1)
    Suppression.objects.create(tenant=tenant, phone=lead.phone, reason="admin")
    with pytest.raises(SendRefused, match="asked us to stop"):
        send_manual(lead, "Bună ziua")


@pytest.mark.parametrize("channel", [Channel.WHATSAPP, Channel.EMAIL_COLD])
def test_the_send_path_drops_a_message_whose_address_was_suppressed_after_queueing(
    tenant, channel, settings
):
    settings.PROVIDERS = {
        **settings.PROVIDERS,
        "email.instantly": {"BACKEND": "tests.fakes.FakeEmail"},
    }
    with time_machine.travel(MONDAY_10, tick=False):
        world = make_outreach_world(tenant, leads=1, phones=1, channel=channel)
        Lead.objects.update(email_status="valid")
        dispatch_due(tenant)
        message = Message.objects.get()
        address = {"phone": message.counterpart} if channel == Channel.WHATSAPP else {}
        address = address or {"email": message.counterpart.upper()}  # case does not matter
        Suppression.objects.create(tenant=tenant, reason="admin", **address)
        outcome = send_message(message.pk)
    assert outcome.kind == "cancelled"
    assert reasons.render(outcome.detail) == "The recipient's address is on the suppression list"
    assert world["leads"][0].pk == message.lead_id


def test_suppressing_twice_keeps_one_row(tenant):
    assert suppress(tenant, email="Office@Ferma.ro", reason="unsubscribe")
    assert not suppress(tenant, email="office@ferma.ro", reason="unsubscribe")
    assert Suppression.objects.get().email == "office@ferma.ro"


@pytest.mark.django_db
def test_a_page_asks_for_its_phones_emails_domains_and_companies_in_one_query(tenant, other_tenant):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from outreach.suppression import Listed, listed
    from outreach.suppression_list import add_entry

    suppress(tenant, phone="+40744000001", reason="stop")
    suppress(tenant, email="Stop@Ferma.ro", reason="stop")
    add_entry(tenant, kind="domain", value="@Concurent.RO", reason="a competitor")
    add_entry(tenant, kind="cui", value="RO22732040", reason="asked by phone")
    suppress(other_tenant, phone="+40744000002", reason="stop")  # not this tenant's
    add_entry(other_tenant, kind="domain", value="ferma.ro", reason="not this tenant's")
    with CaptureQueriesContext(connection) as ctx:
        found = listed(
            tenant,
            phones=["+40744000001", "+40744000002", ""],
            emails=["stop@ferma.ro", "ok@ferma.ro", "ana@concurent.ro", ""],
            cuis=["22732040", "14399840", ""],
        )
    assert found == Listed({"+40744000001"}, {"stop@ferma.ro"}, {"concurent.ro"}, {"22732040"})
    assert len(ctx.captured_queries) == 1
    assert found.of(email="Ana@Concurent.ro").email_kind == "domain"
    assert found.of(email="stop@ferma.ro", cui="22732040").email_kind == "email"
    assert found.of(phone="+40799000000", cui="22732040").whatsapp_kind == "cui"
    assert found.of(email="ok@ferma.ro", phone="+40744000002").email_kind == ""
    assert listed(tenant, emails=["STOP@ferma.ro"]).emails == {"stop@ferma.ro"}
    with CaptureQueriesContext(connection) as ctx:
        assert listed(tenant) == Listed()
    assert ctx.captured_queries == []
