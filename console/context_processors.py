"""Template context shared by every operator page."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

from django.db import connection
from django.http import HttpRequest
from django.urls import reverse

from cerniq import integrations
from cerniq.models import Alert, Tenant
from cerniq.tenancy import NoTenant, TenantScope, scope_for
from outreach.next_send import NextSend, Reason, next_send_at

if TYPE_CHECKING:
    from django.contrib.auth.models import User


class _Badges:
    """The top bar's two numbers: the tenant's open alerts nobody acknowledged, and the open
    conversations with a reply this user has not read (hitl.inbox.unread_total). Asked
    for together, one query for both; run only by a template that shows them (partials
    rendered for htmx do not). A page that knows the unread count already (the inbox's
    own list) asks for the alerts alone."""

    def __init__(self, request: HttpRequest, scope: TenantScope) -> None:
        self.user = cast("User", request.user)
        self.scope = scope
        self.found: dict[str, int] = {}

    def unread(self) -> int:
        if "unread" not in self.found:
            self._read(with_unread=True)
        return self.found["unread"]

    def alerts(self) -> int:
        if "alerts" not in self.found:
            self._read(with_unread=False)
        return self.found["alerts"]

    def _read(self, *, with_unread: bool) -> None:
        from hitl.inbox import capped, unread_total_sql

        alerts = (
            f"SELECT COUNT(*) FROM {Alert._meta.db_table} WHERE tenant_id = %s"  # noqa: S608
            " AND resolved_at IS NULL AND acknowledged_at IS NULL"
        )
        params: list[Any] = [self.scope.tenant.pk]
        sql = f"SELECT ({alerts})"
        if with_unread:
            unread, more = unread_total_sql(self.scope.tenant, self.user)
            sql += f", ({unread})"
            params += more
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            row = cursor.fetchone()
        self.found["alerts"] = row[0]
        if with_unread:
            self.found["unread"] = capped(row[1])


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


def _integration_tabs() -> list[dict[str, str]]:
    """The settings tabs of the integrations that have a page (cerniq.integrations)."""
    return [
        {"key": key, "label": label, "url": reverse(f"outreach:{key}_settings")}
        for key, label, _urlconf in integrations.settings_pages()
    ]


def tenant(request: HttpRequest) -> dict[str, object]:
    """`current_tenant`: the signed-in user's tenant, or None (anonymous, no membership);
    `open_alert_count`: the badge's number (0 without a tenant); `inbox_unread`: the
    inbox badge's number (conversations with an unread reply); `is_tenant_admin`: may
    manage the tenant's settings (API keys); `closed_window`: the tenant's sending window
    when it is closed (the banner), else None; `integration_tabs`: the settings tabs of
    integrations with a page of their own (worked out only by a page that shows them)."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {"current_tenant": None, "open_alert_count": 0}
    try:
        scope = scope_for(request)
    except NoTenant:
        return {"current_tenant": None, "open_alert_count": 0}
    badges = _Badges(request, scope)
    return {
        "current_tenant": scope.tenant,
        "open_alert_count": badges.alerts,
        "inbox_unread": badges.unread,
        "is_tenant_admin": scope.is_admin,
        "closed_window": _closed_window(scope.tenant),
        "integration_tabs": _integration_tabs,
    }
