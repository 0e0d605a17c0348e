"""Issue #10 §1: the TimelinesAI door refuses what breaks the documented contract.

A refused body is answered 400 with the field and the problem, kept only as a MALFORMED
row (never processed, never replayed) and changes no phone, lead or message. Account
events act only on the phone whose account id they name; dedupe keys tell a retry of one
delivery from a later occurrence of the same event.
"""

from __future__ import annotations

import copy
import json
import re
from datetime import datetime
from typing import Any

import pytest
from hypothesis import given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from cerniq.models import WebhookEvent
from cerniq.tasks import process_webhook_event
from cerniq.webhooks import process_event, replay
from outreach.models import Lead, Message
from tests.factories import make_lead, make_phone
from tests.whatsapp.conftest import WEBHOOK_FIXTURES
from whatsapp.models import Phone

Status = WebhookEvent.Status
DELETE = object()


def payload(name: str) -> dict:
    return json.loads((WEBHOOK_FIXTURES / f"{name}.json").read_bytes())


def url(tenant) -> str:
    return f"/webhooks/timelinesai/{tenant.webhook_token}/"


def post_raw(client, tenant, raw: bytes, content_type: str = "application/json"):
    return client.post(url(tenant), raw, content_type=content_type)


def post(client, tenant, body: dict):
    return post_raw(client, tenant, json.dumps(body).encode())


def mutated(name: str, path: str, value: Any) -> dict:
    """The fixture with `path` ("message.sender.phone", "message.attachments.0") set to
    `value` (or removed with DELETE)."""
    body = copy.deepcopy(payload(name))
    *parents, last = path.split(".")
    node: Any = body
    for part in parents:
        node = node[int(part)] if isinstance(node, list) else node[part]
    key: Any = int(last) if isinstance(node, list) else last
    if value is DELETE:
        del node[key]
    else:
        node[key] = value
    return body


@pytest.fixture
def sent(monkeypatch):
    calls: list[int] = []
    monkeypatch.setattr(process_webhook_event, "send", calls.append)
    return calls


@pytest.fixture
def phones(tenant):
    """The two accounts of the fixtures, both ACTIVE, each with its account id."""
    return [
        make_phone(
            tenant,
            provider="timelinesai",
            number="+40740000101",
            account_id="40740000101@s.whatsapp.net",
        ),
        make_phone(
            tenant,
            provider="timelinesai",
            number="+40740000102",
            account_id="40740000102@s.whatsapp.net",
        ),
    ]


def statuses() -> dict[str, str]:
    return dict(Phone.objects.values_list("number", "status"))


def run_received() -> list[str]:
    return [process_event(pk) for pk in received_ids()]


def received_ids() -> list[int]:
    return list(
        WebhookEvent.objects.filter(status=Status.RECEIVED)
        .order_by("pk")
        .values_list("pk", flat=True)
    )


def assert_refused(response, field: str, problem: str, sent: list[int]) -> WebhookEvent:
    assert response.status_code == 400, response.content
    body = response.json()
    assert body["error"] == "invalid payload", body
    assert body["field"] == field, body
    assert problem.lower() in body["problem"].lower(), body
    event = WebhookEvent.objects.get()
    assert event.status == Status.MALFORMED
    assert event.provider_event_id == ""
    assert event.error.startswith(f"invalid payload: {field}: ")
    assert sent == []
    assert process_event(event.pk) == "skipped"
    assert replay(event) is False
    return event


# --- Typed fields: no coercion -------------------------------------------------------

TEXT = "message_received_new__text"
FLAT = "message_received_new__data_envelope"
SENT = "message_sent_new__api"
ATTACHMENT = "message_received_new__attachment"
DISCONNECTED = "whatsapp_account_disconnected"
SUSPENDED = "whatsapp_account_suspended"
CHAT_NEW = "chat_new"

