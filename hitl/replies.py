"""What a reply does, whatever channel it came on (flow 3 of docs/design.md).

Order matters: an opt-out is honoured before anything else (and a complaint that comes
with it is then put in front of a person as an URGENT review item); then automation stops
for the lead (a follow-up already queued never goes out) and for its whole company; then
the AI triage decides between an automatic answer, a draft to approve and a review item.
Out-of-office answers are the exception: they only move the next step past the return, a
return date read relative to the day the message was written.
"""

from __future__ import annotations

import json
import logging
from dataclasses import asdict
from datetime import date, datetime, time
from time import perf_counter

from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone
from django_dramatiq import apps as django_dramatiq_apps
from dramatiq.rate_limits import WindowRateLimiter

from cerniq import reasons
from cerniq.models import Tenant
from cerniq.outbound.events import emit
from hitl import reasons as why
from hitl.metrics import observe_triage
from hitl.routing import complains, declines
from outreach import optout, sequences, stages
from outreach.hours import SendingWindow
from outreach.manual import SendRefused, answer, queue_reply
from outreach.models import Channel, Enrollment, Journey, Lead, Message, Stage
from outreach.reasons import STOP_COMPANY_REPLIED, STOP_REPLY
from outreach.sequences import OPT_OUT_CONFIRMATION_PREFIX
from outreach.suppression import channel_address, suppress

log = logging.getLogger(__name__)

AI_REQUESTS_PER_MINUTE = 60
AI_LIMIT_KEY = "ai-triage-{tenant_id}"


def analyse(lead: Lead, text: str, *, today: date | None = None):
    """Triage within the tenant's AI budget (60/min); past it, the offline backend answers.
    `today` is the day the reply was written (return dates are read relative to it).
    Timed for the metrics (cerniq_triage_duration_seconds)."""
    started = perf_counter()
    result = _triage_within_budget(lead, text, today=today)
    observe_triage(result.backend, result.fell_back, perf_counter() - started)
    return result


def _triage_within_budget(lead: Lead, text: str, *, today: date | None):
    from hitl.triage import OfflineTriage, triage

    names = {"contact_name": lead.contact_name, "company_name": lead.name}
    backend = django_dramatiq_apps.RATE_LIMITER_BACKEND
    limiter = WindowRateLimiter(
        backend,
        AI_LIMIT_KEY.format(tenant_id=lead.tenant_id),
        limit=AI_REQUESTS_PER_MINUTE,
        window=60,
    )
    with limiter.acquire(raise_on_failure=False) as acquired:
        if acquired:
            return triage(text, **names, today=today)
    result = OfflineTriage().analyse(text, **names, today=today)
    return type(result)(
        **{
            **asdict(result),
            "fell_back": True,
            "fallback_reason": reasons.code(why.TRIAGE_RATE_LIMIT, limit=AI_REQUESTS_PER_MINUTE),
        }
    )


def written_on(lead: Lead, message: Message) -> date:
    """The day the message was written, in the tenant's time zone (its provider timestamp,
    else when we stored it): "back on Monday" means the Monday after that day."""
    when = message.sent_at or message.created_at or timezone.now()
    return timezone.localtime(when, SendingWindow.for_tenant(lead.tenant).tz).date()


def process_reply(lead: Lead, message: Message) -> str:
    """Apply a stored inbound message to its lead. Returns what was decided."""
    today = written_on(lead, message)
    if optout.is_opt_out(message.body):
        return _opt_out(lead, message, today=today)
    result = analyse(lead, message.body, today=today)
    if result.intent == "unsubscribe":  # worded in a way the phrase list does not know
        return _opt_out(lead, message, today=today, result=result)
    if result.intent == "out_of_office":
        return _out_of_office(lead, message, result)
    with transaction.atomic():
        now = timezone.now()
        journey = Journey.objects.select_for_update().get(lead=lead)
        Journey.objects.filter(pk=journey.pk).update(
            reply_count=F("reply_count") + 1, last_reply_at=now
        )
        target = stages.after_reply(journey.stage, declines=declines(result.intent, result.signals))
        if target is not None:
            said = why.STAGE_DECLINE if target == Stage.DEAD else why.STAGE_REPLY
            stages.transition(
                journey,
                target,
                reason=reasons.code(said, channel=message.channel),
                by_system="inbound",
            )
        sequences.stop(
            lead.pk, reasons.code(STOP_REPLY)
        )  # idempotent; also cancels anything still queued
        stopped = stop_company(lead)
        decision = _route(lead, message, result)
        _remember(message, result, decision, company_stopped=stopped)
        emit(lead.tenant_id, "lead.replied", _replied_event(lead, message, result, decision))
    return decision


