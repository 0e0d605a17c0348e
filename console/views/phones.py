"""The phones page: one card per WhatsApp number, and enable/disable/pause/resume."""

from __future__ import annotations

from collections import defaultdict

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db.models import Count, Q
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from cerniq.models import Alert
from cerniq.tenancy import scope_for
from console.views.dashboard import phone_rows
from outreach.analytics import local_day_bounds
from outreach.models import SENT_STATUSES, Message
from whatsapp import phones
from whatsapp.models import Phone


@login_required
@require_GET
def phone_list(request: HttpRequest) -> HttpResponse:
    scope = scope_for(request)
    today, today_start, _week_start = local_day_bounds(scope.tenant, timezone.now())
    rows = phone_rows(scope, today)
    sends_today = dict(
        scope.queryset(Message)
        .filter(
            direction=Message.Direction.OUTBOUND,
            status__in=SENT_STATUSES,
            sent_at__gte=today_start,
            phone__isnull=False,
        )
        .order_by()
        .values("phone")
        .annotate(n=Count("pk"))
        .values_list("phone", "n")
    )
    alerts_by_subject: dict[str, list[Alert]] = defaultdict(list)
    subjects = [f"phone:{row.phone.number}" for row in rows]
    for alert in (
        scope.queryset(Alert)
        .filter(Q(subject__in=subjects), resolved_at__isnull=True)
        .order_by("-last_seen_at")
    ):
        alerts_by_subject[alert.subject].append(alert)
    cards = [
        {
            "row": row,
            "sends_today": sends_today.get(row.phone.pk, 0),
            "alerts": alerts_by_subject.get(f"phone:{row.phone.number}", []),
        }
        for row in rows
    ]
    return render(request, "outreach/phones.html", {"cards": cards, "today": today})


def _enable(phone: Phone) -> str:
    phones.set_enabled(phone, True)
    return _("%(phone)s is enabled.") % {"phone": phone}


def _disable(phone: Phone) -> str:
    phones.set_enabled(phone, False)
    return _("%(phone)s is disabled: no new sends until it is enabled.") % {"phone": phone}


def _pause(phone: Phone) -> str:
    phones.pause(phone)
    return _("%(phone)s is paused.") % {"phone": phone}


def _resume(phone: Phone) -> str:
    phones.resume(phone)
    return _("%(phone)s is active again.") % {"phone": phone}


ACTIONS = {"enable": _enable, "disable": _disable, "pause": _pause, "resume": _resume}


@login_required
@require_POST
def phone_action(request: HttpRequest, pk: int, action: str) -> HttpResponse:
    handler = ACTIONS.get(action)
    if handler is None:
        raise Http404("unknown action")
    phone = scope_for(request).get_or_404(Phone, pk=pk)
    try:
        messages.success(request, handler(phone))
    except ValueError as refused:
        messages.error(request, str(refused))
    return redirect("outreach:phones")