REFUSED = [
    # (fixture, path, value, field named in the answer, problem)
    (TEXT, "chat.chat_id", "27616435", "chat.chat_id", "integer"),
    (TEXT, "chat.chat_id", True, "chat.chat_id", "integer"),
    (TEXT, "chat.chat_id", 2**63, "chat.chat_id", "less than or equal"),
    (TEXT, "chat.chat_id", 0, "chat.chat_id", "greater than or equal"),
    (TEXT, "chat.chat_id", 27616435.0, "chat.chat_id", "integer"),
    (TEXT, "chat.is_group", "false", "chat.is_group", "boolean"),
    (TEXT, "chat.is_group", 0, "chat.is_group", "boolean"),
    (TEXT, "chat.phone", "0722 000 111", "chat.phone", "E.164"),
    (TEXT, "message.message_uid", "not-a-uuid", "message.message_uid", "not a UUID"),
    (TEXT, "message.message_uid", 7, "message.message_uid", "string"),
    (TEXT, "message.message_uid", DELETE, "message.message_uid", "missing"),
    (TEXT, "message.timestamp", "ieri", "message.timestamp", "YYYY-MM-DD HH:MM:SS ±ZZZZ"),
    (
        TEXT,
        "message.timestamp",
        "2026-13-45 10:00:00 +0300",
        "message.timestamp",
        "YYYY-MM-DD HH:MM:SS ±ZZZZ",
    ),
    (TEXT, "message.timestamp", "2026-05-18 11:02:45", "message.timestamp", "±ZZZZ"),
    (TEXT, "message.timestamp", 1779091365, "message.timestamp", "string"),
    (TEXT, "message.text", "x" * 65_537, "message.text", "at most 65536"),
    (TEXT, "message.text", ["Bună"], "message.text", "string"),
    (TEXT, "message.direction", "sideways", "message.direction", "'sent' or 'received'"),
    (TEXT, "message.sender.phone", "+0722000111", "message.sender.phone", "E.164"),
    (TEXT, "message.sender", "Ion Popescu", "message.sender", "object"),
    (TEXT, "message", "Bună ziua", "message", "object"),
    (TEXT, "whatsapp_account.phone", DELETE, "whatsapp_account.phone", "missing"),
    (TEXT, "message.attachments", "fisa.pdf", "message.attachments", "list"),
    (
        TEXT,
        "message.attachments",
        [{"filename": "a.pdf"}],
        "message.attachments[0].temporary_download_url",
        "missing",
    ),
    (
        ATTACHMENT,
        "message.attachments.0.size",
        "248311",
        "message.attachments[0].size",
        "integer",
    ),
    (
        ATTACHMENT,
        "message.attachments.0.temporary_download_url",
        "javascript:alert(1)",
        "message.attachments[0].temporary_download_url",
        "https",
    ),
    (ATTACHMENT, "message.attachments", [{}] * 33, "message.attachments", "at most 32"),
    (SENT, "message.direction", "received", "message.direction", "message:sent:new"),
    (FLAT, "data.chat_id", "27616435", "data.chat_id", "integer"),
    (FLAT, "data.from_me", "false", "data.from_me", "boolean"),
    (FLAT, "data.message_uid", 123, "data.message_uid", "string"),
    (FLAT, "data.chat_id", DELETE, "data.chat_id", "missing"),
    (FLAT, "data.whatsapp_account_id", "40740000101", "data.whatsapp_account_id", "JID"),
    (DISCONNECTED, "whatsapp_account.id", DELETE, "whatsapp_account.id", "missing"),
    (DISCONNECTED, "whatsapp_account.id", None, "whatsapp_account.id", "string"),
    (DISCONNECTED, "whatsapp_account.id", 40740000101, "whatsapp_account.id", "string"),
    (DISCONNECTED, "whatsapp_account.id", "40740000101", "whatsapp_account.id", "JID"),
    (DISCONNECTED, "whatsapp_account", None, "whatsapp_account", "object"),
    (
        DISCONNECTED,
        "whatsapp_account.disconnected_on",
        "yesterday",
        "whatsapp_account.disconnected_on",
        "YYYY-MM-DD",
    ),
    (DISCONNECTED, "whatsapp_account.phone", "+40740000999", "whatsapp_account.phone", "match"),
    (
        SUSPENDED,
        "whatsapp_account.connected_on",
        DELETE,
        "whatsapp_account.connected_on",
        "missing",
    ),
    (CHAT_NEW, "chat.id", "27618840", "chat.id", "integer"),
    (CHAT_NEW, "chat.is_group", "false", "chat.is_group", "boolean"),
    (CHAT_NEW, "chat.whatsapp_account_id", DELETE, "chat.whatsapp_account_id", "missing"),
]


