"""After an attempt that did not plainly succeed: failures under the retry table, uncertain
attempts looked for at the provider, giving up. Part of the one send path
(outreach.sending, which re-exports what others import), each rule in one function that
takes a batch: a single send passes a batch of one, the cold-email push
(outreach.pushing) a thousand, and the statements written do not grow with the batch
(messages that share an outcome are written together).
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone

from cerniq import reasons, retry
from cerniq.alerts import raise_alert
from cerniq.models import Alert
from cerniq.outbound.events import emit
from cerniq.provider_errors import (
    AccountDisconnected,
    AlreadyAccepted,
    AuthenticationFailed,
    InvalidRecipient,
    PermanentProviderError,
    ProviderError,
    ProviderTimeout,
    SendResult,
)
from outreach import reasons as codes
from outreach import sequences
from outreach.hours import SendingWindow
from outreach.metrics import count_message
from outreach.models import Journey, Message
from outreach.recording import record_sent_many
from outreach.sequences import cancel_message
from outreach.transports import Transport, recipient_id
from whatsapp.quota import release

# The send path's log, whichever of its modules writes (log searches and tests read it).
log = logging.getLogger("outreach.sending")

ERROR_LIMIT = 2000
SPENT = "spent"  # Message.retries key: why the retries ran out (reconciling before giving up)

# How long an uncertain attempt is looked for at the provider before it counts as not
# sent. TimelinesAI sends asynchronously: it queues each account's sends and spaces them
# by ~2 s (docs/providers.md §1, "Send is asynchronous", "WhatsApp send pace"); accepted sends
# were seen in the chat history 40 s later. Our pacing leaves an account a few queued
# sends at most, so five minutes is several times the worst lag seen. The polls back off.
RECONCILE_DEADLINE = timedelta(minutes=5)
RECONCILE_POLLS = tuple(timedelta(seconds=s) for s in (15, 45, 105, 225))
# Lookups that fail (429, 5xx) are tried again until this long after the attempt; only then
# is the message held for a person (one throttled lookup must not hold a send).
LOOKUP_LIMIT = timedelta(minutes=15)


@dataclass(frozen=True)
class Outcome:
    """What happened; `retry_at` set means: the message is due again then."""

    kind: str  # sent | reconciled | deferred | retry | cancelled | failed | dead | skipped
    detail: str = ""
    retry_at: datetime | None = None


def _next_poll(started: datetime, now: datetime) -> datetime:
    due = [started + offset for offset in RECONCILE_POLLS if started + offset > now]
    return min(due) if due else started + RECONCILE_DEADLINE


def _attempt_start(message: Message) -> datetime:
    return message.attempt_started_at or message.updated_at


# --- uncertain attempts ---------------------------------------------------------------------


def look_for_attempts(
    messages: list[Message], transport: Transport
) -> tuple[dict[int, SendResult], dict[int, Outcome]]:
    """Ask the provider whether earlier attempts of these messages went out (one lookup
    for the batch where the provider allows it): what it has, by message id, and the
    outcome of each message the lookup could not answer for (`lookup_failed`)."""
    if not messages:
        return {}, {}
    try:
        return transport.find_earlier_many(messages), {}
    except ProviderError as error:
        return {}, lookup_failed(messages, transport, error)


def lookup_failed(
    messages: list[Message], transport: Transport, error: ProviderError
) -> dict[int, Outcome]:
    """The provider could not say: look again later (its own delay for a 429), past the
    reconcile deadline too, until the lookup limit; then (or at once for a permanent
    error) hold the message for a person: neither resent nor its quota given back."""
    now = timezone.now()
    outcomes: dict[int, Outcome] = {}
    wait = timedelta(seconds=error.retry_after) if error.retry_after else retry.BACKOFF_BASE
    again: list[Message] = []
    for message in messages:
        if (
            isinstance(error, PermanentProviderError)
            or now >= _attempt_start(message) + LOOKUP_LIMIT
        ):
            detail = f"outcome unknown, cannot reconcile ({_describe(error)}); held, not resent"
            outcomes[message.pk] = _give_up(message, transport, error, detail, keep_quota=True)
        else:
            again.append(message)
            outcomes[message.pk] = Outcome("retry", f"reconcile failed: {error}", now + wait)
    defer_many(again, now + wait)
    return outcomes


def not_found(
    messages: list[Message], transport: Transport, now: datetime
) -> tuple[list[Message], dict[int, Outcome]]:
    """Uncertain attempts the provider has no trace of: looked for again until the
    reconcile deadline; past it, sent again (their mark cleared: a failure of the resend
    is judged on its own), or given up when their retries were spent. Returns the
    messages to send again and the outcome of the others."""
    outcomes: dict[int, Outcome] = {}
    waiting: dict[datetime, list[Message]] = {}
    cleared: list[Message] = []
    for message in messages:
        started = _attempt_start(message)
        if now < started + RECONCILE_DEADLINE:
            at = _next_poll(started, now)
            waiting.setdefault(at, []).append(message)
            outcomes[message.pk] = Outcome("deferred", "not at the provider yet; looking again", at)
        else:
            cleared.append(message)
    for at, group in waiting.items():
        defer_many(group, at)
    if cleared:
        Message.objects.filter(pk__in=[m.pk for m in cleared]).update(needs_reconcile=False)
    resend = []
    for message in cleared:
        message.needs_reconcile = False
        if spent := (message.retries or {}).get(SPENT):
            detail = f"{spent}; not at the provider after {RECONCILE_DEADLINE}"
            outcomes[message.pk] = _give_up(message, transport, ProviderTimeout(spent), detail)
        else:
            resend.append(message)
    return resend, outcomes


# --- failures ---------------------------------------------------------------------------


def record_failure(message: Message, transport: Transport, error: ProviderError) -> Outcome:
    """Apply the retry table, each error class counting its own retries: again later
    (QUEUED, due at `retry_at`), or give up. An uncertain failure is looked for at the
    provider first, also on the last attempt: it may have gone out. A provider that says
    it holds this message already (an earlier attempt got through) is no failure."""
    return record_failures([(message, error)], transport)[message.pk]


def record_failures(
    failed: list[tuple[Message, ProviderError]], transport: Transport
) -> dict[int, Outcome]:
    """`record_failure` for a batch (a push whose call failed, or some of its leads): the
    messages due again written in one UPDATE per distinct change (one when the whole
    call failed), those given up one by one. The outcome of each, by message id."""
    outcomes: dict[int, Outcome] = {}
    accepted = [(m, e) for m, e in failed if isinstance(e, AlreadyAccepted)]
    for message, holds in accepted:
        log.info("message %s: the provider holds it already: %s", message.pk, holds)
        outcomes[message.pk] = Outcome("reconciled", "the provider had it from an earlier attempt")
    record_sent_many(
        [(m, SendResult("", raw={"already_accepted": str(e)})) for m, e in accepted], transport
    )
    now = timezone.now()
    later: dict[tuple[str, bool, str, datetime], list[Message]] = {}
    for message, error in failed:
        if isinstance(error, AlreadyAccepted):
            continue
        kind = retry.error_class(error)
        retries = {**(message.retries or {})}
        retries[kind] = retries.get(kind, 0) + 1
        decision = retry.decide(error, retries[kind])
        uncertain = error.uncertain or message.needs_reconcile
        if decision.give_up and not uncertain:
            outcomes[message.pk] = _give_up(message, transport, error, _describe(error))
            continue
        if decision.give_up:
            retries[SPENT] = decision.reason
            at = _next_poll(now, now)
            said = f"{decision.reason}; looking for it at the provider first"
        elif decision.next_day:
            at = SendingWindow.for_tenant(message.tenant).next_day_opening(now)
            said = decision.reason
        else:
            assert decision.retry_in is not None, "Decision.give_up: neither a delay nor a next day"
            at = now + decision.retry_in
            said = decision.reason
        key = (_describe(error)[:ERROR_LIMIT], uncertain, json.dumps(retries, sort_keys=True), at)
        later.setdefault(key, []).append(message)
        outcomes[message.pk] = Outcome("retry", said, at)
    for (error_text, uncertain, retries_json, at), group in later.items():
        Message.objects.filter(pk__in=[m.pk for m in group], status=Message.Status.SENDING).update(
            status=Message.Status.QUEUED,
            error=error_text,
            needs_reconcile=uncertain,
            retries=json.loads(retries_json),
            scheduled_for=at,
        )
        for channel in {m.channel for m in group}:
            count_message(channel, "retry", sum(m.channel == channel for m in group))
    return outcomes


def _give_up(
    message: Message,
    transport: Transport,
    error: ProviderError,
    detail: str,
    *,
    keep_quota: bool = False,
) -> Outcome:
    """A final outcome. `keep_quota`: the send may have gone out, so its slot stays used."""
    if isinstance(error, AccountDisconnected):
        # Not this message's fault: it goes back to dispatch with the account's other work.
        with transaction.atomic():
            cancel_message(message, f"re-planned: {detail}", status=message.status)
            transport.account_down(message, error)
            replan_now = Journey.objects.filter(lead_id=recipient_id(message))
            replan_now.update(next_action_at=timezone.now())
        return Outcome("cancelled", f"{transport.label} account down, re-planned: {detail}")
    invalid = isinstance(error, InvalidRecipient)
    final = Message.Status.FAILED if invalid else Message.Status.DEAD_LETTER
    with transaction.atomic():
        # `needs_reconcile` stays true on a dead letter that may have gone out (its slot
        # kept): a retry from the dead letters looks for it at the provider before sending.
        Message.objects.filter(pk=message.pk).update(
            status=final,
            error=detail[:ERROR_LIMIT],
            failed_at=timezone.now(),
            needs_reconcile=keep_quota,
        )
        count_message(message.channel, final.lower())
        emit(message.tenant_id, "message.failed", _failed_event(message, final, detail))
        if message.quota_cost and message.phone_id and not keep_quota:
            release(message.phone_id, sequences.reservation_day(message))
        if invalid:
            transport.recipient_invalid(message)
            # Due again now: dispatch can try the lead's other channel.
            replan_now = Journey.objects.filter(lead_id=recipient_id(message))
            replan_now.update(next_action_at=timezone.now())
        elif isinstance(error, AuthenticationFailed):
            provider = transport.provider_name(message)
            raise_alert(
                message.tenant,
                Alert.Kind.PROVIDER_AUTH,
                f"provider-auth:{provider}",
                reasons.code(codes.ALERT_PROVIDER_AUTH, provider=provider, detail=str(error)),
                severity=Alert.Severity.CRITICAL,
            )
    log.warning("message %s %s: %s", message.pk, final, detail)
    return Outcome("failed" if invalid else "dead", detail)


def _failed_event(message: Message, status: str, detail: str) -> dict:
    return {
        "message_id": message.pk,
        "lead_id": message.lead_id,
        "channel": message.channel,
        "status": status,
        "error": detail[:ERROR_LIMIT],
    }


def defer_many(messages: list[Message], at: datetime) -> None:
    """Not now: the rows say when they are due again (the scheduler and the reconciler
    read it)."""
    if messages:
        Message.objects.filter(
            pk__in=[m.pk for m in messages],
            status__in=(Message.Status.QUEUED, Message.Status.SENDING),
        ).update(scheduled_for=at)


def _describe(error: ProviderError) -> str:
    return f"{type(error).__name__}: {error}"
