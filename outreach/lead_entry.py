"""One lead at a time (the REST API's create and update), under the CSV import's rules.

The field rules (CUI checksum, E.164 phone, email; lengths) are the import's
`clean_fields`, the match rule (CUI, then phone, then email; a phone or email shared with a
lead of another CUI is no match) is the import's `_Index`, and a new lead is written by the
import's `_create` (with its COLD journey), then flagged if its address is suppressed.
Field problems are the import's reason codes, rendered in the request's language. An update
wakes the lead's stalled enrollment (outreach.stalls): the new data may unblock it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.db import transaction
from django.db.models import Q
from django.utils.translation import gettext as _

from cerniq import reasons
from cerniq.model_fields import column
from cerniq.models import Tenant
from outreach import lead_rules, stalls
from outreach import reasons as codes
from outreach.importing.cleaning import _CLEANERS, _Row, clean_fields, custom_problem
from outreach.importing.writing import _create, _Index, _Target
from outreach.models import Lead, LeadRule
from outreach.suppression import erased, flag_imported

FIELDS = tuple(_CLEANERS)  # name, cui, county, locality, contact_name, phone, ... email_status
KEYS = ("cui", "phone", "email")  # what two leads must not share (the import's match keys)


class LeadInvalid(ValueError):
    """Field problems, by field name (what the API answers as a 400)."""

    def __init__(self, fields: dict[str, list[str]]) -> None:
        super().__init__("; ".join(f"{name}: {', '.join(p)}" for name, p in fields.items()))
        self.fields = fields


class DuplicateLead(ValueError):
    """The lead's CUI, phone or email is another lead's: the import would update that one."""

    def __init__(self, lead_id: int, matched_by: str) -> None:
        super().__init__(
            _("A lead with the same %(key)s already exists (id %(id)d).")
            % {"key": codes.field_label(matched_by), "id": lead_id}
        )
        self.lead_id = lead_id
        self.matched_by = matched_by


def _said(code: str) -> str:
    """A field problem shared with the import, in the active language (not stored)."""
    return reasons.render(reasons.code(code))


def _as_text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value).strip()


def _clean(data: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, list[str]]]:
    raw = {name: _as_text(data[name]) for name in FIELDS if name in data}
    values, problems = clean_fields(raw)
    errors = {name: [reasons.render(problem)] for name, problem in problems.items()}
    for name, value in raw.items():
        if "\x00" in value:
            errors[name] = [_said(codes.IMPORT_NUL)]
    return values, errors


def _custom(data: Mapping[str, Any], errors: dict[str, list[str]]) -> dict[str, str]:
    """Custom fields: named text values (numbers are kept as text)."""
    custom = data.get("custom_fields") or {}
    if not isinstance(custom, Mapping) or not all(
        isinstance(key, str) and key.strip() and isinstance(value, str | int | float)
        for key, value in custom.items()
    ):
        errors["custom_fields"] = [_("an object of named text values")]
        return {}
    if any("\x00" in key or "\x00" in str(value) for key, value in custom.items()):
        errors["custom_fields"] = [_said(codes.IMPORT_NUL)]
        return {}
    cleaned = {key: str(value).strip() for key, value in custom.items() if str(value).strip()}
    if too_much := custom_problem(cleaned):
        errors["custom_fields"] = [reasons.render(too_much)]
        return {}
    return cleaned


def _find_duplicate(tenant: Tenant, keys: dict[str, str], *, exclude: int | None = None) -> None:
    """Raise DuplicateLead when another lead of the tenant matches by the import's rule."""
    wanted = Q()
    for name in KEYS:
        if keys.get(name):
            wanted |= Q(**{name: keys[name]})
    if not wanted:
        return
    index = _Index()
    candidates = Lead.objects.filter(tenant=tenant).filter(wanted).exclude(pk=exclude)
    for lead_id, cui, phone, email in candidates.values_list("id", "cui", "phone", "email"):
        index.add(_Target(lead_id, cui, phone, email.lower()))
    target, matched_by = index.find(_Row(0, keys, {}))
    if target is not None and target.id is not None:
        raise DuplicateLead(target.id, matched_by)


