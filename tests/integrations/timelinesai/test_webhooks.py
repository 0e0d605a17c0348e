"""TimelinesAI webhooks: URL secret, both envelopes, dedupe keys, dispatch to the
inbound/phone handlers, recorded fixtures, and the replay_webhook command."""

from __future__ import annotations

import dataclasses
import importlib
import json
import sys
import types
from datetime import UTC, datetime

import pytest
import requests
import responses
from django.core.management import CommandError, call_command
from django.test import Client

from cerniq.models import WebhookEvent
from cerniq.tasks import process_webhook_event
from cerniq.webhooks import MalformedPayload, process_event, replay
from integrations.timelinesai.receiver import (
    HANDLERS,
    TimelinesAIReceiver,
    WhatsAppAccountEvent,
    WhatsAppMessageEvent,
    parse_timestamp,
)
from tests.factories import make_tenant
from tests.whatsapp.conftest import WEBHOOK_FIXTURES

FIXTURES = WEBHOOK_FIXTURES
ALL_FIXTURES = sorted(FIXTURES.glob("*.json"))
Status = WebhookEvent.Status
RECEIVER = TimelinesAIReceiver()
REPLY_UID = "7f3e9c2a-5b1d-4e8f-a6c4-2d9b8e1f0a37"


def fixture(name: str) -> bytes:
    return (FIXTURES / f"{name}.json").read_bytes()


def payload(name: str) -> dict:
    return json.loads(fixture(name))


def url(tenant) -> str:
    return f"/webhooks/timelinesai/{tenant.webhook_token}/"


def post(client, path: str, raw: bytes):
    return client.post(path, raw, content_type="application/json")


@pytest.fixture
def sent(monkeypatch):
    calls: list[int] = []
    monkeypatch.setattr(process_webhook_event, "send", calls.append)
    return calls


def _module(name: str, monkeypatch) -> types.ModuleType:
    """The handler module, or a stand-in while it is still being written."""
    try:
        return importlib.import_module(name)
    except ImportError:
        stub = types.ModuleType(name)
        monkeypatch.setitem(sys.modules, name, stub)
        return stub


@pytest.fixture
def handled(monkeypatch):
    """Replace the three domain handlers with recorders: [(handler name, tenant, event)]."""
    calls: list[tuple[str, object, object]] = []
    for dotted in sorted(set(HANDLERS.values())):
        module_name, attr = dotted.rsplit(".", 1)

        def record(tenant, event, _attr=attr):
            calls.append((_attr, tenant, event))

        monkeypatch.setattr(_module(module_name, monkeypatch), attr, record, raising=False)
    return calls


def deliver(client, tenant, name: str, capture) -> WebhookEvent:
    with capture(execute=True):
        response = post(client, url(tenant), fixture(name))
    assert response.status_code == 200, response.content
    assert response.json()["status"] == "accepted"
    return WebhookEvent.objects.get(pk=response.json()["id"])


# --- Every fixture is understood (zulip's ALL_EVENT_TYPES check) -----------------------


@pytest.mark.parametrize("path", ALL_FIXTURES, ids=lambda p: p.stem)
def test_every_fixture_parses_and_its_event_type_is_known(path):
    body = json.loads(path.read_bytes())
    event_type, key = RECEIVER.identify(body)
    assert RECEIVER.is_handled(event_type) or RECEIVER.is_ignored(event_type)
    assert not (RECEIVER.is_handled(event_type) and RECEIVER.is_ignored(event_type))
    # The file name says which event it is: message_received_new__text -> message:received:new
    assert event_type.replace(":", "_") == path.stem.split("__")[0]
    if RECEIVER.is_handled(event_type):
        assert key.startswith(f"{event_type}:")
        parsed = RECEIVER.parse(body)
        assert parsed.event_type == event_type
    else:
        assert key == ""


