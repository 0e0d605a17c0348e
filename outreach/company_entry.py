"""A company typed on its page or sent by an API client: its fields checked by the import's
rules (CUI checksum, lengths), then written by outreach.companies (which copies the firm's
fields to every contact). Problems are per field (a form's errors, the API's 400)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.db import transaction
from django.utils.translation import gettext as _

from cerniq import reasons
from cerniq.models import Tenant
from outreach import companies
from outreach import reasons as codes
from outreach.companies import FIRM_FIELDS, CompanyRefused
from outreach.company_models import Company
from outreach.importing.cleaning import clean_fields, custom_problem


def _text(value: Any) -> str:
    return "" if value is None else str(value).strip()


def _custom(given: Any, errors: dict[str, list[str]]) -> dict[str, str]:
    """Named text values, as a lead's custom fields."""
    if not isinstance(given, Mapping) or not all(
        isinstance(key, str) and key.strip() and isinstance(value, str | int | float)
        for key, value in given.items()
    ):
        errors["custom_fields"] = [_("an object of named text values")]
        return {}
    cleaned = {key.strip(): str(value).strip() for key, value in given.items()}
    cleaned = {key: value for key, value in cleaned.items() if value}
    if any("\x00" in key or "\x00" in value for key, value in cleaned.items()):
        errors["custom_fields"] = [reasons.render(reasons.code(codes.IMPORT_NUL))]
        return {}
    if too_much := custom_problem(cleaned):
        errors["custom_fields"] = [reasons.render(too_much)]
        return {}
    return cleaned


def clean_company(data: Mapping[str, Any], *, current: Company | None = None) -> dict[str, Any]:
    """The clean values of the fields `data` gives (an empty one clears it, but a company
    keeps its name); custom fields are merged into `current`'s. CompanyRefused says why not."""
    raw = {name: _text(data[name]) for name in FIRM_FIELDS if name in data}
    values, problems = clean_fields({name: value for name, value in raw.items() if value})
    errors = {name: [reasons.render(problem)] for name, problem in problems.items()}
    for name, value in raw.items():
        if "\x00" in value:
            errors[name] = [reasons.render(reasons.code(codes.IMPORT_NUL))]
        elif not value:
            values[name] = ""
    if ("name" in raw or current is None) and not values.get("name") and "name" not in errors:
        errors["name"] = [reasons.render(reasons.code(codes.IMPORT_NO_NAME))]
    if "custom_fields" in data:
        custom = _custom(data["custom_fields"], errors)
        values["custom_fields"] = {**(current.custom_fields if current else {}), **custom}
    if errors:
        raise CompanyRefused(errors)
    return values


def _cui_free(tenant_id: int, cui: str, *, current: Company | None = None) -> None:
    holders = Company.objects.filter(tenant_id=tenant_id, cui=cui)
    if current is not None:
        holders = holders.exclude(pk=current.pk)
    if cui and (holder := holders.first()):
        raise CompanyRefused(
            {
                "cui": [
                    _("Another company of yours has this CUI: %(name)s (id %(id)d).")
                    % {"name": holder.name, "id": holder.pk}
                ]
            }
        )


def create_company(tenant: Tenant, data: Mapping[str, Any]) -> Company:
    """A new company without contacts yet (they are added on the lead form or by the API
    naming it). A CUI another company has is refused: that company is the one."""
    values = clean_company(data)
    with transaction.atomic():
        _cui_free(tenant.pk, values.get("cui", ""))
        company, _made = companies.find_or_create(tenant, values)
    return company


def change_company(company: Company, data: Mapping[str, Any]) -> Company:
    """Change the fields `data` gives; the firm's are copied to every contact."""
    values = clean_company(data, current=company)
    with transaction.atomic():
        _cui_free(company.tenant_id, values.get("cui", ""), current=company)
        return companies.update_company(company, values)
