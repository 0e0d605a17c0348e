"""The one send path, for every channel: a QUEUED message goes out at most once.

`send_message(id)` owns every rule of sending: the message is loaded; one check asks
whether it is still wanted (`why_not_send`: stage, per-channel opt-out, takeover, review
hold, enrollment, plus what the channel adds); outreach waits for the sending window;
the channel's resource is taken (a WhatsApp phone's pacing lease); the row is claimed
QUEUED → SENDING by compare-and-set; the channel's transport is called; the result is
recorded (stage, journey, sequence, template counters) and failures follow
`cerniq.retry.decide`. A row found SENDING may already have reached the provider (its
worker died, or the call timed out after the request left): the transport is asked to
find it there, and it is never blindly sent again.

What differs between channels lives in a `Transport` (outreach.transports); when a
message runs is decided by its scheduler (outreach.delivery / outreach.pacing).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from cerniq import reasons, retry
from cerniq.alerts import raise_alert
from cerniq.log_context import bind
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
from outreach import automation, lawful_basis, sequences, stages
from outreach import reasons as codes
from outreach.hours import SendingWindow
from outreach.metrics import count_message
from outreach.models import Enrollment, Journey, Lead, Message, Suppression
from outreach.recording import record_sent
from outreach.sequences import cancel_message, is_opt_out_confirmation
from outreach.transports import Transport, recipient_id, transport_for
from whatsapp.quota import release

log = logging.getLogger(__name__)

ERROR_LIMIT = 2000


@dataclass(frozen=True)
class Outcome:
    """What happened; `retry_at` set means: the message is due again then."""

    kind: str  # sent | reconciled | deferred | retry | cancelled | failed | dead | skipped
    detail: str = ""
    retry_at: datetime | None = None


def send_message(message_id: int) -> Outcome:
    """Send one outbound message if it is still QUEUED and wanted (safe to run twice)."""
    message = (
        Message.objects.select_related("lead", "phone", "tenant", "step")
        .filter(pk=message_id, direction=Message.Direction.OUTBOUND)
        .first()
    )
    if message is None:
        return Outcome("skipped", "no such outbound message")
    with bind(message_id=message.pk, lead_id=message.lead_id, tenant_id=message.tenant_id):
        return _send(message)


def _send(message: Message) -> Outcome:
    transport = transport_for(message.channel)
    if message.status == Message.Status.SENDING:
        return _recover(message, transport)
    if message.status != Message.Status.QUEUED:
        return Outcome("skipped", f"already {message.status}")
    blocker = why_not_send(message, transport)
    if blocker:
        cancel_message(message, blocker)
        return Outcome("cancelled", blocker)
    if message.needs_reconcile:
        found = _find_earlier_attempt(message, transport)
        if found is not None:
            return found
    now = timezone.now()
    window = SendingWindow.for_tenant(message.tenant)
    # A person's message is a conversation, not outreach: it does not wait for the window.
    if not message.is_manual and not window.is_open(now):
        return _defer(message, "outside the sending window", window.next_opening(now))
    busy_until = transport.acquire(message, now)
    if busy_until is not None:
        return _defer(message, transport.busy_reason, busy_until)
    # The request is rendered once, by the attempt that first claims the message, and
    # stored with the claim: every later attempt sends it as it is.
    request = transport.request_to_store(message)
    stored = {} if request is None else {"raw_request": request}
    claimed = Message.objects.filter(pk=message.pk, status=Message.Status.QUEUED).update(
        status=Message.Status.SENDING, attempts=F("attempts") + 1, attempt_started_at=now, **stored
    )
    if not claimed:
        transport.release(message, called=False)
        return Outcome("skipped", "claimed by another worker")
    message.status = Message.Status.SENDING
    message.attempts += 1
    message.attempt_started_at = now
    if request is not None:
        message.raw_request = request
    try:
        result = transport.deliver(message)
    except ProviderError as error:
        transport.release(message, called=True)
        return record_failure(message, transport, error)
    recorded = record_sent(message, transport, result)
    transport.release(message, called=True)
    if not recorded:
        return Outcome("skipped", "recorded already (another run reconciled it)")
    return Outcome("sent", result.provider_message_id)


def why_not_send(message: Message, transport: Transport | None = None) -> str:
    """A reason to drop this message now ("" when it should still go out).

    A sequence's step goes only while automation is wanted for the lead (the one rule,
    outreach.automation.why_stopped: opt-out, takeover, review hold, stage, enrollment);
    another automated message (an AI answer) stops for a takeover, a review hold and a
    closed stage; a person's message only for an opt-out. An opt-out confirmation is the
    one message that still reaches someone who opted out.
    """
    transport = transport or transport_for(message.channel)
    if message.lead_id is None:  # an inbound row from an unknown sender: nobody to send to
        return reasons.code(codes.NOT_SENT_NO_JOURNEY)
    journey = Journey.objects.filter(lead_id=message.lead_id).first()
    if journey is None:
        return reasons.code(codes.NOT_SENT_NO_JOURNEY)
    confirmation = is_opt_out_confirmation(message)
    if transport.opted_out(journey) and not confirmation:
        return reasons.code(codes.NOT_SENT_OPTED_OUT, channel=message.channel)
    if not confirmation and (kind := transport.suppressed(message)):
        if kind == Suppression.Kind.CUI:
            return reasons.code(codes.NOT_SENT_COMPANY_SUPPRESSED)
        return reasons.code(codes.NOT_SENT_SUPPRESSED)
    if not confirmation and (held := _basis_hold(message)):
        return held
    if message.is_manual:
        return transport.blocker(message, journey)
    if message.step_id:
        enrollment = None  # of a sequence deleted since: not running
        if message.sequence_id is not None:
            enrollment = (
                Enrollment.objects.filter(lead_id=message.lead_id, sequence_id=message.sequence_id)
                .order_by("-pk")
                .first()
            )
        stopped = automation.why_stopped(journey, enrollment, channel=message.channel)
        if stopped:
            return stopped
    else:
        if hold := automation.held(journey, review=not confirmation):
            return hold
        if journey.stage in stages.CLOSED and not confirmation:
            return reasons.code(codes.NOT_SENT_STAGE, stage=journey.stage)
    return transport.blocker(message, journey)


def _basis_hold(message: Message) -> str:
    """A first message the workspace's policy holds for want of a lawful basis (queued
    before the policy asked, or by a person): the reason, else "" (outreach.lawful_basis;
    nothing more is read unless the policy requires a basis somewhere on the channel)."""
    kind = lawful_basis.kind_of(message.channel)
    if not lawful_basis.may_hold(message.tenant, kind):
        return ""
    lead = Lead.objects.select_related("tenant").get(pk=message.lead_id)
    check = lawful_basis.check(lead, message.channel)
    return check.reason if check.held else ""


# --- recovery ---------------------------------------------------------------------------

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


def _next_poll(started: datetime, now: datetime) -> datetime:
    due = [started + offset for offset in RECONCILE_POLLS if started + offset > now]
    return min(due) if due else started + RECONCILE_DEADLINE


def _attempt_start(message: Message) -> datetime:
    return message.attempt_started_at or message.updated_at


def _look_for_attempt(message: Message, transport: Transport) -> SendResult | Outcome | None:
    """Ask the provider whether an earlier attempt of this message went out. When it
    cannot say (its API fails), look again later; past the deadline, hold the message
    for a person: neither resent nor its quota given back."""
    try:
        return transport.find_earlier(message)
    except ProviderError as error:
        now = timezone.now()
        if (
            isinstance(error, PermanentProviderError)
            or now >= _attempt_start(message) + LOOKUP_LIMIT
        ):
            detail = f"outcome unknown, cannot reconcile ({_describe(error)}); held, not resent"
            return _give_up(message, transport, error, detail, keep_quota=True)
        # A throttled or failing lookup says nothing: ask again (the provider's own delay
        # for a 429), past the reconcile deadline too, until the lookup limit.
        wait = timedelta(seconds=error.retry_after) if error.retry_after else retry.BACKOFF_BASE
        return _defer(message, f"reconcile failed: {error}", now + wait, kind="retry")


def _find_earlier_attempt(message: Message, transport: Transport) -> Outcome | None:
    """After an uncertain failure: record the earlier attempt if it went out, keep looking
    until the deadline, then let the send go on (or give up if its retries are spent)."""
    found = _look_for_attempt(message, transport)
    if isinstance(found, Outcome):
        return found
    if found is not None:
        record_sent(message, transport, found)
        return Outcome("reconciled", found.provider_message_id)
    now, started = timezone.now(), _attempt_start(message)
    if now < started + RECONCILE_DEADLINE:
        return _defer(message, "not at the provider yet; looking again", _next_poll(started, now))
    Message.objects.filter(pk=message.pk).update(needs_reconcile=False)
    message.needs_reconcile = False  # a failure of the resend is judged on its own
    if spent := (message.retries or {}).get(SPENT):
        detail = f"{spent}; not at the provider after {RECONCILE_DEADLINE}"
        return _give_up(message, transport, ProviderTimeout(spent), detail)
    return None


def _recover(message: Message, transport: Transport) -> Outcome:
    """A SENDING row: its attempt may have gone out. Look at the provider, never resend.

    Found → SENT (no second call). Not found while the attempt could still be in flight
    → look again when its lease ends. Not found after that → the attempt counts as an
    uncertain failure under the retry table: looked for until the reconcile deadline,
    then sent again if retries remain, else a dead letter.
    """
    found = _look_for_attempt(message, transport)
    if isinstance(found, Outcome):
        return found
    if found is not None:
        record_sent(message, transport, found)
        return Outcome("reconciled", found.provider_message_id)
    now = timezone.now()
    lease_end = _attempt_start(message) + transport.attempt_lease
    if now < lease_end:
        return Outcome("deferred", "earlier attempt may still be in flight", lease_end)
    lost = ProviderTimeout("attempt lost (its worker stopped); the provider has no trace of it")
    return record_failure(message, transport, lost)


# --- failures ---------------------------------------------------------------------------

SPENT = "spent"  # Message.retries key: why the retries ran out (reconciling before giving up)


def record_failure(message: Message, transport: Transport, error: ProviderError) -> Outcome:
    """Apply the retry table, each error class counting its own retries: again later
    (QUEUED, due at `retry_at`), or give up. An uncertain failure is looked for at the
    provider first, also on the last attempt: it may have gone out. A provider that says
    it holds this message already (an earlier attempt got through) is no failure."""
    if isinstance(error, AlreadyAccepted):
        log.info("message %s: the provider holds it already: %s", message.pk, error)
        found = SendResult("", raw={"already_accepted": str(error)})
        record_sent(message, transport, found)
        return Outcome("reconciled", "the provider had it from an earlier attempt")
    kind = retry.error_class(error)
    retries = {**(message.retries or {})}
    retries[kind] = retries.get(kind, 0) + 1
    decision = retry.decide(error, retries[kind])
    uncertain = error.uncertain or message.needs_reconcile
    now = timezone.now()
    if decision.give_up and not uncertain:
        return _give_up(message, transport, error, _describe(error))
    if decision.give_up:
        retries[SPENT] = decision.reason
        at = _next_poll(now, now)
    elif decision.next_day:
        at = SendingWindow.for_tenant(message.tenant).next_day_opening(now)
    else:
        assert decision.retry_in is not None, "Decision.give_up: neither a delay nor a next day"
        at = now + decision.retry_in
    Message.objects.filter(pk=message.pk, status=Message.Status.SENDING).update(
        status=Message.Status.QUEUED,
        error=_describe(error)[:ERROR_LIMIT],
        needs_reconcile=uncertain,
        retries=retries,
        scheduled_for=at,
    )
    count_message(message.channel, "retry")
    if decision.give_up:
        return Outcome("retry", f"{decision.reason}; looking for it at the provider first", at)
    return Outcome("retry", decision.reason, at)


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


def _defer(message: Message, reason: str, at: datetime, *, kind: str = "deferred") -> Outcome:
    """Not now: the row says when it is due again (the scheduler and the reconciler read it)."""
    Message.objects.filter(
        pk=message.pk, status__in=(Message.Status.QUEUED, Message.Status.SENDING)
    ).update(scheduled_for=at)
    return Outcome(kind, reason, at)


def _describe(error: ProviderError) -> str:
    return f"{type(error).__name__}: {error}"
