"""Template context shared by every operator page."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, cast

from django.http import HttpRequest

from cerniq.models import Alert, Tenant
from cerniq.tenancy import NoTenant, TenantScope, scope_for
from outreach.next_send import NextSend, Reason, next_send_at

if TYPE_CHECKING:
    from django.contrib.auth.models import User


def _open_alert_count(scope: TenantScope) -> Callable[[], int]:
    """The top bar's badge: the tenant's open alerts nobody acknowledged. One COUNT, run
    only by a template that shows it (partials rendered for htmx do not)."""
    counted: list[int] = []

    def count() -> int:
        if not counted:
            counted.append(
                scope.queryset(Alert)
                .filter(resolved_at__isnull=True, acknowledged_at__isnull=True)
                .count()
            )
        return counted[0]

    return count


def _inbox_unread(request: HttpRequest, scope: TenantScope) -> Callable[[], int]:
    """The navigation's inbox badge: open conversations with a reply this user has not
    read (hitl.inbox.unread_total). One COUNT, only when a template shows it."""
    counted: list[int] = []

    def count() -> int:
        if not counted:
            from hitl.inbox import unread_total

            counted.append(unread_total(scope.tenant, cast("User", request.user)))
        return counted[0]

    return count


def _closed_window(tenant: Tenant) -> Callable[[], NextSend | None]:
    """The banner's answer: the tenant's window when it is closed, else None. No query
    (the tenant is loaded), computed once, and only by a template that shows it."""
    found: list[NextSend | None] = []

    def closed() -> NextSend | None:
        if not found:
            answer = next_send_at(tenant)
            found.append(answer if answer.reason == Reason.WINDOW_CLOSED else None)
        return found[0]

    return closed


def tenant(request: HttpRequest) -> dict[str, object]:
    """`current_tenant`: the signed-in user's tenant, or None (anonymous, no membership);
    `open_alert_count`: the badge's number (0 without a tenant); `inbox_unread`: the
    inbox badge's number (conversations with an unread reply); `is_tenant_admin`: may
    manage the tenant's settings (API keys); `closed_window`: the tenant's sending window
    when it is closed (the banner), else None."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {"current_tenant": None, "open_alert_count": 0}
    try:
        scope = scope_for(request)
    except NoTenant:
        return {"current_tenant": None, "open_alert_count": 0}
    return {
        "current_tenant": scope.tenant,
        "open_alert_count": _open_alert_count(scope),
        "inbox_unread": _inbox_unread(request, scope),
        "is_tenant_admin": scope.is_admin,
        "closed_window": _closed_window(scope.tenant),
    }
