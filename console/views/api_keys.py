"""The workspace's API keys (/outreach/api-keys/): create (the full key is shown once, on
the answer to the POST, never stored or put in a message), revoke. Tenant admins only (403
for others); another tenant's key is not found. The rules live in cerniq.api_keys."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_POST

from cerniq import api_keys
from cerniq.models import Tenant, TenantAPIKey
from cerniq.tenancy import AuthenticatedHttpRequest, scope_for


def _admin_tenant(request: AuthenticatedHttpRequest) -> Tenant:
    tenant = scope_for(request).tenant
    if not api_keys.is_tenant_admin(request.user, tenant):
        raise PermissionDenied(_("Only the workspace's admins manage API keys."))
    return tenant


@never_cache
@login_required
@require_http_methods(["GET", "POST"])
def key_list(request: AuthenticatedHttpRequest) -> HttpResponse:
    """The keys, and a form for a new one; after creating, its full text, this once."""
    tenant = _admin_tenant(request)
    created = None
    status = 200
    if request.method == "POST":
        try:
            key, created = api_keys.create_key(
                tenant,
                name=request.POST.get("name", ""),
                scope=request.POST.get("scope", ""),
                user=request.user,
            )
        except api_keys.KeyRefused as refused:
            messages.error(request, str(refused))
            status = 400
        else:
            messages.success(request, _("API key “%(name)s” created.") % {"name": key.name})
    context = {
        "keys": api_keys.list_keys(tenant),
        "created": created,
        "scopes": TenantAPIKey.Scope.choices,
    }
    return render(request, "outreach/api_keys.html", context, status=status)


@login_required
@require_POST
def key_revoke(request: AuthenticatedHttpRequest, prefix: str) -> HttpResponse:
    tenant = _admin_tenant(request)
    try:
        key = api_keys.revoke_key(tenant, prefix, user=request.user)
    except api_keys.KeyRefused as refused:
        messages.error(request, str(refused))
    else:
        messages.success(
            request, _("API key “%(name)s” revoked: it no longer works.") % {"name": key.name}
        )
    return redirect("outreach:api_keys")