def test_every_handled_event_type_has_a_fixture_and_a_handler():
    covered = {json.loads(p.read_bytes())["event_type"] for p in ALL_FIXTURES}
    assert covered >= RECEIVER.HANDLED_EVENTS
    assert set(HANDLERS) == RECEIVER.HANDLED_EVENTS
    assert RECEIVER.is_ignored("waba:message:delivered")
    assert RECEIVER.is_ignored("call:video:whatever")
    assert not RECEIVER.is_ignored("message:edited")


# --- Parsing ---------------------------------------------------------------------------

EXPECTED_REPLY = WhatsAppMessageEvent(
    event_type="message:received:new",
    message_uid=REPLY_UID,
    chat_id="27616435",
    chat_url="https://app.timelines.ai/chat/27616435/messages/",
    direction="received",
    text="Bună ziua! Da, ne interesează semințele de grâu. Ce preț aveți pentru 20 de tone?",
    sender_phone="+40722000111",
    sender_name="Ion Popescu",
    recipient_phone="+40740000101",
    account_phone="+40740000101",
    timestamp=datetime(2026, 5, 18, 8, 2, 45, tzinfo=UTC),
    origin="WhatsApp",
    attachments=(),
    account_id="40740000101@s.whatsapp.net",
)


@pytest.mark.parametrize(
    "name", ["message_received_new__text", "message_received_new__data_envelope"]
)
def test_both_envelopes_parse_to_the_same_event(name):
    assert RECEIVER.parse(payload(name)) == EXPECTED_REPLY


def test_both_envelopes_give_the_same_dedupe_key():
    nested = RECEIVER.identify(payload("message_received_new__text"))
    flat = RECEIVER.identify(payload("message_received_new__data_envelope"))
    assert nested == flat == ("message:received:new", f"message:received:new:{REPLY_UID}")


def test_data_envelope_fallbacks_to_nested_chat_and_minimal_keys():
    body = {
        "event_type": "message:received:new",
        "data": {
            "message_uid": "0C3D2A4E-8B1F-4E6A-9D2C-7F5E3B1A0C9D",
            "chat": {"id": 991, "whatsapp_account_id": "40740000101@s.whatsapp.net"},
            "text": "Mulțumesc, revin eu.",
            "sender_phone": "+40744123456",
        },
    }
    event = RECEIVER.parse(body)
    assert event.message_uid == "0c3d2a4e-8b1f-4e6a-9d2c-7f5e3b1a0c9d"  # compared lowercase
    assert (event.chat_id, event.account_id, event.account_phone) == (
        "991",
        "40740000101@s.whatsapp.net",
        "+40740000101",
    )
    assert (event.direction, event.recipient_phone, event.timestamp) == (
        "received",
        "+40740000101",
        None,
    )


def test_attachment_message():
    event = RECEIVER.parse(payload("message_received_new__attachment"))
    assert event.text == "Vă trimit fișa tehnică semnată și ștampilată."
    (attachment,) = event.attachments
    assert attachment["filename"] == "fisa_tehnica_grau.pdf"
    assert attachment["mimetype"] == "application/pdf"
    assert attachment["temporary_download_url"].startswith("https://")


def test_flat_attachment_url_becomes_an_attachment():
    body = payload("message_received_new__data_envelope")
    body["data"].update(text=None, attachment_url="https://x/f.jpg", attachment_filename="f.jpg")
    event = RECEIVER.parse(body)
    assert event.text == ""
    assert event.attachments == (
        {"temporary_download_url": "https://x/f.jpg", "filename": "f.jpg"},
    )


@pytest.mark.parametrize(
    ("name", "origin"),
    [("message_sent_new__api", "Public API"), ("message_sent_new__from_phone_app", "WhatsApp")],
)
def test_sent_messages(name, origin):
    event = RECEIVER.parse(payload(name))
    assert event.direction == "sent"
    assert event.origin == origin
    assert (event.sender_phone, event.recipient_phone) == ("+40740000101", "+40722000111")
    assert event.account_phone == "+40740000101"


