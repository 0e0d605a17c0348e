"""Instantly campaign analytics into the daily statistics (issue #11 §4): the sync writes
sent/opened/replied/clicked per campaign and day from the daily analytics (recent days
re-read, never duplicated), bounces and unsubscribes are counted from the webhooks and
survive a sync; the sync is one of the settings' periodic jobs."""

from __future__ import annotations

from datetime import date

import pytest
from django.conf import settings as django_settings

from cerniq.webhooks import process_event
from email_channels.models import CampaignDailyStats, EmailCampaign
from integrations.instantly import analytics
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
DAILY = f"{BASE}/api/v2/campaigns/analytics/daily"


@pytest.fixture
def campaign(tenant):
    return EmailCampaign.objects.create(
        tenant=tenant, name="Ferme Moldova Q4", provider="instantly", external_id=CAMPAIGN_ID
    )


def days(campaign) -> dict:
    return {
        s.day.isoformat(): (s.sent, s.opened, s.replied, s.clicked, s.bounced, s.unsubscribed)
        for s in CampaignDailyStats.objects.filter(campaign=campaign)
    }


def test_the_sync_writes_each_day_once(campaign, instantly, rsps):
    call = rsps.get(DAILY, json=api_body("analytics_daily"))
    assert analytics.sync_campaign(campaign, today=date(2026, 10, 7), client=instantly) == 2
    assert analytics.sync_campaign(campaign, today=date(2026, 10, 7), client=instantly) == 2
    assert days(campaign) == {"2026-10-06": (40, 0, 3, 0, 0, 0), "2026-10-07": (38, 0, 2, 0, 0, 0)}
    query = call.calls[0].request.url
    assert f"campaign_id={CAMPAIGN_ID}" in query
    assert "start_date=2026-09-24" in query and "end_date=2026-10-07" in query


def test_webhook_bounces_and_unsubscribes_are_counted_by_day_and_kept_by_the_sync(
    client, tenant, campaign, instantly, rsps
):
    for event in ("email_bounced", "lead_unsubscribed"):
        body = webhook_body(event)
        body["timestamp"] = "2026-10-06T09:00:00.000Z"
        make_lead(tenant, email=body["lead_email"], email_status=Lead.EmailStatus.VALID)
        answer = post_webhook(client, tenant, body).json()
        assert process_event(answer["id"]) == "processed"
    rsps.get(DAILY, json=api_body("analytics_daily"))
    analytics.sync_campaign(campaign, today=date(2026, 10, 7), client=instantly)
    assert days(campaign)["2026-10-06"] == (40, 0, 3, 0, 1, 1)


def test_junk_rows_are_skipped_not_fatal(campaign, instantly, rsps):
    rsps.get(
        DAILY,
        json=[
            {"date": "not a date", "sent": 3},
            {"date": "2026-10-06", "sent": -4, "replies": True},
        ],
    )
    assert analytics.sync_campaign(campaign, today=date(2026, 10, 7), client=instantly) == 1
    assert days(campaign) == {"2026-10-06": (0, 0, 0, 0, 0, 0)}


def test_the_sync_runs_hourly_from_the_settings():
    jobs = {job["name"]: job for job in django_settings.PERIODIC_JOBS}
    assert jobs["instantly-analytics"]["actor"] == "integrations.instantly.tasks.sync_analytics"
