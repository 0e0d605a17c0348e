"""Validate each record in Python, before any database work, reporting every problem per row."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from itertools import chain
from typing import Any

from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from stdnum.exceptions import InvalidChecksum, InvalidFormat, InvalidLength
from stdnum.exceptions import ValidationError as NumberValidationError
from stdnum.ro import cui as ro_cui

from cerniq import reasons
from cerniq.phone_numbers import NotAPhoneNumber, to_e164
from outreach import reasons as codes
from outreach.importing import basis_columns
from outreach.importing.basis_columns import RowBasis
from outreach.importing.reading import Record, _Columns, _columns, normalise_header
from outreach.importing.report import RowError, several
from outreach.models import Lead

PROGRESS_EVERY = 500

_TRUE = frozenset({"true", "1", "yes", "da", "y", "adevarat"})  # "ADEVĂRAT": Romanian Excel
_FALSE = frozenset({"false", "0", "no", "nu", "n", "fals"})
_EMAIL_STATUSES = {
    "valid": Lead.EmailStatus.VALID,
    "invalid": Lead.EmailStatus.INVALID,
    "risky": Lead.EmailStatus.RISKY,
    "catch_all": Lead.EmailStatus.RISKY,
    "unknown": Lead.EmailStatus.UNKNOWN,
}

Progress = Callable[[int], None]


@dataclass(slots=True)
class _Row:
    """A valid row: the non-empty Lead values it carries and its custom fields."""

    line: int
    values: dict[str, Any]
    custom: dict[str, str]
    basis: RowBasis | None = None  # the lawful basis the row gives (importing.basis_columns)

    def key(self, name: str) -> str:
        return self.values.get(name, "")


class _Invalid(Exception):
    """One cell's problem (a stored reason code), part of the row's RowError reason."""


def _cut(value: str) -> str:
    """A cell quoted in a reason, without flooding the report with a huge value."""
    return value if len(value) <= 60 else f"{value[:57]}..."


def _text(name: str, max_length: int) -> Callable[[str], str]:
    def clean(value: str) -> str:
        if len(value) > max_length:
            raise _Invalid(reasons.code(codes.IMPORT_TOO_LONG, field=name, max=max_length))
        return value

    return clean


_CUI_PROBLEMS = {
    InvalidChecksum: "checksum",
    InvalidFormat: "format",
    InvalidLength: "length",
}


def _clean_cui(value: str) -> str:
    try:
        return ro_cui.validate(value)
    except NumberValidationError as exc:
        why = _CUI_PROBLEMS.get(type(exc), "invalid")
        raise _Invalid(reasons.code(codes.IMPORT_CUI_INVALID, value=_cut(value), why=why)) from exc


def _clean_phone(value: str) -> str:
    try:
        return to_e164(value)
    except NotAPhoneNumber as exc:
        raise _Invalid(
            reasons.code(codes.IMPORT_PHONE_INVALID, value=_cut(value), why=exc.why)
        ) from exc


# What a search box may hold when it holds a phone number: digits and how people space them.
_PHONE_LIKE = re.compile(r"[\d\s().+\-/]{6,32}")


def phone_in(text: str) -> str | None:
    """The E.164 number `text` is, written any way the import takes ("0722 345 678",
    "0722.345.678", "+40 722...", "0040 722..."), or None when it is not a valid one."""
    if not _PHONE_LIKE.fullmatch(text.strip()):
        return None
    try:
        return _clean_phone(text.replace(".", " "))
    except _Invalid:
        return None


def cui_in(text: str) -> str | None:
    """The CUI digits `text` names ("RO 22732040", "ro22732040", "22 732 040"), or None.

    No checksum: this finds a stored CUI (the import checked those), it does not admit one."""
    digits = re.sub(r"[\s.\-]", "", text).upper().removeprefix("RO")
    return digits if digits.isascii() and digits.isdigit() and 2 <= len(digits) <= 10 else None


def _clean_email(value: str) -> str:
    email = value.lower()
    if len(email) > 254:
        raise _Invalid(reasons.code(codes.IMPORT_TOO_LONG, field="email", max=254))
    try:
        validate_email(email)
    except ValidationError as exc:
        raise _Invalid(reasons.code(codes.IMPORT_EMAIL_INVALID, value=_cut(value))) from exc
    return email


def _clean_reachable(value: str) -> bool:
    word = normalise_header(value)
    if word in _TRUE:
        return True
    if word in _FALSE:
        return False
    raise _Invalid(reasons.code(codes.IMPORT_REACHABLE_UNKNOWN, value=_cut(value)))


def _clean_email_status(value: str) -> str:
    status = _EMAIL_STATUSES.get(normalise_header(value))
    if status is None:
        raise _Invalid(reasons.code(codes.IMPORT_EMAIL_STATUS_UNKNOWN, value=_cut(value)))
    return status


_CLEANERS: dict[str, Callable[[str], Any]] = {
    "name": _text("name", 255),
    "cui": _clean_cui,
    "county": _text("county", 64),
    "locality": _text("locality", 128),
    "contact_name": _text("contact_name", 200),
    "phone": _clean_phone,
    "phone_reachable": _clean_reachable,
    "email": _clean_email,
    "email_status": _clean_email_status,
}


# A lead's custom fields (the import's extra columns, the API's custom_fields): how many,
# and how long a name and a value may be.
MAX_CUSTOM_FIELDS = 100
MAX_CUSTOM_NAME = 100
MAX_CUSTOM_VALUE = 5_000


def custom_problem(custom: Mapping[str, str]) -> str | None:
    """The reason code of custom fields over a limit, or None (the import and the API)."""
    if len(custom) > MAX_CUSTOM_FIELDS:
        return reasons.code(codes.IMPORT_TOO_MANY_CUSTOM, max=MAX_CUSTOM_FIELDS)
    for name, value in custom.items():
        if len(name) > MAX_CUSTOM_NAME:
            return reasons.code(
                codes.IMPORT_CUSTOM_NAME_TOO_LONG, value=_cut(name), max=MAX_CUSTOM_NAME
            )
        if len(value) > MAX_CUSTOM_VALUE:
            return reasons.code(codes.IMPORT_TOO_LONG, field=name, max=MAX_CUSTOM_VALUE)
    return None


def clean_fields(raw: Mapping[str, str]) -> tuple[dict[str, Any], dict[str, str]]:
    """Clean each non-empty lead field (CUI checksum, E.164 phone, email...): the clean
    values, and the problem per invalid field. The import and the API's single lead both
    use it; which fields a lead needs is the caller's rule (a row: a name, a phone or email).
    Problems are stored reason codes (outreach.reasons).
    """
    values: dict[str, Any] = {}
    problems: dict[str, str] = {}
    for name, value in raw.items():
        if value:
            try:
                values[name] = _CLEANERS[name](value)
            except _Invalid as exc:
                problems[name] = str(exc)
    return values, problems


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
        return RowError(line, reasons.code(codes.IMPORT_NUL))
    if too_much := custom_problem(custom):
        problems.append(too_much)
    if not raw.get("name"):
        problems.append(reasons.code(codes.IMPORT_NO_NAME))
    values, invalid = clean_fields(raw)
    problems.extend(invalid.values())
    if not raw.get("phone") and not raw.get("email"):
        problems.append(reasons.code(codes.IMPORT_NO_CONTACT))
    basis, basis_problems = basis_columns.parse(
        {name: _cell(record, key) for key, name in columns.basis}
    )
    problems.extend(basis_problems)
    if problems:
        return RowError(line, several(problems))
    return _Row(line, values, custom, basis)


def _shape_error(line: int, record: Record) -> RowError | None:
    """Rows from csv.DictReader carry None for missing cells and a None key for extra ones."""
    if None in record:
        return RowError(line, reasons.code(codes.IMPORT_MORE_CELLS))
    if any(value is None for value in record.values()):
        return RowError(line, reasons.code(codes.IMPORT_FEWER_CELLS))
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
        if isinstance(result, RowError):
            errors.append(result)
        else:
            rows.append(result)
    return rows, errors, processed
