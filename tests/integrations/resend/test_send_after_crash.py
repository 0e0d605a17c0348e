"""A warm email whose worker died between Resend's answer and our record of it: every later
attempt sends the very bytes of the first under the same key (the unsubscribe link, signed
with a timestamp, is not rendered again), and a 409 for a key Resend already holds is the
earlier send, never a dead letter."""

from __future__ import annotations

from datetime import timedelta

import pytest
import responses
import time_machine

from cerniq.webhooks import process_event
from outreach import sending
from outreach.models import Channel, Lead, Message
from outreach.sending import Outcome, send_message
from tests.factories import make_lead, make_message
from tests.integrations.resend.conftest import (
    ADDRESS,
    EMAIL_ID,
    api_fixture,
    post_webhook,
    tagged,
    webhook_fixture,
)
from tests.whatsapp.conftest import MONDAY_10

pytestmark = pytest.mark.django_db

URL = "https://api.resend.com/emails"


class WorkerDied(BaseException):
    """The worker process ends here (kill -9): nothing after it runs, nothing catches it."""


def die(*args, **kwargs):
    raise WorkerDied


@pytest.fixture
def warm_email(tenant, settings):
    settings.PUBLIC_BASE_URL = "https://outreach.example.ro"
    lead = make_lead(tenant, email=ADDRESS, email_status=Lead.EmailStatus.VALID)
    return make_message(
        lead,
        channel=Channel.EMAIL_WARM,
        counterpart=ADDRESS,
        subject="Oferta de semințe pentru toamnă",
        body="Bună ziua,\nvă trimit oferta noastră.",
        scheduled_for=MONDAY_10,
    )


def crash_after_resend_answered(message: Message, monkeypatch) -> None:
    """The first attempt: Resend takes the email, the worker dies before recording it."""
    with monkeypatch.context() as patch:
        patch.setattr(sending, "record_sent", die)
        with pytest.raises(WorkerDied):
            send_message(message.pk)
    message.refresh_from_db()
    assert message.status == Message.Status.SENDING


def settle(message: Message, clock, limit: int = 20) -> list[Outcome]:
    """Run the message each time it says it is due again (as its broker message would),
    until it settles."""
    outcomes = []
    for _ in range(limit):
        outcome = send_message(message.pk)
        outcomes.append(outcome)
        if outcome.retry_at is None:
            return outcomes
        clock.move_to(outcome.retry_at)
    raise AssertionError(f"not settled after {limit} runs: {outcomes}")


def posted() -> list[tuple[bytes, str]]:
    return [(c.request.body, c.request.headers["Idempotency-Key"]) for c in responses.calls]


@responses.activate
def test_the_retry_after_a_crash_sends_the_same_bytes_under_the_same_key(warm_email, monkeypatch):
    responses.post(URL, json=api_fixture("send_ok"))  # Resend answers a repeat with the first
    with time_machine.travel(MONDAY_10, tick=False) as clock:
        crash_after_resend_answered(warm_email, monkeypatch)
        outcomes = settle(warm_email, clock)
    (first, key), (again, same_key) = posted()
    assert again == first and same_key == key == warm_email.idempotency_key
    assert b"List-Unsubscribe" in first  # the signed link is in the bytes compared
    assert outcomes[-1].kind == "sent"
    warm_email.refresh_from_db()
    assert warm_email.status == Message.Status.SENT
    assert warm_email.provider_message_id == api_fixture("send_ok")["id"]


@responses.activate
def test_a_409_for_a_key_resend_holds_is_the_earlier_send_not_a_dead_letter(
    warm_email, monkeypatch, client, tenant
):
    """Rows rendered before requests were stored met Resend's 409 on their retry and died
    (24 of 300 in the fault run). The 409 means the earlier attempt got through: the email
    is sent, and Resend's next event for it, tagged with our message id, tells its id."""
    responses.post(URL, json=api_fixture("send_ok"))
    conflict = api_fixture("error_409_invalid_idempotent_request")
    with time_machine.travel(MONDAY_10, tick=False) as clock:
        crash_after_resend_answered(warm_email, monkeypatch)
        responses.replace(responses.POST, URL, json=conflict, status=409)
        outcomes = settle(warm_email, clock)
        assert [o.kind for o in outcomes][-1] == "reconciled"
        assert len(responses.calls) == 2
        warm_email.refresh_from_db()
        assert warm_email.status == Message.Status.SENT and warm_email.provider_message_id == ""
        assert not Message.objects.filter(status=Message.Status.DEAD_LETTER).exists()

        delivered = tagged(webhook_fixture("email_delivered"), tenant)
        delivered["data"]["tags"]["message_id"] = str(warm_email.pk)
        clock.shift(timedelta(minutes=1))
        response = post_webhook(client, tenant, delivered)
        assert response.status_code == 200
        assert process_event(response.json()["id"]) == "processed"
    warm_email.refresh_from_db()
    assert warm_email.provider_message_id == EMAIL_ID
    assert warm_email.status == Message.Status.DELIVERED
