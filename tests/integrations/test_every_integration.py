"""What every registered integration gets for free: its declaration is checked against the
kinds of backend it claims, and each recorded webhook fixture is delivered through the
real intake (authenticated as the provider would) and processed without an error.
`fixture_cases` also serves test_adding_a_provider.py."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest
from django.conf import settings
from django.utils.module_loading import import_string

from cerniq import integrations
from cerniq.models import WebhookEvent
from cerniq.webhooks import Receiver, get_receiver, process_event
from email_channels.backends import EmailBackend
from whatsapp.backends import WhatsAppBackend

BACKEND_KINDS = {"whatsapp": WhatsAppBackend, "email": EmailBackend}
ACCEPTED = {"accepted", "ignored"}


def fixture_cases(paths: list[str]) -> list[tuple[str, Path]]:
    return [
        (integration.key, path)
        for integration in integrations.declared(paths)
        if integration.fixtures
        for path in sorted(integration.fixtures.iterdir())
        if path.is_file() and not path.name.startswith(".")
    ]


@pytest.mark.parametrize("integration", integrations.declared(settings.INTEGRATIONS), ids=str)
def test_the_declaration_matches_the_code(integration):
    assert integration.key.isidentifier() and integration.key == integration.key.lower()
    assert integration.backends or integration.receiver
    for kind, path in integration.backends.items():
        backend = import_string(path)
        assert issubclass(backend, BACKEND_KINDS[kind]), f"{path} is not a {kind} backend"
        assert not inspect.isabstract(backend), f"{path} leaves abstract methods"
    if integration.receiver:
        receiver = import_string(integration.receiver)()
        assert isinstance(receiver, Receiver) and receiver.provider == integration.key
        assert not (receiver.HANDLED_EVENTS & receiver.IGNORED_EVENTS)


def deliver_and_process(client, tenant, key: str, path: Path) -> WebhookEvent:
    """POST the fixture as the provider would, then run its processing as a worker does."""
    raw = path.read_bytes()
    token, headers = get_receiver(key).delivery(tenant, raw)
    headers = dict(headers)  # the provider's Content-Type, if not JSON (Mailchimp's forms)
    content_type = headers.pop("Content-Type", "application/json")
    url = f"/webhooks/{key}/{token}/" if token else f"/webhooks/{key}/"
    response = client.post(url, data=raw, content_type=content_type, headers=headers)
    assert response.status_code == 200, response.content
    assert response.json()["status"] in ACCEPTED, response.json()
    event = WebhookEvent.objects.get(provider=key, raw_body=raw)
    if event.status == WebhookEvent.Status.RECEIVED:
        # Processed at once, even when it refers to something this bare database lacks
        # (an echo of a send we have no row for is stored as it is, never retried).
        assert process_event(event.pk) in ("processed", "ignored")
        event.refresh_from_db()
    assert event.status in (WebhookEvent.Status.PROCESSED, WebhookEvent.Status.IGNORED)
    return event


@pytest.mark.parametrize(
    ("key", "path"), fixture_cases(settings.INTEGRATIONS), ids=lambda v: getattr(v, "stem", v)
)
def test_every_webhook_fixture_is_taken_in_and_processed(client, tenant, key, path):
    deliver_and_process(client, tenant, key, path)
