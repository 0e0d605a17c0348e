"""The senders page (`/outreach/settings/senders/`): each address our own email goes from,
with its sends, hard bounces and spam complaints over the reputation guard's window beside
the limits, and what the guard paused and why; admins lift a pause with a reason
(email_channels.reputation)."""

from __future__ import annotations

from datetime import timedelta

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from cerniq.tenancy import AuthenticatedHttpRequest, TenantScope, scope_for
from console.views.alerts import is_channel_admin
from email_channels import reputation
from email_channels.addresses import domain_of
from email_channels.models import SenderCheck, SenderDay, SenderPause


def _rows(scope: TenantScope) -> list[dict]:
    tenant = scope.tenant
    today = timezone.localdate()
    since = today - timedelta(days=reputation.WINDOW_DAYS)
    seen = (
        SenderDay.objects.filter(tenant=tenant, day__gt=since)
        .order_by("provider", "address")
        .values_list("provider", "address")
        .distinct()
    )
    open_pauses = list(SenderPause.objects.filter(tenant=tenant, lifted_at__isnull=True))
    rows = []
    for provider, address in seen:
        found = reputation.figures(tenant.pk, provider, "address", address, today)
        bounce = round(100 * found.bounced / found.sent, 2) if found.sent else 0
        rows.append(
            {
                "provider": provider,
                "address": address,
                "figures": found,
                "bounce_percent": bounce,
                "pauses": [
                    p
                    for p in open_pauses
                    if p.provider == provider and p.value in (address, domain_of(address))
                ],
            }
        )
    return rows


@login_required
@require_GET
def sender_list(request: AuthenticatedHttpRequest) -> HttpResponse:
    scope = scope_for(request)
    context = {
        "settings_tab": "senders",
        "rows": _rows(scope),
        "lifted": SenderPause.objects.filter(tenant=scope.tenant, lifted_at__isnull=False)
        .select_related("lifted_by")
        .order_by("-lifted_at")[:10],
        "may_change": is_channel_admin(request, scope),
        "window_days": reputation.WINDOW_DAYS,
        "complaint_limit": reputation.COMPLAINT_LIMIT_PERCENT,
        "complaint_min_sent": reputation.COMPLAINT_MIN_SENT,
        "bounce_limit": reputation.BOUNCE_LIMIT_PERCENT,
        "min_reason": reputation.LIFT_REASON_MIN,
        "checks": SenderCheck.objects.order_by("provider", "sender"),
    }
    return render(request, "outreach/senders.html", context)


@login_required
@require_POST
def sender_lift(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    scope = scope_for(request)
    if not is_channel_admin(request, scope):
        raise PermissionDenied(_("Only the workspace's admins lift a sender's pause."))
    pause = get_object_or_404(SenderPause, pk=pk, tenant=scope.tenant, lifted_at__isnull=True)
    try:
        reputation.lift(pause, by=request.user, reason=request.POST.get("reason", ""))
    except reputation.LiftRefused as refused:
        messages.error(request, str(refused))
    else:
        messages.success(
            request,
            _("%(sender)s may send again: its waiting emails go at their next try.")
            % {"sender": pause.value},
        )
    return redirect("outreach:senders")
