"""What each Instantly event does once a worker processes it: replies through the email
reply path, bounces and unsubscribes through outreach.email_events, campaign counters,
alerts, and interest labels through the stage machine only."""

from __future__ import annotations

import pytest

from cerniq.models import Alert, WebhookEvent
from cerniq.webhooks import process_event
from email_channels.models import EmailCampaign
from integrations.instantly.handlers import html_to_text
from outreach.models import Channel, Enrollment, Journey, Lead, Message, Stage, StageTransition
from outreach.suppression import is_suppressed
from tests.drain import run_triage
from tests.factories import make_lead, make_message, make_sequence
from tests.integrations.instantly.conftest import (
    CAMPAIGN_ID,
    LEAD_EMAIL,
    post_webhook,
    webhook_body,
)

pytestmark = pytest.mark.usefixtures("registered")
REPLY_ID = "019ffad3-4b5c-7d6e-8f70-8192a3b4c5d6"


@pytest.fixture
def lead(tenant):
    lead = make_lead(tenant, email=LEAD_EMAIL, email_status=Lead.EmailStatus.VALID)
    Journey.objects.filter(lead=lead).update(stage=Stage.CONTACTED_EMAIL)
    return lead


@pytest.fixture
def campaign(tenant):
    return EmailCampaign.objects.create(
        tenant=tenant, name="Ferme Moldova Q4", provider="instantly", external_id=CAMPAIGN_ID
    )


def deliver(client, tenant, body: dict) -> WebhookEvent:
    response = post_webhook(client, tenant, body)
    assert response.status_code == 200, response.content
    assert response.json()["status"] == "accepted", response.json()
    assert process_event(response.json()["id"]) == "processed"
    return WebhookEvent.objects.get(pk=response.json()["id"])


def stage_of(lead) -> str:
    return Journey.objects.get(lead=lead).stage


def test_a_reply_is_stored_once_and_stops_the_leads_sequences(client, tenant, lead):
    enrollment = Enrollment.objects.create(
        tenant=tenant, lead=lead, sequence=make_sequence(tenant), current_step=1
    )
    follow_up = make_message(lead, channel=Channel.EMAIL_COLD, counterpart=LEAD_EMAIL)
    deliver(client, tenant, webhook_body("reply_received"))

    reply = Message.objects.get(direction=Message.Direction.INBOUND)
    assert (reply.lead, reply.channel, reply.counterpart) == (lead, Channel.EMAIL_COLD, LEAD_EMAIL)
    assert reply.provider_message_id == REPLY_ID and reply.provider_thread_id == REPLY_ID
    assert reply.subject == "Re: Irigații pentru Agroferma Popescu"
    assert reply.body.startswith("Bună ziua,\n\nDa, ne interesează.")
    assert reply.sent_at.isoformat() == "2026-10-06T09:03:55+00:00"
    assert reply.raw_response["unibox_url"].startswith("https://app.instantly.ai/")
    assert "reply_html" not in reply.raw_response  # only a subset is kept
    enrollment.refresh_from_db()
    assert enrollment.status == Enrollment.Status.STOPPED
    follow_up.refresh_from_db()
    assert follow_up.status == Message.Status.CANCELLED
    run_triage()
    assert stage_of(lead) == Stage.WARM_REPLY


def test_a_replayed_reply_stores_nothing_more(client, tenant, lead):
    event = deliver(client, tenant, webhook_body("reply_received"))
    from cerniq.webhooks import replay

    assert replay(event)
    assert process_event(event.pk) == "processed"
    assert Message.objects.filter(direction=Message.Direction.INBOUND).count() == 1


def test_an_html_only_reply_is_read_as_text(client, tenant, lead):
    body = {**webhook_body("reply_received"), "reply_text": None}
    deliver(client, tenant, body)
    reply = Message.objects.get(direction=Message.Direction.INBOUND)
    assert reply.body == (
        "Bună ziua,\n\nDa, ne interesează. Puteți reveni cu o ofertă pentru 300 ha?\n\nIon Popescu"
    )


def test_html_to_text_drops_tags_scripts_and_entities():
    html = "<p>Da&nbsp;&amp; mulțumesc<br>Ion</p><script>x()</script><style>p{}</style>"
    assert html_to_text(html) == "Da & mulțumesc\nIon"


def test_an_auto_reply_goes_through_the_same_path(client, tenant, lead):
    deliver(client, tenant, webhook_body("auto_reply_received"))
    reply = Message.objects.get(direction=Message.Direction.INBOUND)
    assert reply.body.startswith("Sunt în concediu")


def test_a_send_counts_into_the_campaign(client, tenant, campaign):
    deliver(client, tenant, webhook_body("email_sent"))
    step_two = {**webhook_body("email_sent"), "timestamp": "2026-10-09T07:00:00.000Z"}
    deliver(client, tenant, step_two)
    campaign.refresh_from_db()
    assert (campaign.sent, campaign.bounced) == (2, 0)