def test_account_events():
    disconnected = RECEIVER.parse(payload("whatsapp_account_disconnected"))
    assert disconnected == WhatsAppAccountEvent(
        event_type="whatsapp:account:disconnected",
        account_id="40740000101@s.whatsapp.net",
        phone="+40740000101",
        status="disconnected",
        at="2026-05-19 14:27:03 +0300",
        connected_on="2026-05-11 09:00:12 +0300",
    )
    _, key = RECEIVER.identify(payload("whatsapp_account_disconnected"))
    assert (
        key == "whatsapp:account:disconnected:40740000101@s.whatsapp.net:2026-05-19 14:27:03 +0300"
    )
    # A suspension carries no time of its own (its connected_on is the connection's):
    # identify keys it by connected_on, and the intake scopes that key (dedupe_key).
    suspended = RECEIVER.parse(payload("whatsapp_account_suspended"))
    assert (suspended.account_id, suspended.at, suspended.connected_on) == (
        "40740000102@s.whatsapp.net",
        "",
        "2026-05-12 10:14:55 +0300",
    )
    assert RECEIVER.identify(payload("whatsapp_account_suspended"))[1] == (
        "whatsapp:account:suspended:40740000102@s.whatsapp.net:2026-05-12 10:14:55 +0300"
    )
    connected = RECEIVER.parse(payload("whatsapp_account_connected"))
    assert connected.at == "2026-05-20 08:15:40 +0300"


def test_account_events_come_only_in_the_spec_envelope():
    body = {
        "event_type": "whatsapp:account:suspended",
        "data": {"whatsapp_account_id": "40740000102@s.whatsapp.net"},
    }
    with pytest.raises(MalformedPayload, match="whatsapp_account: missing") as refused:
        RECEIVER.identify(body)
    assert (refused.value.field, refused.value.problem) == ("whatsapp_account", "missing")


UID = "0c3d2a4e-8b1f-4e6a-9d2c-7f5e3b1a0c9d"


@pytest.mark.parametrize(
    ("body", "error"),
    [
        ({"data": {"message_uid": UID, "chat_id": 1}}, "event_type: missing"),
        ({"event_type": 7}, "event_type: missing or not a string"),
        ({"event_type": "message:received:new", "data": {"chat_id": 1}}, "data.message_uid"),
        (
            {
                "event_type": "message:sent:new",
                "chat": {"chat_id": 1, "is_group": False},
                "whatsapp_account": {"phone": "+40740000101"},
                "message": {"text": "x", "direction": "sent"},
            },
            "message.message_uid: missing",
        ),
        ({"event_type": "message:received:new", "data": {"message_uid": UID}}, "data.chat_id"),
        (
            {"event_type": "whatsapp:account:disconnected", "whatsapp_account": {}},
            "whatsapp_account.id: missing",
        ),
    ],
    ids=["no-type", "type-not-str", "flat-no-uid", "nested-no-uid", "no-chat", "account-no-id"],
)
def test_missing_required_fields_are_malformed(body, error):
    with pytest.raises(MalformedPayload, match=error):
        RECEIVER.identify(body)


def test_timestamps():
    assert parse_timestamp("2026-05-18 10:44:21 +0300") == datetime(
        2026, 5, 18, 7, 44, 21, tzinfo=UTC
    )
    assert parse_timestamp("2026-05-18T07:44:21+00:00") is None  # not the documented format
    assert parse_timestamp("2026-05-18 10:44:21") is None  # no offset: ambiguous
    assert parse_timestamp("ieri") is None
    assert parse_timestamp("") is None


# --- Intake over HTTP ------------------------------------------------------------------


