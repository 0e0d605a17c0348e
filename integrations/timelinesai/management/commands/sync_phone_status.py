"""Check every TimelinesAI phone's connection. Cron: */10 * * * *."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError

from cerniq.provider_errors import ProviderError
from integrations.timelinesai.status_sync import sync_phone_status


class Command(BaseCommand):
    help = "Mark TimelinesAI phones ACTIVE/OFFLINE from GET /whatsapp_accounts; alert on change."

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            changes = sync_phone_status()
        except ProviderError as error:
            raise CommandError(f"TimelinesAI did not answer: {error}") from error
        for change in changes:
            self.stdout.write(change)
        self.stdout.write(f"{len(changes)} phone status changes")
