"""API keys of a tenant: create (the full key is returned once), revoke, list.

The operator page (console) and Django admin manage keys through these functions; the API
(api.auth) only checks them. Only tenant admins manage keys.
"""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db.models import QuerySet
from django.utils.translation import gettext as _

from cerniq.model_fields import max_length
from cerniq.models import Membership, Tenant, TenantAPIKey

NAME_MAX_LENGTH = max_length(TenantAPIKey, "name")


class KeyRefused(ValueError):
    """The key cannot be created or revoked; the text says why, for the operator."""


def is_tenant_admin(user: User, tenant: Tenant) -> bool:
    return Membership.objects.filter(
        tenant=tenant, user_id=user.pk, role=Membership.Role.ADMIN
    ).exists()


def _check_admin(user: User, tenant: Tenant) -> None:
    if not is_tenant_admin(user, tenant):
        raise KeyRefused(_("Only an admin of this workspace can manage its API keys."))


def list_keys(tenant: Tenant) -> QuerySet[TenantAPIKey]:
    return TenantAPIKey.objects.filter(tenant=tenant).select_related("created_by")


def create_key(tenant: Tenant, *, name: str, scope: str, user: User) -> tuple[TenantAPIKey, str]:
    """A new key and its full text, which is never stored and cannot be shown again."""
    _check_admin(user, tenant)
    name = name.strip()
    if not name:
        raise KeyRefused(_("Give the key a name (who or what uses it)."))
    if len(name) > NAME_MAX_LENGTH:
        raise KeyRefused(
            _("The name is longer than %(max)d characters.") % {"max": NAME_MAX_LENGTH}
        )
    if scope not in TenantAPIKey.Scope.values:
        raise KeyRefused(_("Choose a scope: read or write."))
    # The library types create_key for its abstract base; it creates the manager's model.
    return TenantAPIKey.objects.create_key(  # type: ignore[return-value]
        tenant=tenant, name=name, scope=scope, created_by=user
    )


def revoke_key(tenant: Tenant, prefix: str, *, user: User) -> TenantAPIKey:
    """Revoke for good (the library refuses to un-revoke); another tenant's key is not found.

    Keys are named by their prefix (unique, and not part of the secret)."""
    _check_admin(user, tenant)
    key = TenantAPIKey.objects.filter(tenant=tenant, prefix=prefix).first()
    if key is None:
        raise KeyRefused(_("No such API key in this workspace."))
    if not key.revoked:
        key.revoked = True
        key.save(update_fields=["revoked"])
    return key