def test_message_is_stored_byte_for_byte_and_enqueued_once(
    client, tenant, sent, django_capture_on_commit_callbacks
):
    raw = fixture("message_received_new__text")
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        response = post(client, url(tenant), raw)
    assert response.status_code == 200
    event = WebhookEvent.objects.get()
    assert response.json() == {"status": "accepted", "id": event.pk}
    assert bytes(event.raw_body) == raw
    assert (event.provider, event.event_type, event.provider_event_id) == (
        "timelinesai",
        "message:received:new",
        f"message:received:new:{REPLY_UID}",
    )
    assert (event.tenant, event.verified, event.status) == (tenant, True, Status.RECEIVED)
    assert len(callbacks) == 1
    assert sent == [event.pk]


def test_received_message_reaches_handle_received_once(
    client, tenant, sent, handled, django_capture_on_commit_callbacks
):
    event = deliver(
        client, tenant, "message_received_new__text", django_capture_on_commit_callbacks
    )
    assert process_event(event.pk) == "processed"
    assert handled == [("handle_received", tenant, EXPECTED_REPLY)]
    assert process_event(event.pk) == "skipped"
    assert len(handled) == 1
    assert WebhookEvent.objects.get(pk=event.pk).status == Status.PROCESSED


@pytest.mark.parametrize("name", ["message_sent_new__api", "message_sent_new__from_phone_app"])
def test_sent_message_reaches_handle_sent(
    client, tenant, sent, handled, django_capture_on_commit_callbacks, name
):
    event = deliver(client, tenant, name, django_capture_on_commit_callbacks)
    process_event(event.pk)
    ((handler, to_tenant, parsed),) = handled
    assert (handler, to_tenant) == ("handle_sent", tenant)
    assert parsed == RECEIVER.parse(payload(name))


@pytest.mark.parametrize(
    "name",
    [
        "whatsapp_account_disconnected",
        "whatsapp_account_suspended",
        "whatsapp_account_connected",
        "whatsapp_account_resumed",
    ],
)
def test_account_event_reaches_handle_account_event(
    client, tenant, sent, handled, django_capture_on_commit_callbacks, name
):
    event = deliver(client, tenant, name, django_capture_on_commit_callbacks)
    assert process_event(event.pk) == "processed"
    ((handler, to_tenant, parsed),) = handled
    assert (handler, to_tenant) == ("handle_account_event", tenant)
    assert isinstance(parsed, WhatsAppAccountEvent)
    assert parsed == RECEIVER.parse(payload(name))


def test_two_disconnects_at_different_times_are_two_events(client, tenant, sent):
    first = payload("whatsapp_account_disconnected")
    later = json.loads(json.dumps(first))
    later["whatsapp_account"]["disconnected_on"] = "2026-06-02 09:00:00 +0300"
    for body in (first, later, first):
        post(client, url(tenant), json.dumps(body).encode())
    assert WebhookEvent.objects.count() == 2


def test_received_echo_of_our_own_message_is_ignored(
    client, tenant, sent, handled, django_capture_on_commit_callbacks
):
    body = payload("message_received_new__data_envelope")
    body["data"]["from_me"] = True
    with django_capture_on_commit_callbacks(execute=True):
        post(client, url(tenant), json.dumps(body).encode())
    assert process_event(sent[0]) == "ignored"
    assert handled == []
    assert WebhookEvent.objects.get().status == Status.IGNORED


def test_redelivery_is_a_duplicate_and_enqueues_nothing(
    client, tenant, sent, django_capture_on_commit_callbacks
):
    raw = fixture("message_received_new__text")
    with django_capture_on_commit_callbacks(execute=True):
        post(client, url(tenant), raw)
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        response = post(client, url(tenant), raw)
    assert response.json() == {"status": "duplicate"}
    # The same message in the other envelope is the same event too.
    with django_capture_on_commit_callbacks(execute=True) as callbacks_flat:
        response = post(client, url(tenant), fixture("message_received_new__data_envelope"))
    assert response.json() == {"status": "duplicate"}
    assert WebhookEvent.objects.count() == 1
    assert callbacks == [] and callbacks_flat == []
    assert len(sent) == 1


