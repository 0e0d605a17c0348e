"""Lead import (CSV files or row mappings): validate every row, dedupe, then write in bulk.

Used by the `import_leads` command, the operator UI and `seed_demo`. The flow keeps the
database work independent of the number of rows: validate all rows in Python, load the
tenant's lead keys once, match in memory, then bulk_create / bulk_update in one transaction.
"""

from __future__ import annotations

import csv
import json
import re
import unicodedata
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import nullcontext
from dataclasses import dataclass, field
from itertools import chain
from typing import IO, Any, cast

import phonenumbers
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import connection, transaction
from django.db.models import Case, Value, When
from django.db.models.functions import Cast
from django.utils import timezone
from stdnum.exceptions import ValidationError as NumberValidationError
from stdnum.ro import cui as ro_cui

from cerniq.models import Tenant
from outreach.models import Journey, Lead, Stage

BATCH_SIZE = 1000
FETCH_CHUNK = 900  # ids per `pk__in` query: under SQLite's 999 bound-parameter limit
PROGRESS_EVERY = 500
DEFAULT_REGION = "RO"
DELIMITERS = (",", ";", "\t")  # ties go to the first: a one-column file is plain CSV

# Canonical field -> accepted (normalised) header names; the first one is the canonical name.
COLUMN_ALIASES: dict[str, tuple[str, ...]] = {
    "name": ("name", "company_name", "company", "denumire", "denumire_firma", "nume_firma"),
    "cui": ("cui", "cod_fiscal", "cif", "tax_id"),
    "county": ("county", "judet"),
    "locality": ("locality", "localitate", "oras"),
    "contact_name": ("contact_name", "contact", "contact_principal_nume", "persoana_contact"),
    "phone": ("phone", "telefon", "telefon_principal", "phone_number"),
    "phone_reachable": ("phone_reachable", "hlr_reachable", "telefon_valid"),
    "email": ("email", "email_principal", "e_mail", "email_address"),
    "email_status": ("email_status", "status_email"),
}
_FIELD_BY_HEADER = {alias: name for name, aliases in COLUMN_ALIASES.items() for alias in aliases}
IMPORT_FIELDS = tuple(COLUMN_ALIASES)

_TRUE = frozenset({"true", "1", "yes", "da", "y", "adevarat"})  # "ADEVĂRAT": Romanian Excel
_FALSE = frozenset({"false", "0", "no", "nu", "n", "fals"})
_EMAIL_STATUSES = {
    "valid": Lead.EmailStatus.VALID,
    "invalid": Lead.EmailStatus.INVALID,
    "risky": Lead.EmailStatus.RISKY,
    "catch_all": Lead.EmailStatus.RISKY,
    "unknown": Lead.EmailStatus.UNKNOWN,
}
_SEPARATORS = re.compile(r"[\s\-]+")

Progress = Callable[[int], None]
Record = Mapping[str, Any]


class ImportFileError(ValueError):
    """A problem with the whole file (not one row): nothing can be imported from it."""


@dataclass
class RowError:
    line: int  # physical line in the CSV, header = line 1
    reason: str


@dataclass
class ImportReport:
    created: int
    updated: int
    unchanged: int
    rejected: list[RowError]
    dry_run: bool

    def summary(self) -> str:
        """One line for the command output and the UI flash message."""
        return (
            f"created {self.created}, updated {self.updated}, "
            f"unchanged {self.unchanged}, rejected {len(self.rejected)}"
        )


# --- public entry points ------------------------------------------------------------------


def import_rows(
    tenant: Tenant,
    rows: Iterable[Mapping[str, str]],
    *,
    first_line: int = 2,
    dry_run: bool = False,
    source: str = "",
    progress: Callable[[int], None] | None = None,
) -> ImportReport:
    """Import header-keyed rows (e.g. from csv.DictReader); row i is reported as first_line + i."""
    records = ((first_line + index, row) for index, row in enumerate(rows))
    return _import(tenant, records, dry_run=dry_run, source=source, progress=progress)


