"""The email sandbox reports back like the real providers (issue #11, "The demo"): what it
posts passes our real webhook door, strict schemas and signatures included, and does what a
real provider's event does."""

from __future__ import annotations

import random
import re

import pytest
import responses

from cerniq.webhooks import process_event
from email_channels.backends import OutgoingEmail
from integrations.sandbox import demo_email
from outreach.models import Channel, Lead, Message
from tests.factories import make_lead, make_message

pytestmark = pytest.mark.django_db

COLD = OutgoingEmail(to="ion@agro.ro", subject="Ofertă", text="…", campaign="tenant:1:sequence:2")
WARM = OutgoingEmail(to="ion@agro.ro", subject="Ofertă", text="…")


def test_the_stories_look_like_the_providers(settings):
    settings.SANDBOX_REPLY_RATE = 0.5
    rng = random.Random(7)
    cold = [demo_email.story(COLD, rng) for _ in range(400)]
    warm = [demo_email.story(WARM, rng) for _ in range(400)]
    assert all(s[0] == "email_sent" for s in cold)
    assert {e for s in cold for e in s} <= {
        "email_sent",
        "email_opened",
        "reply_received",
        "email_bounced",
        "lead_unsubscribed",
    }
    assert any("reply_received" in s for s in cold) and any("email_bounced" in s for s in cold)
    assert all(s[0] in ("email.delivered", "email.bounced") for s in warm)
    assert all(s == ["email.bounced"] for s in warm if "email.bounced" in s)


def test_nothing_is_scheduled_when_the_demo_replies_are_off(settings):
    settings.SANDBOX_REPLY_RATE = 0
    assert not demo_email.maybe_schedule_events(COLD, "id-1")


def replay(client, call) -> dict:
    """What the sandbox POSTed, delivered to our app as it would arrive."""
    request = call.request
    headers = {k: v for k, v in request.headers.items() if k.lower() not in ("content-length",)}
    path = request.url.split("127.0.0.1:8000", 1)[1]
    response = client.post(path, request.body, content_type="application/json", headers=headers)
    assert response.status_code == 200, response.content
    return response.json()


@pytest.mark.parametrize(
    ("event", "check"),
    [
        ("reply_received", "reply"),
        ("email_bounced", "bounced"),
        ("lead_unsubscribed", "unsubscribed"),
        ("email.delivered", "delivered"),
        ("email.bounced", "bounced"),
        ("email.complained", "complained"),
    ],
)
def test_each_event_passes_the_real_door_and_acts(client, tenant, settings, event, check):
    settings.SANDBOX_WEBHOOK_BASE_URL = "http://127.0.0.1:8000"
    lead = make_lead(tenant, email="ion@agro.ro", email_status=Lead.EmailStatus.VALID)
    sent = make_message(
        lead,
        channel=Channel.EMAIL_WARM if "." in event else Channel.EMAIL_COLD,
        status=Message.Status.SENT,
        counterpart=lead.email,
        provider_message_id="0a9f3f5e-1111-4222-8333-944455556666",
    )
    with responses.RequestsMock() as mock:
        mock.post(re.compile(r"http://127\.0\.0\.1:8000/webhooks/.*"))
        demo_email.post_event(event, str(tenant.pk), lead.email, "Ofertă", sent.provider_message_id)
        (call,) = mock.calls
    answer = replay(client, call)
    assert answer["status"] == "accepted", answer
    assert process_event(answer["id"]) == "processed"
    lead.refresh_from_db()
    sent.refresh_from_db()
    if check == "reply":
        assert Message.objects.filter(lead=lead, direction=Message.Direction.INBOUND).exists()
    elif check == "bounced":
        assert lead.email_status == Lead.EmailStatus.BOUNCED
    elif check == "unsubscribed":
        assert lead.email_status == Lead.EmailStatus.UNSUBSCRIBED
    elif check == "complained":
        assert lead.email_status == Lead.EmailStatus.COMPLAINED
    elif check == "delivered":
        assert sent.status == Message.Status.DELIVERED
