"""Who is calling and which tenant they act for: API keys, the signed-in operator, throttles.

A request authenticates with `Authorization: Api-Key <prefix>.<secret>` (a TenantAPIKey,
hashed at rest) or, in the browsable API, with the operator's session (CSRF checked). Either
way every query is scoped to one tenant: the key's, or the session's (cerniq.tenancy).

An address that sends API_KEY_FAILURE_LIMIT wrong keys within the window is answered 429
(with Retry-After) for any key it sends for API_KEY_LOCKOUT_MINUTES, before its key is even
looked up: guessing keys gets nowhere. A valid key costs one cache read more.
"""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.models import AnonymousUser, User
from django.utils import timezone
from django.utils.translation import gettext as _
from rest_framework import exceptions, permissions, throttling
from rest_framework.request import Request
from rest_framework_api_key.permissions import KeyParser

from cerniq.attempt_limits import AttemptLimit
from cerniq.client_ip import client_ip
from cerniq.models import Tenant, TenantAPIKey
from cerniq.tenancy import NoTenant, scope_for

KEYWORD = "Api-Key"
LAST_USED_PRECISION = timedelta(minutes=1)  # last_used_at is written at most once a minute


def key_failures() -> AttemptLimit:
    """Wrong API keys per address (settings read at each request: tests override them)."""
    return AttemptLimit(
        "api-key-failures",
        limit=settings.API_KEY_FAILURE_LIMIT,
        window=timedelta(minutes=settings.API_KEY_FAILURE_WINDOW_MINUTES),
        block=timedelta(minutes=settings.API_KEY_LOCKOUT_MINUTES),
    )


class APIKeyAuthentication:
    """`Authorization: Api-Key <key>`; no header: not this scheme (the session may apply)."""

    parser = KeyParser()

    def authenticate(self, request: Request) -> tuple[AbstractBaseUser | AnonymousUser, object]:
        raw = self.parser.get(request._request)
        if not raw:
            return None  # type: ignore[return-value]
        failures, address = key_failures(), client_ip(request._request)
        wait = failures.retry_after(address)
        if wait:
            raise exceptions.Throttled(
                wait=wait, detail=_("Too many wrong API keys from your address.")
            )
        try:
            key = TenantAPIKey.objects.get_from_key(raw)
        except TenantAPIKey.DoesNotExist:
            failures.record(address)
            raise exceptions.AuthenticationFailed(_("Invalid or revoked API key.")) from None
        # The library types its manager for the abstract base; it reads the manager's model.
        assert isinstance(key, TenantAPIKey), "TenantAPIKey.objects finds TenantAPIKeys"
        if key.has_expired or not key.tenant.is_active:
            failures.record(address)
            raise exceptions.AuthenticationFailed(_("This API key is no longer valid."))
        now = timezone.now()
        if key.last_used_at is None or now - key.last_used_at >= LAST_USED_PRECISION:
            TenantAPIKey.objects.filter(pk=key.pk).update(last_used_at=now)
            key.last_used_at = now
        return key.created_by or AnonymousUser(), key

    def authenticate_header(self, request: Request) -> str:
        return KEYWORD


def api_key(request: Request) -> TenantAPIKey | None:
    return request.auth if isinstance(request.auth, TenantAPIKey) else None


def tenant_of(request: Request) -> Tenant:
    """The tenant this request acts for (the key's, else the operator's current one)."""
    key = api_key(request)
    if key is not None:
        return key.tenant
    return scope_for(request._request).tenant


def acting_user(request: Request) -> User:
    """Who an action is recorded against: the operator, or the admin who created the key."""
    user = request.user
    if not user.is_authenticated or not isinstance(user, get_user_model()):
        raise exceptions.PermissionDenied(
            _("This API key has no owner any more; create a new key to act on leads.")
        )
    return user


class TenantAccess(permissions.BasePermission):
    """A valid key (writes need a write key) or a signed-in member of a tenant."""

    def has_permission(self, request: Request, view: object) -> bool:
        key = api_key(request)
        if key is not None:
            if request.method not in permissions.SAFE_METHODS and not key.can_write:
                raise exceptions.PermissionDenied(
                    _("This API key is read-only; use a key with the write scope.")
                )
            return True
        if not request.user or not request.user.is_authenticated:
            raise exceptions.NotAuthenticated()
        try:
            scope_for(request._request)
        except NoTenant:
            raise exceptions.PermissionDenied(_("You are not a member of any workspace.")) from None
        return True


def require_tenant_admin(request: Request, refusal: str) -> None:
    """The pages' rule for admin-only settings, over the API: a key passes (only admins
    create keys, and TenantAccess already asks writes for a write key); a signed-in
    operator must be an admin of the tenant (or a superuser)."""
    if api_key(request) is not None or request.user.is_superuser:
        return
    if not scope_for(request._request).is_admin:
        raise exceptions.PermissionDenied(refusal)


class PerKeyThrottle(throttling.SimpleRateThrottle):
    """API_THROTTLE_RATE requests per key (or per operator, or per address) and period."""

    scope = "api"

    def get_rate(self) -> str:
        return settings.API_THROTTLE_RATE

    def get_ident(self, request: Request) -> str:
        """The trusted address (cerniq.client_ip), not DRF's, which believes any
        X-Forwarded-For a client sends."""
        return client_ip(request._request)

    def get_cache_key(self, request: Request, view: object) -> str:
        key = api_key(request)
        if key is not None:
            ident = f"key:{key.prefix}"
        elif request.user and request.user.is_authenticated:
            ident = f"user:{request.user.pk}"
        else:
            ident = f"addr:{self.get_ident(request)}"
        return f"throttle:api:{ident}"
