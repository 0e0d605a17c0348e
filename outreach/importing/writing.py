"""Match valid rows against the tenant's leads in memory and write them in bulk, atomically."""

from __future__ import annotations

import json
from collections.abc import Iterable
from contextlib import nullcontext
from dataclasses import dataclass, field
from typing import Any, cast

from django.db import connection, transaction
from django.db.models import Case, Value, When
from django.db.models.functions import Cast
from django.utils import timezone

from cerniq import reasons
from cerniq.model_fields import column
from cerniq.models import Tenant
from outreach import lead_rules, stalls
from outreach import reasons as codes
from outreach.importing import basis_columns
from outreach.importing.cleaning import Progress, _Row, _validate
from outreach.importing.reading import IMPORT_FIELDS, Record
from outreach.importing.report import ImportReport, RowError
from outreach.lead_search import search_text_of, writes_sources
from outreach.models import Journey, Lead, LeadRule, Stage
from outreach.suppression import erased, flag_imported

BATCH_SIZE = 1000
FETCH_CHUNK = 900  # ids per `pk__in` query: under SQLite's 999 bound-parameter limit


# --- matching -----------------------------------------------------------------------------


@dataclass(slots=True, eq=False)
class _Target:
    """A lead as far as matching cares: an existing one (id) or one this import creates."""

    id: int | None
    cui: str
    phone: str
    email: str
    line: int | None = None  # the row of this import that already claimed it


class _Index:
    """The tenant's leads by CUI, phone and email, kept current as rows are matched."""

    def __init__(self) -> None:
        self.by_cui: dict[str, _Target] = {}
        self.by_phone: dict[str, list[_Target]] = {}
        self.by_email: dict[str, list[_Target]] = {}

    @classmethod
    def load(cls, tenant: Tenant) -> _Index:
        """One query, key columns only, however many leads the tenant has."""
        index = cls()
        keys = Lead.objects.filter(tenant=tenant).values_list("id", "cui", "phone", "email")
        for lead_id, cui, phone, email in keys.iterator(chunk_size=5000):
            index.add(_Target(lead_id, cui, phone, email.lower()))
        return index

    def add(self, target: _Target) -> None:
        if target.cui:
            self.by_cui[target.cui] = target
        if target.phone:
            self.by_phone.setdefault(target.phone, []).append(target)
        if target.email:
            self.by_email.setdefault(target.email, []).append(target)

    def remove(self, target: _Target) -> None:
        if target.cui:
            self.by_cui.pop(target.cui, None)
        if target.phone:
            self.by_phone[target.phone].remove(target)
        if target.email:
            self.by_email[target.email].remove(target)

    def find(self, row: _Row) -> tuple[_Target | None, str]:
        """Match by CUI, then phone, then email; a phone/email shared with a lead whose
        CUI differs is not a match (companies share an accountant's phone)."""
        cui = row.key("cui")
        if cui and (target := self.by_cui.get(cui)):
            return target, "CUI"
        for value, index, label in (
            (row.key("phone"), self.by_phone, "phone"),
            (row.key("email"), self.by_email, "email"),
        ):
            candidates = index.get(value, []) if value else []
            for target in candidates:
                if not (cui and target.cui and target.cui != cui):
                    return target, label
        return None, ""

    def claim(self, target: _Target, row: _Row) -> None:
        """Mark the target as taken by this row and index the keys the row gives it."""
        self.remove(target)
        target.cui = row.key("cui") or target.cui
        target.phone = row.key("phone") or target.phone
        target.email = row.key("email") or target.email
        target.line = row.line
        self.add(target)


@dataclass
class _Plan:
    """What the import will do: leads to create and (existing id, row) pairs to update."""

    creates: list[_Row] = field(default_factory=list)
    matches: list[tuple[int, _Row]] = field(default_factory=list)
    duplicates: list[RowError] = field(default_factory=list)


def _match(rows: list[_Row], index: _Index) -> _Plan:
    """Decide per row: update an existing lead, create one, or reject a repeat in the file."""
    plan = _Plan()
    for row in rows:
        target, label = index.find(row)
        if target is not None and target.line is not None:
            duplicate = reasons.code(codes.IMPORT_DUPLICATE, line=target.line, key=label)
            plan.duplicates.append(RowError(row.line, duplicate))
            continue
        if target is None:
            target = _Target(None, "", "", "")
            plan.creates.append(row)
        else:
            plan.matches.append((cast(int, target.id), row))  # unclaimed = an existing lead
        index.claim(target, row)
    return plan


# --- diffing and writing ------------------------------------------------------------------


_STORED_FIELDS = (*IMPORT_FIELDS, "custom_fields")
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
    """Fields the row changes: empty cells never blank data, custom fields are merged."""
    changes = {name: value for name, value in row.values.items() if stored[name] != value}
    if row.custom:
        current = stored["custom_fields"] if isinstance(stored["custom_fields"], dict) else {}
        merged = {**current, **row.custom}
        if merged != current:
            changes["custom_fields"] = merged
    return changes


def _pending_updates(tenant: Tenant, matches: list[tuple[int, _Row]]) -> list[_Update]:
    """Only leads whose values really change are written, so a re-import writes nothing."""
    stored = _load_stored(tenant, [lead_id for lead_id, _ in matches])
    updates = []
    for lead_id, row in matches:
        if changes := _changes(stored[lead_id], row):
            updates.append((lead_id, stored[lead_id], changes))
    return updates


def _create(tenant: Tenant, rows: list[_Row], source: str) -> list[Lead]:
    """New leads, each with its COLD journey."""
    leads = [
        Lead(tenant=tenant, source=source, custom_fields=row.custom, **row.values) for row in rows
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
    rows = [(lead_id, row) for lead_id, row in zip(created_ids, plan.creates, strict=True)]
    if not create_only:
        rows += plan.matches
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
        plan = _match(rows, _Index.load(tenant))
        updates = [] if create_only else _pending_updates(tenant, plan.matches)
        created_ids: list[int] = []
        if not dry_run:
            created = _create(tenant, plan.creates, source)
            created_ids = [lead.pk for lead in created]
            if updates:
                _update(tenant, updates)
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
        updated=len(updates),
        unchanged=len(plan.matches) - len(updates),
        rejected=rejected,
        dry_run=dry_run,
        created_ids=list(created_ids),
    )
