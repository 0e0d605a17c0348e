"""The one WhatsApp send path (seed workers C#9–10): a QUEUED message goes out at most once.

Order of checks: still wanted? inside the sending window? phone free (pacing)? Then the
message is claimed QUEUED → SENDING and the provider is called. A message found SENDING
may already have reached the provider (a crash or a timeout after the request left), so
it is reconciled against the provider's chat history, never blindly resent.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from cerniq import retry
from cerniq.alerts import raise_alert
from cerniq.models import Alert
from cerniq.provider_errors import (
    AccountDisconnected,
    AuthenticationFailed,
    InvalidRecipient,
    PermanentProviderError,
    ProviderError,
    SendResult,
)
from cerniq.providers import get_backend
from outreach import pacing, sequences, stages
from outreach.hours import SendingWindow
from outreach.models import Channel, Enrollment, Journey, Lead, Message, Stage, TemplateVersion
from outreach.quota import release
from outreach.sequences import OPT_OUT_CONFIRMATION_PREFIX, cancel_message
from whatsapp.models import Phone
from whatsapp.phones import mark_offline

log = logging.getLogger(__name__)

SENDABLE_STAGES = (Stage.COLD, Stage.CONTACTED_WA, Stage.CONTACTED_EMAIL)


@dataclass(frozen=True)
class Outcome:
    """What happened; `retry_at` set means: enqueue the message again for then."""

    kind: str  # sent | reconciled | deferred | retry | cancelled | failed | dead | skipped
    detail: str = ""
    retry_at: datetime | None = None


def backend_for(phone: Phone):
    return get_backend(f"whatsapp.{phone.provider}")


def send_queued_message(message_id: int) -> Outcome:
    message = (
        Message.objects.select_related("lead", "phone", "tenant", "step")
        .filter(pk=message_id, channel=Channel.WHATSAPP)
        .first()
    )
    if message is None or message.phone is None:
        return Outcome("skipped", "no such WhatsApp message")
    if message.status == Message.Status.SENDING:
        return reconcile(message)
    if message.status != Message.Status.QUEUED:
        return Outcome("skipped", f"already {message.status}")
    now = timezone.now()
    blocker = why_not_send(message)
    if blocker:
        cancel_message(message, blocker)
        return Outcome("cancelled", blocker)
    if message.needs_reconcile:
        found = _find_earlier_attempt(message)
        if isinstance(found, Outcome):
            return found
    window = SendingWindow.for_tenant(message.tenant)
    # A person's message (or an approved reply) is a conversation, not outreach: no window.
    if not message.is_manual and not window.is_open(now):
        return Outcome("deferred", "outside the sending window", window.next_opening(now))
    busy_until = pacing.claim_phone(message.phone_id, now)
    if busy_until is not None:
        return Outcome("deferred", "phone busy or pacing gap", busy_until)
    claimed = Message.objects.filter(pk=message.pk, status=Message.Status.QUEUED).update(
        status=Message.Status.SENDING, attempts=F("attempts") + 1, attempt_started_at=now
    )
    if not claimed:
        pacing.release_unused(message.phone_id)
        return Outcome("skipped", "claimed by another worker")
    message.attempts += 1
    message.attempt_started_at = now
    return _call_provider(message)


CLOSED_STAGES = (Stage.DEAD, Stage.CONVERTED, Stage.PAUSED)


def why_not_send(message: Message) -> str:
    """A reason to drop this message now ("" when it should still go out)."""
    journey = Journey.objects.filter(lead_id=message.lead_id).first()
    phone = message.phone
    if journey is None:
        return "lead has no journey"
    confirmation = (message.idempotency_key or "").startswith(OPT_OUT_CONFIRMATION_PREFIX)
    if journey.whatsapp_opted_out and not confirmation:
        return "lead opted out of WhatsApp"
    if not message.is_manual:
        if journey.taken_over_by_id:
            return "lead is taken over by an operator"
        if journey.requires_human_review and not confirmation:
            return "lead is under human review"
        if message.step_id:
            if journey.stage not in SENDABLE_STAGES:
                return f"lead is {journey.stage}"
            if not Enrollment.objects.filter(
                lead_id=message.lead_id,
                sequence_id=message.sequence_id,
                status=Enrollment.Status.ACTIVE,
            ).exists():
                return "sequence no longer active for this lead"
        elif journey.stage in CLOSED_STAGES and not confirmation:
            return f"lead is {journey.stage}"
    if phone.status != Phone.Status.ACTIVE or not phone.is_enabled:
        Journey.objects.filter(pk=journey.pk).update(next_action_at=timezone.now())
        return f"phone {phone} is {phone.status.lower()}; re-planned"
    return ""


def _call_provider(message: Message) -> Outcome:
    phone = message.phone
    backend = backend_for(phone)
    try:
        chat_id = message.provider_thread_id or _known_chat(message, backend)
        if chat_id and not message.quota_cost:
            result = backend.send_to_chat(chat_id=chat_id, text=message.body)
        else:
            result = backend.send_to_phone(
                account_phone=phone.number, to=message.counterpart, text=message.body
            )
    except ProviderError as error:
        pacing.finish_send(phone.pk, message.tenant, sent=False, new_contact=False)
        return _failed(message, error)
    record_sent(message, result)
    pacing.finish_send(phone.pk, message.tenant, sent=True, new_contact=bool(message.quota_cost))
    return Outcome("sent", result.provider_message_id)


def _known_chat(message: Message, backend) -> str:
    """The chat of an earlier message to this lead from this phone (follow-ups go there)."""
    if message.quota_cost:
        return ""
    earlier = (
        Message.objects.filter(
            lead_id=message.lead_id,
            phone_id=message.phone_id,
            channel=Channel.WHATSAPP,
            direction=Message.Direction.OUTBOUND,
        )
        .exclude(provider_thread_id="")
        .values_list("provider_thread_id", flat=True)
        .first()
    )
    if earlier:
        return earlier
    chat = backend.find_chat(to=message.counterpart, account_id=message.phone.account_id)
    return str(chat["id"]) if chat else ""


@transaction.atomic
def record_sent(message: Message, result: SendResult) -> None:
    """SENT, plus everything a send changes: journey, stage, sequence, template results."""
    now = timezone.now()
    Message.objects.filter(pk=message.pk).update(
        status=Message.Status.SENT,
        needs_reconcile=False,
        provider_message_id=result.provider_message_id,
        provider_thread_id=result.thread_id or message.provider_thread_id,
        raw_response=result.raw,
        sent_at=now,
        error="",
    )
    journey = Journey.objects.select_for_update().get(lead_id=message.lead_id)
    if journey.stage in (Stage.COLD, Stage.CONTACTED_EMAIL):
        stages.transition(
            journey, Stage.CONTACTED_WA, reason="WhatsApp message sent", by_system="send"
        )
    Journey.objects.filter(pk=journey.pk).update(
        last_channel=Channel.WHATSAPP,
        first_contact_at=journey.first_contact_at or now,
        last_contact_at=now,
        assigned_phone_id=message.phone_id,
    )
    if message.template_version_id:
        TemplateVersion.objects.filter(pk=message.template_version_id).update(
            sent_count=F("sent_count") + 1
        )
    if message.step_id:
        enrollment = Enrollment.objects.filter(
            lead_id=message.lead_id,
            sequence_id=message.sequence_id,
            status=Enrollment.Status.ACTIVE,
        ).first()
        if enrollment:
            sequences.advance_after_send(enrollment, message.step, now)


def _look_for_attempt(message: Message) -> SendResult | Outcome | None:
    """Ask the provider whether an earlier attempt of this message went out."""
    started = message.attempt_started_at or message.updated_at
    try:
        return backend_for(message.phone).find_sent(
            to=message.counterpart,
            text=message.body,
            since=started - timedelta(minutes=1),
            account_id=message.phone.account_id,
        )
    except PermanentProviderError as error:
        return _give_up(message, error, f"cannot reconcile: {type(error).__name__}: {error}")
    except ProviderError as error:
        return Outcome("retry", f"reconcile failed: {error}", timezone.now() + retry.BACKOFF_BASE)


def _find_earlier_attempt(message: Message) -> Outcome | None:
    """After an uncertain failure: record the earlier attempt if it did go out."""
    found = _look_for_attempt(message)
    if found is None:
        Message.objects.filter(pk=message.pk).update(needs_reconcile=False)
        return None
    if isinstance(found, Outcome):
        return found
    record_sent(message, found)
    return Outcome("reconciled", found.provider_message_id)


def reconcile(message: Message) -> Outcome:
    """A SENDING message may have gone out (its worker died): look before anything else."""
    found = _look_for_attempt(message)
    if isinstance(found, Outcome):
        return found
    if found is not None:
        record_sent(message, found)
        pacing.finish_send(
            message.phone_id, message.tenant, sent=True, new_contact=bool(message.quota_cost)
        )
        return Outcome("reconciled", found.provider_message_id)
    now = timezone.now()
    lease_end = (message.attempt_started_at or message.updated_at) + pacing.SEND_LEASE
    if now < lease_end:
        # The first attempt may still be talking to the provider: look again later.
        return Outcome("deferred", "earlier attempt may still be in flight", lease_end)
    Message.objects.filter(pk=message.pk, status=Message.Status.SENDING).update(
        status=Message.Status.QUEUED
    )
    return Outcome("retry", "not found at the provider; sending again", now)


def _failed(message: Message, error: ProviderError) -> Outcome:
    decision = retry.decide(error, message.attempts)
    detail = f"{type(error).__name__}: {error}"
    now = timezone.now()
    if decision.next_day or decision.retry_in is not None:
        # After a timeout the next run looks for this attempt at the provider first.
        Message.objects.filter(pk=message.pk).update(
            status=Message.Status.QUEUED,
            error=detail[:2000],
            needs_reconcile=message.needs_reconcile or error.uncertain,
        )
        if decision.next_day:
            window = SendingWindow.for_tenant(message.tenant)
            return Outcome("retry", decision.reason, window.next_day_opening(now))
        return Outcome("retry", decision.reason, now + decision.retry_in)
    return _give_up(message, error, detail)


def _give_up(message: Message, error: ProviderError, detail: str) -> Outcome:
    if isinstance(error, AccountDisconnected):
        # Not this message's fault: it goes back to dispatch with the phone's other work.
        with transaction.atomic():
            cancel_message(message, f"re-planned: {detail}", status=Message.Status.SENDING)
            mark_offline(message.phone, str(error))
            Journey.objects.filter(lead_id=message.lead_id).update(next_action_at=timezone.now())
        return Outcome("cancelled", f"phone offline, re-planned: {detail}")
    invalid = isinstance(error, InvalidRecipient)
    final = Message.Status.FAILED if invalid else Message.Status.DEAD_LETTER
    with transaction.atomic():
        Message.objects.filter(pk=message.pk).update(
            status=final, error=detail[:2000], failed_at=timezone.now()
        )
        if message.quota_cost:
            release(message.phone_id, sequences.reservation_day(message))
        if invalid:
            Lead.objects.filter(pk=message.lead_id).update(phone_reachable=False)
            # Due again now: dispatch can fall back to email for this lead.
            Journey.objects.filter(lead_id=message.lead_id).update(next_action_at=timezone.now())
        elif isinstance(error, AuthenticationFailed):
            raise_alert(
                message.tenant,
                Alert.Kind.OTHER,
                f"provider-auth:{message.phone.provider}",
                f"{message.phone.provider} rejected our credentials: {error}",
                severity=Alert.Severity.CRITICAL,
            )
    log.warning("message %s %s: %s", message.pk, final, detail)
    return Outcome("failed" if invalid else "dead", detail)