@pytest.mark.parametrize(
    ("name", "path", "value", "field", "problem"),
    REFUSED,
    ids=[f"{r[0]}:{r[1]}={str(r[2])[:20]}" for r in REFUSED],
)
def test_a_mistyped_field_is_refused_with_its_name_and_problem(
    client, tenant, phones, sent, name, path, value, field, problem
):
    lead = make_lead(tenant, phone="+40722000111")
    before = statuses()
    response = post(client, tenant, mutated(name, path, value))
    assert_refused(response, field, problem, sent)
    assert statuses() == before
    assert not Message.objects.exists()
    assert Lead.objects.get(pk=lead.pk).updated_at == lead.updated_at


# --- Anywhere in the body: NUL, lone surrogates, NaN, depth, size, encoding ----------


@pytest.mark.parametrize(
    ("raw", "field", "problem"),
    [
        (
            json.dumps(mutated(TEXT, "message.text", "STOP\x00")).encode(),
            "message.text",
            "NUL",
        ),
        (
            json.dumps(mutated(TEXT, "message.sender.full_name", "Ion \ud800")).encode(),
            "message.sender.full_name",
            "surrogate",
        ),
        (
            json.dumps(mutated(TEXT, "chat.unknown_extra", {"k\x00": 1})).encode(),
            "chat.unknown_extra",
            "NUL",
        ),
        (
            # an ignored event type is refused too: nothing with a NUL is stored as accepted
            json.dumps(mutated("message_reaction", "reaction.emoji", "\x00")).encode(),
            "reaction.emoji",
            "NUL",
        ),
    ],
    ids=["nul-in-text", "lone-surrogate", "nul-in-an-extra-key", "nul-in-an-ignored-event"],
)
def test_nul_and_lone_surrogates_are_refused_anywhere(client, tenant, sent, raw, field, problem):
    assert_refused(post_raw(client, tenant, raw), field, problem, sent)


def test_too_deep_nesting_is_refused(client, tenant, sent):
    junk: Any = "x"
    for _ in range(40):
        junk = [junk]
    body = mutated(TEXT, "chat.extra", junk)
    response = post(client, tenant, body)
    assert response.status_code == 400
    assert response.json()["error"] == "invalid payload"
    assert "nested deeper than" in response.json()["problem"]
    assert response.json()["field"].startswith("chat.extra")
    assert WebhookEvent.objects.get().status == Status.MALFORMED
    assert sent == []


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_nan_and_infinity_are_not_json(client, tenant, sent, constant):
    raw = json.dumps(payload(TEXT)).replace('"chat_id": 27616435', f'"chat_id": {constant}')
    response = post_raw(client, tenant, raw.encode())
    assert response.status_code == 400
    assert response.json()["error"].startswith("malformed JSON")
    assert constant in response.json()["error"]
    assert WebhookEvent.objects.get().status == Status.MALFORMED
    assert sent == []


def test_a_duplicated_key_is_refused(client, tenant, sent):
    raw = json.dumps(payload(TEXT)).replace(
        '"chat_id": 27616435', '"chat_id": 27616435, "chat_id": 1'
    )
    response = post_raw(client, tenant, raw.encode())
    assert response.status_code == 400
    assert "duplicate key 'chat_id'" in response.json()["error"]
    assert sent == []


def test_a_body_that_is_not_utf8_is_refused(client, tenant, sent):
    raw = json.dumps(payload(TEXT)).encode("utf-16")
    response = post_raw(client, tenant, raw)
    assert response.status_code == 400
    assert response.json()["error"].startswith("malformed JSON")
    assert sent == []


def test_the_body_size_is_capped_per_provider(client, tenant, sent, settings):
    from integrations.timelinesai.receiver import TimelinesAIReceiver

    assert TimelinesAIReceiver().max_body_bytes() == 512 * 1024
    body = mutated(TEXT, "message.text", "a" * 65_536)  # the longest WhatsApp text fits
    assert post(client, tenant, body).status_code == 200
    settings.WEBHOOK_MAX_BODY_BYTES = {"timelinesai": 4096}
    response = post(client, tenant, mutated(TEXT, "chat.full_name", "Ion" * 2000))
    assert response.status_code == 413
    assert response.json() == {"error": "payload too large"}
    assert list(WebhookEvent.objects.values_list("status", flat=True)) == [Status.RECEIVED]


