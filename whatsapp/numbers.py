"""Adding a WhatsApp number to a workspace (the phones page and `POST /api/v1/phones/`):
the number in E.164, a provider of the registry, the provider's account id."""

from __future__ import annotations

import re

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils.module_loading import import_string
from django.utils.translation import gettext as _

from cerniq import integrations, phone_numbers
from cerniq.checks import sandbox_permitted
from cerniq.model_fields import max_length
from cerniq.models import Tenant
from whatsapp.models import Phone


class PhoneExists(ValueError):
    """The workspace already has this number; `phone` is the one it has."""

    def __init__(self, phone: Phone) -> None:
        super().__init__(
            _("This workspace already has the number %(number)s.") % {"number": phone.number}
        )
        self.phone = phone


def to_e164(raw: str) -> str:
    """`0740 000 101`, `+40 740-000-101` → `+40740000101`; ValidationError otherwise."""
    try:
        return phone_numbers.to_e164(raw)
    except phone_numbers.NotAPhoneNumber:
        raise ValidationError(
            _("%(value)s is not a valid phone number; write it as +40 740 000 101 or 0740 000 101.")
            % {"value": raw.strip()[:32] or _("An empty value")},
            code="invalid",
        ) from None


def provider_choices() -> list[tuple[str, str]]:
    """The WhatsApp providers a number may be added with: the sandbox (which sends
    nothing) only in development or where ALLOW_SANDBOX_PROVIDERS permits it."""
    return [
        (key, label)
        for key, label in integrations.whatsapp_provider_choices()
        if key != integrations.SANDBOX or sandbox_permitted(f"whatsapp.{key}")
    ]


def default_account_id(provider: str, number: str) -> str:
    integration = integrations.get(provider)
    if integration is None or not integration.account_id_from_number:
        return ""
    return import_string(integration.account_id_from_number)(number)


def account_id_problem(provider: str, account_id: str) -> str:
    """Why `account_id` cannot be this provider's id of a number ("" when it can)."""
    integration = integrations.get(provider)
    if integration is None or not integration.account_id_pattern:
        return ""
    if re.fullmatch(integration.account_id_pattern, account_id):
        return ""
    hint = integration.account_id_hint or _("the provider's id of the number")
    return _("%(provider)s needs %(hint)s.") % {"provider": integration.label, "hint": _(hint)}


def add_phone(
    tenant: Tenant, *, number: str, provider: str, account_id: str = "", label: str = ""
) -> Phone:
    """A new ACTIVE, enabled number that starts its warm-up ramp today. Bad fields raise a
    ValidationError naming each; a number the workspace has raises PhoneExists."""
    errors: dict[str, list[str]] = {}
    try:
        number = to_e164(number)
    except ValidationError as error:
        errors["number"] = error.messages
    if provider not in dict(provider_choices()):
        errors["provider"] = [_("Choose one of the providers offered.")]
    account_id, label = account_id.strip(), label.strip()
    for field, value in (("account_id", account_id), ("label", label)):
        limit = max_length(Phone, field)
        if len(value) > limit:
            errors[field] = [_("At most %(n)d characters.") % {"n": limit}]
    if "provider" not in errors and "account_id" not in errors:
        problem = account_id_problem(provider, account_id)
        if problem:
            errors["account_id"] = [problem]
    if errors:
        raise ValidationError(errors)
    existing = Phone.objects.filter(tenant=tenant, number=number).first()
    if existing is not None:
        raise PhoneExists(existing)
    try:
        with transaction.atomic():
            return Phone.objects.create(
                tenant=tenant,
                number=number,
                provider=provider,
                account_id=account_id or default_account_id(provider, number),
                label=label,
            )
    except IntegrityError:  # added at the same moment by someone else
        raise PhoneExists(Phone.objects.get(tenant=tenant, number=number)) from None
