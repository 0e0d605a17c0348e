"""Which company and which contact each valid row is, decided in memory.

A row names a firm (name, CUI, county, locality) and a person (contact name, phone,
email...). The firm: the tenant's company with the row's CUI; else the company of the
contact the row's phone or email finds (unless that company has another CUI: companies
share an accountant's phone); else a new company (one per new CUI, shared by the rows of
the file that give it; one per row without a CUI). The person, within that company: the
contact with the row's phone, else its email, else its contact name (folded); a row
matching none is a new contact of the company. So a second person of a known firm is a
contact of it, never merged into the first one, and a re-import updates each person.

A phone or address that a contact of another company has is flagged, not merged: the row
is imported and the report names the company that holds it. A row whose contact an
earlier row of the file already took is a duplicate, refused.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, cast

from cerniq import reasons
from cerniq.models import Tenant
from outreach import reasons as codes
from outreach.companies import FIRM_FIELDS
from outreach.company_models import Company
from outreach.importing.cleaning import _Row
from outreach.importing.report import RowError
from outreach.lead_search import fold
from outreach.models import Lead

PERSON_KEYS = (("phone", "phone"), ("email", "email"), ("person", "contact_name"))


@dataclass(eq=False)
class _Firm:
    """A company as matching cares: an existing one (id) or one this import makes."""

    id: int | None
    values: dict[str, Any]  # name, cui, county, locality as they will be
    contacts: list[_Target] = field(default_factory=list)
    changes: dict[str, Any] = field(default_factory=dict)  # of an existing company


@dataclass(eq=False)
class _Target:
    """A contact: an existing lead (id) or one this import creates."""

    id: int | None
    firm: _Firm
    phone: str
    email: str
    person: str  # the folded contact name
    line: int | None = None  # the row of this import that already took it


@dataclass
class _Plan:
    """What the import will do: contacts to create (row, firm), existing contacts to
    update (lead id, row, firm changes the row brings), rows refused and rows flagged."""

    creates: list[tuple[_Row, _Firm]] = field(default_factory=list)
    matches: list[tuple[int, _Row, dict[str, Any]]] = field(default_factory=list)
    duplicates: list[RowError] = field(default_factory=list)
    flagged: list[RowError] = field(default_factory=list)
    firms: list[_Firm] = field(default_factory=list)  # every firm a row went to

    def changed_firms(self) -> dict[int, dict[str, Any]]:
        """The existing companies' changes, by id."""
        return {firm.id: firm.changes for firm in self.firms if firm.id and firm.changes}

    def new_firms(self) -> list[_Firm]:
        return [firm for firm in self.firms if firm.id is None]


def _person(contact_name: str) -> str:
    return fold(contact_name or "")


