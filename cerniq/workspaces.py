"""A new workspace (tenant) and its first admin: the production bootstrap
(`manage.py create_workspace`). Everything is checked before anything is written, so a
refused call changes nothing."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.contrib.auth import get_user_model
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.core.validators import validate_email, validate_slug
from django.db import transaction
from django.db.models import Field

from cerniq.model_fields import max_length
from cerniq.models import Membership, Tenant

if TYPE_CHECKING:
    from django.contrib.auth.models import User


class WorkspaceRefused(ValueError):
    """Bad input or an existing workspace; `field` names the option at fault."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


@dataclass(frozen=True)
class NewWorkspace:
    tenant: Tenant
    admin: User
    admin_created: bool  # False: an existing account became the admin, its password unchanged


def _messages(error: ValidationError) -> str:
    return " ".join(error.messages)


def check_new_workspace(name: str, slug: str, username: str, email: str) -> None:
    """Raise WorkspaceRefused for the first option at fault (before a password is asked)."""
    if not name.strip():
        raise WorkspaceRefused("name", "give the workspace a name.")
    if len(name) > max_length(Tenant, "name"):
        raise WorkspaceRefused("name", "at most 200 characters.")
    try:
        validate_slug(slug)
    except ValidationError as error:
        raise WorkspaceRefused("slug", _messages(error)) from None
    if len(slug) > max_length(Tenant, "slug"):
        raise WorkspaceRefused("slug", "at most 64 characters.")
    if Tenant.objects.filter(slug=slug).exists():
        raise WorkspaceRefused("slug", f"a workspace '{slug}' already exists; nothing was changed.")
    user_model = get_user_model()
    username_field = user_model._meta.get_field(user_model.USERNAME_FIELD)
    assert isinstance(username_field, Field), "Django's auth checks: USERNAME_FIELD is a column"
    try:
        username_field.run_validators(username)
    except ValidationError as error:
        raise WorkspaceRefused("admin-username", _messages(error)) from None
    if not username:
        raise WorkspaceRefused("admin-username", "give the admin a username.")
    try:
        validate_email(email)
    except ValidationError as error:
        raise WorkspaceRefused("admin-email", _messages(error)) from None


def existing_admin(username: str) -> User | None:
    user_model = get_user_model()
    return user_model._default_manager.filter(**{user_model.USERNAME_FIELD: username}).first()


def create_workspace(
    *,
    name: str,
    slug: str,
    admin_username: str,
    admin_email: str,
    password: str | None,
    superuser: bool = False,
) -> NewWorkspace:
    """The tenant and its admin Membership. A new admin account needs `password` (checked by
    AUTH_PASSWORD_VALIDATORS); an existing account is made admin as it is. `superuser` also
    lets the admin into Django admin for every workspace (users, phones, providers)."""
    check_new_workspace(name, slug, admin_username, admin_email)
    user_model = get_user_model()
    user = existing_admin(admin_username)
    if user is None:
        if not password:
            raise WorkspaceRefused("password", "a new admin account needs a password.")
        candidate = user_model(username=admin_username, email=admin_email)
        try:
            validate_password(password, candidate)
        except ValidationError as error:
            raise WorkspaceRefused("password", _messages(error)) from None
    with transaction.atomic():
        tenant = Tenant.objects.create(name=name.strip(), slug=slug)
        created = user is None
        if user is None:
            user = user_model._default_manager.create_user(
                username=admin_username, email=admin_email, password=password
            )
        if superuser and not (user.is_staff and user.is_superuser):
            user.is_staff = user.is_superuser = True
            user.save(update_fields=["is_staff", "is_superuser"])
        Membership.objects.create(tenant=tenant, user=user, role=Membership.Role.ADMIN)
    return NewWorkspace(tenant=tenant, admin=user, admin_created=created)