def test_a_well_formed_event_of_a_type_we_do_not_handle_stays_ignored(client, tenant, sent):
    """Unknown types are not schema-checked (only the generic JSON rules apply)."""
    body = {"event_type": "message:edited:new", "chat": {"chat_id": "not an int"}}
    response = post(client, tenant, body)
    assert (response.status_code, response.json()) == (200, {"status": "ignored"})
    assert WebhookEvent.objects.get().status == Status.IGNORED
    assert sent == []


def test_the_documented_payloads_are_accepted(client, tenant, sent):
    for name in (TEXT, ATTACHMENT, SENT, "message_sent_new__from_phone_app", DISCONNECTED):
        assert post(client, tenant, payload(name)).json()["status"] == "accepted", name
    flat = payload(FLAT)
    flat["data"]["message_uid"] = "0c3d2a4e-8b1f-4e6a-9d2c-7f5e3b1a0c9d"
    assert post(client, tenant, flat).json()["status"] == "accepted"


def test_a_group_chat_may_carry_a_non_phone_chat_address(client, tenant, sent):
    body = mutated(TEXT, "chat.is_group", True)
    body["chat"]["phone"] = None
    assert post(client, tenant, body).json()["status"] == "accepted"


# --- Account events act only on the phone with that account id ----------------------


def test_an_account_event_never_matches_a_phone_by_its_number(client, tenant, sent):
    """The bug: an account id matching nothing, but a phone number matching a healthy
    phone, paused that phone."""
    healthy = make_phone(tenant, provider="timelinesai", number="+40740000102", account_id="")
    other = make_phone(
        tenant,
        provider="timelinesai",
        number="+40740000103",
        account_id="40740000103@s.whatsapp.net",
    )
    assert post(client, tenant, payload(SUSPENDED)).json()["status"] == "accepted"
    assert run_received() == ["processed"]
    assert Phone.objects.get(pk=healthy.pk).status == "ACTIVE"
    assert Phone.objects.get(pk=other.pk).status == "ACTIVE"


def test_an_account_event_with_phone_null_pauses_nothing_but_its_own_account(
    client, tenant, phones, sent
):
    body = mutated(DISCONNECTED, "whatsapp_account.phone", None)
    body["whatsapp_account"]["id"] = "40799999999@s.whatsapp.net"  # none of ours
    assert post(client, tenant, body).json()["status"] == "accepted"
    run_received()
    assert statuses() == {"+40740000101": "ACTIVE", "+40740000102": "ACTIVE"}


def test_an_account_event_acts_on_the_phone_with_its_account_id(client, tenant, phones, sent):
    body = mutated(DISCONNECTED, "whatsapp_account.phone", None)
    assert post(client, tenant, body).json()["status"] == "accepted"
    run_received()
    assert statuses() == {"+40740000101": "OFFLINE", "+40740000102": "ACTIVE"}


def test_an_account_event_of_another_tenant_s_phone_changes_nothing(
    client, tenant, other_tenant, sent
):
    theirs = make_phone(
        other_tenant,
        provider="timelinesai",
        number="+40740000101",
        account_id="40740000101@s.whatsapp.net",
    )
    post(client, tenant, payload(DISCONNECTED))
    run_received()
    assert Phone.objects.get(pk=theirs.pk).status == "ACTIVE"


# --- Dedupe keys: a retry is a duplicate, a later occurrence is a new event ----------


def test_a_second_suspension_after_a_resume_is_processed(client, tenant, phones, sent):
    suspended, resumed = payload(SUSPENDED), payload("whatsapp_account_resumed")
    assert post(client, tenant, suspended).json()["status"] == "accepted"
    assert post(client, tenant, suspended).json()["status"] == "duplicate"  # a retry
    run_received()
    assert statuses()["+40740000102"] == "OFFLINE"
    assert post(client, tenant, resumed).json()["status"] == "accepted"
    assert post(client, tenant, resumed).json()["status"] == "duplicate"
    run_received()
    assert statuses()["+40740000102"] == "ACTIVE"
    # The same account suspended again later: the body is byte for byte the first one
    # (TimelinesAI sends no time of the suspension itself), yet it is a new event.
    assert post(client, tenant, suspended).json()["status"] == "accepted"
    assert post(client, tenant, suspended).json()["status"] == "duplicate"
    run_received()
    assert statuses()["+40740000102"] == "OFFLINE"
    assert WebhookEvent.objects.filter(status=Status.PROCESSED).count() == 3


