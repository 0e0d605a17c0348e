"""`manage.py suppressions import FILE.csv --tenant SLUG` and `manage.py suppressions export
--tenant SLUG [--output FILE]`: the do-not-contact list as CSV, as on its page and the API
(outreach.suppression_list). An import is all or nothing: a wrong line exits non-zero
naming every line at fault, and nothing is listed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError
from django.utils import translation

from cerniq.models import Tenant
from outreach import suppression_list as dnc
from outreach.models import Suppression


class Command(BaseCommand):
    help = "Import or export a tenant's do-not-contact list as CSV (kind,value,reason)."

    def add_arguments(self, parser: Any) -> None:
        actions = parser.add_subparsers(dest="action", required=True)
        importing = actions.add_parser("import", help="add the file's entries (all or none)")
        importing.add_argument("file", type=Path, help="CSV file with a header row")
        importing.add_argument("--tenant", required=True, help="slug of the tenant")
        importing.add_argument("--reason", default="", help="the reason of lines that give none")
        exporting = actions.add_parser("export", help="write every entry as CSV")
        exporting.add_argument("--tenant", required=True, help="slug of the tenant")
        exporting.add_argument("--output", type=Path, help="a file (default: standard output)")

    @translation.override("en")  # the command speaks English
    def handle(self, *args: Any, action: str, tenant: str, **options: Any) -> None:
        workspace = Tenant.objects.filter(slug=tenant).first()
        if workspace is None:
            raise CommandError(f"unknown tenant '{tenant}'")
        if action == "import":
            self._import(workspace, options["file"], options["reason"])
        else:
            self._export(workspace, options.get("output"))

    def _import(self, tenant: Tenant, path: Path, reason: str) -> None:
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise CommandError(f"cannot read {path}: {exc.strerror or exc}") from exc
        try:
            result = dnc.import_csv(
                tenant,
                data,
                source=Suppression.Source.IMPORT,
                default_reason=reason or f"Imported from {path.name}",
            )
        except dnc.CsvInvalid as invalid:
            for line, message in invalid.errors:
                self.stderr.write(
                    f"{path}: line {line}: {message}" if line else f"{path}: {message}"
                )
            raise CommandError(f"{path}: nothing imported") from None
        kinds = ", ".join(f"{kind} {n}" for kind, n in sorted(result.kinds.items()))
        self.stdout.write(
            f"added {result.added}"
            + (f" ({kinds})" if kinds else "")
            + f", already listed {result.already}"
        )

    def _export(self, tenant: Tenant, output: Path | None) -> None:
        text = dnc.export_csv(tenant)
        if output is None:
            self.stdout.write(text, ending="")
            return
        try:
            output.write_text(text, encoding="utf-8")
        except OSError as exc:
            raise CommandError(f"cannot write {output}: {exc.strerror or exc}") from exc
        count = Suppression.objects.filter(tenant=tenant).count()
        self.stdout.write(f"{count} entries written to {output}")