@pytest.mark.parametrize(
    "make_path",
    [
        lambda t: "/webhooks/timelinesai/wrong-token/",
        lambda t: f"/webhooks/timelinesai/{t.webhook_token[:-1]}/",
        lambda t: f"/webhooks/timelinesai/{t.webhook_token}x/",
        lambda t: "/webhooks/timelinesai/",
        lambda t: "/webhooks/timelinesai",
        lambda t: f"/webhooks/timelinesai/?secret={t.webhook_token}",
    ],
    ids=["wrong", "prefix", "longer", "missing", "missing-no-slash", "query-not-path"],
)
def test_wrong_or_missing_token_is_404_and_stores_nothing(client, tenant, sent, make_path):
    response = post(client, make_path(tenant), fixture("message_received_new__text"))
    assert response.status_code == 404
    assert not WebhookEvent.objects.exists()
    assert sent == []


def test_token_of_an_inactive_tenant_is_404(client, tenant, sent):
    tenant.is_active = False
    tenant.save()
    response = post(client, url(tenant), fixture("message_received_new__text"))
    assert response.status_code == 404
    assert not WebhookEvent.objects.exists()


def test_each_token_only_ever_reaches_its_own_tenant(client, tenant, other_tenant, sent):
    """Another tenant's token files the event under that tenant, never under ours."""
    response = post(client, url(other_tenant), fixture("message_received_new__text"))
    assert response.status_code == 200
    assert WebhookEvent.objects.get().tenant == other_tenant
    assert not WebhookEvent.objects.filter(tenant=tenant).exists()


def test_malformed_json_is_400_stored_malformed_and_never_processed(
    client, tenant, sent, handled, django_capture_on_commit_callbacks
):
    raw = fixture("message_received_new__text")[:-20]  # cut off mid-body
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        response = post(client, url(tenant), raw)
    assert response.status_code == 400
    assert response.json()["error"].startswith("malformed JSON: ")
    event = WebhookEvent.objects.get()
    assert (event.status, bytes(event.raw_body), event.provider_event_id) == (
        Status.MALFORMED,
        raw,
        "",
    )
    assert callbacks == [] and sent == []
    assert process_event(event.pk) == "skipped"
    assert replay(event) is False
    assert handled == []


@pytest.mark.parametrize(
    "name", ["message_received_new__text", "message_received_new__data_envelope"]
)
def test_missing_message_uid_is_400(client, tenant, sent, name):
    body = payload(name)
    (body.get("message") or body["data"]).pop("message_uid")
    response = post(client, url(tenant), json.dumps(body).encode())
    assert response.status_code == 400
    field = "message.message_uid" if "message" in body else "data.message_uid"
    assert response.json() == {"error": "invalid payload", "field": field, "problem": "missing"}
    event = WebhookEvent.objects.get()
    assert (event.status, event.event_type) == (Status.MALFORMED, "message:received:new")
    assert sent == []


def test_unknown_event_type_is_200_ignored(client, tenant, sent):
    body = {**payload("message_received_new__text"), "event_type": "message:edited:new"}
    response = post(client, url(tenant), json.dumps(body).encode())
    assert response.status_code == 200
    assert response.json() == {"status": "ignored"}
    assert WebhookEvent.objects.get().status == Status.IGNORED
    assert sent == []


@pytest.mark.parametrize("name", ["message_new", "message_reaction", "call_incoming_missed"])
def test_ignored_events_are_stored_ignored_and_not_enqueued(client, tenant, sent, name):
    response = post(client, url(tenant), fixture(name))
    assert response.json() == {"status": "ignored"}
    event = WebhookEvent.objects.get()
    assert (event.status, event.error) == (Status.IGNORED, "")
    assert sent == []


