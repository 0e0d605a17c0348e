"""Finding the one person a data-subject command acts on (export_person, erase_person):
`--tenant SLUG` and one of `--lead ID`, `--phone NUMBER`, `--email ADDRESS`."""

from __future__ import annotations

from typing import Any

from django.core.management.base import CommandError

from cerniq.models import Tenant
from cerniq.phone_numbers import NotAPhoneNumber, to_e164
from outreach.models import Lead


def add_person_arguments(parser: Any) -> None:
    parser.add_argument("--tenant", required=True, help="slug of the tenant")
    which = parser.add_mutually_exclusive_group(required=True)
    which.add_argument("--lead", type=int, help="the lead's id")
    which.add_argument("--phone", help="the person's phone number, as people write it")
    which.add_argument("--email", help="the person's email address")


def one_person(options: dict[str, Any], *, verb: str) -> Lead:
    """The lead the options name; a CommandError saying why when none or several do."""
    tenant = Tenant.objects.filter(slug=options["tenant"]).first()
    if tenant is None:
        raise CommandError(f"unknown tenant '{options['tenant']}'")
    leads = Lead.objects.filter(tenant=tenant).select_related("tenant").order_by("pk")
    if options.get("lead") is not None:
        found = list(leads.filter(pk=options["lead"]))
    elif options.get("phone"):
        try:
            found = list(leads.filter(phone=to_e164(options["phone"])))
        except NotAPhoneNumber as exc:
            raise CommandError(f"--phone {options['phone']!r}: {exc.why}") from exc
    else:
        found = list(leads.filter(email=options["email"].strip().lower()))
    if not found:
        raise CommandError("no lead of this tenant matches")
    if len(found) > 1:
        ids = ", ".join(str(lead.pk) for lead in found)
        raise CommandError(f"several leads match ({ids}): {verb} each with --lead ID")
    return found[0]
