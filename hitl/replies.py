"""What a reply does, whatever channel it came on (flow 3 of docs/design.md).

In two steps, so that no model call ever holds the webhook's transaction:

1. `process_reply`, in the transaction that stores the reply (the webhook's): only what
   must happen at once and costs nothing. An opt-out (the deterministic phrase list) is
   honoured; any other reply stops automation for the lead and its whole company
   (hitl.reply_holds: a follow-up already queued never goes out). The reply is marked as
   being analysed (a `ReplyTriage` row, PENDING) and handed to the `ai.triage` workers when
   the transaction commits (hitl.triage_jobs).
2. `route_triaged`, in a worker, in a short transaction after the triage ran outside any:
   a complaint that came with an opt-out is put in front of a person as an URGENT review
   item; an opt-out worded in a way the phrase list does not know is honoured; an
   out-of-office answer gives back what step 1 stopped, the next step moved past the
   return (a return date read relative to the day the message was written); anything else
   moves the stage and is routed to an automatic answer, a draft to approve or a review
   item. When every attempt to triage failed, `triage_failed` puts it in front of a person.
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

from cerniq import ai_budget, reasons
from cerniq.formats import stored_moment
from cerniq.models import Tenant
from cerniq.outbound.events import emit
from hitl import reasons as why
from hitl import reply_intent
from hitl.metrics import observe_triage
from hitl.routing import complains, declines
from outreach import lawful_basis, optout, stages
from outreach.hours import SendingWindow
from outreach.manual import AI_DRAFT, SendRefused, answer, queue_reply
from outreach.models import Channel, Journey, Lead, Message, Stage
from outreach.sequences import OPT_OUT_CONFIRMATION_PREFIX
from outreach.suppression import channel_address, suppress

log = logging.getLogger(__name__)

# The tenant's AI budget, shared with brochure drafting (cerniq.ai_budget).
AI_REQUESTS_PER_MINUTE = ai_budget.AI_REQUESTS_PER_MINUTE
AI_LIMIT_KEY = ai_budget.AI_LIMIT_KEY


def analyse(lead: Lead, text: str, *, today: date | None = None, context=None):
    """Triage within the tenant's AI budget (60/min); past it, the offline backend answers.
    `today` is the day the reply was written (return dates are read relative to it);
    `context` what the draft may use (hitl.triage.context.draft_context).
    Timed for the metrics (cerniq_triage_duration_seconds)."""
    started = perf_counter()
    result = _triage_within_budget(lead, text, today=today, context=context)
    observe_triage(result.backend, result.fell_back, perf_counter() - started)
    return result


def _triage_within_budget(lead: Lead, text: str, *, today: date | None, context=None):
    from hitl.triage import OfflineTriage, triage

    names = {"contact_name": lead.contact_name, "company_name": lead.name, "context": context}
    budget = ai_budget.ai_request(lead.tenant_id, limit=AI_REQUESTS_PER_MINUTE, key=AI_LIMIT_KEY)
    with budget as acquired:
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


def read(lead: Lead, message: Message, *, opted_out: bool):
    """The triage of a stored reply (hitl.triage_jobs: outside any transaction). An opt-out
    is honoured already: when the triage fails, the built-in rules still look for the
    complaint a person must answer, at once; any other reply is tried again."""
    from hitl.triage.context import draft_context

    today = written_on(lead, message)
    context = draft_context(lead, message)
    try:
        return analyse(lead, message.body, today=today, context=context)
    except Exception:
        if not opted_out:
            raise
        log.exception("triage of opt-out message %s failed; the built-in rules read it", message.pk)
        from hitl.triage import OfflineTriage

        return OfflineTriage().analyse(
            message.body,
            contact_name=lead.contact_name,
            company_name=lead.name,
            today=today,
            context=context,
        )


def written_on(lead: Lead, message: Message) -> date:
    """The day the message was written, in the tenant's time zone (its provider timestamp,
    else when we stored it): "back on Monday" means the Monday after that day."""
    when = message.sent_at or message.created_at or timezone.now()
    return timezone.localtime(when, SendingWindow.for_tenant(lead.tenant).tz).date()


def process_reply(lead: Lead, message: Message) -> str:
    """Take in a stored reply of `lead`, in the caller's transaction: the opt-out or the stop
    of automation, at once; the triage after the commit (hitl.triage_jobs). Returns what was
    decided so far (the opt-out, or "being analysed")."""
    from hitl import reply_holds, responses, triage_jobs

    with transaction.atomic():
        opted_out = optout.is_opt_out(message.body)
        held: dict = {}
        # Every reply, a "stop" too: the inbox lists and orders conversations by it. Its
        # intent is not known before its triage (hitl.reply_intent).
        Journey.objects.filter(lead=lead).update(last_reply_at=timezone.now(), last_reply_intent="")
        if opted_out:
            decision = _honour_opt_out(lead, message)
        else:
            held = reply_holds.hold(lead)
            responses.reply_received(message)
            decision = reasons.code(why.DECISION_PENDING)
        Message.objects.filter(pk=message.pk).update(
            analysis={"decision": decision, "pending": True}
        )
        triage_jobs.expect(lead, message, opted_out=opted_out, held=held)
    return decision


def route_triaged(lead: Lead, message: Message, result, *, opted_out: bool, held: dict) -> str:
    """Act on a reply's triage (step 2 of the module's docstring). Runs in the worker's short
    transaction; returns what was decided."""
    if opted_out:  # honoured when the reply was stored: a person answers a complaint
        return _complaint_check(lead, message, result)
    if result.intent == "unsubscribe":  # worded in a way the phrase list does not know
        _honour_opt_out(lead, message)
        return _complaint_check(lead, message, result)
    if result.intent == "out_of_office":
        return _out_of_office(lead, message, result, held)
    declining = declines(result.intent, result.signals)
    _count_reply(lead, message, declines=declining)
    # A nurture sequence goes on after any reply but a refusal (hitl.reply_holds.go_on).
    if not (declining or complains(result.intent, result.signals)):
        from hitl import reply_holds

        reply_holds.go_on(lead, message, held)
    decision = _route(lead, message, result)
    _remember(message, result, decision, company_stopped=held.get("company_stopped", 0))
    emit(lead.tenant_id, "lead.replied", _replied_event(lead, message, result, decision))
    return decision


def _count_reply(lead: Lead, message: Message, *, declines: bool) -> None:
    """A real reply: counted, and the lead moves (outreach.stages.after_reply)."""
    journey = Journey.objects.select_for_update().get(lead=lead)
    Journey.objects.filter(pk=journey.pk).update(reply_count=F("reply_count") + 1)
    target = stages.after_reply(journey.stage, declines=declines)
    if target is not None:
        said = why.STAGE_DECLINE if target == Stage.DEAD else why.STAGE_REPLY
        stages.transition(
            journey,
            target,
            reason=reasons.code(said, channel=message.channel),
            by_system="inbound",
        )


def triage_failed(lead: Lead, message: Message, *, error: str, attempts: int) -> str:
    """Every attempt to triage the reply failed: a person reads it (HIGH: it may be the best
    reply of the day), and the lead counts as having replied. Returns the decision."""
    from hitl import review
    from hitl.models import ReviewItem
    from outreach.models import Priority

    _count_reply(lead, message, declines=False)
    reason = reasons.code(why.ROUTE_TRIAGE_FAILED, error=error)
    review.open_item(
        lead,
        reason=reason,
        priority=Priority.HIGH,
        message=message,
        kind=ReviewItem.Kind.REPLY,
        analysis={"triage_failed": {"error": error, "attempts": attempts}},
    )
    decision = reasons.code(why.DECISION_REVIEW, priority=Priority.HIGH, why=reason)
    Message.objects.filter(pk=message.pk).update(
        analysis={"decision": decision, "triage_failed": error}
    )
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
    from hitl.triage.context import with_price_list_note

    analysis = {"triage": _jsonable(result), "route": asdict(decision)}
    reason = with_price_list_note(lead.tenant, result, decision.reason)
    kind = ReviewItem.Kind.REPLY
    if decision.action == "auto_reply":
        try:
            answer(
                lead,
                result.draft,
                to=message,
                reason=decision.reason,
                is_manual=False,
                idempotency_key=f"ai-reply:{message.pk}",
                ai_draft=AI_DRAFT,
            )
            from hitl import responses

            responses.not_awaiting(message)  # answered as the triage decided: nobody owes one
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
    _store_triage(message, result, {"decision": decision, **extra})


def _store_triage(message: Message, result, more: dict) -> None:
    """The reply's triage kept on the message, and its intent on the journey while it is
    the lead's latest reply (hitl.reply_intent)."""
    Message.objects.filter(pk=message.pk).update(analysis={"triage": _jsonable(result), **more})
    reply_intent.triaged(message, result.intent)
    # A reply asking for the offer is consent on its channel (outreach.lawful_basis).
    lawful_basis.consent_from_reply(message, result.intent, confidence=result.confidence)