def import_csv(
    tenant: Tenant,
    fileobj: IO[str] | IO[bytes],
    *,
    dry_run: bool = False,
    source: str = "csv",
    progress: Callable[[int], None] | None = None,
) -> ImportReport:
    """Import a CSV upload or file: UTF-8 (BOM tolerated), `,` `;` or tab separated."""
    header, records = _read_csv(_decoded_lines(fileobj))
    _columns(header, require_name=True)  # fail on a bad header even when no data rows follow
    return _import(tenant, records, dry_run=dry_run, source=source, progress=progress)


def normalise_header(raw: str) -> str:
    """Compare headers loosely: 'Județ', 'JUDET ' and 'judeţ' all become 'judet'."""
    text = unicodedata.normalize("NFKD", raw.strip().lower())
    text = "".join(char for char in text if not unicodedata.combining(char))
    return _SEPARATORS.sub("_", text)


# --- reading CSV --------------------------------------------------------------------------


def _decoded_lines(fileobj: IO[str] | IO[bytes]) -> Iterator[str]:
    """Decode line by line so an encoding error can name its physical line."""
    iterator = iter(fileobj)
    number = 0
    while True:
        try:
            raw = next(iterator)
        except StopIteration:
            return
        except UnicodeDecodeError as exc:  # a text-mode file decodes ahead, in chunks
            raise ImportFileError(
                f"line {number + 1} or soon after: the file is not valid UTF-8 ({exc.reason}); "
                "export it as 'CSV UTF-8'"
            ) from exc
        number += 1
        if isinstance(raw, bytes):
            yield _decode_line(raw, number)
        else:
            yield raw.removeprefix("\ufeff") if number == 1 else raw


def _decode_line(raw: bytes, number: int) -> str:
    """Decode one physical line; Excel's UTF-8 BOM is dropped from the first."""
    try:
        return raw.decode("utf-8-sig" if number == 1 else "utf-8")
    except UnicodeDecodeError as exc:
        raise ImportFileError(
            f"line {number}: not valid UTF-8 (byte 0x{raw[exc.start]:02x} at byte "
            f"{exc.start + 1} of the line); export the file as 'CSV UTF-8'"
        ) from exc


def _read_csv(lines: Iterator[str]) -> tuple[list[str], Iterator[tuple[int, Record | RowError]]]:
    """Find the header, sniff the delimiter, and return the header and the numbered records."""
    skipped = 0
    for first in lines:
        if first.strip():
            break
        skipped += 1
    else:
        raise ImportFileError("the file is empty")
    reader = csv.reader(chain([first], lines), delimiter=_sniff_delimiter(first))
    try:
        header = next(reader)
    except csv.Error as exc:
        raise ImportFileError(f"line {skipped + 1}: cannot read the header: {exc}") from exc
    if not any(cell.strip() for cell in header):
        raise ImportFileError(f"line {skipped + 1}: no header (the first row has no column names)")
    # Unnamed columns still keep their data, as custom fields "column_7" etc.
    header = [cell if cell.strip() else f"column_{index}" for index, cell in enumerate(header, 1)]
    return header, _csv_records(reader, header, skipped)


def _sniff_delimiter(header_line: str) -> str:
    """Pick the delimiter that splits the header into the most columns."""

    def width(delimiter: str) -> int:
        try:
            return len(next(csv.reader([header_line], delimiter=delimiter)))
        except csv.Error:
            return 0

    return max(DELIMITERS, key=width)


def _csv_records(
    reader: Any, header: list[str], skipped: int
) -> Iterator[tuple[int, Record | RowError]]:
    """Yield (physical line, row) pairs; quoted multi-line cells keep later numbers right."""
    width = len(header)
    while True:
        line = skipped + reader.line_num + 1
        try:
            cells = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            raise ImportFileError(f"line {line}: {exc}") from exc
        if not any(cell.strip() for cell in cells):
            yield line, {}
        elif len(cells) != width:
            yield line, RowError(line, f"expected {width} fields, found {len(cells)}")
        else:
            yield line, dict(zip(header, cells, strict=True))


# --- columns ------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Columns:
    """Where each source column goes: a Lead field or a custom_fields key."""

    fields: tuple[tuple[str, str], ...]  # (source key, Lead field)
    custom: tuple[tuple[str, str], ...]  # (source key, custom_fields key)


