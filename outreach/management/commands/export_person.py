"""`manage.py export_person --tenant SLUG (--lead ID | --phone NUMBER | --email ADDRESS)
[--output FILE]`: everything held about a person as JSON (outreach.person_data), for a
data-subject access request that comes by letter or phone."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from cerniq.models import Tenant
from cerniq.phone_numbers import NotAPhoneNumber, to_e164
from outreach.models import Lead
from outreach.person_data import export_json


class Command(BaseCommand):
    help = "Write everything held about one person (a lead) as a JSON document."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--tenant", required=True, help="slug of the tenant")
        which = parser.add_mutually_exclusive_group(required=True)
        which.add_argument("--lead", type=int, help="the lead's id")
        which.add_argument("--phone", help="the person's phone number, as people write it")
        which.add_argument("--email", help="the person's email address")
        parser.add_argument("--output", type=Path, help="a file (default: standard output)")

    def handle(self, *args: Any, tenant: str, **options: Any) -> None:
        workspace = Tenant.objects.filter(slug=tenant).first()
        if workspace is None:
            raise CommandError(f"unknown tenant '{tenant}'")
        leads = self._leads(workspace, options)
        if not leads:
            raise CommandError("no lead of this tenant matches")
        if len(leads) > 1:
            ids = ", ".join(str(lead.pk) for lead in leads)
            raise CommandError(f"several leads match ({ids}): export each with --lead ID")
        text = export_json(leads[0])
        output: Path | None = options.get("output")
        if output is None:
            self.stdout.write(text)
            return
        try:
            output.write_text(text + "\n", encoding="utf-8")
        except OSError as exc:
            raise CommandError(f"cannot write {output}: {exc.strerror or exc}") from exc
        self.stdout.write(f"lead {leads[0].pk} exported to {output}")

    def _leads(self, tenant: Tenant, options: dict[str, Any]) -> list[Lead]:
        leads = Lead.objects.filter(tenant=tenant).select_related("tenant").order_by("pk")
        if options.get("lead") is not None:
            return list(leads.filter(pk=options["lead"]))
        if options.get("phone"):
            try:
                return list(leads.filter(phone=to_e164(options["phone"])))
            except NotAPhoneNumber as exc:
                raise CommandError(f"--phone {options['phone']!r}: {exc.why}") from exc
        return list(leads.filter(email=options["email"].strip().lower()))