def test_a_bounce_is_hard_suppresses_and_counts(client, tenant, lead, campaign):
    deliver(client, tenant, webhook_body("email_sent"))
    deliver(client, tenant, webhook_body("email_bounced"))
    lead.refresh_from_db()
    assert lead.email_status == Lead.EmailStatus.BOUNCED
    assert is_suppressed(tenant, email=LEAD_EMAIL)
    campaign.refresh_from_db()
    assert (campaign.sent, campaign.bounced) == (1, 1)


def test_a_bounce_before_its_send_keeps_bounced_within_sent(client, tenant, campaign):
    deliver(client, tenant, webhook_body("email_bounced"))
    campaign.refresh_from_db()
    assert (campaign.sent, campaign.bounced) == (1, 1)


def test_a_payload_saying_soft_bounce_does_not_suppress(client, tenant, lead):
    deliver(client, tenant, {**webhook_body("email_bounced"), "bounce_type": "soft"})
    lead.refresh_from_db()
    assert lead.email_status == Lead.EmailStatus.VALID
    assert not is_suppressed(tenant, email=LEAD_EMAIL)


def test_an_unsubscribe_opts_the_lead_out(client, tenant, lead):
    deliver(client, tenant, webhook_body("lead_unsubscribed"))
    journey = Journey.objects.get(lead=lead)
    assert journey.email_opted_out
    lead.refresh_from_db()
    assert lead.email_status == Lead.EmailStatus.UNSUBSCRIBED


def test_opens_and_clicks_are_handled_without_a_message_row(client, tenant, lead):
    for name in ("email_opened", "link_clicked"):
        assert deliver(client, tenant, webhook_body(name)).status == WebhookEvent.Status.PROCESSED
    assert not Message.objects.exists()


def test_an_account_error_opens_one_alert_per_account(client, tenant):
    deliver(client, tenant, webhook_body("account_error"))
    again = {**webhook_body("account_error"), "timestamp": "2026-10-06T12:00:00.000Z"}
    deliver(client, tenant, again)
    alert = Alert.objects.get(tenant=tenant)
    assert alert.subject == "instantly-account:vanzari@cerniq-mail.ro"
    assert alert.occurrences == 2 and alert.resolved_at is None


def test_campaign_completed_marks_the_campaign(client, tenant, campaign):
    deliver(client, tenant, webhook_body("campaign_completed"))
    campaign.refresh_from_db()
    assert campaign.status == EmailCampaign.Status.COMPLETED


def test_events_of_a_campaign_we_do_not_have_change_nothing(client, tenant, campaign):
    other = "019ffad2-0000-7000-8000-000000000000"
    deliver(client, tenant, {**webhook_body("email_sent"), "campaign_id": other})
    deliver(client, tenant, {**webhook_body("campaign_completed"), "campaign_id": other})
    campaign.refresh_from_db()
    assert campaign.sent == 0 and campaign.status == EmailCampaign.Status.ACTIVE


@pytest.mark.parametrize(
    ("label", "start", "expected"),
    [
        ("lead_interested", Stage.CONTACTED_EMAIL, Stage.WARM_REPLY),
        ("lead_not_interested", Stage.CONTACTED_EMAIL, Stage.DEAD),
        ("lead_meeting_booked", Stage.WARM_REPLY, Stage.NEGOTIATION),
        ("lead_meeting_completed", Stage.WARM_REPLY, Stage.NEGOTIATION),
        ("lead_closed", Stage.NEGOTIATION, Stage.CONVERTED),
    ],
)
def test_interest_labels_move_the_stage_through_the_stage_machine(
    client, tenant, lead, label, start, expected
):
    Journey.objects.filter(lead=lead).update(stage=start)
    deliver(client, tenant, webhook_body(label))
    assert stage_of(lead) == expected
    move = StageTransition.objects.get(journey__lead=lead)
    assert (move.from_stage, move.to_stage, move.by_system) == (start, expected, "instantly")


@pytest.mark.parametrize(
    ("label", "start"),
    [
        ("lead_not_interested", Stage.NEGOTIATION),  # people lead it: a label does not close it
        ("lead_interested", Stage.NEGOTIATION),  # never backwards
        ("lead_meeting_booked", Stage.CONTACTED_EMAIL),  # not a legal move
        ("lead_closed", Stage.DEAD),
        ("lead_interested", Stage.PAUSED),
    ],
)
def test_a_label_that_would_not_be_a_forward_legal_move_is_skipped(
    client, tenant, lead, label, start
):
    Journey.objects.filter(lead=lead).update(stage=start)
    assert deliver(client, tenant, webhook_body(label)).status == WebhookEvent.Status.PROCESSED
    assert stage_of(lead) == start
    assert not StageTransition.objects.exists()
