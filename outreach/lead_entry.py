"""One lead at a time (the REST API's create and update, the lead form, Lead Ads), under
the CSV import's field rules.

The field rules (CUI checksum, E.164 phone, email; lengths) are the import's
`clean_fields`. The duplicate rule is the one a single lead always had (CUI, then phone,
then email; a phone or email shared with a lead of another CUI is no match), so a client
that sends the firm's fields gets the 409 it always got; a second contact of a company is
added by naming the company (`company`). The firm's fields are the company's
(outreach.companies); a new lead gets its COLD journey, then is flagged if its address is
suppressed.
Field problems are the import's reason codes, rendered in the request's language. An update
wakes the lead's stalled enrollment (outreach.stalls): the new data may unblock it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.db import transaction
from django.utils.translation import gettext as _

from cerniq import reasons
from cerniq.model_fields import column
from cerniq.models import Tenant
from outreach import companies, lead_rules, stalls
from outreach import reasons as codes
from outreach.company_models import Company
from outreach.importing.cleaning import _CLEANERS, clean_fields, custom_problem
from outreach.models import Journey, Lead, LeadRule, Stage
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


def _find_duplicate(tenant: Tenant, keys: dict[str, str], *, lead: Lead | None = None) -> None:
    """Raise DuplicateLead when another lead of the tenant is this one by the rule a single
    lead has always had: the same CUI (a contact of another company, for a lead that has
    one), else the same phone or email unless the two CUIs differ (companies share an
    accountant's phone). A second contact of a known company is added by naming the
    company (`company`), not by its CUI."""
    leads = Lead.objects.filter(tenant=tenant).order_by("pk")
    if lead is not None:
        leads = leads.exclude(pk=lead.pk)
    cui = keys.get("cui") or ""
    if cui:
        holders = leads.filter(cui=cui)
        if lead is not None:
            holders = holders.exclude(company_id=lead.company_id)
        if holder := holders.values_list("pk", flat=True).first():
            raise DuplicateLead(holder, "CUI")
    for name in ("phone", "email"):
        if value := keys.get(name):
            for found, their_cui in leads.filter(**{name: value}).values_list("pk", "cui"):
                if not (cui and their_cui and their_cui != cui):
                    raise DuplicateLead(found, name)


def _find_colleague(company: Company, keys: Mapping[str, str], *, exclude: int | None) -> None:
    """A new contact of a named company must not be one it has (same phone or email)."""
    contacts = company.contacts.order_by("pk")
    if exclude is not None:
        contacts = contacts.exclude(pk=exclude)
    for name in ("phone", "email"):
        value = keys.get(name)
        if value and (found := contacts.filter(**{name: value}).values_list("pk", flat=True)[:1]):
            raise DuplicateLead(found[0], name)


def _company_named(tenant: Tenant, data: Mapping[str, Any], errors: dict) -> Company | None:
    """The tenant's company `data["company"]` names (an id, or a Company), else None;
    another tenant's or an unknown one is a field problem."""
    given = data.get("company")
    if given in (None, ""):
        return None
    pk = given.pk if isinstance(given, Company) else given
    company = None
    if isinstance(pk, int) or (isinstance(pk, str) and pk.isdigit()):
        company = Company.objects.filter(tenant=tenant, pk=int(pk)).first()
    if company is None:
        errors["company"] = [_("No such company in your workspace.")]
    return company


def _not_the_companys(company: Company, firm: Mapping[str, Any], errors: dict) -> None:
    """A contact of a named company takes its fields: another value is a mistake."""
    for name, value in firm.items():
        if value != getattr(company, name):
            errors.setdefault(name, []).append(
                _("This is the company's field: change it on the company.")
            )


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
    """A new lead with its COLD journey; LeadInvalid or DuplicateLead say why not. Its
    company: the one `data["company"]` names (the lead a new contact of it), else the
    tenant's company with the CUI given, else a new one made of the firm's fields
    (outreach.companies). Then the tenant's lead rules: `source` is api, page or lead_ads
    (also stored as Lead.source), `form_id` the Lead Ads form, `requested_contact` that the
    person asked to be contacted (outreach.lead_rules.lead_created)."""
    if source not in LeadRule.Source.values:
        raise ValueError(f"unknown lead source {source!r}")
    values, errors = _clean(data)
    custom = _custom(data, errors)
    company = _company_named(tenant, data, errors)
    if company is not None:
        _not_the_companys(company, companies.firm_values(values), errors)
    elif not values.get("name") and "name" not in errors and "company" not in errors:
        errors["name"] = [_said(codes.IMPORT_NO_NAME)]
    if not values.get("phone") and not values.get("email"):
        for name in ("phone", "email"):
            errors.setdefault(name, [_said(codes.IMPORT_NO_CONTACT)])
    if errors:
        raise LeadInvalid(errors)
    _refuse_erased(tenant, values)
    with transaction.atomic():
        _lock_tenant(tenant)
        if company is not None:
            _find_colleague(company, values, exclude=None)
        else:
            _find_duplicate(tenant, values)
            company, _made = companies.find_or_create(tenant, values)
        lead = companies.contact(
            company, source=source, custom_fields=custom, **companies.person_values(values)
        )
        lead.save()
        Journey.objects.create(tenant=tenant, lead=lead, stage=Stage.COLD)
        flag_imported(tenant.pk, [lead.pk])
        lead_rules.lead_created(
            lead, source=source, form_id=form_id, requested_contact=requested_contact
        )
    return Lead.objects.get(pk=lead.pk)


def create_or_join(
    tenant: Tenant,
    data: Mapping[str, Any],
    *,
    source: str = LeadRule.Source.API,
    form_id: str = "",
    requested_contact: bool = False,
) -> Lead:
    """`create_lead`, with the import's rule for a known firm (a form's people): a CUI a
    company already has makes the person a new contact of it, unless it is one of its
    contacts (the same phone or email: DuplicateLead names that contact)."""

    def create(values: Mapping[str, Any]) -> Lead:
        return create_lead(
            tenant,
            values,
            source=source,
            form_id=form_id,
            requested_contact=requested_contact,
        )

    try:
        return create(data)
    except DuplicateLead as duplicate:
        if duplicate.matched_by != "CUI":
            raise
        company_id = Lead.objects.filter(pk=duplicate.lead_id).values_list("company_id", flat=True)
        person = {k: v for k, v in data.items() if k not in companies.FIRM_FIELDS}
        return create({**person, "company": company_id.first()})


def update_lead(lead: Lead, data: Mapping[str, Any]) -> Lead:
    """Change contact data (never the stage): an empty value clears a field, but a lead keeps
    its name and a phone or an email; custom fields are merged, as a re-import does. The
    firm's fields change the lead's company, so all its contacts (outreach.companies);
    `company` moves the lead to another company of the tenant. An erased person's record
    is never filled again."""
    if lead.erased_at is not None:
        raise LeadInvalid({"non_field_errors": [_("This person was erased on request.")]})
    values, errors = _clean(data)
    custom = _custom(data, errors) if "custom_fields" in data else None
    move = _company_named(lead.tenant, data, errors) if "company" in data else None
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
    changes: dict[str, Any] = dict(values)
    for name in cleared:
        changes[name] = default_for(name)
    firm = companies.firm_values(changes)
    if move is not None and move.pk != lead.company_id:
        _not_the_companys(move, firm, errors)
        firm = {}
    if errors:
        raise LeadInvalid(errors)
    _refuse_erased(lead.tenant, values)
    person = companies.person_values(changes)
    if custom is not None:
        person["custom_fields"] = {**(lead.custom_fields or {}), **custom}
    with transaction.atomic():
        _lock_tenant(lead.tenant)
        keys = {name: changes.get(name, getattr(lead, name)) for name in KEYS}
        if move is not None and move.pk != lead.company_id:
            _find_colleague(move, keys, exclude=lead.pk)
        elif any(name in changes for name in KEYS):
            _find_duplicate(lead.tenant, keys, lead=lead)
        _write(lead, person, firm, move)
    return lead


def _write(lead: Lead, person: dict[str, Any], firm: dict[str, Any], move: Company | None) -> None:
    """The firm's changes on the company (copied to its contacts), the move, the person's."""
    if move is not None and move.pk != lead.company_id:
        companies.attach(lead, move)
    elif firm:
        try:
            companies.update_company(lead.company, firm)
        except companies.CompanyRefused as refused:
            raise LeadInvalid(refused.fields) from None
        lead.refresh_from_db(fields=list(companies.FIRM_FIELDS))  # the company's UPDATE
    for name, value in person.items():
        setattr(lead, name, value)
    if person:
        lead.save(update_fields=[*person, "updated_at"])
        if "phone" in person or "email" in person:
            flag_imported(lead.tenant_id, [lead.pk])
        stalls.wake([lead.pk])  # a new address, or a value a template needs: a stall may end


def default_for(name: str) -> Any:
    """What a cleared field holds (the model's default, else empty text)."""
    field = column(Lead, name)
    return field.get_default() if field.has_default() else ""
