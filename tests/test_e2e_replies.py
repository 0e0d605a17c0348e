"""Flow 3 through the real door: TimelinesAI's webhook → stored event → worker → reply path."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
import responses
import time_machine
from django.utils import timezone

from cerniq import reasons
from cerniq.models import Alert, WebhookEvent
from cerniq.webhooks import process_event
from hitl import reasons as hitl_reasons
from hitl.models import ReviewItem
from integrations.sandbox.demo_replies import post_reply, reply_payload
from outreach.dispatch import dispatch_due
from outreach.models import Journey, Message
from tests.drain import run_triage
from tests.whatsapp.conftest import MONDAY_10, WEBHOOK_FIXTURES, contacted_over_whatsapp
from whatsapp.models import Phone

WEBHOOKS = WEBHOOK_FIXTURES


@pytest.fixture
def contacted(tenant):
    """Ion Popescu (+40722000111) got step 1 from +40740000101; step 2 is already queued."""
    world = contacted_over_whatsapp(tenant)
    with time_machine.travel(MONDAY_10, tick=False):
        Journey.objects.update(next_action_at=MONDAY_10)
        dispatch_due(tenant)
    assert Message.objects.filter(status="QUEUED").count() == 1
    return world


def post(client, tenant, fixture: str):
    body = (WEBHOOKS / f"{fixture}.json").read_bytes()
    return client.post(
        f"/webhooks/timelinesai/{tenant.webhook_token}/", body, content_type="application/json"
    )


def run_all_events():
    for event in WebhookEvent.objects.filter(status="RECEIVED"):
        process_event(event.pk)


def test_reply_webhook_stops_the_follow_up_and_opens_a_review(
    client, tenant, contacted, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks() as enqueued:
        assert post(client, tenant, "message_received_new__text").status_code == 200
    assert len(enqueued) == 1
    run_all_events()
    follow_up = Message.objects.get(step__position=2)
    assert follow_up.status == "CANCELLED"  # at once, before the triage
    run_triage()
    journey = Journey.objects.get()
    assert journey.stage == "WARM_REPLY" and journey.requires_human_review
    item = ReviewItem.objects.get()
    # Interest that asks the price: URGENT (issue 19 §2), "preț" named as a trigger keyword.
    assert item.priority == "URGENT"
    named = reasons.parse(item.reason)[1]["reasons"]
    assert reasons.code(hitl_reasons.ROUTE_KEYWORDS, keywords="pret") in named
    assert item.message.body.startswith("Bună ziua! Da, ne interesează")
    # TimelinesAI retries deliveries: the same one again changes nothing.
    assert post(client, tenant, "message_received_new__text").json()["status"] == "duplicate"
    run_all_events()
    assert Message.objects.filter(direction="IN").count() == 1
    assert ReviewItem.objects.count() == 1


def test_wrong_token_stores_nothing(client, tenant, contacted):
    body = (WEBHOOKS / "message_received_new__text.json").read_bytes()
    response = client.post(
        "/webhooks/timelinesai/not-the-token/", body, content_type="application/json"
    )
    assert response.status_code == 404
    assert not WebhookEvent.objects.exists()


def test_disconnected_account_webhook_takes_the_phone_offline(client, tenant, contacted):
    assert post(client, tenant, "whatsapp_account_disconnected").status_code == 200
    run_all_events()
    phone = Phone.objects.get()
    assert phone.status == "OFFLINE"
    assert Alert.objects.get(kind="PHONE_OFFLINE").severity == "CRITICAL"
    assert Message.objects.get(step__position=2).status == "CANCELLED"  # re-planned
    assert post(client, tenant, "whatsapp_account_connected").status_code == 200
    run_all_events()
    assert Phone.objects.get().status == "ACTIVE"


@responses.activate
def test_sandbox_demo_reply_is_shaped_like_timelinesai_and_processed(
    client, tenant, contacted, settings
):
    settings.SANDBOX_WEBHOOK_BASE_URL = "http://demo.local"
    lead = Journey.objects.get().lead
    sent = Message.objects.get(status="SENT")
    url = f"http://demo.local/webhooks/timelinesai/{tenant.webhook_token}/"
    captured = []

    def forward(request):  # hand the demo's POST to the real endpoint
        captured.append(json.loads(request.body))
        response = client.post(
            url.replace("http://demo.local", ""), request.body, content_type="application/json"
        )
        return response.status_code, {}, response.content

    responses.add_callback(responses.POST, url, callback=forward)
    status = post_reply(
        "+40740000101",
        lead.phone,
        sent.provider_thread_id or "1001",
        text="Nu sunt interesat, mulțumesc.",
    )
    assert status == 200
    assert set(captured[0]) == set(reply_payload("+1", "+2", "3", "x"))
    run_all_events()
    run_triage()
    item = ReviewItem.objects.get()
    # A polite decline: LOW, and the lead is closed (issue 19 §2).
    assert item.priority == "LOW" and item.lead == lead
    assert Journey.objects.get(lead=lead).stage == "DEAD"


@pytest.mark.django_db(transaction=True)
def test_a_webhook_event_whose_broker_message_was_lost_is_processed_later(client):
    import dramatiq
    from django.core.management import call_command

    from tests.drain import running_workers, wait_until
    from tests.factories import make_tenant

    tenant = make_tenant()
    assert post(client, tenant, "message_received_new__text").status_code == 200
    dramatiq.get_broker().flush_all()  # the broker lost it
    WebhookEvent.objects.update(received_at=timezone.now() - timedelta(hours=1))
    with running_workers():
        call_command("requeue_stale", "--minutes", "5")
        wait_until(
            lambda: WebhookEvent.objects.filter(status="PROCESSED").exists(),
            what="the event processed",
        )
    assert Message.objects.get(direction="IN").lead is None  # an unknown sender, kept
