"""What an email backend receives from the send path: the text and its HTML, the RFC 8058
one-click unsubscribe headers of the lead, tags naming tenant and message, and the same
idempotency key on every attempt."""

from __future__ import annotations

import pytest

from cerniq.provider_errors import ProviderTimeout
from cerniq.providers import get_backend
from outreach import unsubscribe
from outreach.dispatch import dispatch_due
from outreach.models import Channel, Message
from outreach.sending import send_message
from tests.factories import make_outreach_world

pytestmark = pytest.mark.django_db


@pytest.fixture
def queued(tenant, settings):
    settings.PROVIDERS = {
        **settings.PROVIDERS,
        "email.instantly": {"BACKEND": "tests.fakes.FakeEmail"},
    }
    settings.PUBLIC_BASE_URL = "https://outreach.example.ro"
    tenant.window_start, tenant.window_end = (
        tenant.window_start.replace(hour=0),
        tenant.window_end.replace(hour=23, minute=59),
    )
    tenant.working_days = [0, 1, 2, 3, 4, 5, 6]
    tenant.holiday_country = ""
    tenant.save()
    world = make_outreach_world(tenant, leads=1, phones=0, channel=Channel.EMAIL_COLD)
    lead = world["leads"][0]
    lead.email, lead.email_status = "ion@agro.ro", "valid"
    lead.save()
    dispatch_due(tenant)
    message = Message.objects.get()
    Message.objects.filter(pk=message.pk).update(body="Bună ziua <Ion>,\nPreț: 5 & 6 lei")
    message.refresh_from_db()
    return message


def test_the_backend_gets_html_unsubscribe_headers_and_tags(queued):
    assert send_message(queued.pk).kind == "sent"
    (email,) = get_backend("email.instantly").emails
    assert email.to == "ion@agro.ro" and email.text == queued.body
    assert email.html == "<p>Bună ziua &lt;Ion&gt;,<br>Preț: 5 &amp; 6 lei</p>"
    assert email.headers == unsubscribe.headers_for(queued.lead)
    assert email.headers["List-Unsubscribe"].startswith("<https://outreach.example.ro/u/")
    assert email.tags == {"tenant_id": str(queued.tenant_id), "message_id": str(queued.pk)}


def test_a_retry_after_a_timeout_reuses_the_idempotency_key(queued, time_machine):
    backend = get_backend("email.instantly")
    backend.fail_with = ProviderTimeout("read timed out", uncertain=True)
    send_message(queued.pk)
    backend.fail_with = None
    queued.refresh_from_db()
    time_machine.move_to(queued.scheduled_for or queued.updated_at, tick=False)
    for _ in range(10):  # reconcile polls, then the resend
        if send_message(queued.pk).kind in ("sent", "reconciled"):
            break
        queued.refresh_from_db()
        if queued.scheduled_for:
            time_machine.move_to(queued.scheduled_for, tick=False)
    queued.refresh_from_db()
    assert queued.status == Message.Status.SENT
    assert backend.calls == 2 and len(set(backend.keys)) == 1  # the same key both times
    assert len(backend.sent) == 1  # one email at the provider
