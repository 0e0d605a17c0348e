"""The one writer of a company's fields and of their copies on its contacts (leads).

A lead is a person at a company (outreach.company_models.Company). The company owns the
firm's fields: name, CUI, county, locality, and custom fields of its own (a lead's
`custom_fields` stay the person's). Each lead keeps a read copy of the first four
(`Lead.name`, `cui`, `county`, `locality`): the leads list sorts, filters and searches them
through the lead's own indexes and search text (outreach.lead_search), and some 400 places
read `lead.name` and the rest; a join on every one of them would cost more than the copy.

Copies stay true only if one module writes them: this one. Every writer (the import, the
lead forms, the API, the admin, the Lead Ads and Mailchimp intake, the demo data) finds or
makes a company here, attaches a lead to one, or changes one; a change is copied to all
its contacts by one UPDATE, their search text rewritten with it. The one exception is the
erasure (outreach.person_data), which blanks an erased person's copies and, when nobody
else is left at the company, the company (`scrub_erased`); copies are never written to an
erased person again.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from django.db import transaction
from django.db.models import OuterRef, QuerySet, Subquery
from django.utils import timezone
from django.utils.translation import gettext as _

from cerniq.models import Tenant
from outreach import stalls
from outreach.company_models import Company
from outreach.models import Lead

# The firm's fields a lead keeps a copy of.
FIRM_FIELDS = ("name", "cui", "county", "locality")
# What else a company holds that a writer may change.
COMPANY_FIELDS = (*FIRM_FIELDS, "custom_fields")
BATCH_SIZE = 1000
IDS_PER_QUERY = 900  # under SQLite's 999 bound parameters


class CompanyRefused(ValueError):
    """A change the company cannot take, by field (what a form or the API shows)."""

    def __init__(self, fields: dict[str, list[str]]) -> None:
        super().__init__("; ".join(f"{name}: {', '.join(p)}" for name, p in fields.items()))
        self.fields = fields


def copies_of(company: Company) -> dict[str, str]:
    """The values a contact of `company` keeps of it."""
    return {name: getattr(company, name) for name in FIRM_FIELDS}


def firm_values(values: Mapping[str, Any]) -> dict[str, Any]:
    """The firm's part of a lead's values (the import's row, the API's body)."""
    return {name: values[name] for name in FIRM_FIELDS if name in values}


def person_values(values: Mapping[str, Any]) -> dict[str, Any]:
    """The person's part: everything but the firm's fields."""
    return {name: value for name, value in values.items() if name not in FIRM_FIELDS}


# --- finding and making companies -----------------------------------------------------


def find_or_create(tenant: Tenant, values: Mapping[str, Any]) -> tuple[Company, bool]:
    """The tenant's company with the CUI in `values` (its fields left as they are), else a
    new one from `values` (True; its custom fields too, if given). Without a CUI, a new
    company every time: two firms may share a name, and which one is meant only the caller
    can say (pass its id instead)."""
    firm = {**firm_values(values), "custom_fields": values.get("custom_fields") or {}}
    _require_name(firm)
    if firm.get("cui"):
        return Company.objects.get_or_create(tenant=tenant, cui=firm["cui"], defaults=firm)
    return Company.objects.create(tenant=tenant, **firm), True


def new_companies(tenant: Tenant, firms: Sequence[Mapping[str, Any]]) -> list[Company]:
    """One new company per item (name, cui, county, locality), written in bulk (the
    import, the demo data, the benchmarks); the caller knows no CUI of them is taken."""
    rows = [Company(tenant=tenant, **firm_values(firm)) for firm in firms]
    for row in rows:
        _require_name(copies_of(row))
    return Company.objects.bulk_create(rows, batch_size=BATCH_SIZE)


def companies_for_new_leads(tenant: Tenant, leads: Sequence[Lead]) -> None:
    """Unsaved leads built with the firm's fields (the benchmarks' fixtures): one new
    company each, made of those fields in bulk, so the copies are the companies' own."""
    made = new_companies(tenant, [copies_of(lead) for lead in leads])  # type: ignore[arg-type]
    for lead, company in zip(leads, made, strict=True):
        lead.company = company


def _require_name(firm: Mapping[str, Any]) -> None:
    if not firm.get("name"):
        raise CompanyRefused({"name": [_("A company needs a name.")]})


# --- contacts -------------------------------------------------------------------------


