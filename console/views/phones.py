"""The phones page: one card per WhatsApp number (quota, warm-up, health), its actions
(enable/disable/pause/resume, reactivate a banned one), and the tenant's warm-up ramp,
which its admins edit."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.db.models import Count, Q
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET, require_POST

from cerniq.models import Alert
from cerniq.tenancy import TenantScope, scope_for
from console.views.dashboard import phone_rows
from outreach import restriction_signs
from outreach.analytics import local_day_bounds
from outreach.models import SENT_STATUSES, Message
from whatsapp import phones, quota, warmup
from whatsapp.lifetime import allotments
from whatsapp.models import Phone


class WarmupPlanForm(forms.Form):
    steps = forms.CharField(
        label=gettext_lazy("Warm-up ramp"),
        max_length=400,
        help_text=gettext_lazy(
            "day:new contacts a day, from day 1 up to the full daily limit, e.g. 1:20, 3:40, "
            "14:200. A new number, or one back from a ban or a long disconnection, follows it."
        ),
    )

    def clean_steps(self) -> str:
        self.ramp = warmup.parse(self.cleaned_data["steps"])
        return self.ramp.as_text()


def _is_admin(scope: TenantScope) -> bool:
    return scope.is_admin


@login_required
@require_GET
def phone_list(request: HttpRequest) -> HttpResponse:
    return render(request, "outreach/phones.html", _context(request))


def _context(request: HttpRequest, form: WarmupPlanForm | None = None) -> dict[str, Any]:
    scope = scope_for(request)
    ramp = warmup.ramp_for(scope.tenant.pk)
    now = timezone.now()
    today, today_start, _week_start = local_day_bounds(scope.tenant, now)
    rows = phone_rows(scope, today, now)
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
    signs = restriction_signs.counts_of([row.phone for row in rows], now)
    cards = [
        {
            "row": row,
            "signs": signs.get(row.phone.pk) or restriction_signs.Counts(),
            "sends_today": sends_today.get(row.phone.pk, 0),
            "alerts": alerts_by_subject.get(f"phone:{row.phone.number}", []),
        }
        for row in rows
    ]
    quota_alert = (
        scope.queryset(Alert)
        .filter(kind=Alert.Kind.QUOTA_EXHAUSTED, resolved_at__isnull=True)
        .first()
    )
    names = dict(Phone._meta.get_field("provider").choices or [])
    return {
        "cards": cards,
        "allotments": [
            (names.get(a.provider, a.provider), a) for a in allotments(scope.tenant, today)
        ],
        "today": today,
        "quota_alert": quota_alert,
        "ramp": ramp,
        "can_edit_ramp": _is_admin(scope),
        "warmup_form": form or WarmupPlanForm(initial={"steps": ramp.as_text()}),
        "sign_limits": {
            "hours": restriction_signs.NEW_CHAT_HOURS,
            "failed": restriction_signs.MIN_FAILED,
            "undelivered": restriction_signs.MIN_UNDELIVERED,
            "grace": restriction_signs.DELIVERY_GRACE_HOURS,
        },
    }


@login_required
@require_POST
def warmup_plan(request: HttpRequest) -> HttpResponse:
    """Change the tenant's warm-up ramp (its admins only); today's limits follow it."""
    scope = scope_for(request)
    if not _is_admin(scope):
        raise PermissionDenied(_("Only an admin of this workspace can change the warm-up ramp."))
    form = WarmupPlanForm(request.POST)
    if not form.is_valid():
        return render(request, "outreach/phones.html", _context(request, form))
    quota.change_ramp(scope.tenant, form.ramp)
    messages.success(request, _("Warm-up ramp saved: %(steps)s.") % {"steps": form.ramp.as_text()})
    return redirect("outreach:phones")


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


def _reactivate(phone: Phone) -> str:
    phones.reactivate(phone)
    return _("%(phone)s is active again and warms up from day 1.") % {"phone": phone}


ACTIONS = {
    "enable": _enable,
    "disable": _disable,
    "pause": _pause,
    "resume": _resume,
    "reactivate": _reactivate,
}


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
