"""Write what matching decided (outreach.importing.matching) in bulk, atomically: the
companies' changes and new companies through outreach.companies, the new contacts, and the
contacts' own changes in a few batched UPDATEs."""

from __future__ import annotations

import json
from collections.abc import Iterable
from contextlib import nullcontext
from typing import Any

from django.db import connection, transaction
from django.db.models import Case, Value, When
from django.db.models.functions import Cast
from django.utils import timezone

from cerniq import reasons
from cerniq.model_fields import column
from cerniq.models import Tenant
from outreach import companies, lead_rules, stalls
from outreach import reasons as codes
from outreach.company_models import Company
from outreach.importing import basis_columns
from outreach.importing.cleaning import Progress, _Row, _validate
from outreach.importing.matching import _Index, _Plan, match
from outreach.importing.reading import IMPORT_FIELDS, Record
from outreach.importing.report import ImportReport, RowError
from outreach.lead_search import search_text_of, writes_sources
from outreach.models import Journey, Lead, LeadRule, Stage
from outreach.suppression import erased, flag_imported

BATCH_SIZE = 1000
FETCH_CHUNK = 900  # ids per `pk__in` query: under SQLite's 999 bound-parameter limit


# --- diffing and writing ------------------------------------------------------------------


# The person's fields a row may change (the firm's are the company's: matching).
PERSON_FIELDS = tuple(name for name in IMPORT_FIELDS if name not in companies.FIRM_FIELDS)
_STORED_FIELDS = (*PERSON_FIELDS, "name", "custom_fields")  # the name: in the search text
_Update = tuple[int, dict[str, Any], dict[str, Any]]  # (lead id, stored values, changes)


def _load_stored(tenant: Tenant, ids: list[int]) -> dict[int, dict[str, Any]]:
    """Current values of the matched leads only, a chunk of ids per query."""
    stored: dict[int, dict[str, Any]] = {}
    for start in range(0, len(ids), FETCH_CHUNK):
        chunk = ids[start : start + FETCH_CHUNK]
        for item in Lead.objects.filter(tenant=tenant, pk__in=chunk).values("id", *_STORED_FIELDS):
            stored[item.pop("id")] = item
    return stored


def _changes(stored: dict[str, Any], row: _Row) -> dict[str, Any]:
    """The person's fields the row changes: empty cells never blank data, custom fields
    are merged."""
    person = companies.person_values(row.values)
    changes = {name: value for name, value in person.items() if stored[name] != value}
    if row.custom:
        current = stored["custom_fields"] if isinstance(stored["custom_fields"], dict) else {}
        merged = {**current, **row.custom}
        if merged != current:
            changes["custom_fields"] = merged
    return changes


def _pending_updates(
    tenant: Tenant, matches: list[tuple[int, _Row, dict[str, Any]]]
) -> tuple[list[_Update], int]:
    """Only contacts whose values really change are written, so a re-import writes
    nothing; and how many rows change something (their contact or its company)."""
    stored = _load_stored(tenant, [lead_id for lead_id, _, _ in matches])
    updates = []
    changing = 0
    for lead_id, row, firm_changes in matches:
        if changes := _changes(stored[lead_id], row):
            updates.append((lead_id, stored[lead_id], changes))
        changing += bool(changes or firm_changes)
    return updates, changing


def _companies_of(tenant: Tenant, plan: _Plan) -> dict[int, Company]:
    """The companies of the new contacts: the new ones made in bulk, the known ones read
    (a chunk of ids per query), after their changes were written."""
    new = plan.new_firms()
    made = companies.new_companies(tenant, [firm.values for firm in new])
    for firm, company in zip(new, made, strict=True):
        firm.id = company.pk
    found = {company.pk: company for company in made}
    wanted = list({firm.id for _, firm in plan.creates if firm.id not in found})
    for start in range(0, len(wanted), FETCH_CHUNK):
        chunk = Company.objects.filter(tenant=tenant, pk__in=wanted[start : start + FETCH_CHUNK])
        found.update((company.pk, company) for company in chunk)
    return found


def _create(tenant: Tenant, plan: _Plan, source: str) -> list[Lead]:
    """New contacts, each with its COLD journey, of the companies matching chose."""
    by_id = _companies_of(tenant, plan)
    leads = [
        companies.contact(
            by_id[firm.id],  # type: ignore[index]
            source=source,
            custom_fields=row.custom,
            **companies.person_values(row.values),
        )
        for row, firm in plan.creates
    ]
    Lead.objects.bulk_create(leads, batch_size=BATCH_SIZE)
    journeys = [Journey(tenant=tenant, lead=lead, stage=Stage.COLD) for lead in leads]
    Journey.objects.bulk_create(journeys, batch_size=BATCH_SIZE)
    return leads


def _update(tenant: Tenant, updates: list[_Update]) -> None:
    """Write changed leads: one UPDATE per batch over the union of changed fields."""
    names = sorted({name for _, _, changes in updates for name in changes})
    if writes_sources(names):  # computed here, so the queryset need not re-read the rows
        names.append("search_text")
    now = timezone.now()
    size = _update_batch_size(len(names))
    for start in range(0, len(updates), size):
        batch = updates[start : start + size]
        columns = {
            name: _column(
                name,
                [
                    (lead_id, _new_value(name, stored, changes))
                    for lead_id, stored, changes in batch
                ],
            )
            for name in names
        }
        ids = [lead_id for lead_id, _, _ in batch]
        Lead.objects.filter(tenant=tenant, pk__in=ids).update(updated_at=now, **columns)


