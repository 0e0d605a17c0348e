"""One lead: company and contact data, stage history, the conversation, and its actions."""

from __future__ import annotations

from collections.abc import Callable

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from cerniq import reasons
from cerniq.params import parse_id
from cerniq.tenancy import AuthenticatedHttpRequest, TenantScope, scope_for
from console.forms import RecordOptOutForm
from console.views.alerts import is_channel_admin
from console.views.chat_history import panel as chat_history_panel
from console.views.lead_basis_rows import CHANNEL_CHOICES, basis_rows
from console.views.lead_receipts import receipt_rows
from console.views.lead_timeline import timeline_html, timeline_items
from hitl import takeover
from hitl.review import ReviewError
from outreach import optout_manual, sequences, stages
from outreach.manual import SendRefused, send_manual
from outreach.models import (
    Channel,
    ContactBasis,
    Enrollment,
    Journey,
    Lead,
    Message,
    Sequence,
    Stage,
)
from outreach.next_send import next_send_at
from outreach.past_messages import history_flag
from outreach.readiness import ContactPolicy, readiness
from outreach.reasons import (
    STAGE_CHANGED_BY_OPERATOR,
    STAGE_PAUSED_BY_OPERATOR,
    STAGE_RESUMED_BY_OPERATOR,
)

TIMELINE_LATEST = 50  # messages shown by default; ?all=1 shows the whole conversation
RULE_FIRINGS_SHOWN = 10


def _lead(scope: TenantScope, pk: int) -> Lead:
    return scope.get_or_404(
        Lead.objects.select_related(
            "company",
            "journey",
            "journey__assigned_phone",
            "journey__current_sequence",
            "journey__taken_over_by",
            "journey__operator",
        ),
        pk=pk,
    )


def _journey(lead: Lead) -> Journey:
    try:
        return lead.journey
    except Journey.DoesNotExist:
        raise Http404("this lead has no journey") from None


