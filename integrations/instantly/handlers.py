"""What each Instantly webhook event does (run by a worker, `InstantlyReceiver.handle`).

Every handler is safe to run twice (the intake dedupes deliveries; a replay of a processed
event must change nothing more) and never fails on purpose when something is not stored
yet: an event for a campaign or lead we do not know is logged and left as it is.

- replies (`reply_received`, `auto_reply_received`) go through the one email reply path,
  `hitl.replies.receive_email_reply`: stored once (by Instantly's email id), triaged,
  sequences stopped;
- bounces, unsubscribes: `outreach.email_events`, the same service functions every email
  integration calls;
- `email_sent` / `email_bounced` count into the EmailCampaign (the bounce shield reads
  `bounced / sent`), with F() updates; the intake's dedupe makes a retry count nothing;
- opens and clicks advance our message when we have one with Instantly's email id; we
  have none yet for campaign sends (Instantly sends them, not our send path), so today
  they are only counted by the analytics sync;
- `account_error` opens (or counts) one alert per sending account;
- interest labels move the journey only through `outreach.stages.transition`, only
  forward, only from the stages listed in STAGE_MOVES; anything else is logged and skipped.
"""

from __future__ import annotations

import logging
from datetime import date
from zoneinfo import ZoneInfo

from django.utils import timezone

from cerniq import reasons
from cerniq.alerts import raise_alert
from cerniq.models import Alert, Tenant
from email_channels import reasons as campaign_reasons
from email_channels.models import EmailCampaign, SenderAccount
from email_channels.reply_text import html_to_text
from email_channels.shield import count_bounce, count_send
from hitl.replies import receive_email_reply
from integrations.instantly import analytics, shield
from integrations.instantly.schemas import InstantlyEvent
from outreach import email_events, stages
from outreach.models import Channel, Journey, Message, Stage
from outreach.reasons import STAGE_EMAIL_EVENT

log = logging.getLogger(__name__)

PROVIDER = "instantly"

# Interest label → (target stage, the stages it may move from). Only forward: a label set
# by Instantly's AI or by someone in its inbox never reopens or regresses a conversation
# our own people lead (e.g. "not interested" does not close a lead in negotiation; our
# reply triage and the operators decide that).
STAGE_MOVES: dict[str, tuple[str, frozenset[str]]] = {
    "lead_interested": (Stage.WARM_REPLY, stages.AUTOMATED),
    "lead_not_interested": (Stage.DEAD, stages.AUTOMATED),
    "lead_meeting_booked": (Stage.NEGOTIATION, frozenset({Stage.WARM_REPLY})),
    "lead_meeting_completed": (Stage.NEGOTIATION, frozenset({Stage.WARM_REPLY})),
    "lead_closed": (Stage.CONVERTED, stages.CONVERSING),
}


def campaign_of(tenant: Tenant, event: InstantlyEvent) -> EmailCampaign | None:
    if not event.campaign_id:
        return None
    campaign = EmailCampaign.objects.filter(
        tenant=tenant, provider=PROVIDER, external_id=event.campaign_id
    ).first()
    if campaign is None:
        log.info("instantly %s: campaign %s is not ours (yet)", event.event_type, event.campaign_id)
    return campaign


# --- handlers ------------------------------------------------------------------------------


def handle_reply(tenant: Tenant, event: InstantlyEvent) -> None:
    text = event.reply_text or ""
    if not text.strip() and event.reply_html:
        text = html_to_text(event.reply_html)
    if not text.strip():
        text = event.reply_text_snippet or ""
    raw = {
        key: value
        for key, value in event.model_dump(
            include={
                "event_type",
                "timestamp",
                "campaign_id",
                "campaign_name",
                "email_account",
                "email_id",
                "step",
                "variant",
                "unibox_url",
                "reply_subject",
            }  # fmt: skip
        ).items()
        if value is not None
    }
    receive_email_reply(
        tenant,
        channel=Channel.EMAIL_COLD,
        email=event.lead_email or "",
        text=text,
        subject=event.reply_subject or "",
        provider_message_id=event.email_id or "",
        thread_id=event.email_id or "",  # reply_to_uuid of POST /api/v2/emails/reply
        sent_at=event.at,
        raw=raw,
    )


def sender_of(tenant: Tenant, event: InstantlyEvent) -> SenderAccount | None:
    """The sending mailbox the event is about (counted for the bounce shield)."""
    address = (event.email_account or "").strip().lower()
    if not address:
        return None
    account, _created = SenderAccount.objects.get_or_create(
        tenant=tenant, provider=PROVIDER, address=address
    )
    return account


def handle_sent(tenant: Tenant, event: InstantlyEvent) -> None:
    campaign = campaign_of(tenant, event)
    if campaign is not None:
        count_send(EmailCampaign.objects.filter(pk=campaign.pk))
    account = sender_of(tenant, event)
    if account is not None:
        count_send(SenderAccount.objects.filter(pk=account.pk))


