"""The campaigns page's rows: each sequence's cold email, with its provider campaign.

A sequence's cold emails count as sent by the dashboard's definition (`SENT`), whether or
not a provider campaign exists for it: with the demo's sandbox, or before Instantly
created the campaign, the emails still went out and the page says so. The provider's own
counters (`EmailCampaign.sent` / `bounced`, from its webhooks) are what the bounce shield
judges; the page shows them beside ours, labelled as the provider's.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from django.db.models import Count, Q

from cerniq.models import Tenant
from email_channels.models import EmailCampaign
from email_channels.shield import bounce_verdict
from outreach.analytics.definitions import SENT
from outreach.models import Channel, Message, Sequence


@dataclass(frozen=True)
class CampaignRow:
    sequence: Sequence | None
    campaign: EmailCampaign | None  # None: the emails went out without a provider campaign
    sent: int  # our count: the sequence's cold emails that went out (bounces included)
    bounced: int  # of those, bounced

    @property
    def name(self) -> str:
        if self.campaign is not None:
            return self.campaign.name
        return self.sequence.name if self.sequence else ""

    @property
    def provider_rate(self) -> Decimal | None:
        """The provider's bounce rate, the one the shield judges (None before a send)."""
        c = self.campaign
        if c is None or not c.sent:
            return None
        return bounce_verdict(c.sent, c.bounced, c.bounce_threshold_percent).rate_percent


def campaign_rows(tenant: Tenant) -> list[CampaignRow]:
    """Every provider campaign of the tenant and every sequence that sent cold email
    without one, by name: two queries."""
    counts = {
        row["sequence"]: row
        for row in Message.objects.filter(
            tenant=tenant, channel=Channel.EMAIL_COLD, sequence__isnull=False
        )
        .filter(SENT)
        .order_by()
        .values("sequence")
        .annotate(sent=Count("pk"), bounced=Count("pk", filter=Q(status=Message.Status.BOUNCED)))
    }
    rows = []
    campaigns = EmailCampaign.objects.filter(tenant=tenant).select_related("sequence")
    for campaign in campaigns:
        found = counts.pop(campaign.sequence_id, None) if campaign.sequence_id else None
        sent, bounced = (found["sent"], found["bounced"]) if found else (0, 0)
        rows.append(CampaignRow(campaign.sequence, campaign, sent, bounced))
    if counts:
        sequences = Sequence.objects.filter(tenant=tenant, pk__in=counts).in_bulk()
        for sequence_id, found in counts.items():
            rows.append(
                CampaignRow(sequences.get(sequence_id), None, found["sent"], found["bounced"])
            )
    return sorted(rows, key=lambda row: row.name.casefold())
