"""Outgoing webhooks (/outreach/webhooks/): a tenant's endpoints and their recent
deliveries. Add (the secret is shown once), edit, enable/disable, rotate the secret,
delete, send a test event, redeliver. Tenant admins only (403 for others); another
tenant's endpoint or delivery is a 404."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from cerniq import reasons
from cerniq.models import WebhookDelivery, WebhookEndpoint
from cerniq.outbound import delivery, endpoints
from cerniq.outbound.forms import WebhookEndpointForm
from cerniq.tenancy import TenantScope, scope_for
from console.views.alerts import is_channel_admin

RECENT = 50  # deliveries shown


def _admin_scope(request: HttpRequest) -> TenantScope:
    scope = scope_for(request)
    if not is_channel_admin(request, scope):
        raise PermissionDenied(_("Only the workspace's admins manage webhooks."))
    return scope


def _page(
    request: HttpRequest,
    scope: TenantScope,
    form: WebhookEndpointForm,
    editing: WebhookEndpoint | None = None,
    shown_secret: tuple[WebhookEndpoint, str] | None = None,
) -> HttpResponse:
    deliveries = scope.queryset(WebhookDelivery).select_related("endpoint")[:RECENT]
    context = {
        "endpoints": [
            {"endpoint": e, "masked_secret": endpoints.masked_secret(e.secret)}
            for e in scope.queryset(WebhookEndpoint)
        ],
        "deliveries": deliveries,
        "form": form,
        "editing": editing,
        "shown_secret": shown_secret,
    }
    return render(request, "outreach/webhooks.html", context)


@login_required
@require_http_methods(["GET", "POST"])
def webhook_list(request: HttpRequest, pk: int | None = None) -> HttpResponse:
    """The endpoints, recent deliveries and a form: a new endpoint, or (pk) one edited."""
    scope = _admin_scope(request)
    editing = scope.get_or_404(WebhookEndpoint, pk=pk) if pk is not None else None
    instance = editing or WebhookEndpoint(tenant=scope.tenant)
    form = WebhookEndpointForm(request.POST or None, instance=instance)
    if request.method == "POST" and form.is_valid():
        created = instance.pk is None
        endpoint = form.save()
        if created:  # the secret, this once: it is not shown again
            messages.success(request, _("Endpoint added. Copy its signing secret now."))
            return _page(request, scope, WebhookEndpointForm(), None, (endpoint, endpoint.secret))
        messages.success(request, _("Endpoint saved."))
        return redirect("outreach:webhooks")
    return _page(request, scope, form, editing)


@login_required
@require_POST
def webhook_action(request: HttpRequest, pk: int, action: str) -> HttpResponse:
    scope = _admin_scope(request)
    endpoint = scope.get_or_404(WebhookEndpoint.objects.select_related("tenant"), pk=pk)
    named = {"url": endpoint.url}
    if action == "test" and not endpoint.enabled:
        messages.error(request, _("Enable the endpoint first: a disabled one receives nothing."))
    elif action == "test":
        row = WebhookDelivery.objects.get(pk=endpoints.send_test(endpoint))
        if row.status == WebhookDelivery.Status.DELIVERED:
            messages.success(request, _("Test event delivered to %(url)s.") % named)
        else:
            problem = reasons.render(row.last_error) or f"HTTP {row.last_status_code}"
            messages.error(
                request,
                _("The test event to %(url)s failed: %(problem)s") % {**named, "problem": problem},
            )
    elif action in ("enable", "disable"):
        endpoints.set_enabled(endpoint, action == "enable")
        if endpoint.enabled:
            messages.success(request, _("%(url)s is enabled.") % named)
        else:
            messages.success(
                request, _("%(url)s is disabled: what it is owed waits until enabled.") % named
            )
    elif action == "rotate":
        secret = endpoints.rotate_secret(endpoint)
        messages.success(request, _("New signing secret: copy it now, the old one stops working."))
        return _page(request, scope, WebhookEndpointForm(), None, (endpoint, secret))
    elif action == "delete":
        endpoint.delete()
        messages.success(request, _("Endpoint %(url)s deleted.") % named)
    else:
        raise Http404("unknown action")
    return redirect("outreach:webhooks")


@login_required
@require_POST
def redeliver(request: HttpRequest, pk: int) -> HttpResponse:
    scope = _admin_scope(request)
    row = scope.get_or_404(WebhookDelivery, pk=pk)
    named = {"id": row.event_id}
    if delivery.redeliver(row):
        messages.success(request, _("Event %(id)s will be delivered again.") % named)
    else:
        messages.error(request, _("Event %(id)s is being delivered right now.") % named)
    return redirect("outreach:webhooks")
