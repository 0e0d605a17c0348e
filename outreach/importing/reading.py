"""Turn an uploaded CSV into numbered records and map its headers onto Lead fields."""

from __future__ import annotations

import csv
import re
import unicodedata
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import chain
from typing import IO, Any

from cerniq import reasons
from outreach import reasons as codes
from outreach.importing.basis_columns import BASIS_BY_HEADER
from outreach.importing.report import ImportFileError, RowError

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

_SEPARATORS = re.compile(r"[\s\-]+")

Record = Mapping[str, Any]


def normalise_header(raw: str) -> str:
    """Compare headers loosely: 'Județ', 'JUDET ' and 'judeţ' all become 'judet'."""
    text = unicodedata.normalize("NFKD", raw.strip().lower())
    text = "".join(char for char in text if not unicodedata.combining(char))
    return _SEPARATORS.sub("_", text)


# --- reading CSV --------------------------------------------------------------------------


def _decoded_lines(fileobj: IO[str] | IO[bytes]) -> Iterator[str]:
    """Decode line by line so an encoding error can name its physical line."""
    iterator: Iterator[str | bytes] = iter(fileobj)
    number = 0
    while True:
        try:
            raw = next(iterator)
        except StopIteration:
            return
        except UnicodeDecodeError as exc:  # a text-mode file decodes ahead, in chunks
            raise ImportFileError(
                reasons.code(codes.IMPORT_NOT_UTF8_NEAR, line=number + 1)
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
            reasons.code(
                codes.IMPORT_NOT_UTF8,
                line=number,
                byte=f"{raw[exc.start]:02x}",
                position=exc.start + 1,
            )
        ) from exc


def _read_csv(lines: Iterator[str]) -> tuple[list[str], Iterator[tuple[int, Record | RowError]]]:
    """Find the header, sniff the delimiter, and return the header and the numbered records."""
    skipped = 0
    for first in lines:
        if first.strip():
            break
        skipped += 1
    else:
        raise ImportFileError(reasons.code(codes.IMPORT_EMPTY_FILE))
    reader = csv.reader(chain([first], lines), delimiter=_sniff_delimiter(first))
    try:
        header = next(reader)
    except csv.Error as exc:
        raise ImportFileError(
            reasons.code(codes.IMPORT_UNREADABLE, line=skipped + 1, detail=str(exc))
        ) from exc
    if not any(cell.strip() for cell in header):
        raise ImportFileError(reasons.code(codes.IMPORT_NO_HEADER, line=skipped + 1))
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
            raise ImportFileError(
                reasons.code(codes.IMPORT_UNREADABLE, line=line, detail=str(exc))
            ) from exc
        if not any(cell.strip() for cell in cells):
            yield line, {}
        elif len(cells) != width:
            found = len(cells)
            yield (
                line,
                RowError(line, reasons.code(codes.IMPORT_CELL_COUNT, expected=width, found=found)),
            )
        else:
            yield line, dict(zip(header, cells, strict=True))


# --- columns ------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Columns:
    """Where each source column goes: a Lead field or a custom_fields key."""

    fields: tuple[tuple[str, str], ...]  # (source key, Lead field)
    custom: tuple[tuple[str, str], ...]  # (source key, custom_fields key)
    basis: tuple[tuple[str, str], ...] = ()  # (source key, lawful basis column)


def _columns(keys: Sequence[str], *, require_name: bool) -> _Columns:
    """Map source headers to fields; refuse headers that are ambiguous or lack the name."""
    fields: list[tuple[str, str]] = []
    custom: list[tuple[str, str]] = []
    basis: list[tuple[str, str]] = []
    seen: dict[str, str] = {}
    for key in keys:
        normalised = normalise_header(key)
        if not normalised:
            continue
        if normalised in BASIS_BY_HEADER:
            target = BASIS_BY_HEADER[normalised]
            if target in seen:
                raise ImportFileError(
                    reasons.code(
                        codes.IMPORT_SAME_COLUMN, first=seen[target], second=key, field=target
                    )
                )
            seen[target] = key
            basis.append((key, target))
            continue
        target = _FIELD_BY_HEADER.get(normalised, normalised)
        if target in seen:
            raise ImportFileError(
                reasons.code(codes.IMPORT_SAME_COLUMN, first=seen[target], second=key, field=target)
            )
        seen[target] = key
        (fields if normalised in _FIELD_BY_HEADER else custom).append((key, target))
    if require_name and "name" not in seen:
        raise ImportFileError(
            reasons.code(
                codes.IMPORT_NO_NAME_COLUMN,
                accepted=", ".join(COLUMN_ALIASES["name"]),
                found=", ".join(k for k in keys if k.strip()),
            )
        )
    return _Columns(tuple(fields), tuple(custom), tuple(basis))
