"""The bounce shield (issue #11 §7): the bounce that tips a campaign over 3 % on enough
sends pauses it at Instantly (the request is made) and raises one alert; below the sample
or the threshold nothing happens; when Instantly cannot be reached the event is retried."""

from __future__ import annotations

from decimal import Decimal

import pytest
import responses

from cerniq import reasons
from cerniq.models import Alert, WebhookEvent
from cerniq.webhooks import process_event
from email_channels.models import EmailCampaign
from email_channels.shield import MIN_SAMPLE, bounce_verdict
from outreach.models import Lead
from tests.factories import make_lead
from tests.integrations.instantly.conftest import (
    BASE,
    CAMPAIGN_ID,
    api_body,
    post_webhook,
    webhook_body,
)

pytestmark = pytest.mark.usefixtures("registered")
PAUSE = f"{BASE}/api/v2/campaigns/{CAMPAIGN_ID}/pause"


@pytest.mark.parametrize(
    ("sent", "bounced", "breached"),
    [
        (MIN_SAMPLE - 1, 50, False),  # too few sends to judge
        (MIN_SAMPLE, 3, False),  # exactly 3 %: not over
        (MIN_SAMPLE, 4, True),
        (1000, 30, False),
        (1000, 31, True),
    ],
)
def test_the_rule(sent, bounced, breached):
    assert bounce_verdict(sent, bounced, Decimal("3.00")).breached is breached


@pytest.fixture
def campaign(tenant):
    return EmailCampaign.objects.create(
        tenant=tenant,
        name="Ferme Moldova Q4",
        provider="instantly",
        external_id=CAMPAIGN_ID,
        sent=150,
        bounced=4,  # 2.67 %
    )


def bounce(client, tenant, n: int) -> dict:
    body = webhook_body("email_bounced")
    body["lead_email"] = f"lead{n}@ferma-{n}.ro"
    body["email_id"] = f"019ffad3-0000-7000-8000-{n:012d}"
    body["timestamp"] = f"2026-05-18T07:{n % 60:02d}:35.000Z"
    make_lead(tenant, email=body["lead_email"], email_status=Lead.EmailStatus.VALID)
    response = post_webhook(client, tenant, body)
    assert response.json()["status"] == "accepted", response.json()
    return response.json()


def test_the_bounce_over_the_threshold_pauses_once_and_alerts_once(
    client, tenant, campaign, rsps, monkeypatch
):
    monkeypatch.setenv("INSTANTLY_API_KEY", "test-key-shield")
    pause = rsps.post(PAUSE, json=api_body("campaign_pause"))
    assert process_event(bounce(client, tenant, 1)["id"]) == "processed"  # 5 of 150: 3.33 %
    assert pause.call_count == 1
    campaign.refresh_from_db()
    assert campaign.status == EmailCampaign.Status.PAUSED
    assert "3.33% bounced (5 of 150 sent), over 3.00%" in reasons.render(campaign.status_reason)
    for n in (2, 3):  # the burst goes on: no second pause, the one alert counts them
        assert process_event(bounce(client, tenant, n)["id"]) == "processed"
    assert pause.call_count == 1
    alert = Alert.objects.get(kind=Alert.Kind.BOUNCE_RATE)
    assert alert.subject == f"campaign:{campaign.pk}" and alert.severity == "CRITICAL"
    assert alert.resolved_at is None


def test_under_the_threshold_nothing_is_paused(client, tenant, campaign, rsps, monkeypatch):
    monkeypatch.setenv("INSTANTLY_API_KEY", "test-key-shield")
    EmailCampaign.objects.filter(pk=campaign.pk).update(sent=400, bounced=4)
    pause = rsps.post(PAUSE, json=api_body("campaign_pause"))
    assert process_event(bounce(client, tenant, 1)["id"]) == "processed"
    assert pause.call_count == 0
    assert EmailCampaign.objects.get(pk=campaign.pk).status == EmailCampaign.Status.ACTIVE
    assert not Alert.objects.exists()


def test_when_instantly_cannot_pause_the_event_is_retried(
    client, tenant, campaign, rsps, monkeypatch
):
    monkeypatch.setenv("INSTANTLY_API_KEY", "test-key-shield")
    rsps.post(PAUSE, status=503, json=api_body("error_500"))
    event_id = bounce(client, tenant, 1)["id"]
    with pytest.raises(Exception):  # noqa: B017 - the provider error, whatever its class
        process_event(event_id)
    assert WebhookEvent.objects.get(pk=event_id).status == WebhookEvent.Status.FAILED
    campaign.refresh_from_db()
    # Nothing recorded as paused, and the bounce counted again on the retry, not twice.
    assert (campaign.status, campaign.bounced) == (EmailCampaign.Status.ACTIVE, 4)
    rsps.replace(responses.POST, PAUSE, json=api_body("campaign_pause"))
    assert process_event(event_id) == "processed"
    campaign.refresh_from_db()
    assert (campaign.status, campaign.bounced) == (EmailCampaign.Status.PAUSED, 5)


def test_a_sending_account_over_the_threshold_pauses_the_campaign_it_sends_for(
    client, tenant, campaign, rsps, monkeypatch
):
    """The campaign alone is fine (5 of 1,000); the mailbox the bounce came through is not."""
    from email_channels.models import SenderAccount

    monkeypatch.setenv("INSTANTLY_API_KEY", "test-key-shield")
    EmailCampaign.objects.filter(pk=campaign.pk).update(sent=1000, bounced=5)
    account = SenderAccount.objects.create(
        tenant=tenant,
        provider="instantly",
        address=webhook_body("email_bounced")["email_account"],
        sent=150,
        bounced=4,
    )
    pause = rsps.post(PAUSE, json=api_body("campaign_pause"))
    assert process_event(bounce(client, tenant, 1)["id"]) == "processed"
    assert pause.call_count == 1
    account.refresh_from_db()
    assert (account.bounced, account.flagged_at is not None) == (5, True)
    assert "3.33% (5 of 150 sent)" in reasons.render(account.flag_reason)
    campaign.refresh_from_db()
    assert campaign.status == EmailCampaign.Status.PAUSED
    assert f"sender {account.address}" in reasons.render(campaign.status_reason)
    subjects = set(Alert.objects.values_list("subject", flat=True))
    assert subjects == {f"sender:{account.address}", f"campaign:{campaign.pk}"}