def test_a_second_disconnect_later_in_time_is_processed_and_a_retry_is_not(
    client, tenant, phones, sent
):
    first = payload(DISCONNECTED)
    later = mutated(DISCONNECTED, "whatsapp_account.disconnected_on", "2026-06-02 09:00:00 +0300")
    later["whatsapp_account"]["connected_on"] = "2026-05-25 08:00:00 +0300"
    connected = payload("whatsapp_account_connected")
    assert post(client, tenant, first).json()["status"] == "accepted"
    run_received()
    assert post(client, tenant, connected).json()["status"] == "accepted"
    run_received()
    assert statuses()["+40740000101"] == "ACTIVE"
    # A late retry of the first disconnect carries its own time: still a duplicate.
    assert post(client, tenant, first).json()["status"] == "duplicate"
    assert post(client, tenant, later).json()["status"] == "accepted"
    assert post(client, tenant, later).json()["status"] == "duplicate"
    run_received()
    assert statuses()["+40740000101"] == "OFFLINE"


def test_a_disconnect_without_its_own_time_after_a_reconnect_is_processed(
    client, tenant, phones, sent
):
    """A disconnect whose disconnected_on is missing or older than connected_on says
    nothing about when it happened: it is told apart by what came before it."""
    bare = mutated(DISCONNECTED, "whatsapp_account.disconnected_on", DELETE)
    connected = payload("whatsapp_account_connected")
    assert post(client, tenant, bare).json()["status"] == "accepted"
    assert post(client, tenant, bare).json()["status"] == "duplicate"
    run_received()
    post(client, tenant, connected)
    run_received()
    assert statuses()["+40740000101"] == "ACTIVE"
    assert post(client, tenant, bare).json()["status"] == "accepted"
    run_received()
    assert statuses()["+40740000101"] == "OFFLINE"


def test_message_keys_are_the_event_type_and_the_lowercase_uid(client, tenant, sent):
    body = payload(TEXT)
    post(client, tenant, body)
    upper = mutated(TEXT, "message.message_uid", body["message"]["message_uid"].upper())
    assert post(client, tenant, upper).json()["status"] == "duplicate"
    event = WebhookEvent.objects.get()
    assert event.provider_event_id == f"message:received:new:{body['message']['message_uid']}"


_FIRST, _LAST = datetime(1000, 1, 1), datetime(9999, 12, 31)  # noqa: DTZ001 (hypothesis bounds)


@hypothesis_settings(max_examples=500, deadline=None)
@given(
    moment=st.datetimes(min_value=_FIRST, max_value=_LAST),
    offset=st.integers(-(23 * 60 + 59), 23 * 60 + 59),
    text=st.text(alphabet="0123456789-+: ", min_size=25, max_size=25),
)
def test_timestamps_are_read_as_strptime_reads_the_documented_format(moment, offset, text):
    """The intake's own timestamp reader (faster than strptime) agrees with it on every
    well-formed time and on junk of the same length."""
    from integrations.timelinesai.schemas import is_timestamp, parse_time

    sign, minutes = ("-" if offset < 0 else "+"), abs(offset)
    stamp = f"{moment:%Y-%m-%d %H:%M:%S} {sign}{minutes // 60:02d}{minutes % 60:02d}"
    assert parse_time(stamp) == datetime.strptime(stamp, "%Y-%m-%d %H:%M:%S %z")
    try:
        expected = datetime.strptime(text, "%Y-%m-%d %H:%M:%S %z")
    except ValueError:
        expected = None
    if expected is not None and not re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d [+-]\d{4}", text):
        expected = None  # strptime also takes single digits; the documented format does not
    assert is_timestamp(text) == (expected is not None)