def test_handler_failure_is_failed_and_replay_makes_it_processable(
    client, tenant, sent, handled, monkeypatch, django_capture_on_commit_callbacks
):
    event = deliver(client, tenant, "message_sent_new__api", django_capture_on_commit_callbacks)
    inbound = sys.modules["integrations.timelinesai.inbound"]
    working = inbound.handle_sent

    def not_yet(tenant, msg):
        raise RuntimeError(f"our send {msg.message_uid} is not recorded yet")

    monkeypatch.setattr(inbound, "handle_sent", not_yet)
    with pytest.raises(RuntimeError):
        process_webhook_event.fn(event.pk)
    event.refresh_from_db()
    assert event.status == Status.FAILED
    assert "not recorded yet" in event.error

    monkeypatch.setattr(inbound, "handle_sent", working)
    with django_capture_on_commit_callbacks(execute=True):
        assert replay(event) is True
    assert sent[-1] == event.pk
    assert process_event(event.pk) == "processed"
    assert [h for h, _, _ in handled] == ["handle_sent"]


def test_csrf_enforcing_client_gets_200(tenant, superuser, sent):
    csrf_client = Client(enforce_csrf_checks=True)
    csrf_client.force_login(superuser)
    response = post(csrf_client, url(tenant), fixture("chat_new"))
    assert response.status_code == 200


# --- replay_webhook command ------------------------------------------------------------


def _endpoint(tenant, base="http://127.0.0.1:8000") -> str:
    return f"{base}/webhooks/timelinesai/{tenant.webhook_token}/"


@responses.activate
def test_replay_webhook_posts_the_fixture_bytes(tenant, capsys):
    responses.post(_endpoint(tenant), json={"status": "accepted", "id": 7})
    call_command("replay_webhook", "message_received_new__text", tenant="agro-demo")
    (call,) = responses.calls
    assert call.request.body == fixture("message_received_new__text")
    assert call.request.headers["Content-Type"] == "application/json"
    out = capsys.readouterr().out
    assert '200 {"status": "accepted", "id": 7}' in out
    assert tenant.webhook_token not in out  # the secret is not printed


@responses.activate
def test_replay_webhook_accepts_a_path_and_a_url(tenant, tmp_path, capsys):
    path = tmp_path / "captured.json"
    path.write_bytes(b'{"event_type": "chat:new"}')
    responses.post(_endpoint(tenant, "http://cerniq.test:9000"), json={"status": "ignored"})
    call_command("replay_webhook", str(path), tenant="agro-demo", url="http://cerniq.test:9000/")
    assert responses.calls[0].request.body == b'{"event_type": "chat:new"}'
    assert "200" in capsys.readouterr().out


def test_replay_webhook_errors(tenant):
    with pytest.raises(CommandError, match="Unknown tenant 'nope'"):
        call_command("replay_webhook", "chat_new", tenant="nope")
    with pytest.raises(CommandError, match="No file or timelinesai fixture named 'nope'"):
        call_command("replay_webhook", "nope", tenant="agro-demo")
    with responses.RequestsMock() as mocked:
        mocked.post(_endpoint(tenant), body=requests.ConnectionError("refused"))
        with pytest.raises(CommandError, match="Cannot connect to http://127.0.0.1:8000"):
            call_command("replay_webhook", "chat_new", tenant="agro-demo")


@pytest.mark.django_db(transaction=True)
def test_replay_webhook_against_a_live_server(live_server, sent, capsys):
    tenant = make_tenant(slug="live-demo")
    call_command(
        "replay_webhook", "whatsapp_account_disconnected", tenant="live-demo", url=live_server.url
    )
    assert '200 {"status":"accepted"' in capsys.readouterr().out.replace(": ", ":")
    event = WebhookEvent.objects.get()
    assert event.tenant == tenant
    assert bytes(event.raw_body) == fixture("whatsapp_account_disconnected")
    assert sent == [event.pk]


def test_dataclasses_are_frozen():
    event = RECEIVER.parse(payload("message_received_new__text"))
    with pytest.raises(dataclasses.FrozenInstanceError):
        event.text = "altceva"  # type: ignore[misc]