def _new_value(name: str, stored: dict[str, Any], changes: dict[str, Any]) -> Any:
    values = {**stored, **changes}
    return search_text_of(values) if name == "search_text" else values[name]


def _update_batch_size(field_count: int) -> int:
    """Stay under the backend's bound-parameter limit (SQLite: 999).

    Per row: its id in the filter, and per field its id in a WHEN plus at most one value."""
    limit = connection.features.max_query_params
    if limit is None:
        return BATCH_SIZE
    return max(1, min(BATCH_SIZE, (limit - 2) // (2 * field_count + 1)))


def _column(name: str, values: list[tuple[int, Any]]) -> Any:
    """The new value of one column for a batch: rows with the same value share one WHEN.

    Unlike bulk_update's WHEN per row, this keeps re-imports that change a few columns to a
    few values (email_status, county, updated_at) cheap."""
    model_field = column(Lead, name)
    groups: dict[str, tuple[Any, list[int]]] = {}
    for lead_id, value in values:
        key = json.dumps(value, sort_keys=True)
        groups.setdefault(key, (value, []))[1].append(lead_id)
    if len(groups) == 1:
        return Value(values[0][1], output_field=model_field)
    case = Case(
        *(
            When(pk__in=ids, then=Value(value, output_field=model_field))
            for value, ids in groups.values()
        ),
        output_field=model_field,
    )
    if connection.features.requires_casted_case_in_updates:
        return Cast(case, output_field=model_field)
    return case


def _record_bases(
    tenant: Tenant, plan: _Plan, created_ids: list[int], source: str, *, create_only: bool
) -> None:
    """The lawful bases the rows give, for the leads they created or updated."""
    rows = [(lead_id, row) for lead_id, (row, _) in zip(created_ids, plan.creates, strict=True)]
    if not create_only:
        rows += [(lead_id, row) for lead_id, row, _ in plan.matches]
    given = [(lead_id, row.line, row.basis) for lead_id, row in rows if row.basis is not None]
    if given:
        basis_columns.record(tenant, given, source)


def _refuse_erased(tenant: Tenant, rows: list[_Row], rejected: list[RowError]) -> list[_Row]:
    """Rows carrying an erased person's phone or address are refused, with the reason."""
    gone = erased(
        tenant, phones=[r.key("phone") for r in rows], emails=[r.key("email") for r in rows]
    )
    if not gone:
        return rows
    kept = []
    for row in rows:
        key = next((k for k in ("phone", "email") if row.key(k) and row.key(k).lower() in gone), "")
        if key:
            rejected.append(RowError(row.line, reasons.code(codes.IMPORT_ERASED, key=key)))
        else:
            kept.append(row)
    return kept


def _import(
    tenant: Tenant,
    records: Iterable[tuple[int, Record | RowError]],
    *,
    dry_run: bool,
    source: str,
    progress: Progress | None,
    create_only: bool = False,
) -> ImportReport:
    """Validate in Python first, then do the database work in one transaction.
    `create_only`: matched leads are not updated (the demo seed never edits a lead)."""
    max_source = Lead._meta.get_field("source").max_length or 0
    if len(source) > max_source:
        raise ValueError(f"source {source!r} is longer than Lead.source allows ({max_source})")
    rows, rejected, processed = _validate(records, progress)
    rows = _refuse_erased(tenant, rows, rejected)
    # A dry run only reads: no transaction (SQLite's IMMEDIATE mode would take the write lock).
    with nullcontext() if dry_run else transaction.atomic():
        if not dry_run:  # one import per tenant at a time; NO KEY keeps FK inserts unblocked
            list(Tenant.objects.select_for_update(no_key=True).filter(pk=tenant.pk).values("pk"))
        plan = match(rows, _Index.load(tenant), create_only=create_only)
        updates, changing = ([], 0) if create_only else _pending_updates(tenant, plan.matches)
        created_ids: list[int] = []
        if not dry_run:
            if updates:  # before the companies': their copies then rewrite the search text
                _update(tenant, updates)
            companies.update_companies(tenant, plan.changed_firms())
            created = _create(tenant, plan, source)
            created_ids = [lead.pk for lead in created]
            # An address that asked us to stop stays stopped for whichever lead carries it.
            flag_imported(tenant.pk, [*created_ids, *(lead_id for lead_id, _, _ in updates)])
            _record_bases(tenant, plan, created_ids, source, create_only=create_only)
            # New data may unblock a stalled enrollment: due again, dispatch looks again.
            stalls.wake([lead_id for lead_id, _, _ in updates])
            # The one door of new leads: the tenant's lead rules, `lead.created` events.
            lead_rules.leads_created(tenant, created, source=LeadRule.Source.IMPORT)
    if progress is not None:
        progress(processed)
    rejected.extend(plan.duplicates)
    rejected.sort(key=lambda error: error.line)
    return ImportReport(
        created=len(plan.creates),
        updated=changing,
        unchanged=len(plan.matches) - changing,
        rejected=rejected,
        flagged=plan.flagged,
        dry_run=dry_run,
        created_ids=list(created_ids),
    )
