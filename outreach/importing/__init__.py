"""Lead import (CSV files or row mappings): validate every row, dedupe, then write in bulk."""

# Used by the `import_leads` command, the operator UI and `seed_demo`. The stages: `reading`
# (decode, sniff the delimiter, number the records, map headers), `cleaning` (validate every
# row in Python) and `writing` (load the tenant's lead keys once, match in memory, then
# bulk_create / bulk_update in one transaction), so the database work does not grow per row.

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import IO

from cerniq.models import Tenant
from outreach.importing.reading import (
    COLUMN_ALIASES,
    IMPORT_FIELDS,
    _columns,
    _decoded_lines,
    _read_csv,
    normalise_header,
)
from outreach.importing.report import ImportFileError, ImportReport, RowError
from outreach.importing.writing import _import

__all__ = [
    "COLUMN_ALIASES",
    "IMPORT_FIELDS",
    "ImportFileError",
    "ImportReport",
    "RowError",
    "import_csv",
    "import_rows",
    "normalise_header",
]


def import_rows(
    tenant: Tenant,
    rows: Iterable[Mapping[str, str]],
    *,
    first_line: int = 2,
    dry_run: bool = False,
    source: str = "",
    progress: Callable[[int], None] | None = None,
    create_only: bool = False,
) -> ImportReport:
    """Import header-keyed rows (e.g. from csv.DictReader); row i is reported as first_line + i.
    `create_only`: a row matching an existing lead leaves it as it is (counted unchanged)."""
    records = ((first_line + index, row) for index, row in enumerate(rows))
    return _import(
        tenant, records, dry_run=dry_run, source=source, progress=progress, create_only=create_only
    )


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
