"""The integration registry: every provider is one package and one line in INTEGRATIONS.

An integration package (`integrations/<key>/`, see docs/adding-a-provider.md) declares
itself in its `__init__.py` with an `Integration`, and nothing else runs on import. From
the declarations the registry produces what used to be written by hand in several places:

- the backend of each alias (`PROVIDERS` defaults: `whatsapp.timelinesai`, `email.resend`),
  with options read from the environment variables the integration names;
- the webhook receivers (`/webhooks/<key>/…`);
- the provider choices of every model that stores a provider key (one vocabulary);
- the periodic jobs the integration needs (merged into `PERIODIC_JOBS`);
- what it wants to hear about from the core (`hooks`: "stage_changed",
  "automation_stopped" → a function), so a
  provider is told of our changes without the core importing any integration;
- how it forgets a person who opted out or was erased (`propagation`: a module whose
  calls get a receipt each, outreach.propagation);
- where its webhook fixtures live (`replay_webhook`, the fixture tests);
- its settings page for the workspace's admins, if it has one (`settings_urls`: mounted at
  /outreach/settings/<key>/ and listed in the settings tabs).

This module must stay importable from settings.py: it imports nothing of Django's.
"""

from __future__ import annotations

import functools
import importlib
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SANDBOX = "sandbox"  # the key of the demo integration (never used silently in production)


@dataclass(frozen=True)
class Option:
    """A backend option read from the environment (never from code: secrets live there)."""

    env: str
    default: str = ""


@dataclass(frozen=True)
class Integration:
    key: str  # URL segment, stored provider value, alias suffix: lowercase, no dots
    label: str
    # Backends by channel kind ("whatsapp", "email", …): dotted path of the class.
    backends: dict[str, str] = field(default_factory=dict)
    options: dict[str, Option] = field(default_factory=dict)
    # An environment variable that may name another backend class for every kind (tests,
    # demos: e.g. TIMELINESAI_BACKEND=integrations.sandbox.whatsapp.SandboxWhatsApp).
    backend_env: str = ""
    receiver: str = ""  # dotted path of the webhook Receiver, "" when it sends none
    periodic_jobs: tuple[dict[str, str], ...] = ()
    # Core events → dotted path of a function called with the event's keyword arguments,
    # after the transaction commits (cerniq.integrations.notify). Keep them quick: a hook
    # that calls the provider enqueues an actor of its own.
    hooks: dict[str, str] = field(default_factory=dict)
    # The same events in bulk (cerniq.integrations.notify_many): dotted path of a function
    # called once with `changes`, the keyword arguments of each change, when a batch made
    # many at once (a push of cold email moving a thousand leads). An integration without
    # one gets its `hooks` function once per change.
    bulk_hooks: dict[str, str] = field(default_factory=dict)
    package_dir: Path | None = None  # Path(__file__).parent, for the fixtures
    # Dotted path of a module telling the provider of an opt-out or an erasure, with a
    # receipt per call (outreach.propagation): `targets(lead, cause)` lists what it holds
    # of the person, `apply(receipt)` asks the provider and returns its answer.
    propagation: str = ""
    # Dotted path of a function returning email_channels.readiness.SenderState for each of
    # its senders (a verified domain, an account's warm-up), checked every 30 minutes.
    sender_readiness: str = ""
    # Dotted path of a function E.164 number -> the provider's account id for that number,
    # filled in when a phone is added without one (TimelinesAI: the account's JID).
    account_id_from_number: str = ""
    # What the provider's id of a number looks like (a regular expression), when it cannot
    # be found from the number and must be given (the Cloud API's phone number ID), and how
    # to tell an admin where to find it.
    account_id_pattern: str = ""
    account_id_hint: str = ""
    # Dotted path of a function tenant id -> how many people all its numbers together may
    # start a conversation with in a moving 24 hours (None: no shared limit), which
    # dispatch respects across those numbers (outreach.shared_limits). The Cloud API's
    # business-portfolio messaging limit is one.
    shared_daily_limit: str = ""
    # Dotted path of a URLconf for the workspace admins' settings page of this integration
    # (settings it keeps per tenant): mounted at /outreach/settings/<key>/, its page named
    # "<key>_settings" (console.urls), listed in the settings tabs under `label`.
    settings_urls: str = ""

    @property
    def fixtures(self) -> Path | None:
        """The recorded webhook payloads (`fixtures/webhooks/`: one file per event type, the
        body exactly as the provider sends it; JSON for most, form-encoded for some), if any."""
        if self.package_dir is None:
            return None
        folder = self.package_dir / "fixtures" / "webhooks"
        return folder if folder.is_dir() else None

    def aliases(self) -> list[str]:
        return [f"{kind}.{self.key}" for kind in self.backends]

    def provider_config(self, kind: str, environ: Any = os.environ) -> dict[str, Any]:
        """The `PROVIDERS` entry for `<kind>.<key>`, from the environment."""
        backend = environ.get(self.backend_env, "") if self.backend_env else ""
        return {
            "BACKEND": backend or self.backends[kind],
            "OPTIONS": {name: environ.get(o.env, o.default) for name, o in self.options.items()},
        }


