"""Post a recorded webhook fixture to a running server, the way the provider would."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import requests
from django.core.management.base import BaseCommand, CommandError, CommandParser

from cerniq import integrations
from cerniq.models import Tenant
from cerniq.webhooks import get_receiver


def fixture_dir(provider: str) -> Path:
    """The integration's recorded webhooks (`integrations/<key>/fixtures/webhooks/`)."""
    integration = integrations.get(provider)
    if integration is None:
        known = ", ".join(sorted(integrations.registry())) or "-"
        raise CommandError(f"No integration {provider!r}. Integrations: {known}")
    if integration.fixtures is None:
        raise CommandError(f"The {provider} integration has no webhook fixtures.")
    return integration.fixtures


def resolve_fixture(name: str, provider: str) -> Path:
    """A path to a file, or a fixture name (with or without its extension: .json, or .txt
    for a form-encoded body) for the provider."""
    given = Path(name)
    if given.is_file():
        return given
    folder = fixture_dir(provider)
    fixtures = sorted(p for p in folder.iterdir() if p.is_file() and not p.name.startswith("."))
    for candidate in (folder / name, *(p for p in fixtures if p.stem == name)):
        if candidate.is_file():
            return candidate
    available = sorted(p.stem for p in fixtures)
    raise CommandError(
        f"No file or {provider} fixture named {name!r}. Fixtures: {', '.join(available) or '-'}"
    )


class Command(BaseCommand):
    help = (
        "Post a webhook fixture (a name from integrations/<provider>/fixtures/webhooks/ or a "
        "file) to a running server at /webhooks/<provider>/<tenant token>/ and print the answer. "
        "Example: manage.py replay_webhook message_received_new__text --tenant agro-demo"
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("fixture", metavar="FIXTURE_OR_FILE")
        parser.add_argument("--tenant", required=True, help="tenant slug")
        parser.add_argument("--url", default="http://127.0.0.1:8000", help="server base URL")
        parser.add_argument(
            "--provider", default="timelinesai", choices=sorted(integrations.receivers())
        )
        parser.add_argument("--timeout", type=float, default=10.0, help="seconds")

    def handle(
        self,
        *args: Any,
        fixture: str,
        tenant: str,
        url: str,
        provider: str,
        timeout: float,
        **options: Any,
    ) -> None:
        try:
            tenant_row = Tenant.objects.get(slug=tenant)
        except Tenant.DoesNotExist:
            raise CommandError(f"Unknown tenant {tenant!r} (give its slug).") from None
        path = resolve_fixture(fixture, provider)
        body = path.read_bytes()
        # Delivered as the provider would: its URL token and/or its signature headers (and
        # its Content-Type, when it posts no JSON).
        receiver = get_receiver(provider)
        if receiver is None:
            raise CommandError(f"No webhook receiver for {provider!r} in this deployment.")
        token, headers = receiver.delivery(tenant_row, body)
        intake = f"{url.rstrip('/')}/webhooks/{provider}/"
        endpoint = f"{intake}{token}/" if token else intake
        shown = f"{intake}{token[:4]}…/" if token else intake  # the token is a secret
        try:
            response = requests.post(
                endpoint,
                data=body,
                headers={
                    "Content-Type": "application/json",
                    "User-Agent": "cerniq-replay",
                    **headers,
                },
                timeout=timeout,
            )
        except requests.ConnectionError as exc:
            raise CommandError(
                f"Cannot connect to {url} ({type(exc).__name__}). Is the server running? "
                "(make run, or manage.py run)"
            ) from None
        except requests.Timeout:
            raise CommandError(f"No answer from {url} within {timeout:g}s.") from None
        self.stdout.write(f"POST {shown} ({path.name}, {len(body)} bytes)")
        self.stdout.write(f"{response.status_code} {response.text}")
