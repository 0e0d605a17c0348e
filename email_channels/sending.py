"""Email send path: a QUEUED cold or warm email goes out once (the provider dedupes by key)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from cerniq import retry
from cerniq.provider_errors import ProviderError
from cerniq.providers import get_backend
from outreach import sequences, stages
from outreach.hours import SendingWindow
from outreach.models import Channel, Enrollment, Journey, Message, Stage, TemplateVersion

BACKENDS = {Channel.EMAIL_COLD: "email.instantly", Channel.EMAIL_WARM: "email.resend"}


@dataclass(frozen=True)
class Outcome:
    kind: str
    detail: str = ""
    retry_at: datetime | None = None


def send_queued_email(message_id: int) -> Outcome:
    message = (
        Message.objects.select_related("lead", "tenant", "step")
        .filter(pk=message_id, channel__in=list(BACKENDS))
        .first()
    )
    if message is None or message.status != Message.Status.QUEUED:
        return Outcome("skipped", "not a queued email")
    journey = Journey.objects.get(lead_id=message.lead_id)
    if journey.email_opted_out:
        sequences.cancel_message(message, "lead opted out of email")
        return Outcome("cancelled", "opted out")
    now = timezone.now()
    window = SendingWindow.for_tenant(message.tenant)
    if not window.is_open(now):
        return Outcome("deferred", "outside the sending window", window.next_opening(now))
    if not Message.objects.filter(pk=message.pk, status=Message.Status.QUEUED).update(
        status=Message.Status.SENDING, attempts=F("attempts") + 1, attempt_started_at=now
    ):
        return Outcome("skipped", "claimed by another worker")
    try:
        # The idempotency key makes a retried call return the first send (Resend honours it).
        result = get_backend(BACKENDS[message.channel]).send(
            to=message.counterpart,
            subject=message.subject,
            text=message.body,
            idempotency_key=message.idempotency_key or f"message-{message.pk}",
        )
    except ProviderError as error:
        decision = retry.decide(error, message.attempts + 1)
        if decision.retry_in is not None:
            Message.objects.filter(pk=message.pk).update(
                status=Message.Status.QUEUED, error=str(error)
            )
            return Outcome("retry", decision.reason, now + decision.retry_in)
        Message.objects.filter(pk=message.pk).update(
            status=Message.Status.DEAD_LETTER, error=str(error)[:2000], failed_at=now
        )
        return Outcome("dead", decision.reason)
    _record_sent(message, result.provider_message_id, result.raw, now)
    return Outcome("sent", result.provider_message_id)


@transaction.atomic
def _record_sent(message: Message, provider_id: str, raw: dict, now: datetime) -> None:
    Message.objects.filter(pk=message.pk).update(
        status=Message.Status.SENT, provider_message_id=provider_id, raw_response=raw, sent_at=now
    )
    journey = Journey.objects.select_for_update().get(lead_id=message.lead_id)
    if journey.stage in (Stage.COLD, Stage.CONTACTED_WA):
        stages.transition(journey, Stage.CONTACTED_EMAIL, reason="email sent", by_system="send")
    Journey.objects.filter(pk=journey.pk).update(
        last_channel=message.channel,
        first_contact_at=journey.first_contact_at or now,
        last_contact_at=now,
    )
    if message.template_version_id:
        TemplateVersion.objects.filter(pk=message.template_version_id).update(
            sent_count=F("sent_count") + 1
        )
    enrollment = Enrollment.objects.filter(
        lead_id=message.lead_id, sequence_id=message.sequence_id, status=Enrollment.Status.ACTIVE
    ).first()
    if enrollment and message.step_id:
        sequences.advance_after_send(enrollment, message.step, now)
