"""Tenant scoping: the one way views reach domain rows.

A user belongs to tenants through Membership. `scope_for(request)` resolves the current
tenant (the one chosen in the session, else the user's first) and hands out querysets
filtered by it; looking up another tenant's row is a 404, never a leak.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeVar

from django.contrib.auth.models import AnonymousUser, User
from django.db.models import Model, QuerySet
from django.http import Http404, HttpRequest
from django.shortcuts import get_object_or_404
from django.utils.translation import gettext as _

from cerniq.models import Membership, Tenant

M = TypeVar("M", bound=Model)

SESSION_KEY = "cerniq_tenant_id"


class NoTenant(Http404):
    """The user belongs to no (active) tenant."""


class AuthenticatedHttpRequest(HttpRequest):
    """The request of a view behind login_required, or of the admin site: its user signed
    in. Only for the type checker (Django passes an HttpRequest); such views annotate
    `request` with it so `request.user` is a User, never AnonymousUser."""

    user: User


def tenants_of(user: User | AnonymousUser) -> QuerySet[Tenant]:
    if not user.is_authenticated:
        return Tenant.objects.none()
    return Tenant.objects.filter(memberships__user=user, is_active=True).order_by("name", "pk")


@dataclass(frozen=True)
class TenantScope:
    tenant: Tenant
    membership: Membership

    @property
    def is_admin(self) -> bool:
        """A tenant admin: manages keys, alert channels, webhooks and the warm-up ramp."""
        return self.membership.role == Membership.Role.ADMIN

    def queryset(self, model_or_qs: type[M] | QuerySet[M]) -> QuerySet[M]:
        qs = (
            model_or_qs if isinstance(model_or_qs, QuerySet) else model_or_qs._default_manager.all()
        )
        return qs.filter(tenant=self.tenant)

    def get_or_404(self, model_or_qs: type[M] | QuerySet[M], **lookup: object) -> M:
        return get_object_or_404(self.queryset(model_or_qs), **lookup)


def scope_for(request: HttpRequest) -> TenantScope:
    """The current user's tenant scope; cached on the request."""
    cached = getattr(request, "_tenant_scope", None)
    if cached is not None:
        return cached
    if not request.user.is_authenticated:
        raise NoTenant("You are not a member of any workspace.")
    memberships = Membership.objects.select_related("tenant").filter(
        user_id=request.user.pk, tenant__is_active=True
    )
    chosen = request.session.get(SESSION_KEY) if hasattr(request, "session") else None
    membership = None
    if chosen is not None:
        membership = memberships.filter(tenant_id=chosen).first()
    if membership is None:
        membership = memberships.order_by("tenant__name", "tenant_id").first()
    if membership is None:
        raise NoTenant("You are not a member of any workspace.")
    scope = TenantScope(tenant=membership.tenant, membership=membership)
    request._tenant_scope = scope  # type: ignore[attr-defined]
    return scope


def switch_tenant(request: HttpRequest, tenant_id: int) -> Tenant:
    """Make another of the user's tenants current; 404 if the user is not a member."""
    tenant = get_object_or_404(tenants_of(request.user), pk=tenant_id)
    request.session[SESSION_KEY] = tenant.pk
    request.__dict__.pop("_tenant_scope", None)
    return tenant


def display_name(user: User | None) -> str:
    """How a person is named to their colleagues: full name, else username."""
    if user is None:
        return _("someone")
    full = getattr(user, "get_full_name", lambda: "")()
    return full or user.get_username()
