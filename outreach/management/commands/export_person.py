"""`manage.py export_person --tenant SLUG (--lead ID | --phone NUMBER | --email ADDRESS)
[--output FILE]`: everything held about a person as JSON (outreach.person_data), for a
data-subject access request that comes by letter or phone."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from outreach.management.commands._person import add_person_arguments, one_person
from outreach.person_data import export_json


class Command(BaseCommand):
    help = "Write everything held about one person (a lead) as a JSON document."

    def add_arguments(self, parser: Any) -> None:
        add_person_arguments(parser)
        parser.add_argument("--output", type=Path, help="a file (default: standard output)")

    def handle(self, *args: Any, **options: Any) -> None:
        lead = one_person(options, verb="export")
        text = export_json(lead)
        output: Path | None = options.get("output")
        if output is None:
            self.stdout.write(text)
            return
        try:
            output.write_text(text + "\n", encoding="utf-8")
        except OSError as exc:
            raise CommandError(f"cannot write {output}: {exc.strerror or exc}") from exc
        self.stdout.write(f"lead {lead.pk} exported to {output}")
