"""A Cloud API number through the one send path: dispatch, the approved template outside the
24-hour window, free text inside it, a lost answer found again through Meta's echo of our
reference, and the portfolio's shared messaging limit."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
import requests
import responses
import time_machine

from integrations.meta.models import ApprovedTemplate, MessagingLimit
from outreach import reasons as codes
from outreach.dispatch import dispatch_due
from outreach.models import Channel, Enrollment, Journey, Message, SequenceStep
from outreach.sending import send_message
from tests.factories import make_outreach_world
from tests.integrations.meta.conftest import GRAPH, NUMBER_ID, api_body, post, webhook_raw
from tests.whatsapp.conftest import MONDAY_10
from whatsapp.models import Phone

URL = f"{GRAPH}/{NUMBER_ID}/messages"
APPROVED = (
    "Bună ziua {{1}}, vă scriem de la Agro Demo pentru {{2}}. Răspundeți STOP pentru dezabonare."
)


@pytest.fixture
def clock():
    with time_machine.travel(MONDAY_10, tick=False) as traveller:
        yield traveller


@pytest.fixture
def world(tenant, clock):
    world = make_outreach_world(tenant, phones=1, leads=2, steps=2)
    Phone.objects.update(provider="meta", account_id=NUMBER_ID, number="+40740000201")
    for step in SequenceStep.objects.filter(tenant=tenant):
        ApprovedTemplate.objects.create(
            tenant=tenant,
            template_version=step.template.versions.get(),
            name=f"pas_{step.position}",
            language="ro",
            parameters=["contact_name", "company_name"],
            text=APPROVED,
        )
    for lead in world["leads"]:
        lead.contact_name = "Ion"
        lead.save(update_fields=["contact_name"])
    return world


def test_a_first_message_goes_as_the_approved_template_and_reads_as_sent(world, tenant):
    dispatch_due(tenant)
    message = Message.objects.filter(status="QUEUED").order_by("pk").first()
    with responses.RequestsMock() as rsps:
        rsps.post(URL, json=api_body("send_template_ok"))
        assert send_message(message.pk).kind == "sent"
        body = json.loads(rsps.calls[0].request.body)
    assert body["type"] == "template" and body["template"]["name"] == "pas_1"
    values = [p["text"] for p in body["template"]["components"][0]["parameters"]]
    assert values == ["Ion", message.lead.name]
    assert body["biz_opaque_callback_data"] == message.idempotency_key
    message.refresh_from_db()
    # The timeline shows what the person read, not the spintax the step was written in.
    assert (
        message.body == f"Bună ziua Ion, vă scriem de la Agro Demo pentru {message.lead.name}. "
        "Răspundeți STOP pentru dezabonare."
    )
    assert message.raw_request["whatsapp_request"]["type"] == "template"


def test_inside_the_window_a_reply_gets_free_text(world, tenant, client, clock):
    dispatch_due(tenant)
    first = Message.objects.filter(status="QUEUED").order_by("pk").first()
    with responses.RequestsMock() as rsps:
        rsps.post(URL, json=api_body("send_template_ok"))
        send_message(first.pk)
    # The person answers; an operator's answer then goes as text, no template needed.
    lead = first.lead
    lead.phone = "+40722111333"
    lead.save(update_fields=["phone"])
    assert post(client, tenant, webhook_raw("whatsapp_message_text")).status_code == 200
    from cerniq.models import WebhookEvent
    from cerniq.webhooks import process_event

    process_event(WebhookEvent.objects.get(provider="meta").pk)
    answer = Message.objects.create(
        tenant=tenant,
        lead=lead,
        channel=Channel.WHATSAPP,
        direction=Message.Direction.OUTBOUND,
        status="QUEUED",
        body="Costă 120 lei/ha, vă trimit oferta.",
        counterpart=lead.phone,
        phone=first.phone,
        is_manual=True,
        idempotency_key="manual-1",
    )
    with responses.RequestsMock() as rsps:
        rsps.post(URL, json=api_body("send_text_ok"))
        assert send_message(answer.pk).kind == "sent"
        body = json.loads(rsps.calls[0].request.body)
    assert body["type"] == "text" and body["text"]["body"] == "Costă 120 lei/ha, vă trimit oferta."


def test_a_version_without_an_approved_template_fails_with_the_reason(world, tenant):
    ApprovedTemplate.objects.all().delete()
    dispatch_due(tenant)
    message = Message.objects.filter(status="QUEUED").order_by("pk").first()
    with responses.RequestsMock():  # no call may be made
        outcome = send_message(message.pk)
    message.refresh_from_db()
    assert outcome.kind == "failed" or message.status in ("DEAD_LETTER", "FAILED")
    assert "approved" in message.error


def test_a_lost_answer_is_found_through_metas_echo_and_never_sent_twice(
    world, tenant, client, clock
):
    dispatch_due(tenant)
    message = Message.objects.filter(status="QUEUED").order_by("pk").first()
    with responses.RequestsMock() as rsps:
        rsps.post(URL, body=requests.exceptions.ReadTimeout("no answer"))
        assert send_message(message.pk).kind == "retry"
    message.refresh_from_db()
    assert message.needs_reconcile
    # Meta did send it: its status webhook echoes our reference.
    status = json.loads(webhook_raw("whatsapp_status_delivered"))
    status["entry"][0]["changes"][0]["value"]["statuses"][0]["biz_opaque_callback_data"] = (
        message.idempotency_key
    )
    assert post(client, tenant, json.dumps(status).encode()).status_code == 200
    from cerniq.models import WebhookEvent
    from cerniq.webhooks import process_event

    process_event(WebhookEvent.objects.get(provider="meta").pk)
    clock.shift(timedelta(minutes=5))
    Message.objects.filter(pk=message.pk).update(scheduled_for=None)
    with responses.RequestsMock():  # a second POST would fail the test
        outcome = send_message(message.pk)
    assert outcome.kind == "reconciled", outcome
    assert Message.objects.get(pk=message.pk).status == "SENT"


def test_the_portfolio_limit_is_shared_and_the_rest_waits_with_the_reason(world, tenant):
    MessagingLimit.objects.create(tenant=tenant, unique_users_per_day=1, source="meta")
    result = dispatch_due(tenant)
    assert Message.objects.filter(status="QUEUED").count() == 1
    assert result.skipped[codes.SHARED_LIMIT] == 1
    waiting = Enrollment.objects.exclude(lead_id__in=Message.objects.values("lead_id")).get()
    journey = Journey.objects.get(lead_id=waiting.lead_id)
    assert journey.next_action_at is not None  # still due: tried again as places free up
    assert "dispatch.shared_limit" in waiting.stalled_reason
