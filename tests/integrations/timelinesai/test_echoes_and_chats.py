"""Issue #10 §1: echoes of sends we have no row for, and `chat:new`.

An echo (`message:sent:new`) of a send we cannot match is stored once as an outbound
message (never failed and retried until lost). When our own send later records the same
provider id, it adopts the stored echo (its chat) instead of colliding with it on the
unique (channel, provider_message_id). `chat:new` links the chat to the lead's messages
from that phone, so follow-ups go into that chat.
"""

from __future__ import annotations

import json

import pytest
import responses

from cerniq.models import WebhookEvent
from cerniq.tasks import process_webhook_event
from cerniq.webhooks import process_event
from outreach.models import Message
from outreach.sending import send_message
from tests.factories import make_lead, make_message, make_phone
from tests.whatsapp.conftest import BASE, WEBHOOK_FIXTURES, api_body

Status = WebhookEvent.Status
ECHO_UID = "a5bbb005-37f2-402c-96fa-e479a2e09b02"  # send_ok.json and message_sent_new__api
CHAT_URL = "https://app.timelines.ai/chat/27616435/messages/"


def raw(name: str) -> bytes:
    return (WEBHOOK_FIXTURES / f"{name}.json").read_bytes()


def deliver(client, tenant, body: bytes) -> dict:
    response = client.post(
        f"/webhooks/timelinesai/{tenant.webhook_token}/", body, content_type="application/json"
    )
    assert response.status_code == 200, response.content
    return response.json()


@pytest.fixture
def sent(monkeypatch):
    calls: list[int] = []
    monkeypatch.setattr(process_webhook_event, "send", calls.append)
    return calls


def process_all() -> list[str]:
    return [
        process_event(pk)
        for pk in WebhookEvent.objects.filter(status=Status.RECEIVED).values_list("pk", flat=True)
    ]


# --- Echoes --------------------------------------------------------------------------


def test_an_api_echo_we_have_no_row_for_is_stored_once_as_outbound(client, tenant, sent):
    """Before: NotYetKnown, retried until Dramatiq gave up, and the message was lost."""
    phone = make_phone(tenant, provider="timelinesai", number="+40740000101")
    lead = make_lead(tenant, phone="+40722000111")
    assert deliver(client, tenant, raw("message_sent_new__api"))["status"] == "accepted"
    assert process_all() == ["processed"]
    echo = Message.objects.get()
    assert (echo.direction, echo.status, echo.provider_message_id) == ("OUT", "SENT", ECHO_UID)
    assert (echo.lead, echo.phone, echo.counterpart) == (lead, phone, "+40722000111")
    assert (echo.provider_thread_id, echo.provider_url) == ("27616435", CHAT_URL)
    assert echo.is_manual and echo.body.startswith("Bună ziua, domnule Popescu!")
    assert WebhookEvent.objects.get().status == Status.PROCESSED
    # TimelinesAI delivers it again: still one row.
    assert deliver(client, tenant, raw("message_sent_new__api"))["status"] == "duplicate"
    assert Message.objects.count() == 1


def test_an_echo_processed_twice_stores_one_row(client, tenant, sent):
    from cerniq.webhooks import replay

    deliver(client, tenant, raw("message_sent_new__api"))
    process_all()
    replay(WebhookEvent.objects.get())
    assert process_all() == ["processed"]
    assert Message.objects.count() == 1


@responses.activate
def test_our_send_recorded_after_its_echo_adopts_the_echo(client, queued, sent):
    """The echo came first (our row was not written yet); then the send records the same
    provider id: one row, ours, with the echo's chat; no IntegrityError."""
    tenant = queued.tenant
    deliver(client, tenant, raw("message_sent_new__api"))
    process_all()
    assert Message.objects.filter(provider_message_id=ECHO_UID).exclude(pk=queued.pk).exists()
    responses.post(f"{BASE}/messages", json=api_body("send_ok.json"))
    assert send_message(queued.pk).kind == "sent"
    (only,) = Message.objects.filter(provider_message_id=ECHO_UID)
    assert only.pk == queued.pk
    assert (only.status, only.is_manual, only.step_id) == ("SENT", False, queued.step_id)
    assert (only.provider_thread_id, only.provider_url) == ("27616435", CHAT_URL)
    assert Message.objects.count() == 1


