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
message runs is decided by its scheduler (outreach.delivery / outreach.pacing). What the
still-wanted check reads is loaded by outreach.send_facts, the record is
outreach.recording's, and failures, uncertain attempts and giving up are
outreach.send_failures': each takes a batch, so the cold-email push (outreach.pushing)
applies these same rules to a thousand messages at a time.
"""

from __future__ import annotations

import logging
from datetime import datetime

from django.db.models import F
from django.utils import timezone

from cerniq import reasons
from cerniq.log_context import bind
from cerniq.provider_errors import ProviderError, ProviderTimeout
from outreach import automation, lawful_basis, send_facts, stages
from outreach import reasons as codes
from outreach.hours import SendingWindow
from outreach.models import Message, Suppression
from outreach.recording import record_sent
from outreach.send_facts import Facts
from outreach.send_failures import (  # noqa: F401 (re-exported: the send path's names)
    ERROR_LIMIT,
    LOOKUP_LIMIT,
    RECONCILE_DEADLINE,
    SPENT,
    Outcome,
    defer_many,
    look_for_attempts,
    not_found,
    record_failure,
    record_failures,
)
from outreach.sequences import cancel_message, is_opt_out_confirmation
from outreach.transports import Transport, recipient, transport_for

log = logging.getLogger(__name__)


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


def why_not_send(
    message: Message, transport: Transport | None = None, facts: Facts | None = None
) -> str:
    """A reason to drop this message now ("" when it should still go out).

    A sequence's step goes only while automation is wanted for the lead (the one rule,
    outreach.automation.why_stopped: opt-out, takeover, review hold, stage, enrollment);
    another automated message (an AI answer) stops for a takeover, a review hold and a
    closed stage; a person's message only for an opt-out. An opt-out confirmation is the
    one message that still reaches someone who opted out. `facts`: what the rule reads,
    loaded for a whole batch (outreach.send_facts; the push), else read now for this one.
    """
    transport = transport or transport_for(message.channel)
    if message.lead_id is None:  # an inbound row from an unknown sender: nobody to send to
        return reasons.code(codes.NOT_SENT_NO_JOURNEY)
    facts = facts or send_facts.load([message], transport)
    journey = facts.journeys.get(message.lead_id)
    if journey is None:
        return reasons.code(codes.NOT_SENT_NO_JOURNEY)
    confirmation = is_opt_out_confirmation(message)
    if transport.opted_out(journey) and not confirmation:
        return reasons.code(codes.NOT_SENT_OPTED_OUT, channel=message.channel)
    if not confirmation and (kind := transport.suppressed(message, facts.listed)):
        if kind == Suppression.Kind.CUI:
            return reasons.code(codes.NOT_SENT_COMPANY_SUPPRESSED)
        return reasons.code(codes.NOT_SENT_SUPPRESSED)
    if not confirmation and (held := _basis_hold(message, facts)):
        return held
    if message.is_manual:
        return transport.blocker(message, journey)
    if message.step_id:
        enrollment = None  # of a sequence deleted since: not running
        if message.sequence_id is not None:
            enrollment = facts.enrollments.get((message.lead_id, message.sequence_id))
        stopped = automation.why_stopped(journey, enrollment, channel=message.channel)
        if stopped:
            return stopped
    else:
        if hold := automation.held(journey, review=not confirmation):
            return hold
        if journey.stage in stages.CLOSED and not confirmation:
            return reasons.code(codes.NOT_SENT_STAGE, stage=journey.stage)
    return transport.blocker(message, journey)


def _basis_hold(message: Message, facts: Facts) -> str:
    """A first message the workspace's policy holds for want of a lawful basis (queued
    before the policy asked, or by a person): the reason, else "" (outreach.lawful_basis;
    nothing more is read unless the policy requires a basis somewhere on the channel)."""
    kind = lawful_basis.kind_of(message.channel)
    if kind not in facts.contacted:  # the policy holds nothing on this channel
        return ""
    lead = recipient(message)
    check = lawful_basis.check(
        lead,
        message.channel,
        basis=facts.bases.get((lead.pk, kind)),
        first=lead.pk not in facts.contacted[kind],
        tenant=message.tenant,
    )
    return check.reason if check.held else ""


# --- recovery ---------------------------------------------------------------------------


def _find_earlier_attempt(message: Message, transport: Transport) -> Outcome | None:
    """After an uncertain failure: record the earlier attempt if it went out, keep looking
    until the deadline, then let the send go on (or give up if its retries are spent)."""
    found, unanswered = look_for_attempts([message], transport)
    if message.pk in unanswered:
        return unanswered[message.pk]
    if message.pk in found:
        record_sent(message, transport, found[message.pk])
        return Outcome("reconciled", found[message.pk].provider_message_id)
    _resend, outcomes = not_found([message], transport, timezone.now())
    return outcomes.get(message.pk)


def _recover(message: Message, transport: Transport) -> Outcome:
    """A SENDING row: its attempt may have gone out. Look at the provider, never resend.

    Found → SENT (no second call). Not found while the attempt could still be in flight
    → look again when its lease ends. Not found after that → the attempt counts as an
    uncertain failure under the retry table: looked for until the reconcile deadline,
    then sent again if retries remain, else a dead letter.
    """
    found, unanswered = look_for_attempts([message], transport)
    if message.pk in unanswered:
        return unanswered[message.pk]
    if message.pk in found:
        record_sent(message, transport, found[message.pk])
        return Outcome("reconciled", found[message.pk].provider_message_id)
    now = timezone.now()
    lease_end = (message.attempt_started_at or message.updated_at) + transport.attempt_lease
    if now < lease_end:
        return Outcome("deferred", "earlier attempt may still be in flight", lease_end)
    lost = ProviderTimeout("attempt lost (its worker stopped); the provider has no trace of it")
    return record_failure(message, transport, lost)


def _defer(message: Message, reason: str, at: datetime, *, kind: str = "deferred") -> Outcome:
    """Not now: the row says when it is due again (the scheduler and the reconciler read it)."""
    defer_many([message], at)
    return Outcome(kind, reason, at)