def _refuse_erased(tenant: Tenant, values: Mapping[str, Any]) -> None:
    """An erased person's phone or address is never given to a lead again."""
    phone, email = values.get("phone") or "", values.get("email") or ""
    gone = erased(tenant, phones=[phone], emails=[email])
    errors = {
        name: [_said_with(codes.IMPORT_ERASED, key=name)]
        for name, value in (("phone", phone), ("email", email.lower()))
        if value and value in gone
    }
    if errors:
        raise LeadInvalid(errors)


def _said_with(code: str, **params: Any) -> str:
    return reasons.render(reasons.code(code, **params))


def _lock_tenant(tenant: Tenant) -> None:
    """The import's lock: one writer of a tenant's leads at a time, so no duplicate slips in."""
    list(Tenant.objects.select_for_update(no_key=True).filter(pk=tenant.pk).values("pk"))


def create_lead(
    tenant: Tenant,
    data: Mapping[str, Any],
    *,
    source: str = LeadRule.Source.API,
    form_id: str = "",
    requested_contact: bool = False,
) -> Lead:
    """A new lead with its COLD journey; LeadInvalid or DuplicateLead say why not. Then the
    tenant's lead rules: `source` is api, page or lead_ads (also stored as Lead.source),
    `form_id` the Lead Ads form, `requested_contact` that the person asked to be contacted
    (outreach.lead_rules.lead_created)."""
    if source not in LeadRule.Source.values:
        raise ValueError(f"unknown lead source {source!r}")
    values, errors = _clean(data)
    custom = _custom(data, errors)
    if not values.get("name") and "name" not in errors:
        errors["name"] = [_said(codes.IMPORT_NO_NAME)]
    if not values.get("phone") and not values.get("email"):
        for name in ("phone", "email"):
            errors.setdefault(name, [_said(codes.IMPORT_NO_CONTACT)])
    if errors:
        raise LeadInvalid(errors)
    _refuse_erased(tenant, values)
    with transaction.atomic():
        _lock_tenant(tenant)
        _find_duplicate(tenant, values)
        (lead,) = _create(tenant, [_Row(0, values, custom)], source)
        flag_imported(tenant.pk, [lead.pk])
        lead_rules.lead_created(
            lead, source=source, form_id=form_id, requested_contact=requested_contact
        )
    return Lead.objects.get(pk=lead.pk)


def update_lead(lead: Lead, data: Mapping[str, Any]) -> Lead:
    """Change contact data (never the stage): an empty value clears a field, but a lead keeps
    its name and a phone or an email; custom fields are merged, as a re-import does. An
    erased person's record is never filled again."""
    if lead.erased_at is not None:
        raise LeadInvalid({"non_field_errors": [_("This person was erased on request.")]})
    values, errors = _clean(data)
    custom = _custom(data, errors) if "custom_fields" in data else None
    cleared = {name for name in FIELDS if name in data and not _as_text(data[name])}
    if "name" in cleared:
        errors["name"] = [_said(codes.IMPORT_NO_NAME)]
    merged = {name: getattr(lead, name) for name in ("phone", "email")}
    merged.update({name: "" for name in cleared if name in merged})
    merged.update({name: values[name] for name in merged if name in values})
    if not merged["phone"] and not merged["email"]:
        for name in ("phone", "email"):
            if name in data:
                errors.setdefault(name, [_said(codes.IMPORT_NO_CONTACT)])
    if errors:
        raise LeadInvalid(errors)
    _refuse_erased(lead.tenant, values)
    changes: dict[str, Any] = dict(values)
    for name in cleared:
        changes[name] = default_for(name)
    if custom is not None:
        changes["custom_fields"] = {**(lead.custom_fields or {}), **custom}
    with transaction.atomic():
        _lock_tenant(lead.tenant)
        keys = {name: changes.get(name, getattr(lead, name)) for name in KEYS}
        if any(name in changes for name in KEYS):
            _find_duplicate(lead.tenant, keys, exclude=lead.pk)
        for name, value in changes.items():
            setattr(lead, name, value)
        lead.save(update_fields=[*changes, "updated_at"])
        if any(name in changes for name in ("phone", "email")):
            flag_imported(lead.tenant_id, [lead.pk])
        if changes:  # a new address, or a value a template needs: a stall may be over
            stalls.wake([lead.pk])
    return lead


def default_for(name: str) -> Any:
    """What a cleared field holds (the model's default, else empty text)."""
    field = column(Lead, name)
    return field.get_default() if field.has_default() else ""
