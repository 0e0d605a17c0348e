"""The human review queue: open items, act on them, and watch their SLAs.

A lead with an open (OPEN or ASSIGNED) review item has `journey.requires_human_review`
set, so dispatch skips it, the send path cancels any automated message still queued for
it (outreach.sending.why_not_send) and a cold email a campaign still holds is withdrawn
(outreach.automation.stopped); messages written or approved by a person (`is_manual`)
still go out. The journey's `review_priority`/`review_reason` mirror the
most urgent open item. When the last open item closes the flag is cleared and automation
may resume: the stage decides what dispatch does, and an enrollment whose queued step was
cancelled while the lead was under review is made due again.

SLAs count the tenant's working hours (outreach.hours.SendingWindow: the sending window,
working days, public holidays), so an URGENT item opened Friday 17:30 with a 09:00–18:00
window is due Monday 09:30.

Every action runs in one transaction and raises ReviewError with an operator-facing
message when it is not allowed; nothing changes then. An ASSIGNED item can be acted on
only by its assignee (anyone in the workspace may reassign it to themselves first), so two
operators never answer the same reply.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.db.models import Count, F, Q
from django.utils import timezone
from django.utils.translation import gettext as _

from cerniq import reasons
from cerniq.alerts import raise_alert, resolve_alerts
from cerniq.formats import stored_moment
from cerniq.models import Alert, Membership, Tenant
from cerniq.outbound.events import emit
from cerniq.tenancy import display_name
from hitl import hot_replies, responses, routing, sla
from hitl import reasons as why
from hitl.models import ReviewItem
from outreach import automation, stages
from outreach.hours import SendingWindow
from outreach.manual import AI_DRAFT, AI_DRAFT_EDITED, NOT_AI, SendRefused, answer
from outreach.models import Enrollment, Journey, Lead, Message, Priority, Stage

RANK = routing.RANK
ESCALATION: dict[str, str] = {
    Priority.LOW: Priority.MEDIUM,
    Priority.MEDIUM: Priority.HIGH,
    Priority.HIGH: Priority.URGENT,
    Priority.URGENT: Priority.URGENT,
}
OPEN_STATUSES = (ReviewItem.Status.OPEN, ReviewItem.Status.ASSIGNED)
RESOLVE_STAGES = frozenset({Stage.NEGOTIATION, Stage.CONVERTED, Stage.DEAD})
MAX_REASON = 255
MAX_NOTE = 2000  # a person's note on a reject or resolve (pages and API)


class ReviewError(ValueError):
    """The action is not allowed; the text says why, for the operator."""


# --- helpers -------------------------------------------------------------------------


def sla_due(tenant: Tenant, priority: str, start: datetime | None = None) -> datetime:
    """When an item of `priority` opened at `start` is due, counting working time only
    (the tenant's minutes per priority: hitl.sla)."""
    start = start or timezone.now()
    minutes = sla.minutes_for(tenant, priority)
    return SendingWindow.for_tenant(tenant).add_delay(start, minutes, "MINUTES")


def check_member(tenant_id: int, user: User) -> None:
    """Only people in the lead's workspace (or superusers) act on it."""
    if user is None or not user.is_authenticated:
        raise ReviewError(_("You must be signed in to do this."))
    if getattr(user, "is_superuser", False):
        return
    if not Membership.objects.filter(tenant_id=tenant_id, user=user).exists():
        raise ReviewError(
            _("%(user)s is not a member of this workspace.") % {"user": display_name(user)}
        )


def _top(items: Iterable[tuple[str, str, datetime]]) -> tuple[str, str] | None:
    """(priority, reason) of the most urgent of (priority, reason, sla_due_at) rows."""
    best = min(items, key=lambda row: (-RANK[row[0]], row[2]), default=None)
    return (best[0], best[1]) if best else None


def _sync_journey(journey: Journey) -> bool:
    """Mirror the lead's open items on the journey. True when nothing is open any more."""
    top = _top(
        ReviewItem.objects.filter(lead_id=journey.lead_id, status__in=OPEN_STATUSES).values_list(
            "priority", "reason", "sla_due_at"
        )
    )
    if top is None:
        journey.requires_human_review, journey.review_reason, journey.review_priority = (
            False,
            "",
            "",
        )
    else:
        journey.requires_human_review = True
        journey.review_priority, journey.review_reason = top[0], top[1][:MAX_REASON]
    journey.save(
        update_fields=["requires_human_review", "review_reason", "review_priority", "updated_at"]
    )
    return top is None


def replan_if_stalled(journey: Journey) -> bool:
    """Make an active enrollment due again when nothing of it is queued or planned.

    While a lead is under review (or taken over) the send path cancels its queued
    automated step and frees that step's key, but nobody plans it again; without this the
    enrollment would wait forever. True when the journey was made due now.
    """
    if (
        journey.stage not in stages.AUTOMATED
        or journey.requires_human_review
        or journey.taken_over_by_id
        or journey.next_action_at is not None
    ):
        return False
    active = Enrollment.objects.filter(
        lead_id=journey.lead_id, status=Enrollment.Status.ACTIVE
    ).exists()
    in_flight = Message.objects.filter(
        lead_id=journey.lead_id,
        direction=Message.Direction.OUTBOUND,
        is_manual=False,
        status__in=[Message.Status.QUEUED, Message.Status.SENDING],
    ).exists()
    if not active or in_flight:
        return False
    journey.next_action_at = timezone.now()
    journey.save(update_fields=["next_action_at", "updated_at"])
    return True


def _lock(item: ReviewItem) -> tuple[ReviewItem, Journey]:
    """Lock the lead's journey, then the item (always in that order), and check it is open."""
    journey = Journey.objects.select_for_update().get(lead_id=item.lead_id)
    locked = ReviewItem.objects.select_for_update().select_related("lead").get(pk=item.pk)
    if locked.status not in OPEN_STATUSES:
        raise ReviewError(
            _("This review item is already %(status)s; nothing was changed.")
            % {"status": locked.get_status_display().lower()}
        )
    return locked, journey


def _check_actor(item: ReviewItem, user: User) -> None:
    check_member(item.tenant_id, user)
    if item.status == ReviewItem.Status.ASSIGNED and item.assignee_id != user.pk:
        raise ReviewError(
            _("This item is assigned to %(user)s; assign it to yourself first.")
            % {"user": display_name(item.assignee)}
        )


def _close(
    item: ReviewItem,
    journey: Journey,
    user: User,
    *,
    status: str,
    resolution: str,
    stage: str = "",
) -> None:
    item.status = status
    item.resolution = resolution
    item.resolved_stage = stage
    item.resolved_by = user
    item.resolved_at = timezone.now()
    item.save(
        update_fields=["status", "resolution", "resolved_stage", "resolved_by", "resolved_at"]
    )
    resolve_alerts(journey.tenant, Alert.Kind.SLA_BREACH, f"review:{item.pk}")
    hot_replies.handled(item.lead)
    responses.handled(item, user)
    emit(item.tenant_id, "review.resolved", _review_event(item))
    journey.refresh_from_db()  # a stage change or a send may have touched it
    if _sync_journey(journey):
        replan_if_stalled(journey)


def _refresh(original: ReviewItem, current: ReviewItem) -> ReviewItem:
    original.refresh_from_db()
    return current


# --- actions -------------------------------------------------------------------------


@transaction.atomic
def open_item(
    lead: Lead,
    *,
    reason: str,
    priority: str,
    message: Message | None = None,
    kind: str = ReviewItem.Kind.REPLY,
    sentiment: int | None = None,
    intent: str = "",
    analysis: dict | None = None,
    draft: str = "",
) -> ReviewItem:
    """Put the lead in the review queue; automation stops for it until the item closes.

    Idempotent per (message, kind): an open item for the same message is returned as is.
    """
    if priority not in RANK:
        raise ReviewError(_("Unknown priority %(priority)s.") % {"priority": repr(priority)})
    if kind not in ReviewItem.Kind.values:
        raise ReviewError(_("Unknown review kind %(kind)s.") % {"kind": repr(kind)})
    reason = (reason or "").strip()
    if not reason:
        raise ReviewError(_("A review item needs a reason."))
    if sentiment is not None and not -100 <= sentiment <= 100:
        raise ReviewError(
            _("Sentiment must be between -100 and 100, got %(sentiment)s.")
            % {"sentiment": sentiment}
        )
    if message is not None and message.lead_id != lead.pk:
        raise ReviewError(_("That message does not belong to this lead."))
    try:
        journey = Journey.objects.select_for_update().get(lead_id=lead.pk)
    except Journey.DoesNotExist:
        raise ReviewError(_("%(lead)s has no journey yet.") % {"lead": lead.name}) from None
    if message is not None:
        existing = ReviewItem.objects.filter(
            message=message, kind=kind, status__in=OPEN_STATUSES
        ).first()
        if existing is not None:
            return existing
    try:
        with transaction.atomic():
            item = ReviewItem.objects.create(
                tenant_id=lead.tenant_id,
                lead=lead,
                message=message,
                kind=kind,
                reason=reason[:MAX_REASON],
                priority=priority,
                sla_due_at=sla_due(lead.tenant, priority),
                sentiment_score=sentiment,
                intent=(intent or "")[:32],
                ai_analysis=analysis or {},
                ai_draft=draft or "",
            )
    except IntegrityError:  # opened concurrently for the same message: that one wins
        return ReviewItem.objects.get(message=message, kind=kind, status__in=OPEN_STATUSES)
    was_held = journey.requires_human_review
    _sync_journey(journey)
    if not was_held:  # a hold stops automation: what a provider holds is withdrawn
        automation.stopped([lead.pk])
    emit(item.tenant_id, "review.created", _review_event(item))
    return item


def _review_event(item: ReviewItem) -> dict:
    """What an integrator hears of a review item (created, resolved)."""
    data = {
        "review_id": item.pk,
        "lead_id": item.lead_id,
        "message_id": item.message_id,
        "kind": item.kind,
        "status": item.status,
        "priority": item.priority,
        "reason": item.reason,
        "sla_due_at": item.sla_due_at.isoformat(),
    }
    if item.resolved_at is not None:
        data |= {
            "resolution": item.resolution,
            "resolved_stage": item.resolved_stage,
            "resolved_at": item.resolved_at.isoformat(),
        }
    return data


@transaction.atomic
def assign(item: ReviewItem, user: User) -> ReviewItem:
    """Give the item to `user` (taking it from its current assignee, if any)."""
    locked, _journey = _lock(item)
    check_member(locked.tenant_id, user)
    if locked.assignee_id == user.pk and locked.status == ReviewItem.Status.ASSIGNED:
        return _refresh(item, locked)
    locked.status = ReviewItem.Status.ASSIGNED
    locked.assignee = user
    locked.assigned_at = timezone.now()
    locked.save(update_fields=["status", "assignee", "assigned_at"])
    hot_replies.handled(locked.lead)
    return _refresh(item, locked)


@transaction.atomic
def assign_to(item: ReviewItem, assignee: User, *, by: User) -> ReviewItem:
    """`by` gives the item to a teammate: both must be people of the item's workspace (a
    superuser outside it is not a teammate)."""
    check_member(item.tenant_id, by)
    if not Membership.objects.filter(tenant_id=item.tenant_id, user=assignee).exists():
        raise ReviewError(
            _("%(user)s is not a member of this workspace.") % {"user": display_name(assignee)}
        )
    return assign(item, assignee)


@transaction.atomic
def approve_draft(item: ReviewItem, user: User, text: str | None = None) -> Message:
    """Send the AI draft (or `text`, the operator's edit of it) and resolve the item."""
    locked, journey = _lock(item)
    _check_actor(locked, user)
    edited = text is not None
    body = (text if text is not None else locked.ai_draft).strip()
    if not body:
        raise ReviewError(
            _("The reply is empty.") if edited else _("There is no AI draft; write the reply.")
        )
    changed = edited and body != locked.ai_draft.strip()
    # An operator's own text on an item without a draft is no AI draft (timeline, API).
    origin = (AI_DRAFT_EDITED if changed else AI_DRAFT) if locked.ai_draft.strip() else NOT_AI
    try:
        message = answer(
            locked.lead,
            body,
            to=locked.message,
            user=user,
            reason="approved AI reply",
            is_manual=True,
            ai_draft=origin,
        )
    except SendRefused as refused:
        raise ReviewError(str(refused)) from refused
    what = "edited reply" if changed else "AI draft"
    _close(
        locked,
        journey,
        user,
        status=ReviewItem.Status.RESOLVED,
        resolution=f"Sent the {what} (message #{message.pk}).",
    )
    _refresh(item, locked)
    return message


def _note(note: str | None) -> str:
    """A person's note, trimmed; ReviewError past MAX_NOTE characters."""
    note = (note or "").strip()
    if len(note) > MAX_NOTE:
        raise ReviewError(
            _("The note has %(length)d characters; at most %(limit)d.")
            % {"length": len(note), "limit": MAX_NOTE}
        )
    return note


@transaction.atomic
def reject(item: ReviewItem, user: User, note: str) -> ReviewItem:
    """Close the item without sending anything (the draft is discarded), saying why."""
    note = _note(note)
    if not note:
        raise ReviewError(_("Say why you reject it (a short note)."))
    locked, journey = _lock(item)
    _check_actor(locked, user)
    _close(locked, journey, user, status=ReviewItem.Status.DISMISSED, resolution=note)
    return _refresh(item, locked)


@transaction.atomic
def resolve(
    item: ReviewItem, user: User, *, stage: str | None = None, note: str = ""
) -> ReviewItem:
    """Close the item, optionally moving the lead to NEGOTIATION, CONVERTED or DEAD."""
    if stage is not None and stage not in RESOLVE_STAGES:
        allowed = ", ".join(str(Stage(s).label) for s in sorted(RESOLVE_STAGES))
        raise ReviewError(
            _("A review can only close a lead as %(stages)s (or leave its stage).")
            % {"stages": allowed}
        )
    note = _note(note)
    locked, journey = _lock(item)
    _check_actor(locked, user)
    if stage is not None:
        try:
            stages.transition(
                journey,
                stage,
                reason=(
                    reasons.code(why.STAGE_REVIEW, note=note)
                    if note
                    else reasons.code(why.STAGE_REVIEW_CLOSED)
                ),
                by_user=user,
            )
        except stages.IllegalTransition as illegal:
            raise ReviewError(str(illegal)) from illegal
    _close(
        locked,
        journey,
        user,
        status=ReviewItem.Status.RESOLVED,
        resolution=note or "Resolved.",
        stage=stage or "",
    )
    return _refresh(item, locked)


@transaction.atomic
def release_journey_if_clear(lead: Lead) -> bool:
    """Clear the review flag when the lead has no open items left (True then).

    With items still open it only brings review_priority/reason up to date. A released
    lead whose enrollment stalled while under review is made due again.
    """
    journey = Journey.objects.select_for_update().get(lead_id=lead.pk)
    if not _sync_journey(journey):
        return False
    replan_if_stalled(journey)
    return True


# --- SLA watch -----------------------------------------------------------------------


def breached(now: datetime):
    """Open items past their due time and not yet escalated for this breach."""
    return ReviewItem.objects.filter(status__in=OPEN_STATUSES, sla_due_at__lte=now).filter(
        Q(sla_breached_at__isnull=True) | Q(sla_breached_at__lt=F("sla_due_at"))
    )


@transaction.atomic
def check_sla(now: datetime | None = None) -> int:
    """Escalate every breached item one priority up, restart its SLA from now, alert.

    An escalated item gets a new due time, so running this again (every minute) leaves it
    alone until that new due time passes too. Returns how many items were escalated.
    """
    now = now or timezone.now()
    items = list(
        breached(now)
        .select_related("tenant", "lead")
        .select_for_update(skip_locked=True, of=("self",))
        .order_by("sla_due_at", "pk")
    )
    if not items:
        return 0
    windows: dict[int, SendingWindow] = {}
    minutes_of: dict[int, dict[str, int]] = {}
    alerts = []
    for item in items:
        old = item.priority
        item.priority = ESCALATION[old]
        window = windows.setdefault(item.tenant_id, SendingWindow.for_tenant(item.tenant))
        tenant_minutes = minutes_of.setdefault(item.tenant_id, sla.deadlines(item.tenant).minutes)
        minutes = tenant_minutes[item.priority]
        item.sla_due_at = window.add_delay(now, minutes, "MINUTES")
        item.sla_breached_at = now
        alerts.append(
            (
                item,
                reasons.code(
                    why.SLA_MISSED,
                    lead=item.lead.name,
                    why=item.reason,
                    missed=old,
                    now=item.priority,
                    due=stored_moment(item.sla_due_at, window.tz),
                ),
            )
        )
    ReviewItem.objects.bulk_update(items, ["priority", "sla_due_at", "sla_breached_at"])
    for item, text in alerts:
        severity = (
            Alert.Severity.CRITICAL if item.priority == Priority.URGENT else Alert.Severity.WARNING
        )
        alert = raise_alert(
            item.tenant, Alert.Kind.SLA_BREACH, f"review:{item.pk}", text, severity=severity
        )
        if alert.severity != severity:  # an open alert counted again keeps its old severity
            Alert.objects.filter(pk=alert.pk).update(severity=severity)
    _sync_priorities({item.lead_id for item in items})
    return len(items)


def _sync_priorities(lead_ids: set[int]) -> None:
    """Bring journey.review_priority/reason in step for these leads (two queries + update)."""
    rows: dict[int, list[tuple[str, str, datetime]]] = {}
    for lead_id, priority, reason, due in ReviewItem.objects.filter(
        lead_id__in=lead_ids, status__in=OPEN_STATUSES
    ).values_list("lead_id", "priority", "reason", "sla_due_at"):
        rows.setdefault(lead_id, []).append((priority, reason, due))
    journeys = list(Journey.objects.filter(lead_id__in=lead_ids))
    now = timezone.now()
    for journey in journeys:
        journey.updated_at = now
        top = _top(rows.get(journey.lead_id, []))
        if top is not None:
            journey.review_priority, journey.review_reason = top[0], top[1][:MAX_REASON]
            journey.requires_human_review = True
    Journey.objects.bulk_update(
        journeys, ["requires_human_review", "review_priority", "review_reason", "updated_at"]
    )


def past_due(now: datetime) -> Q:
    """An item past its SLA: open and due before `now` (what the dashboard, the metrics and
    the API call breached, whether escalated yet or not)."""
    return Q(status__in=OPEN_STATUSES, sla_due_at__lt=now)


def open_counts(now: datetime, *group_by: str, **filters: object):
    """Open items and, of them, those past their SLA (`open`, `breached`) per priority and
    `group_by` fields: one grouped query (the dashboard, the metrics)."""
    return (
        ReviewItem.objects.filter(status__in=OPEN_STATUSES, **filters)
        .order_by()
        .values(*group_by, "priority")
        .annotate(open=Count("pk"), breached=Count("pk", filter=past_due(now)))
    )


def review_stats(tenant: Tenant, now: datetime) -> dict:
    """Open review items by priority and SLA breaches: one grouped query."""
    rows = open_counts(now, tenant=tenant)
    found = {row["priority"]: row for row in rows}
    priorities = [
        {
            "value": value,
            "label": label,
            "open": found.get(value, {}).get("open", 0),
            "breached": found.get(value, {}).get("breached", 0),
        }
        for value, label in Priority.choices
    ]
    return {
        "priorities": priorities,
        "open_total": sum(p["open"] for p in priorities),
        "breached_total": sum(p["breached"] for p in priorities),
    }