def _is_permanent(event: InstantlyEvent) -> bool:
    """Instantly documents no bounce type in the payload: it reports the bounces that stop
    the lead (Lead.status -1 "Bounced") and feed its own bounce protection, i.e. hard ones,
    so a bounce is permanent. Should a payload ever carry a type column saying soft or
    transient, that wins."""
    extra = event.model_extra or {}
    for key in ("bounce_type", "bounce_category", "bounce_kind"):
        value = extra.get(key)
        if isinstance(value, str) and value.strip().lower() in ("soft", "transient", "temporary"):
            return False
    return True


def handle_bounce(tenant: Tenant, event: InstantlyEvent) -> None:
    permanent = _is_permanent(event)
    email_events.bounced(
        tenant,
        email=event.lead_email or "",
        permanent=permanent,
        provider_message_id=event.email_id or "",
        reason=f"Instantly campaign {event.campaign_name or event.campaign_id}, step {event.step}",
    )
    account = sender_of(tenant, event)
    if account is not None:
        count_bounce(SenderAccount.objects.filter(pk=account.pk))
    campaign = campaign_of(tenant, event)
    if campaign is None:
        return
    count_bounce(EmailCampaign.objects.filter(pk=campaign.pk))
    analytics.count_event(campaign, _day(tenant, event), "bounced")
    shield.guard(campaign, account)


def handle_unsubscribe(tenant: Tenant, event: InstantlyEvent) -> None:
    email_events.unsubscribed(tenant, email=event.lead_email or "", source="instantly")
    campaign = campaign_of(tenant, event)
    if campaign is not None:
        analytics.count_event(campaign, _day(tenant, event), "unsubscribed")


def _day(tenant: Tenant, event: InstantlyEvent) -> date:
    """The tenant-local day the event happened (its own timestamp, else now)."""
    return timezone.localtime(event.at or timezone.now(), ZoneInfo(tenant.time_zone)).date()


def handle_engagement(tenant: Tenant, event: InstantlyEvent) -> None:
    if event.email_id:
        email_events.message_event(
            tenant, provider_message_id=event.email_id, status=Message.Status.READ, at=event.at
        )


def handle_account_error(tenant: Tenant, event: InstantlyEvent) -> None:
    account = event.email_account or "workspace"
    extra = event.model_extra or {}
    detail = next(
        (str(extra[k])[:500] for k in ("error", "error_message", "reason") if extra.get(k)), ""
    )
    said = {"provider": "Instantly", "account": account, "detail": detail or "—"}
    if event.campaign_name:
        code = campaign_reasons.ALERT_SENDER_ACCOUNT_IN
        said["campaign"] = event.campaign_name
    else:
        code = campaign_reasons.ALERT_SENDER_ACCOUNT
    subject = f"instantly-account:{account}"[:200]
    raise_alert(tenant, Alert.Kind.SENDER_ACCOUNT, subject, reasons.code(code, **said))


def handle_campaign_completed(tenant: Tenant, event: InstantlyEvent) -> None:
    campaign = campaign_of(tenant, event)
    if campaign is not None:
        EmailCampaign.objects.filter(pk=campaign.pk).exclude(
            status=EmailCampaign.Status.COMPLETED
        ).update(
            status=EmailCampaign.Status.COMPLETED,
            status_reason=reasons.code(campaign_reasons.COMPLETED, provider="Instantly"),
        )


def handle_interest(tenant: Tenant, event: InstantlyEvent) -> None:
    target, sources = STAGE_MOVES[event.event_type]
    journeys = Journey.objects.filter(
        tenant=tenant,
        lead__in=email_events.leads_with_email(tenant, event.lead_email or ""),
    )
    for journey in journeys:
        if journey.stage not in sources:
            log.info(
                "instantly %s: journey %s stays %s (moves only from %s)",
                event.event_type, journey.pk, journey.stage, sorted(sources),
            )  # fmt: skip
            continue
        try:
            stages.transition(
                journey,
                target,
                reason=reasons.code(STAGE_EMAIL_EVENT, event=event.event_type),
                by_system="instantly",
            )
        except stages.IllegalTransition as refused:
            log.info(
                "instantly %s: journey %s not moved: %s", event.event_type, journey.pk, refused
            )


HANDLERS = {
    "reply_received": handle_reply,
    "auto_reply_received": handle_reply,
    "email_sent": handle_sent,
    "email_bounced": handle_bounce,
    "lead_unsubscribed": handle_unsubscribe,
    "email_opened": handle_engagement,
    "link_clicked": handle_engagement,
    "account_error": handle_account_error,
    "campaign_completed": handle_campaign_completed,
    **dict.fromkeys(STAGE_MOVES, handle_interest),
}
