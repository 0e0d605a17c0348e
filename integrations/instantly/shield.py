"""The bounce shield for Instantly campaigns: on the bounce that tips a campaign over its
threshold (email_channels.shield, the rule), pause it at Instantly and raise one alert.

The pause is asked of Instantly first and recorded after: if Instantly cannot be reached,
the webhook's processing fails and is retried (the counters roll back with it), so a
campaign is never marked paused here while it still sends there. Two bounces handled at
once may both ask for the pause; pausing is idempotent at Instantly and the alert is one
open alert per campaign (cerniq.alerts.raise_alert)."""

from __future__ import annotations

import logging

from django.utils import timezone

from cerniq import reasons
from cerniq.alerts import raise_alert
from cerniq.models import Alert
from email_channels import reasons as codes
from email_channels.models import EmailCampaign, SenderAccount
from email_channels.shield import bounce_verdict
from integrations.instantly import config

log = logging.getLogger(__name__)


def guard(campaign: EmailCampaign, account: SenderAccount | None = None) -> bool:
    """Pause `campaign` if its bounce rate, or that of the sending `account` the bounce came
    through, is over the campaign's threshold. True when it paused it."""
    campaign.refresh_from_db(fields=["sent", "bounced", "status", "bounce_threshold_percent"])
    threshold = campaign.bounce_threshold_percent
    verdict = bounce_verdict(campaign.sent, campaign.bounced, threshold)
    figures = {"sent": campaign.sent, "bounced": campaign.bounced, "threshold": str(threshold)}
    paused_why = codes.SHIELD_PAUSED
    if account is not None and not verdict.breached:
        account.refresh_from_db(fields=["sent", "bounced", "flagged_at"])
        by_account = bounce_verdict(account.sent, account.bounced, threshold)
        if by_account.breached:
            figures = {"sent": account.sent, "bounced": account.bounced, "sender": account.address}
            figures.update(threshold=str(threshold), rate=str(by_account.rate_percent))
            _flag(campaign, account, figures)
            verdict, paused_why = by_account, codes.SHIELD_PAUSED_SENDER
    figures["rate"] = str(verdict.rate_percent)
    if not verdict.breached:
        return False
    if campaign.status != EmailCampaign.Status.ACTIVE or not campaign.external_id:
        return False
    config.client().pause_campaign(campaign.external_id)  # raises: the event is retried
    EmailCampaign.objects.filter(pk=campaign.pk).update(
        status=EmailCampaign.Status.PAUSED,
        status_reason=reasons.code(paused_why, **figures),
    )
    raise_alert(
        campaign.tenant,
        Alert.Kind.BOUNCE_RATE,
        f"campaign:{campaign.pk}",
        reasons.code(
            codes.ALERT_CAMPAIGN_PAUSED,
            name=campaign.name,
            provider="Instantly",
            **{k: v for k, v in figures.items() if k != "sender"},
        ),
        severity=Alert.Severity.CRITICAL,
    )
    log.warning("instantly campaign %s paused: %s", campaign.pk, verdict.reason)
    return True


def _flag(campaign: EmailCampaign, account: SenderAccount, figures: dict) -> None:
    """A sender over the threshold: kept on its row and told once (one open alert per
    account); its campaigns pause as their own bounces arrive through it."""
    said = reasons.code(codes.ALERT_SENDER_BOUNCES, provider="Instantly", **figures)
    if account.flagged_at is None:
        SenderAccount.objects.filter(pk=account.pk, flagged_at__isnull=True).update(
            flagged_at=timezone.now(), flag_reason=said
        )
    raise_alert(
        campaign.tenant,
        Alert.Kind.BOUNCE_RATE,
        f"sender:{account.address}",
        said,
        severity=Alert.Severity.CRITICAL,
    )
