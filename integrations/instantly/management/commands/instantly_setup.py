"""Register a tenant's Instantly webhook subscription (idempotent: list, then create or fix).

One subscription per tenant, `event_type` "all_events" (custom labels included), posting to
`<base-url>/webhooks/instantly/<tenant webhook token>/` with the header `x-webhook-secret`
(integrations.instantly.config). Run it again after rotating INSTANTLY_WEBHOOK_SECRET or the
tenant's token: an existing subscription for the URL whose header or event type differs is
updated in place; one that matches is left alone.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from django.core.management.base import BaseCommand, CommandError, CommandParser

from cerniq.models import Tenant
from cerniq.provider_errors import ProviderError
from integrations.instantly import config

EVENT_TYPE = "all_events"


def hook_url(base_url: str, tenant: Tenant) -> str:
    return f"{base_url.rstrip('/')}/webhooks/instantly/{tenant.webhook_token}/"


def shown(url: str, tenant: Tenant) -> str:
    """The URL without its secret token (for output and logs)."""
    return url.replace(tenant.webhook_token, tenant.webhook_token[:4] + "…")


def check_base_url(value: str) -> str:
    parts = urlsplit(value or "")
    if parts.scheme != "https" or not parts.hostname:
        raise CommandError(f"--base-url must be an https:// URL of this site, not {value!r}")
    if parts.query or parts.fragment:
        raise CommandError("--base-url takes no query or fragment")
    return value.rstrip("/")


class Command(BaseCommand):
    help = "Register (or fix) the tenant's Instantly webhook subscription. Idempotent."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--tenant", required=True, help="tenant slug")
        parser.add_argument("--base-url", required=True, help="our public URL, https://…")
        parser.add_argument("--dry-run", action="store_true", help="say what would be done")

    def handle(self, *args: Any, tenant: str, base_url: str, dry_run: bool, **options: Any) -> None:
        found = Tenant.objects.filter(slug=tenant, is_active=True).first()
        if found is None:
            raise CommandError(f"no active tenant with slug {tenant!r}")
        url = hook_url(check_base_url(base_url), found)
        secret = config.webhook_secret(found.webhook_token)
        if not secret:
            raise CommandError("INSTANTLY_WEBHOOK_SECRET is not set: nothing could authenticate")
        client = config.client()
        try:
            action = self.register(client, found, url, secret, dry_run=dry_run)
        except ProviderError as exc:
            raise CommandError(f"Instantly refused: {exc}") from exc
        prefix = "[dry run] would " if dry_run else ""
        self.stdout.write(f"{found.slug}: {prefix}{action} {shown(url, found)}")

    def register(self, client, tenant: Tenant, url: str, secret: str, *, dry_run: bool) -> str:
        """What was (or would be) done: "create", "update" or "keep" the
        subscription, "… and resume" when Instantly had disabled it."""
        headers = {config.HEADER: secret}
        ours = [hook for hook in client.list_webhooks() if hook.get("target_hook_url") == url]
        if not ours:
            if not dry_run:
                client.create_webhook(
                    target_hook_url=url,
                    event_type=EVENT_TYPE,
                    headers=headers,
                    name=f"Cerniq {tenant.slug}",
                )
            return "create"
        hook = ours[0]
        current = hook.get("headers") or {}
        action = "keep"
        if hook.get("event_type") != EVENT_TYPE or current.get(config.HEADER) != secret:
            action = "update"
            if not dry_run:
                # Instantly may not show a subscription's headers back: sending them again
                # is harmless and makes a rotated secret take effect.
                client.update_webhook(str(hook["id"]), event_type=EVENT_TYPE, headers=headers)
        if hook.get("status") == -1:  # disabled by Instantly after failed deliveries
            action += " and resume"
            if not dry_run:
                client.resume_webhook(str(hook["id"]))
        return action
