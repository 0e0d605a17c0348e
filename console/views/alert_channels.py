"""Where a tenant's alerts go (/outreach/alerts/channels/): add, edit, enable/disable,
delete and test a channel. Tenant admins only (403 for others); another tenant's channel
is a 404. URLs are shown masked and never sent back to the browser (cerniq.forms)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from cerniq import alert_channels, notifications
from cerniq.forms import AlertChannelForm
from cerniq.models import Alert, AlertChannel
from cerniq.tenancy import TenantScope, scope_for
from console.views.alerts import is_channel_admin


def _admin_scope(request: HttpRequest) -> TenantScope:
    scope = scope_for(request)
    if not is_channel_admin(request, scope):
        raise PermissionDenied(_("Only the workspace's admins manage alert channels."))
    return scope


@login_required
@require_http_methods(["GET", "POST"])
def channel_list(request: HttpRequest, pk: int | None = None) -> HttpResponse:
    """The channels and a form: a new channel, or (with pk) one being edited."""
    scope = _admin_scope(request)
    editing = scope.get_or_404(AlertChannel, pk=pk) if pk is not None else None
    instance = editing or AlertChannel(tenant=scope.tenant)
    form = AlertChannelForm(request.POST or None, instance=instance)
    if request.method == "POST" and form.is_valid():
        channel = form.save()
        messages.success(request, _("Channel “%(name)s” saved.") % {"name": channel.name})
        return redirect("outreach:alert_channels")
    channels = [
        {
            "channel": channel,
            "masked_url": alert_channels.masked(channel.url),
            "kinds": [Alert.Kind(k).label for k in channel.kinds if k in Alert.Kind.values],
        }
        for channel in scope.queryset(AlertChannel)
    ]
    return render(
        request,
        "outreach/alert_channels.html",
        {"channels": channels, "form": form, "editing": editing},
    )


@login_required
@require_POST
def channel_action(request: HttpRequest, pk: int, action: str) -> HttpResponse:
    scope = _admin_scope(request)
    channel = scope.get_or_404(AlertChannel.objects.select_related("tenant"), pk=pk)
    named = {"name": channel.name}
    if action == "test":
        problem = notifications.send_test(channel)
        if problem:
            said = {**named, "problem": problem}
            messages.error(
                request, _("The test notification to “%(name)s” failed: %(problem)s") % said
            )
        else:
            messages.success(request, _("Test notification sent to “%(name)s”.") % named)
    elif action in ("enable", "disable"):
        channel.enabled = action == "enable"
        channel.save(update_fields=["enabled"])
        if channel.enabled:
            messages.success(request, _("“%(name)s” is enabled.") % named)
        else:
            messages.success(request, _("“%(name)s” is disabled: no alerts go there.") % named)
    elif action == "delete":
        channel.delete()
        messages.success(request, _("Channel “%(name)s” deleted.") % named)
    else:
        raise Http404("unknown action")
    return redirect("outreach:alert_channels")
