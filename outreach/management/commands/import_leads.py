"""`manage.py import_leads FILE.csv --tenant SLUG [--dry-run]`: load leads from a CSV file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, OutputWrapper
from django.utils import translation
from tqdm import tqdm

from cerniq.models import Tenant
from outreach.importing import ImportFileError, ImportReport, import_csv

DRY_RUN_PREFIX = "DRY RUN — nothing written. "


class _RawStream:
    """Lets tqdm draw on the command's stderr without OutputWrapper adding newlines."""

    def __init__(self, wrapper: OutputWrapper) -> None:
        self.wrapper = wrapper

    def write(self, text: str) -> None:
        self.wrapper.write(text, style_func=str, ending="")  # no red: it is not an error

    def flush(self) -> None:
        self.wrapper.flush()

    def isatty(self) -> bool:
        return self.wrapper.isatty()


def count_data_lines(path: Path) -> int:
    """Physical lines after the header, for the progress bar's total."""
    lines = 0
    last = b"\n"
    with path.open("rb") as fileobj:
        while chunk := fileobj.read(1 << 20):
            lines += chunk.count(b"\n")
            last = chunk[-1:]
    if last != b"\n":
        lines += 1
    return max(lines - 1, 0)


class Command(BaseCommand):
    help = (
        "Import leads from a CSV file (UTF-8; comma, semicolon or tab separated) into a "
        "tenant, updating the tenant's leads with the same CUI, phone or email."
    )

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("file", type=Path, help="CSV file with a header row")
        parser.add_argument("--tenant", required=True, help="slug of the tenant to import into")
        parser.add_argument(
            "--dry-run", action="store_true", help="validate and report, write nothing"
        )

    @translation.override("en")  # the command speaks English: the stored reasons too
    def handle(self, *args: Any, file: Path, tenant: str, dry_run: bool, **options: Any) -> None:
        workspace = Tenant.objects.filter(slug=tenant).first()
        if workspace is None:
            raise CommandError(f"unknown tenant '{tenant}'")
        report = self._run(workspace, file, dry_run=dry_run)
        for error in report.rejected:
            self.stderr.write(f"line {error.line}: {error.text}")
        for flag in report.flagged:
            self.stderr.write(f"line {flag.line}: {flag.text}")
        self.stdout.write((DRY_RUN_PREFIX if dry_run else "") + report.summary())

    def _run(self, tenant: Tenant, path: Path, *, dry_run: bool) -> ImportReport:
        """Import with a progress bar; file problems become a CommandError (non-zero exit)."""
        try:
            total = count_data_lines(path)
            with (
                path.open("rb") as fileobj,
                tqdm(total=total, unit=" rows", file=_RawStream(self.stderr), disable=None) as bar,
            ):
                return import_csv(
                    tenant,
                    fileobj,
                    dry_run=dry_run,
                    progress=lambda done: bar.update(done - bar.n),
                )
        except OSError as exc:
            raise CommandError(f"cannot read {path}: {exc.strerror or exc}") from exc
        except ImportFileError as exc:
            raise CommandError(f"{path}: {exc}") from exc
