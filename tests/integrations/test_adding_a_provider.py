"""A new provider is one folder (tests/integrations/echo/) plus one registry line: with
that line added, the product offers it, sends through it and takes in its webhooks."""

from __future__ import annotations

import pytest
import time_machine

from cerniq import integrations
from cerniq.providers import get_backend
from outreach.dispatch import dispatch_due
from outreach.models import Message
from outreach.sending import send_message
from tests.factories import make_outreach_world
from tests.integrations.echo.receiver import HANDLED
from tests.integrations.test_every_integration import deliver_and_process, fixture_cases
from tests.whatsapp.conftest import MONDAY_10
from whatsapp.models import Phone

ECHO = "tests.integrations.echo"


@pytest.fixture
def with_echo(settings):
    settings.INTEGRATIONS = [*settings.INTEGRATIONS, ECHO]  # the one registry line
    HANDLED.clear()
    yield
    HANDLED.clear()


def test_without_the_line_the_product_knows_nothing_of_it(tenant):
    assert "echo" not in dict(integrations.all_provider_choices())
    assert get_receiver_or_none("echo") is None


def get_receiver_or_none(key: str):
    from cerniq.webhooks import get_receiver

    return get_receiver(key)


def test_the_line_makes_it_a_whatsapp_provider_the_send_path_uses(with_echo, tenant):
    assert ("echo", "Echo (test provider)") in integrations.whatsapp_provider_choices()
    assert "echo" not in dict(integrations.email_provider_choices())
    with time_machine.travel(MONDAY_10, tick=False):
        make_outreach_world(tenant, leads=1, phones=1, steps=1)
        phone = Phone.objects.get()
        phone.provider = "echo"
        phone.full_clean()  # a valid choice now
        phone.save()
        dispatch_due(tenant)
        message = Message.objects.get()
        assert send_message(message.pk).kind == "sent"
    backend = get_backend("whatsapp.echo")
    assert backend.api_token == "echo-token"  # its option, from its declaration
    assert backend.sent == [{"from": phone.number, "to": message.counterpart, "text": message.body}]


def test_the_line_gives_it_a_webhook_endpoint_and_the_fixture_test(
    with_echo, settings, client, tenant
):
    cases = fixture_cases(settings.INTEGRATIONS)
    echo_cases = [path.name for key, path in cases if key == "echo"]
    assert echo_cases == ["message_read.json", "message_received.json"]
    for key, path in cases:
        if key == "echo":
            deliver_and_process(client, tenant, key, path)
    assert [p["id"] for p in HANDLED] == ["evt-1"]