def load(path: str) -> Integration:
    """The declaration of the integration package at `path` (its `integration`)."""
    declaration = getattr(importlib.import_module(path), "integration", None)
    if not isinstance(declaration, Integration):
        raise TypeError(f"{path} declares no `integration = Integration(...)`")
    return declaration


@functools.cache
def _declared(paths: tuple[str, ...]) -> tuple[Integration, ...]:
    found = tuple(load(path) for path in paths)
    keys = [i.key for i in found]
    if len(keys) != len(set(keys)):
        raise ValueError(f"two integrations share a key: {keys}")
    return found


def declared(paths: list[str]) -> tuple[Integration, ...]:
    return _declared(tuple(paths))


def provider_defaults(paths: list[str], environ: Any = os.environ) -> dict[str, dict[str, Any]]:
    """The `PROVIDERS` entries of the registered integrations (settings.py merges them)."""
    return {
        f"{kind}.{integration.key}": integration.provider_config(kind, environ)
        for integration in declared(paths)
        for kind in integration.backends
    }


def periodic_jobs(paths: list[str]) -> list[dict[str, str]]:
    return [job for integration in declared(paths) for job in integration.periodic_jobs]


# --- at run time (settings loaded) ------------------------------------------------------


def registry() -> dict[str, Integration]:
    """Key → declaration of every integration in settings.INTEGRATIONS."""
    from django.conf import settings

    return {i.key: i for i in declared(list(settings.INTEGRATIONS))}


def get(key: str) -> Integration | None:
    return registry().get(key)


def receivers() -> dict[str, str]:
    """URL segment → dotted path of the Receiver, for every integration that has one."""
    return {key: i.receiver for key, i in registry().items() if i.receiver}


def provider_choices(kind: str | None = None) -> list[tuple[str, str]]:
    """(key, label) of the registered providers, of one channel kind or all of them."""
    return [(key, i.label) for key, i in registry().items() if kind is None or kind in i.backends]


def settings_pages() -> list[tuple[str, str, str]]:
    """(key, label, URLconf) of every integration with a settings page of its own."""
    return [(key, i.label, i.settings_urls) for key, i in registry().items() if i.settings_urls]


def all_provider_choices() -> list[tuple[str, str]]:
    return provider_choices()


def whatsapp_provider_choices() -> list[tuple[str, str]]:
    return provider_choices("whatsapp")


def email_provider_choices() -> list[tuple[str, str]]:
    return provider_choices("email")


HOOK_EVENTS = frozenset({"stage_changed", "automation_stopped"})


def notify(event: str, **details: Any) -> None:
    """Tell every integration that hooks `event` (after the current transaction commits, so
    none acts on a change that is rolled back). A failing hook is logged, never raised: the
    core's change stands whatever a provider's sync does."""
    notify_many(event, [details])


def notify_many(event: str, changes: list[dict[str, Any]]) -> None:
    """`notify` for many changes of one event: an integration with a bulk hook for it is
    called once with them all (`changes=`), the others once per change."""
    import logging

    from django.db import transaction
    from django.utils.module_loading import import_string

    if event not in HOOK_EVENTS:
        raise ValueError(f"unknown integration event {event!r}")
    calls: list[tuple[str, list[dict[str, Any]]]] = []
    for integration in registry().values():
        if event in integration.bulk_hooks and len(changes) > 1:
            calls.append((integration.bulk_hooks[event], [{"changes": changes}]))
        elif event in integration.hooks:
            calls.append((integration.hooks[event], changes))

    def run() -> None:
        for path, arguments in calls:
            for kwargs in arguments:
                try:
                    import_string(path)(**kwargs)
                except Exception:
                    logging.getLogger(__name__).exception("integration hook %s failed", path)

    if calls and changes:
        transaction.on_commit(run)
