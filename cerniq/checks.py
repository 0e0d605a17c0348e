"""System checks for the provider configuration.

- cerniq.E010: with DEBUG off, a provider that is used is configured with a sandbox backend
  (one that records sends and sends nothing). Messages would be marked SENT and leads
  CONTACTED with nothing sent, so every manage.py command (migrate, rundramatiq,
  scheduler, check --deploy) and the WSGI application refuse to start — unless
  ALLOW_SANDBOX_PROVIDERS names the alias on purpose (a demo server: "true" for all).
- cerniq.W001: a real backend is selected without its credentials (production only:
  a development machine has no tokens and uses the sandbox phones of the demo).
- cerniq.W002: a backend that cannot be imported.
- cerniq.W030: an ALERT_URLS entry apprise cannot use (platform alerts would not go out).
- cerniq.W031: with DEBUG off, OUTBOUND_ALLOW_LOCAL_TARGETS is on: tenants' webhooks and
  alert channels may make the server call its own network (cerniq.net_guard).
- cerniq.E020: with DEBUG off, PUBLIC_BASE_URL is unset or not https: every email carries a
  one-click unsubscribe link built from it, which recipients must be able to open.
  cerniq.W020: it names this machine (http://127.0.0.1:8000, a local docker compose trial):
  allowed, but no recipient could open such a link.
- cerniq.E041: EMAIL_CHANNEL_PROVIDERS names an integration that has no email backend
  (COLD_EMAIL_PROVIDER / WARM_EMAIL_PROVIDER): that channel could not send at all.
- cerniq.W040: with DEBUG off, ERASURE_HASH_KEY is unset: erased people are listed by
  hashes keyed from SECRET_KEY, and a new SECRET_KEY would forget them all.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from django.apps import apps
from django.conf import settings
from django.core.checks import Error, Tags, Warning, register
from django.core.exceptions import ImproperlyConfigured
from django.db import DatabaseError
from django.utils.module_loading import import_string

from cerniq import integrations

_CREDENTIAL_OPTIONS = ("api_token", "api_key", "access_token")
# The model whose `provider` field picks the backend of each channel kind.
RECORDS_NAMING_A_PROVIDER = {"whatsapp": "whatsapp.Phone", "email": "email_channels.EmailCampaign"}


def _backend_class(config: dict[str, Any]) -> type | None:
    try:
        return import_string(config["BACKEND"])
    except ImportError:
        return None


def _sandbox_allowed(alias: str) -> bool:
    allowed = {value.strip().lower() for value in settings.ALLOW_SANDBOX_PROVIDERS}
    return bool(allowed & {"true", "1", "yes", "all", alias.lower()})


def sandbox_permitted(alias: str) -> bool:
    """May a record start using the sandbox backend `alias` (a phone added on the page)?"""
    return settings.DEBUG or _sandbox_allowed(alias)


def _sandbox_in_use(alias: str) -> bool:
    """The sandbox integration's own aliases serve only records that name it (a phone or
    a campaign with provider "sandbox"); any other alias is used by the product itself."""
    kind, _, key = alias.partition(".")
    if key != integrations.SANDBOX:
        return True
    label = RECORDS_NAMING_A_PROVIDER.get(kind)
    if label is None:
        return True
    model = apps.get_model(label)
    try:
        return model.objects.filter(provider=integrations.SANDBOX).exists()
    except DatabaseError:  # not migrated yet: nothing can use it
        return False


def silent_sandboxes() -> list[str]:
    """Aliases that would silently use a sandbox in production (empty with DEBUG on)."""
    if settings.DEBUG:
        return []
    found = []
    for alias, config in settings.PROVIDERS.items():
        backend = _backend_class(config)
        if backend is None or not getattr(backend, "is_sandbox", False):
            continue
        if not _sandbox_allowed(alias) and _sandbox_in_use(alias):
            found.append(alias)
    return found


def _sandbox_error(alias: str) -> Error:
    backend = settings.PROVIDERS[alias]["BACKEND"]
    return Error(
        f"Provider {alias} uses the sandbox backend {backend} with DEBUG off: messages would "
        "be marked sent while nothing is sent.",
        hint=(
            "Configure the real backend and its credentials in the environment, or set "
            f"ALLOW_SANDBOX_PROVIDERS={alias} (or =true) on purpose on a demo server."
        ),
        id="cerniq.E010",
    )


@register(Tags.compatibility)
def check_no_silent_sandbox(app_configs: Any = None, **kwargs: Any) -> list[Error]:
    return [_sandbox_error(alias) for alias in silent_sandboxes()]


def refuse_silent_sandbox() -> None:
    """Startup guard for processes that run no system checks (the WSGI application)."""
    aliases = silent_sandboxes()
    if aliases:
        raise ImproperlyConfigured(
            "; ".join(_sandbox_error(alias).msg for alias in aliases)
            + " Set ALLOW_SANDBOX_PROVIDERS on purpose for a demo server."
        )


@register(Tags.compatibility)
def check_provider_credentials(app_configs: Any = None, **kwargs: Any) -> list[Warning]:
    warnings = []
    for alias, config in settings.PROVIDERS.items():
        backend = _backend_class(config)
        if backend is None:
            warnings.append(
                Warning(f"Provider {alias}: cannot import {config['BACKEND']}.", id="cerniq.W002")
            )
            continue
        if settings.DEBUG or not getattr(backend, "needs_credentials", True):
            continue
        options = config.get("OPTIONS", {})
        if any(host in str(options.get("base_url", "")) for host in ("localhost", "127.0.0.1")):
            continue  # a local model server (Ollama, LM Studio) needs no key
        # Credentials, plus what the backend says it cannot send without (a sender address,
        # the sending accounts of a campaign): missing ones fail at the first send otherwise.
        needed = (*_CREDENTIAL_OPTIONS, *getattr(backend, "required_options", ()))
        missing = [k for k in dict.fromkeys(needed) if k in options and not options[k]]
        if missing:
            warnings.append(
                Warning(
                    f"Provider {alias} uses {config['BACKEND']} but {', '.join(missing)} is empty.",
                    hint="Set the credential in the environment.",
                    id="cerniq.W001",
                )
            )
    return warnings


@register(Tags.compatibility)
def check_alert_urls(app_configs: Any = None, **kwargs: Any) -> list[Warning]:
    if not settings.ALERT_URLS:
        return []  # apprise is imported only when there is something to check
    from cerniq.alert_channels import ChannelURLError, masked, service

    warnings = []
    for n, url in enumerate(settings.ALERT_URLS, start=1):
        try:
            service(url)
        except ChannelURLError as problem:
            warnings.append(
                Warning(
                    f"ALERT_URLS entry {n} ({masked(url)}) cannot be used: {problem}",
                    hint="Platform-wide alerts would not reach it. See docs/alerts.md.",
                    id="cerniq.W030",
                )
            )
    return warnings


@register(Tags.security)
def check_outbound_targets(app_configs: Any = None, **kwargs: Any) -> list[Warning]:
    if settings.DEBUG or not settings.OUTBOUND_ALLOW_LOCAL_TARGETS:
        return []
    return [
        Warning(
            "OUTBOUND_ALLOW_LOCAL_TARGETS is on: a tenant's webhook endpoint or alert channel "
            "may make the server call private, loopback and link-local addresses.",
            hint="Unset it in production (docs/alerts.md, 'Where notices may go').",
            id="cerniq.W031",
        )
    ]


LOOPBACK_HOSTS = {"localhost", "127.0.0.1", "::1"}


@register(Tags.compatibility)
def check_public_base_url(app_configs: Any = None, **kwargs: Any) -> list[Error | Warning]:
    if settings.DEBUG:
        return []
    url = settings.PUBLIC_BASE_URL.strip()
    parts = urlsplit(url)
    hint = (
        "Set PUBLIC_BASE_URL to the https address recipients and providers reach this "
        "server at, e.g. https://outreach.example.ro: every email's unsubscribe link starts "
        "with it."
    )
    if parts.hostname in LOOPBACK_HOSTS:
        return [
            Warning(
                f"PUBLIC_BASE_URL is {url}, an address of this machine: unsubscribe links "
                "in emails would reach nobody.",
                hint=hint,
                id="cerniq.W020",
            )
        ]
    if not url:
        problem = "PUBLIC_BASE_URL is not set"
    elif parts.scheme != "https" or not parts.hostname:
        problem = f"PUBLIC_BASE_URL ({url}) is not an https address"
    else:
        return []
    return [Error(f"{problem} with DEBUG off.", hint=hint, id="cerniq.E020")]


@register(Tags.security)
def check_erasure_key(app_configs: Any = None, **kwargs: Any) -> list[Warning]:
    if settings.DEBUG or settings.ERASURE_HASH_KEY:
        return []
    return [
        Warning(
            "ERASURE_HASH_KEY is not set: erased people are kept on the do-not-contact list "
            "by hashes keyed from SECRET_KEY, so changing SECRET_KEY would let them be "
            "imported and written to again.",
            hint="Set ERASURE_HASH_KEY to a long random value once, and never change it "
            "(docs/data-subject-rights.md).",
            id="cerniq.W040",
        )
    ]


@register(Tags.compatibility)
def check_email_channel_providers(app_configs: Any = None, **kwargs: Any) -> list[Error]:
    from cerniq import integrations

    errors = []
    for channel, key in settings.EMAIL_CHANNEL_PROVIDERS.items():
        integration = integrations.get(key)
        if integration is None or "email" not in integration.backends:
            usable = sorted(k for k, i in integrations.registry().items() if "email" in i.backends)
            errors.append(
                Error(
                    f"{channel} is carried by {key!r}, which is not an integration with an "
                    "email backend.",
                    hint=f"Set COLD_EMAIL_PROVIDER / WARM_EMAIL_PROVIDER to one of {usable}.",
                    id="cerniq.E041",
                )
            )
    return errors