def _columns(keys: Sequence[str], *, require_name: bool) -> _Columns:
    """Map source headers to fields; refuse headers that are ambiguous or lack the name."""
    fields: list[tuple[str, str]] = []
    custom: list[tuple[str, str]] = []
    seen: dict[str, str] = {}
    for key in keys:
        normalised = normalise_header(key)
        if not normalised:
            continue
        target = _FIELD_BY_HEADER.get(normalised, normalised)
        if target in seen:
            raise ImportFileError(
                f"columns '{seen[target]}' and '{key}' both mean '{target}'; keep only one"
            )
        seen[target] = key
        (fields if normalised in _FIELD_BY_HEADER else custom).append((key, target))
    if require_name and "name" not in seen:
        raise ImportFileError(
            "missing the company name column (one of: "
            f"{', '.join(COLUMN_ALIASES['name'])}); columns found: "
            f"{', '.join(k for k in keys if k.strip()) or 'none'}"
        )
    return _Columns(tuple(fields), tuple(custom))


# --- validating rows ----------------------------------------------------------------------


@dataclass(slots=True)
class _Row:
    """A valid row: the non-empty Lead values it carries and its custom fields."""

    line: int
    values: dict[str, Any]
    custom: dict[str, str]

    def key(self, name: str) -> str:
        return self.values.get(name, "")


class _Invalid(Exception):
    """One cell's problem, turned into part of the row's RowError reason."""


def _shown(value: str) -> str:
    """Quote a cell in a reason without flooding the report with a huge value."""
    return f"'{value}'" if len(value) <= 60 else f"'{value[:57]}...'"


def _text(label: str, max_length: int) -> Callable[[str], str]:
    def clean(value: str) -> str:
        if len(value) > max_length:
            raise _Invalid(f"{label} longer than {max_length} characters")
        return value

    return clean


def _clean_cui(value: str) -> str:
    try:
        return ro_cui.validate(value)
    except NumberValidationError as exc:
        raise _Invalid(f"invalid CUI {_shown(value)}: {exc}") from exc


def _clean_phone(value: str) -> str:
    try:
        number = phonenumbers.parse(value, DEFAULT_REGION)
    except phonenumbers.NumberParseException as exc:
        why = exc.args[0] if exc.args else str(exc)
        raise _Invalid(f"invalid phone {_shown(value)}: {why}") from exc
    if not phonenumbers.is_valid_number(number):
        raise _Invalid(f"invalid phone {_shown(value)}: not a valid number")
    return phonenumbers.format_number(number, phonenumbers.PhoneNumberFormat.E164)


def _clean_email(value: str) -> str:
    email = value.lower()
    if len(email) > 254:
        raise _Invalid("email longer than 254 characters")
    try:
        validate_email(email)
    except ValidationError as exc:
        raise _Invalid(f"invalid email {_shown(value)}") from exc
    return email


def _clean_reachable(value: str) -> bool:
    word = normalise_header(value)
    if word in _TRUE:
        return True
    if word in _FALSE:
        return False
    raise _Invalid(f"unknown phone_reachable value {_shown(value)} (use true/false, da/nu)")


def _clean_email_status(value: str) -> str:
    status = _EMAIL_STATUSES.get(normalise_header(value))
    if status is None:
        raise _Invalid(
            f"unknown email_status {_shown(value)} (use valid, invalid, risky, catch-all, unknown)"
        )
    return status


_CLEANERS: dict[str, Callable[[str], Any]] = {
    "name": _text("company name", 255),
    "cui": _clean_cui,
    "county": _text("county", 64),
    "locality": _text("locality", 128),
    "contact_name": _text("contact name", 200),
    "phone": _clean_phone,
    "phone_reachable": _clean_reachable,
    "email": _clean_email,
    "email_status": _clean_email_status,
}


def _cell(record: Record, key: str) -> str:
    """A cell as stripped text (seed data may pass numbers or booleans)."""
    value = record.get(key)
    if value is None:
        return ""
    return (value if isinstance(value, str) else str(value)).strip()