def is_complaint(result) -> bool:
    """Whether a triaged reply is a complaint a person must see (hitl.routing.complains)."""
    return complains(result.intent, result.signals)


def _honour_opt_out(lead: Lead, message: Message) -> str:
    """Opt the contact out (first, whatever else happens) and confirm it once."""
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
    return reasons.code(why.DECISION_OPT_OUT)


def _complaint_check(lead: Lead, message: Message, result) -> str:
    """An opted-out reply that also complains (GDPR, a lawyer, "where did you get my
    number") is put in front of a person as an URGENT review item."""
    decision = reasons.code(why.DECISION_OPT_OUT)
    if is_complaint(result):
        _complaint_review(lead, message, result)
        decision = reasons.code(why.DECISION_OPT_OUT_COMPLAINT)
    _store_triage(message, result, {"decision": decision})
    return decision


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


def _out_of_office(lead: Lead, message: Message, result, held: dict) -> str:
    """Not a reply: what storing it stopped starts again, the next step waiting until the
    person is back (hitl.reply_holds.give_back)."""
    from hitl import reply_holds, responses

    responses.not_awaiting(message)
    back = None
    decision = reasons.code(why.DECISION_OUT_OF_OFFICE)
    if result.return_date:
        window = SendingWindow.for_tenant(lead.tenant)
        opening = window.next_opening(
            datetime.combine(result.return_date, time(9, 0), tzinfo=window.tz)
        )
        if opening > timezone.now():  # else back already (a late or replayed delivery)
            back = opening
            decision = reasons.code(
                why.DECISION_OUT_OF_OFFICE_UNTIL, back=stored_moment(back, window.tz)
            )
    reply_holds.give_back(message, held, back=back)
    _remember(message, result, decision)
    return decision