def _replied_event(lead: Lead, message: Message, result, decision: str) -> dict:
    return {
        "lead_id": lead.pk,
        "message_id": message.pk,
        "channel": message.channel,
        "text": message.body,
        "intent": result.intent,
        "decision": decision,
    }


def process_unknown_sender(tenant: Tenant, message: Message) -> str:
    """A message from someone who is no lead of ours: kept, and a "stop" is honoured for
    the address itself (the suppression list), so no lead imported later with it is
    contacted. Nothing is sent back: we never wrote to this address."""
    if not message.counterpart or not optout.is_opt_out(message.body or ""):
        decision = "unknown sender: kept"
    else:
        address = channel_address(
            message.channel, phone=message.counterpart, email=message.counterpart
        )
        suppress(tenant, **address, reason="stop from an unknown sender", message=message)
        decision = "opt-out: unknown sender suppressed"
    Message.objects.filter(pk=message.pk).update(analysis={"decision": decision})
    return decision


def receive_email_reply(
    tenant: Tenant,
    *,
    channel: str,
    email: str,
    text: str,
    provider_message_id: str,
    subject: str = "",
    thread_id: str = "",
    sent_at: datetime | None = None,
    raw: dict | None = None,
    lead: Lead | None = None,
) -> Message | None:
    """An email reply (any email integration): stored once as an inbound message of `lead`
    when the integration threaded it (a routed reply address), else of the lead that has
    this address, or of nobody (an unknown sender, whose "stop" suppresses the address),
    then the same path as a WhatsApp reply. None when already stored (a redelivery)."""
    from outreach.email_events import leads_with_email, normal_email

    if lead is None:
        lead = leads_with_email(tenant, email).order_by("pk").first()
    try:
        with transaction.atomic():
            message = Message.objects.create(
                tenant=tenant,
                lead=lead,
                channel=channel,
                direction=Message.Direction.INBOUND,
                status=Message.Status.RECEIVED,
                counterpart=normal_email(email),
                subject=(subject or "")[:255],
                body=text or "",
                provider_message_id=provider_message_id,
                provider_thread_id=thread_id,
                sent_at=sent_at,
                raw_response=raw or {},
            )
    except IntegrityError:
        log.info("email reply %s already stored", provider_message_id)
        return None
    if lead is None:
        process_unknown_sender(tenant, message)
    elif message.body.strip():
        process_reply(lead, message)
    return message


def stop_company(lead: Lead) -> int:
    """A reply from one contact stops automation for every lead of the same company."""
    if not lead.cui:
        return 0
    others = Lead.objects.filter(tenant_id=lead.tenant_id, cui=lead.cui).exclude(pk=lead.pk)
    count = 0
    for other_id in others.values_list("pk", flat=True):
        count += sequences.stop(other_id, reasons.code(STOP_COMPANY_REPLIED))
    return count


def _route(lead: Lead, message: Message, result) -> str:
    """Route the triaged reply (hitl.routing), answer it or open its review item, and tell a
    person at once when it is hot. Returns the decision (a stored reason)."""
    from hitl import hot_replies, review
    from hitl.models import ReviewItem
    from hitl.routing import route

    decision = route(
        lead.tenant,
        sentiment=result.sentiment,
        intent=result.intent,
        keywords=tuple(result.keywords),
        signals=tuple(result.signals),
        confidence=result.confidence,
    )
    if decision.hot:
        hot_replies.announce(lead, message, result.intent)
    analysis = {"triage": _jsonable(result), "route": asdict(decision)}
    reason, kind = decision.reason, ReviewItem.Kind.REPLY
    if decision.action == "auto_reply":
        try:
            answer(
                lead,
                result.draft,
                to=message,
                reason=decision.reason,
                is_manual=False,
                idempotency_key=f"ai-reply:{message.pk}",
            )
            return reasons.code(why.DECISION_AUTO_REPLY, why=decision.reason)
        except SendRefused as refused:
            reason = reasons.code(why.ROUTE_AUTO_REPLY_REFUSED, why=str(refused))
            kind = ReviewItem.Kind.APPROVAL
    elif decision.action == "approval":
        kind = ReviewItem.Kind.APPROVAL
    review.open_item(
        lead,
        reason=reason,
        priority=decision.priority,
        message=message,
        kind=kind,
        sentiment=result.sentiment,
        intent=result.intent,
        analysis=analysis,
        draft=result.draft,
    )
    return reasons.code(why.DECISION_REVIEW, priority=decision.priority, why=reason)


