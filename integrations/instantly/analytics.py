"""Instantly campaign analytics into our daily statistics (issue #11 §4; sibling seed "campaign
stats sync"): every hour, each running campaign's last days from
`GET /api/v2/campaigns/analytics/daily` into CampaignDailyStats (sent, opened, replied,
clicked: unique counts, one per lead). Re-reading recent days is how late opens and replies
land; bounces and unsubscribes are counted by the webhook handlers (`count_event`)."""

from __future__ import annotations

import logging
from datetime import date, timedelta

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from cerniq.provider_errors import ProviderError
from email_channels.models import CampaignDailyStats, EmailCampaign
from integrations.instantly import config
from integrations.instantly.campaign_sync import PROVIDER

log = logging.getLogger(__name__)

SYNC_DAYS = 14  # how far back each sync re-reads (replies come days after a send)
FIELDS = {  # ours: Instantly's
    "sent": "sent",
    "opened": "unique_opened",
    "replied": "unique_replies",
    "clicked": "unique_clicks",
}


def _count(row: dict, key: str) -> int:
    value = row.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


def sync_campaign(campaign: EmailCampaign, *, today: date | None = None, client=None) -> int:
    """Refresh the campaign's last SYNC_DAYS days; returns the days written."""
    today = today or timezone.localdate()
    rows = (client or config.client()).daily_analytics(
        campaign.external_id, start=today - timedelta(days=SYNC_DAYS - 1), end=today
    )
    written = 0
    now = timezone.now()
    with transaction.atomic():
        for row in rows:
            try:
                day = date.fromisoformat(str(row.get("date")))
            except ValueError:
                log.warning("instantly analytics of %s: bad date %r", campaign.pk, row.get("date"))
                continue
            values = {ours: _count(row, theirs) for ours, theirs in FIELDS.items()}
            CampaignDailyStats.objects.update_or_create(
                campaign=campaign,
                day=day,
                defaults={**values, "synced_at": now},
                create_defaults={**values, "synced_at": now, "tenant_id": campaign.tenant_id},
            )
            written += 1
    return written


def sync_all() -> dict[str, int]:
    """Every created, not finished Instantly campaign; one failing does not stop the others."""
    done = failed = 0
    campaigns = EmailCampaign.objects.filter(provider=PROVIDER).exclude(external_id="")
    for campaign in campaigns.exclude(status=EmailCampaign.Status.COMPLETED):
        try:
            sync_campaign(campaign)
            done += 1
        except ProviderError as error:
            failed += 1
            log.warning("instantly analytics of campaign %s failed: %s", campaign.pk, error)
    return {"synced": done, "failed": failed}


def count_event(campaign: EmailCampaign, day: date, field: str) -> None:
    """One more bounce or unsubscribe on `day` (the webhook handlers; dedupe is the intake's)."""
    stats, _created = CampaignDailyStats.objects.get_or_create(
        campaign=campaign, day=day, defaults={"tenant_id": campaign.tenant_id}
    )
    CampaignDailyStats.objects.filter(pk=stats.pk).update(**{field: F(field) + 1})