class _Index:
    """The tenant's companies by CUI, their contacts by phone and email, kept current as
    rows are matched."""

    def __init__(self) -> None:
        self.by_cui: dict[str, _Firm] = {}
        self.by_phone: dict[str, list[_Target]] = {}
        self.by_email: dict[str, list[_Target]] = {}
        self._seen: set[int] = set()

    @classmethod
    def load(cls, tenant: Tenant) -> _Index:
        """Two queries, key columns only, however many leads the tenant has."""
        index = cls()
        firms: dict[int, _Firm] = {}
        rows = Company.objects.filter(tenant=tenant).values_list("id", *FIRM_FIELDS)
        for company_id, *values in rows.iterator(chunk_size=5000):
            values_of = dict(zip(FIRM_FIELDS, values, strict=True))
            firm = firms[company_id] = _Firm(company_id, values_of)
            if firm.values["cui"]:
                index.by_cui[firm.values["cui"]] = firm
        keys = Lead.objects.filter(tenant=tenant).values_list(
            "id", "company_id", "phone", "email", "contact_name"
        )
        for lead_id, company_id, phone, email, person in keys.iterator(chunk_size=5000):
            target = _Target(lead_id, firms[company_id], phone, email.lower(), _person(person))
            index.add(target)
        return index

    def add(self, target: _Target) -> None:
        if target.firm.values["cui"]:
            self.by_cui[target.firm.values["cui"]] = target.firm
        if id(target) not in self._seen:
            self._seen.add(id(target))
            target.firm.contacts.append(target)
        if target.phone:
            self.by_phone.setdefault(target.phone, []).append(target)
        if target.email:
            self.by_email.setdefault(target.email, []).append(target)

    def remove(self, target: _Target) -> None:
        if target.phone:
            self.by_phone[target.phone].remove(target)
        if target.email:
            self.by_email[target.email].remove(target)

    def find(self, row: _Row) -> tuple[_Firm | None, _Target | None, str]:
        """The row's company (None: a new one) and contact (None: a new one), and the key
        the contact was found by."""
        cui = row.key("cui")
        if cui and (firm := self.by_cui.get(cui)):
            return (firm, *_within(firm, row))
        for key, index in (("phone", self.by_phone), ("email", self.by_email)):
            value = row.key(key)
            for target in index.get(value, []) if value else []:
                other_cui = target.firm.values["cui"]
                if not (cui and other_cui and other_cui != cui):
                    return target.firm, target, key
        return None, None, ""

    def holders(self, row: _Row, firm: _Firm) -> list[tuple[str, _Firm]]:
        """The companies other than `firm` whose contacts have the row's phone or email."""
        found = []
        for key, index in (("phone", self.by_phone), ("email", self.by_email)):
            value = row.key(key)
            others = [t.firm for t in index.get(value, []) if value and t.firm is not firm]
            if others:
                found.append((key, others[0]))
        return found

    def claim(self, target: _Target, row: _Row) -> None:
        """Mark the contact as taken by this row and index the keys the row gives it."""
        self.remove(target)
        target.phone = row.key("phone") or target.phone
        target.email = row.key("email") or target.email
        target.person = _person(row.key("contact_name")) or target.person
        target.line = row.line
        self.add(target)


def _within(firm: _Firm, row: _Row) -> tuple[_Target | None, str]:
    """The company's contact the row is: same phone, else email, else contact name."""
    for label, name in PERSON_KEYS:
        value = _person(row.key(name)) if label == "person" else row.key(name)
        if value:
            for target in firm.contacts:
                if getattr(target, label) == value:
                    return target, name
    return None, ""


def _apply(firm: _Firm, row: _Row) -> dict[str, Any]:
    """The row's firm values that differ from the company's (empty cells change nothing),
    applied to it; what changed."""
    changes = {
        name: row.values[name]
        for name in FIRM_FIELDS
        if row.values.get(name) and row.values[name] != firm.values[name]
    }
    firm.values.update(changes)
    if firm.id is not None:
        firm.changes.update(changes)
    return changes


def match(rows: list[_Row], index: _Index, *, create_only: bool = False) -> _Plan:
    """Decide per row: update a contact, add one (to a known or a new company), or refuse
    a repeat in the file. `create_only`: known companies and contacts are left as they are."""
    plan = _Plan()
    seen: set[int] = set()
    for row in rows:
        firm, target, label = index.find(row)
        if target is not None and target.line is not None:
            duplicate = reasons.code(codes.IMPORT_DUPLICATE, line=target.line, key=label)
            plan.duplicates.append(RowError(row.line, duplicate))
            continue
        changes: dict[str, Any] = {}
        if firm is None:
            firm = _Firm(None, {name: row.values.get(name, "") for name in FIRM_FIELDS})
        elif not (create_only and firm.id is not None):
            changes = _apply(firm, row)
            if changes.get("cui"):
                index.by_cui[changes["cui"]] = firm
        if id(firm) not in seen:
            seen.add(id(firm))
            plan.firms.append(firm)
        for key, holder in index.holders(row, firm):
            held = reasons.code(
                codes.IMPORT_HELD_BY_ANOTHER_COMPANY, key=key, company=holder.values["name"]
            )
            plan.flagged.append(RowError(row.line, held))
        if target is None:
            target = _Target(None, firm, "", "", "")
            plan.creates.append((row, firm))
        else:
            plan.matches.append((cast(int, target.id), row, changes))
        index.claim(target, row)
    return plan
