"""The alerts page (/outreach/alerts/): open, acknowledged and resolved alerts of the
operator's tenant, acknowledge and resolve (one, or the selected ones).

Tenant-scoped through cerniq.tenancy: an id of another tenant's alert is a 404, in a row
action and in a bulk selection alike. The page runs a constant number of queries (one
aggregate for the tab counts, one for the rows). The rules live in cerniq.alerts; the
channels a tenant's alerts go to are managed in console.views.alert_channels.
"""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db.models import Case, Count, IntegerField, Q, QuerySet, Value, When
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.utils.functional import Promise
from django.utils.translation import gettext as _
from django.utils.translation import ngettext, pgettext_lazy
from django.views.decorators.http import require_GET, require_POST

from cerniq import alerts
from cerniq.alerts import SEVERITY_RANK
from cerniq.models import Alert
from cerniq.params import parse_id, parse_ids, parse_page
from cerniq.tenancy import AuthenticatedHttpRequest, TenantScope, scope_for

PAGE_SIZE = 50

TABS: dict[str, tuple[Q, str | Promise]] = {
    "open": (
        Q(resolved_at__isnull=True, acknowledged_at__isnull=True),
        pgettext_lazy("alerts tab", "Open"),
    ),
    "acknowledged": (
        Q(resolved_at__isnull=True, acknowledged_at__isnull=False),
        pgettext_lazy("alerts tab", "Acknowledged"),
    ),
    "resolved": (Q(resolved_at__isnull=False), pgettext_lazy("alerts tab", "Resolved")),
}

# The worst first, then the latest.
_SEVERITY_ORDER = Case(
    *(When(severity=severity, then=Value(-rank)) for severity, rank in SEVERITY_RANK.items()),
    output_field=IntegerField(),
)


def is_channel_admin(request: HttpRequest, scope: TenantScope) -> bool:
    """Channels carry secrets and decide who is woken at night: tenant admins only."""
    return scope.is_admin or request.user.is_superuser


@login_required
@require_GET
def alert_list(request: AuthenticatedHttpRequest) -> HttpResponse:
    scope = scope_for(request)
    tenant_alerts = scope.queryset(Alert)
    counts = tenant_alerts.aggregate(
        **{tab: Count("pk", filter=q) for tab, (q, _l) in TABS.items()}
    )
    tab = request.GET.get("tab", "")
    if tab not in TABS:
        tab = "open"
    severity = request.GET.get("severity", "")
    rows = tenant_alerts.filter(TABS[tab][0])
    if severity in Alert.Severity.values:
        rows = rows.filter(severity=severity)
    else:
        severity = ""
    if tab == "resolved":
        rows = rows.order_by("-resolved_at", "-pk")
    else:
        rows = rows.order_by(_SEVERITY_ORDER, "-last_seen_at", "-pk")
    page = parse_page(request.GET.get("page"))
    offset = (page - 1) * PAGE_SIZE
    shown = list(
        rows.select_related("acknowledged_by", "resolved_by")[offset : offset + PAGE_SIZE + 1]
    )
    has_next = len(shown) > PAGE_SIZE
    return render(
        request,
        "outreach/alerts.html",
        {
            "tab": tab,
            "tabs": [(key, label, counts[key]) for key, (_q, label) in TABS.items()],
            "alerts": shown[:PAGE_SIZE],
            "severity": severity,
            "severities": Alert.Severity.choices,
            "page": page,
            "has_next": has_next,
            "can_manage_channels": is_channel_admin(request, scope),
        },
    )


def _back(request: AuthenticatedHttpRequest) -> HttpResponseRedirect:
    query = {key: request.POST.get(key, "") for key in ("tab", "severity")}
    query = {key: value for key, value in query.items() if value}
    url = reverse("outreach:alerts")
    return HttpResponseRedirect(f"{url}?{urlencode(query)}" if query else url)


def _selected(request: AuthenticatedHttpRequest, scope: TenantScope) -> QuerySet[Alert]:
    """The posted ids, all of this tenant's alerts: any other id (another tenant's, a
    deleted one, not a number) is a 404 and nothing changes."""
    raw = request.POST.getlist("ids")
    ids = set(parse_ids(raw))
    if any(parse_id(value) is None for value in raw):  # a value that names no alert
        raise Http404("no such alert")
    selected = scope.queryset(Alert).filter(pk__in=ids)
    if len(ids) != selected.count():
        raise Http404("no such alert")
    return selected


def _acknowledge(chosen: QuerySet[Alert], request: AuthenticatedHttpRequest) -> str:
    done = alerts.acknowledge(chosen, request.user)
    return ngettext("%(n)d alert acknowledged.", "%(n)d alerts acknowledged.", done) % {"n": done}


def _resolve(chosen: QuerySet[Alert], request: AuthenticatedHttpRequest) -> str:
    done = alerts.resolve_by_hand(chosen, request.user)
    return ngettext("%(n)d alert resolved.", "%(n)d alerts resolved.", done) % {"n": done}


ACTIONS: dict[str, Callable[[QuerySet[Alert], AuthenticatedHttpRequest], str]] = {
    "acknowledge": _acknowledge,
    "resolve": _resolve,
}


@login_required
@require_POST
def alert_action(
    request: AuthenticatedHttpRequest, action: str, pk: int | None = None
) -> HttpResponse:
    """POST /outreach/alerts/<pk>/<action>/ for one row, /outreach/alerts/<action>/ with
    `ids` for the selected ones."""
    act = ACTIONS.get(action)
    if act is None:
        raise Http404("unknown action")
    scope = scope_for(request)
    if pk is not None:
        chosen = scope.queryset(Alert).filter(pk=scope.get_or_404(Alert, pk=pk).pk)
    else:
        chosen = _selected(request, scope)
        if not chosen.exists():
            messages.error(request, _("Select at least one alert."))
            return _back(request)
    messages.success(request, act(chosen, request))
    return _back(request)