def _clean_row(line: int, record: Record, columns: _Columns) -> _Row | RowError:
    """Validate one row, reporting every problem in it at once."""
    raw = {name: _cell(record, key) for key, name in columns.fields}
    custom = {name: value for key, name in columns.custom if (value := _cell(record, key))}
    problems: list[str] = []
    if any("\x00" in value for value in chain(raw.values(), custom.values())):
        return RowError(line, "contains a NUL character")
    if not raw.get("name"):
        problems.append("empty company name")
    values: dict[str, Any] = {}
    for name, value in raw.items():
        if value:
            try:
                values[name] = _CLEANERS[name](value)
            except _Invalid as exc:
                problems.append(str(exc))
    if not raw.get("phone") and not raw.get("email"):
        problems.append("no phone or email to contact")
    if problems:
        return RowError(line, "; ".join(problems))
    return _Row(line, values, custom)


def _shape_error(line: int, record: Record) -> RowError | None:
    """Rows from csv.DictReader carry None for missing cells and a None key for extra ones."""
    if None in record:
        return RowError(line, "more fields than the header")
    if any(value is None for value in record.values()):
        return RowError(line, "fewer fields than the header")
    return None


def _is_blank(record: Record) -> bool:
    return all(not value or not str(value).strip() for value in record.values())


def _validate(
    records: Iterable[tuple[int, Record | RowError]], progress: Progress | None
) -> tuple[list[_Row], list[RowError], int]:
    """Validate every row without touching the database; blank rows are skipped silently."""
    rows: list[_Row] = []
    errors: list[RowError] = []
    cache: dict[tuple[str, ...], _Columns] = {}
    processed = 0
    for line, record in records:
        processed += 1
        if progress is not None and processed % PROGRESS_EVERY == 0:
            progress(processed)
        if isinstance(record, RowError):
            errors.append(record)
            continue
        if _is_blank(record):
            continue
        if problem := _shape_error(line, record):
            errors.append(problem)
            continue
        keys = tuple(record)
        columns = cache.get(keys)
        if columns is None:
            columns = cache[keys] = _columns(keys, require_name=not cache)
        result = _clean_row(line, record, columns)
        (errors if isinstance(result, RowError) else rows).append(result)
    return rows, errors, processed


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
            plan.duplicates.append(
                RowError(row.line, f"duplicate of line {target.line} (same {label})")
            )
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


def _create(tenant: Tenant, rows: list[_Row], source: str) -> None:
    """New leads, each with its COLD journey."""
    leads = [
        Lead(tenant=tenant, source=source, custom_fields=row.custom, **row.values) for row in rows
    ]
    Lead.objects.bulk_create(leads, batch_size=BATCH_SIZE)
    journeys = [Journey(tenant=tenant, lead=lead, stage=Stage.COLD) for lead in leads]
    Journey.objects.bulk_create(journeys, batch_size=BATCH_SIZE)


def _update(tenant: Tenant, updates: list[_Update]) -> None:
    """Write changed leads: one UPDATE per batch over the union of changed fields."""
    names = sorted({name for _, _, changes in updates for name in changes})
    now = timezone.now()
    size = _update_batch_size(len(names))
    for start in range(0, len(updates), size):
        batch = updates[start : start + size]
        columns = {
            name: _column(
                name, [(lead_id, {**stored, **changes}[name]) for lead_id, stored, changes in batch]
            )
            for name in names
        }
        ids = [lead_id for lead_id, _, _ in batch]
        Lead.objects.filter(tenant=tenant, pk__in=ids).update(updated_at=now, **columns)


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
    model_field = Lead._meta.get_field(name)
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


def _import(
    tenant: Tenant,
    records: Iterable[tuple[int, Record | RowError]],
    *,
    dry_run: bool,
    source: str,
    progress: Progress | None,
) -> ImportReport:
    """Validate in Python first, then do the database work in one transaction."""
    max_source = Lead._meta.get_field("source").max_length or 0
    if len(source) > max_source:
        raise ValueError(f"source {source!r} is longer than Lead.source allows ({max_source})")
    rows, rejected, processed = _validate(records, progress)
    # A dry run only reads: no transaction (SQLite's IMMEDIATE mode would take the write lock).
    with nullcontext() if dry_run else transaction.atomic():
        if not dry_run:  # one import per tenant at a time; NO KEY keeps FK inserts unblocked
            list(Tenant.objects.select_for_update(no_key=True).filter(pk=tenant.pk).values("pk"))
        plan = _match(rows, _Index.load(tenant))
        updates = _pending_updates(tenant, plan.matches)
        if not dry_run:
            _create(tenant, plan.creates, source)
            if updates:
                _update(tenant, updates)
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
    )