def contact(company: Company, **person: Any) -> Lead:
    """A new (unsaved) lead of `company`: the person's fields as given, the firm's copied.
    Saved by the caller, alone or in a bulk_create (the import)."""
    if taken := set(person) & set(FIRM_FIELDS):
        raise ValueError(f"{sorted(taken)} are the company's fields, not the person's")
    return Lead(tenant_id=company.tenant_id, company=company, **person, **copies_of(company))


def attach(lead: Lead, company: Company) -> Lead:
    """Make `lead` a contact of `company` (of the same tenant), with its copies; an erased
    person moves without them."""
    if company.tenant_id != lead.tenant_id:
        raise ValueError("a lead joins a company of its own tenant only")
    lead.company = company
    fields = ["company"]
    if lead.erased_at is None:
        for name, value in copies_of(company).items():
            setattr(lead, name, value)
        fields += FIRM_FIELDS
    if lead.pk is not None:
        lead.save(update_fields=[*fields, "updated_at"])
        stalls.wake([lead.pk])
    return lead


# --- changing companies ---------------------------------------------------------------


def update_company(company: Company, changes: Mapping[str, Any]) -> Company:
    """Change the company's fields (clean values: outreach.company_entry checks typed
    ones); the firm's are copied to every contact in one UPDATE. A name is never emptied,
    a CUI is never another company's (CompanyRefused)."""
    unknown = set(changes) - set(COMPANY_FIELDS)
    if unknown:
        raise ValueError(f"not a company field: {sorted(unknown)}")
    changes = {name: value for name, value in changes.items() if getattr(company, name) != value}
    if not changes:
        return company
    if "name" in changes:
        _require_name(changes)
    if changes.get("cui"):
        holder = Company.objects.filter(tenant_id=company.tenant_id, cui=changes["cui"])
        if holder.exclude(pk=company.pk).exists():
            raise CompanyRefused({"cui": [_("Another company of yours has this CUI.")]})
    with transaction.atomic():
        for name, value in changes.items():
            setattr(company, name, value)
        company.save(update_fields=[*changes, "updated_at"])
        if firm_values(changes):
            copy_to_contacts([company.pk])
    return company


def update_companies(tenant: Tenant, changes: Mapping[int, Mapping[str, Any]]) -> None:
    """Many companies' changes at once (the import): written in bulk, then each company's
    fields copied to its contacts. The caller checked them (names given, CUIs free)."""
    if not changes:
        return
    ids = list(changes)
    stored: dict[int, Company] = {}
    mine = Company.objects.filter(tenant=tenant)
    for start in range(0, len(ids), IDS_PER_QUERY):
        stored.update(mine.in_bulk(ids[start : start + IDS_PER_QUERY]))
    by_fields: dict[tuple[str, ...], list[Company]] = {}
    now = timezone.now()  # bulk_update leaves auto_now alone
    for company_id, change in changes.items():
        company = stored[company_id]
        for name, value in change.items():
            setattr(company, name, value)
        company.updated_at = now
        by_fields.setdefault(tuple(sorted(change)), []).append(company)
    for fields, companies in by_fields.items():
        Company.objects.bulk_update(companies, [*fields, "updated_at"], batch_size=BATCH_SIZE)
    copied = [company_id for company_id, change in changes.items() if firm_values(change)]
    copy_to_contacts(copied)


def copy_to_contacts(company_ids: Iterable[int]) -> list[int]:
    """Copy the companies' fields to their (not erased) contacts, in SQL: one UPDATE per
    chunk of companies, the search text rewritten; the contacts' ids (woken: a value a
    template needed may have come)."""
    ids = list(company_ids)
    woken: list[int] = []
    for start in range(0, len(ids), IDS_PER_QUERY):
        contacts = Lead.objects.filter(
            company_id__in=ids[start : start + IDS_PER_QUERY], erased_at__isnull=True
        )
        firm = Company.objects.filter(pk=OuterRef("company_id"))
        contacts.update(**{name: Subquery(firm.values(name)[:1]) for name in FIRM_FIELDS})
        woken += contacts.values_list("pk", flat=True)
    stalls.wake(woken)
    return woken


def scrub_erased(companies: QuerySet[Company], erased: str) -> int:
    """The erasure: a company nobody but erased people works at may be the person (a
    sole trader's firm bears their name): its name becomes `erased`, the rest is blanked.
    A company with other contacts stays as it is."""
    alone = companies.exclude(contacts__erased_at__isnull=True)
    return alone.update(name=erased, cui="", locality="", custom_fields={})
