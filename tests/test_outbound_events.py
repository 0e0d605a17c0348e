"""Each outgoing webhook event comes from its one owner, through the real service
function, as an outbox row in the change's transaction (cerniq.outbound.events.emit)."""

from __future__ import annotations

import pytest
import responses
import time_machine

from cerniq.models import WebhookDelivery, WebhookEndpoint
from cerniq.outbound import endpoints
from cerniq.outbound.events import EVENTS
from hitl import review
from hitl.models import ReviewItem
from hitl.replies import process_reply
from outreach import optout, stages
from outreach.models import Channel, Message, Priority, Stage
from outreach.sending import send_message
from tests.drain import run_triage
from tests.factories import make_lead, make_phone, make_user
from tests.outreach.test_dead_letters import (
    MONDAY_10,
    REFUSED,
    SEND_URL,
    use_timelinesai,
    whatsapp_world,
)
from whatsapp import phones
from whatsapp.models import Phone


@pytest.fixture
def clock():
    with time_machine.travel(MONDAY_10, tick=False) as traveller:
        yield traveller


@pytest.fixture
def endpoint(tenant):
    return WebhookEndpoint.objects.create(
        tenant=tenant,
        url="https://hooks.example.com/cerniq",
        events=list(EVENTS),
        secret=endpoints.new_secret(),
    )


def owed(event_type: str) -> list[dict]:
    """The payloads of `event_type` in the outbox."""
    rows = WebhookDelivery.objects.filter(event_type=event_type).order_by("pk")
    return [row.payload for row in rows]


def test_a_stage_change_is_owed_as_lead_stage_changed(tenant, endpoint):
    lead = make_lead(tenant)
    stages.transition(lead.journey, Stage.CONTACTED_WA, reason="sent", by_system="dispatch")
    (payload,) = owed("lead.stage_changed")
    assert payload["tenant"] == tenant.slug and payload["id"].startswith("msg_")
    data = payload["data"]
    assert (data["lead_id"], data["from_stage"], data["to_stage"]) == (
        lead.pk,
        "COLD",
        "CONTACTED_WA",
    )
    assert (data["reason"], data["by_system"]) == ("sent", "dispatch")


def test_a_refused_stage_change_owes_nothing(tenant, endpoint):
    lead = make_lead(tenant)
    with pytest.raises(stages.IllegalTransition):
        stages.transition(lead.journey, Stage.CONVERTED, reason="try")
    assert not WebhookDelivery.objects.exists()


def test_an_opt_out_is_owed_as_lead_opted_out_once(tenant, endpoint):
    lead = make_lead(tenant)
    optout.opt_out(lead, Channel.WHATSAPP)
    optout.opt_out(lead, Channel.EMAIL_COLD)  # already out everywhere: nothing new
    assert [p["data"] for p in owed("lead.opted_out")] == [
        {"lead_id": lead.pk, "channel": Channel.WHATSAPP}
    ]


def test_a_reply_is_owed_as_lead_replied(tenant, endpoint):
    lead = make_lead(tenant)
    message = Message.objects.create(
        tenant=tenant,
        lead=lead,
        channel=Channel.WHATSAPP,
        direction=Message.Direction.INBOUND,
        status=Message.Status.RECEIVED,
        body="Bună ziua, ne interesează oferta. Ce preț aveți?",
        counterpart=lead.phone,
    )
    process_reply(lead, message)
    assert owed("lead.replied") == []  # owed once the reply is triaged, with its intent
    (decision,) = run_triage()
    (payload,) = owed("lead.replied")
    assert payload["data"] | {"intent": None} == {
        "lead_id": lead.pk,
        "message_id": message.pk,
        "channel": Channel.WHATSAPP,
        "text": message.body,
        "intent": None,
        "decision": decision,
    }


def test_review_items_are_owed_when_opened_and_when_closed(tenant, endpoint):
    lead = make_lead(tenant)
    user = make_user(tenant)
    item = review.open_item(lead, reason="Asks for a price", priority=Priority.HIGH)
    (created,) = owed("review.created")
    assert created["data"]["review_id"] == item.pk
    assert (created["data"]["status"], created["data"]["priority"]) == ("OPEN", Priority.HIGH)

    review.resolve(item, user, note="Called them back")
    (resolved,) = owed("review.resolved")
    data = resolved["data"]
    assert (data["review_id"], data["lead_id"]) == (item.pk, lead.pk)
    assert (data["status"], data["resolution"]) == (ReviewItem.Status.RESOLVED, "Called them back")


def test_a_message_the_send_path_gives_up_on_is_owed_as_message_failed(
    tenant, endpoint, settings, clock
):
    use_timelinesai(settings)
    whatsapp_world(tenant)
    message = Message.objects.get()
    with responses.RequestsMock() as http:
        http.post(SEND_URL, status=400, json=REFUSED)
        assert send_message(message.pk).kind == "dead"
    (payload,) = owed("message.failed")
    data = payload["data"]
    assert (data["message_id"], data["lead_id"]) == (message.pk, message.lead_id)
    assert (data["channel"], data["status"]) == (Channel.WHATSAPP, Message.Status.DEAD_LETTER)
    assert data["error"]


def test_a_phone_status_change_is_owed_as_phone_status_changed(tenant, endpoint):
    phone = make_phone(tenant)
    phones.mark_offline(phone, "account disconnected")
    (payload,) = owed("phone.status_changed")
    assert payload["data"] | {"changed_at": None} == {
        "phone_id": phone.pk,
        "number": phone.number,
        "status": Phone.Status.OFFLINE,
        "previous_status": Phone.Status.ACTIVE,
        "reason": "account disconnected",
        "changed_at": None,
    }