@login_required
@require_GET
def lead_detail(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    scope = scope_for(request)
    return render(
        request, "outreach/lead_detail.html", page_context(request, scope, _lead(scope, pk))
    )


def page_context(
    request: HttpRequest,
    scope: TenantScope,
    lead: Lead,
    *,
    opt_out_form: RecordOptOutForm | None = None,
) -> dict:
    """What the lead page shows; `opt_out_form` bound when a recorded opt-out was refused."""
    journey = getattr(lead, "journey", None)
    conversation = scope.queryset(Message).filter(lead=lead)
    message_count = conversation.count()
    show_all = request.GET.get("all") == "1"
    latest = (
        conversation.select_related("phone", "template_version__template", "sent_by", "media")
        .prefetch_related("attachments")
        # The provider payloads: never shown here, and the largest columns a message has.
        .defer("raw_request", "raw_response", "retries")
        .annotate(is_history=history_flag())  # fetched afterwards, with the chat's past
        .order_by("-created_at", "-pk")
    )
    if not show_all:
        latest = latest[:TIMELINE_LATEST]
    timeline = timeline_items(list(reversed(latest)))
    history = (
        history_rows(journey.transitions.select_related("by_user").order_by("-created_at", "-pk"))
        if journey
        else []
    )
    targets = stages.allowed_targets(journey) if journey else []
    enrollments = list(scope.queryset(Enrollment).filter(lead=lead).select_related("sequence")[:10])
    return {
        "next_send": next_send_at(scope.tenant, lead=lead) if journey else None,
        "lead": lead,
        "company_contacts": lead.company.contacts.count(),  # "Company: X · 2 contacts"
        "journey": journey,
        "timeline": timeline,
        "timeline_html": timeline_html(timeline),
        "message_count": message_count,
        "earlier_hidden": message_count - len(timeline),
        "history": history,
        "stage_targets": [(value, Stage(value).label) for value in targets],
        "enrollments": enrollments,
        # Steps skipped, a colleague's reply, a nurture going on (outreach.event_models).
        "sequence_events": list(
            lead.sequence_events.select_related("enrollment__sequence", "step")[:20]
        ),
        "readiness": readiness(lead, journey, policy=ContactPolicy.of(scope.tenant)),
        "stalled": next(
            (
                e
                for e in enrollments
                if e.status == Enrollment.Status.ACTIVE and e.stalled_since is not None
            ),
            None,
        ),
        "sequences": list(
            scope.queryset(Sequence).filter(is_active=True).order_by("name").only("pk", "name")
        ),
        "held_by_me": bool(journey and journey.taken_over_by_id == request.user.pk),
        "send_channels": _send_channels(lead),
        "opt_out_lifts": list(lead.opt_out_lifts.select_related("by_user")[:5]),
        "opt_out_records": list(lead.opt_out_records.select_related("by_user")[:5]),
        "opt_out_form": opt_out_form or RecordOptOutForm(),
        "may_erase": is_channel_admin(request, scope),
        "erasure": lead.erasures.select_related("requested_by").first(),
        "receipts": receipt_rows(lead),
        # Which lead rule took the lead, what it did and was refused (outreach.lead_rules).
        "rule_firings": list(lead.rule_firings.all()[:RULE_FIRINGS_SHOWN]),
        "basis_rows": basis_rows(lead),
        "basis_choices": ContactBasis.Basis.choices,
        "basis_channels": CHANNEL_CHOICES,
        # What the operator typed before a refused send: shown again, never lost.
        "draft": request.session.pop(_draft_key(lead), None) or {},
        "chat_history": chat_history_panel(lead),  # the chat's earlier messages, fetched
    }


def history_rows(transitions) -> list[dict]:
    """The stage history's rows with their stage labels looked up once."""
    labels = {value: str(label) for value, label in Stage.choices}
    return [
        {
            "created_at": t.created_at,
            "from_stage": t.from_stage,
            "to_stage": t.to_stage,
            "from_label": labels.get(t.from_stage, t.from_stage),
            "to_label": labels.get(t.to_stage, t.to_stage),
            "reason": t.reason,
            "by_user": t.by_user.get_username() if t.by_user else "",
            "by_system_label": t.by_system_label or "—",
        }
        for t in transitions
    ]


def _draft_key(lead: Lead) -> str:
    return f"lead-draft:{lead.pk}"


def _send_channels(lead: Lead) -> list[tuple[str, str]]:
    """The channels an operator can write on from the lead page, most direct first."""
    found: list[tuple[str, str]] = []
    if lead.phone:
        found.append((Channel.WHATSAPP, _("WhatsApp")))
    if lead.email:
        found.append((Channel.EMAIL_WARM, _("Email")))
    return found


def _pause(request: AuthenticatedHttpRequest, lead: Lead, journey: Journey) -> str:
    stages.pause(journey, reason=reasons.code(STAGE_PAUSED_BY_OPERATOR), by_user=request.user)
    return _("%(lead)s is paused.") % {"lead": lead.name}


def _resume(request: AuthenticatedHttpRequest, lead: Lead, journey: Journey) -> str:
    stages.resume(journey, reason=reasons.code(STAGE_RESUMED_BY_OPERATOR), by_user=request.user)
    return _("%(lead)s is active again.") % {"lead": lead.name}


def _stage(request: AuthenticatedHttpRequest, lead: Lead, journey: Journey) -> str:
    to = request.POST.get("stage", "")
    reason = (request.POST.get("reason") or "").strip() or reasons.code(STAGE_CHANGED_BY_OPERATOR)
    stages.transition(journey, to, reason=reason[:255], by_user=request.user)
    return _("%(lead)s moved to %(stage)s.") % {"lead": lead.name, "stage": Stage(to).label}


def _take_over(request: AuthenticatedHttpRequest, lead: Lead, journey: Journey) -> str:
    takeover.take_over(lead, request.user)
    return _("You took over the conversation; automation is stopped for this lead.")


def _hand_back(request: AuthenticatedHttpRequest, lead: Lead, journey: Journey) -> str:
    takeover.hand_back(lead, request.user, resume=request.POST.get("resume", "1") != "0")
    return _("Conversation handed back to automation.")


def _send(request: AuthenticatedHttpRequest, lead: Lead, journey: Journey) -> str:
    # Refused (naming the holder) when someone else took the conversation over.
    channel = request.POST.get("channel") or Channel.WHATSAPP
    try:
        send_manual(
            lead,
            request.POST.get("text", ""),
            user=request.user,
            channel=channel,
            subject=request.POST.get("subject", ""),
            files=request.FILES.getlist("attachments"),
            media=request.FILES.get("media") if channel == Channel.WHATSAPP else None,
        )
    except SendRefused:
        request.session[_draft_key(lead)] = {
            "channel": channel,
            "subject": request.POST.get("subject", "")[:255],
            "text": request.POST.get("text", "")[:50_000],
        }
        raise
    if channel == Channel.EMAIL_WARM:
        return _("Email queued.")
    return _("Message queued.")


def _enroll(request: AuthenticatedHttpRequest, lead: Lead, journey: Journey) -> str:
    scope = scope_for(request)
    raw = request.POST.get("sequence", "")
    sequence = scope.queryset(Sequence).filter(pk=parse_id(raw) or 0).first()
    if sequence is None:
        raise sequences.EnrollmentError(_("Choose a sequence to enroll the lead in."))
    sequences.enroll(lead, sequence)
    return _("%(lead)s enrolled in %(sequence)s.") % {"lead": lead.name, "sequence": sequence.name}


def _lift_opt_out(request: AuthenticatedHttpRequest, lead: Lead, journey: Journey) -> str:
    optout_manual.lift_opt_out(lead, user=request.user, reason=request.POST.get("reason", ""))
    return _("The opt-out of %(lead)s is lifted; the reason is kept in its history.") % {
        "lead": lead.name
    }


ACTIONS: dict[str, Callable[[AuthenticatedHttpRequest, Lead, Journey], str]] = {
    "pause": _pause,
    "resume": _resume,
    "stage": _stage,
    "take-over": _take_over,
    "hand-back": _hand_back,
    "send": _send,
    "enroll": _enroll,
    "lift-opt-out": _lift_opt_out,
}

REFUSALS = (
    stages.IllegalTransition,
    takeover.TakeoverError,
    ReviewError,
    SendRefused,
    sequences.EnrollmentError,
    optout_manual.LiftRefused,
)


@login_required
@require_POST
def lead_action(request: AuthenticatedHttpRequest, pk: int, action: str) -> HttpResponse:
    handler = ACTIONS.get(action)
    if handler is None:
        raise Http404("unknown action")
    lead = _lead(scope_for(request), pk)
    journey = _journey(lead)
    try:
        messages.success(request, handler(request, lead, journey))
    except REFUSALS as refused:
        messages.error(request, str(refused))
    return redirect("outreach:lead", pk=lead.pk)