@responses.activate
def test_an_echo_after_our_send_updates_our_row(client, queued, sent):
    responses.post(f"{BASE}/messages", json=api_body("send_ok.json"))
    assert send_message(queued.pk).kind == "sent"
    deliver(client, queued.tenant, raw("message_sent_new__api"))
    assert process_all() == ["processed"]
    (only,) = Message.objects.all()
    assert only.pk == queued.pk
    assert (only.provider_thread_id, only.provider_url) == ("27616435", CHAT_URL)


def test_a_send_from_the_phone_app_is_recorded_as_manual(client, tenant, sent):
    lead = make_lead(tenant, phone="+40722000111")
    deliver(client, tenant, raw("message_sent_new__from_phone_app"))
    process_all()
    manual = Message.objects.get()
    assert manual.is_manual and manual.lead == lead and manual.status == "SENT"


def test_our_own_manual_send_is_not_taken_for_an_echo(tenant, queued):
    """Only rows stored from an echo are adopted; another of our sends with the same id
    (which the unique constraint forbids anyway) is never deleted."""
    from outreach.recording import adopt_echo

    ours = make_message(
        queued.lead, is_manual=True, idempotency_key=None, provider_message_id="x-1"
    )
    assert adopt_echo(queued, "x-1") == {}
    assert Message.objects.filter(pk=ours.pk).exists()


# --- chat:new ------------------------------------------------------------------------


@pytest.fixture
def first_message(tenant):
    """Our first message to Gheorghe Marinescu (+40744123456) from +40740000101, sent with
    no chat known yet, and the follow-up queued after it."""
    phone = make_phone(
        tenant,
        provider="timelinesai",
        number="+40740000101",
        account_id="40740000101@s.whatsapp.net",
    )
    lead = make_lead(tenant, phone="+40744123456")
    first = make_message(lead, phone=phone, status="SENT", provider_message_id="p-1")
    follow_up = make_message(lead, phone=phone)
    return first, follow_up


def test_chat_new_links_the_chat_to_the_lead_s_messages_from_that_phone(
    client, tenant, first_message, sent
):
    """Before: chat:new was ignored, so a follow-up looked the chat up again (or sent to
    the phone number as if it were a new contact)."""
    assert deliver(client, tenant, raw("chat_new"))["status"] == "accepted"
    assert process_all() == ["processed"]
    for message in first_message:
        message.refresh_from_db()
        assert message.provider_thread_id == "27618840"
        assert message.provider_url == "https://app.timelines.ai/chat/27618840/messages/"


def test_chat_new_is_deduplicated_on_the_chat_id(client, tenant, sent):
    assert deliver(client, tenant, raw("chat_new"))["status"] == "accepted"
    assert deliver(client, tenant, raw("chat_new"))["status"] == "duplicate"
    event = WebhookEvent.objects.get()
    assert event.provider_event_id == "chat:new:40740000101@s.whatsapp.net:27618840"


def test_chat_new_never_overwrites_a_known_chat(client, tenant, first_message, sent):
    first, follow_up = first_message
    Message.objects.filter(pk=first.pk).update(provider_thread_id="111")
    deliver(client, tenant, raw("chat_new"))
    process_all()
    first.refresh_from_db()
    follow_up.refresh_from_db()
    assert (first.provider_thread_id, follow_up.provider_thread_id) == ("111", "27618840")


@pytest.mark.parametrize(
    "change",
    [
        {"is_group": True, "phone": None},
        {"whatsapp_account_id": "40799999999@s.whatsapp.net"},  # not one of our phones
        {"phone": "+40799999999"},  # not a lead
    ],
    ids=["group", "other-account", "unknown-contact"],
)
def test_chat_new_of_a_group_or_a_stranger_links_nothing(
    client, tenant, first_message, sent, change
):
    body = json.loads(raw("chat_new"))
    body["chat"].update(change)
    deliver(client, tenant, json.dumps(body).encode())
    assert process_all() == ["processed"]
    assert not Message.objects.exclude(provider_thread_id="").exists()
