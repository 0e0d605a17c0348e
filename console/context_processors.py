"""Template context shared by every operator page."""

from __future__ import annotations

from django.http import HttpRequest

from cerniq.tenancy import NoTenant, scope_for


def tenant(request: HttpRequest) -> dict[str, object]:
    """`current_tenant`: the signed-in user's tenant, or None (anonymous, no membership)."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {"current_tenant": None}
    try:
        return {"current_tenant": scope_for(request).tenant}
    except NoTenant:
        return {"current_tenant": None}
