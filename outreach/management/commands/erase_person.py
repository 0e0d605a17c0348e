"""`manage.py erase_person --tenant SLUG (--lead ID | --phone NUMBER | --email ADDRESS)
--by USERNAME --reason TEXT`: erase a person (outreach.erasure) whose request came by
letter or phone, as the lead page does; prints the audit row and the receipts."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from outreach.erasure import ErasureRefused, erase_person
from outreach.management.commands._person import add_person_arguments, one_person
from outreach.models import Erasure


class Command(BaseCommand):
    help = "Erase one person (a lead) for good: their data blanked, providers told, listed."

    def add_arguments(self, parser: Any) -> None:
        add_person_arguments(parser)
        parser.add_argument("--by", required=True, help="username of who asked for it here")
        parser.add_argument("--reason", required=True, help="who asked, when and how")

    def handle(self, *args: Any, by: str, reason: str, **options: Any) -> None:
        lead = one_person(options, verb="erase")
        user = get_user_model().objects.filter(username=by).first()
        if user is None:
            raise CommandError(f"--by {by!r}: no such user")
        try:
            erasure = erase_person(lead, by=user, reason=reason, via=Erasure.Via.COMMAND)
        except ErasureRefused as refused:
            raise CommandError(str(refused)) from None
        blanked = sum(erasure.scrubbed.values())
        self.stdout.write(f"lead {lead.pk} erased (erasure #{erasure.pk}): {blanked} rows blanked")
        for receipt in erasure.receipts.order_by("pk"):
            self.stdout.write(f"  {receipt.provider} {receipt.action}: {receipt.state}")