def _jsonable(result) -> dict:
    return json.loads(json.dumps(asdict(result), default=str))


def _remember(message: Message, result, decision: str, **extra: object) -> None:
    Message.objects.filter(pk=message.pk).update(
        analysis={"triage": _jsonable(result), "decision": decision, **extra}
    )


def is_complaint(result) -> bool:
    """Whether a triaged reply is a complaint a person must see (hitl.routing.complains)."""
    return complains(result.intent, result.signals)


def _opt_out(lead: Lead, message: Message, *, today: date, result=None) -> str:
    """Opt the contact out (first, whatever else happens), confirm it once, and when the
    reply also complains (GDPR, a lawyer, "where did you get my number") put it in front of
    a person as an URGENT review item."""
    first = optout.opt_out(lead, message.channel, trigger=message)  # this contact only
    if first and message.channel == Channel.WHATSAPP:
        try:
            queue_reply(
                lead,
                optout.confirmation_for(message.body),
                reason="opt-out confirmation",
                is_manual=False,
                allow_opted_out=True,
                idempotency_key=f"{OPT_OUT_CONFIRMATION_PREFIX}{lead.pk}:{message.channel}",
            )
        except SendRefused as refused:
            log.warning("opt-out confirmation for lead %s not sent: %s", lead.pk, refused)
    decision = reasons.code(why.DECISION_OPT_OUT)
    analysis: dict[str, object] = {}
    try:
        result = result or analyse(lead, message.body, today=today)
    except Exception:  # the opt-out stands; the complaint check falls back to the rules
        log.exception("triage of opt-out message %s failed", message.pk)
        result = _offline(lead, message.body, today=today)
    if result is not None:
        analysis["triage"] = _jsonable(result)
        if is_complaint(result):
            _complaint_review(lead, message, result)
            decision = reasons.code(why.DECISION_OPT_OUT_COMPLAINT)
    Message.objects.filter(pk=message.pk).update(analysis={**analysis, "decision": decision})
    return decision


def _offline(lead: Lead, text: str, *, today: date):
    """The offline triage (no network, no budget), or None if even that fails."""
    from hitl.triage import OfflineTriage

    try:
        return OfflineTriage().analyse(
            text, contact_name=lead.contact_name, company_name=lead.name, today=today
        )
    except Exception:
        log.exception("offline triage of an opt-out failed")
        return None


def _complaint_review(lead: Lead, message: Message, result) -> None:
    from hitl import review
    from hitl.models import ReviewItem
    from outreach.models import Priority

    review.open_item(
        lead,
        reason=reasons.code(why.OPT_OUT_COMPLAINT),
        priority=Priority.URGENT,
        message=message,
        kind=ReviewItem.Kind.REPLY,
        sentiment=result.sentiment,
        intent=result.intent,
        analysis={"triage": _jsonable(result)},
        draft="",
    )


def _out_of_office(lead: Lead, message: Message, result) -> str:
    """Not a reply: keep the sequence, but wait until the person is back."""
    decision = reasons.code(why.DECISION_OUT_OF_OFFICE)
    if result.return_date:
        window = SendingWindow.for_tenant(lead.tenant)
        back = window.next_opening(
            datetime.combine(result.return_date, time(9, 0), tzinfo=window.tz)
        )
        if back <= timezone.now():  # back already (a late or replayed delivery)
            decision = reasons.code(why.DECISION_OUT_OF_OFFICE)
            _remember(message, result, decision)
            return decision
        journey = Journey.objects.get(lead=lead)
        if journey.next_action_at is None or journey.next_action_at < back:
            Journey.objects.filter(pk=journey.pk).update(next_action_at=back)
            Enrollment.objects.filter(lead=lead, status=Enrollment.Status.ACTIVE).update(
                next_run_at=back
            )
            sequences.cancel_queued([lead.pk], "out of office until " + str(result.return_date))
        shown = timezone.localtime(back, window.tz)
        decision = reasons.code(why.DECISION_OUT_OF_OFFICE_UNTIL, back=f"{shown:%d.%m.%Y %H:%M}")
    _remember(message, result, decision)
    return decision
