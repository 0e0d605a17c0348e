"""Property-based fuzzing of the TimelinesAI door (issue #10 §1), through the real intake.

Each recorded fixture is mutated at random (a value of another type, a missing field,
huge, NUL or lone-surrogate strings, numbers out of range, nested junk, NaN) and posted to
`/webhooks/timelinesai/<token>/`; every accepted event is then processed as a worker would.
Whatever the mutation:

- the answer is never a 5xx, and processing an accepted event never raises;
- a body that breaks one of the rules below is never accepted (so never processed);
- a refused body changes no phone and stores no message;
- a phone changes status only for an account event naming its own account id.

The rules are written out here again, independently of integrations/timelinesai/schemas.py,
from the documented formats (docs/providers.md §1.5): they are the oracle, not the code under
test. Each example runs in a savepoint that is rolled back, so examples do not see each
other's rows (this works the same on SQLite and PostgreSQL, and under pytest-xdist).
Examples are derandomised and bounded (`FUZZ_EXAMPLES`, default 30 per fixture), so CI
runs the same cases every time; `FUZZ_RANDOM=1 FUZZ_EXAMPLES=500` explores further.
"""

from __future__ import annotations

import json
import math
import re
from datetime import datetime
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cerniq.models import WebhookEvent
from cerniq.webhooks import process_event
from outreach.models import Message
from tests.factories import make_lead, make_phone
from tests.integrations.fuzzing import (
    MISSING,
    bad_strings_or_depth,
    deep,
    fuzz_settings,
    get,
    nested_mutations,
    rolled_back,
)
from tests.whatsapp.conftest import WEBHOOK_FIXTURES
from whatsapp.models import Phone

FIXTURES = sorted(WEBHOOK_FIXTURES.glob("*.json"))

# --- The oracle: what a valid handled event looks like ---------------------------------

_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_E164 = re.compile(r"\+[1-9][0-9]{6,14}")
_JID = re.compile(r"[1-9][0-9]{6,14}@s\.whatsapp\.net")


def is_str(value: Any) -> bool:
    return isinstance(value, str)


def uuid(value: Any) -> bool:
    return is_str(value) and _UUID.fullmatch(value) is not None


def e164(value: Any) -> bool:
    return is_str(value) and _E164.fullmatch(value) is not None


def jid(value: Any) -> bool:
    return is_str(value) and _JID.fullmatch(value) is not None


def chat_id(value: Any) -> bool:
    return type(value) is int and 1 <= value <= 2**53 - 1


def boolean(value: Any) -> bool:
    return type(value) is bool


def timestamp(value: Any) -> bool:
    if not is_str(value) or not re.fullmatch(
        r"[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2} [+-][0-9]{4}", value
    ):
        return False
    try:
        datetime.strptime(value, "%Y-%m-%d %H:%M:%S %z")
    except ValueError:
        return False
    return True


def text(value: Any) -> bool:
    return value is None or (is_str(value) and len(value) <= 65_536)


def optional(rule):
    return lambda value: value is MISSING or value is None or rule(value)


def present(rule):
    return lambda value: value is not MISSING and rule(value)


def obj(value: Any) -> bool:
    return isinstance(value, dict)


NESTED_MESSAGE = {
    "chat": present(obj),
    "message": present(obj),
    "whatsapp_account": present(obj),
    "chat.chat_id": present(chat_id),
    "chat.is_group": present(boolean),
    "message.message_uid": present(uuid),
    "message.timestamp": present(timestamp),
    "message.direction": present(lambda v: v in ("sent", "received")),
    "message.text": optional(text),
    "message.sender": optional(obj),
    "message.recipient": optional(obj),
    "message.sender.phone": optional(e164),
    "message.recipient.phone": optional(e164),
    "message.attachments": optional(lambda v: isinstance(v, list)),
    "whatsapp_account.phone": present(e164),
}
FLAT_MESSAGE = {
    "data": present(obj),
    "data.message_uid": present(uuid),
    "data.chat_id": optional(chat_id),
    "data.from_me": optional(boolean),
    "data.timestamp": optional(timestamp),
    "data.text": optional(text),
    "data.sender_phone": optional(e164),
    "data.recipient_phone": optional(e164),
    "data.whatsapp_account_id": optional(jid),
}
ACCOUNT = {
    "whatsapp_account": present(obj),
    "whatsapp_account.id": present(jid),
    "whatsapp_account.connected_on": present(timestamp),
    "whatsapp_account.disconnected_on": optional(timestamp),
    "whatsapp_account.phone": optional(e164),
}
CHAT = {
    "chat": present(obj),
    "chat.id": present(chat_id),
    "chat.is_group": present(boolean),
    "chat.whatsapp_account_id": present(jid),
    "chat.created_timestamp": present(timestamp),
}
MESSAGE_EVENTS = {"message:received:new", "message:sent:new"}
ACCOUNT_EVENTS = {
    "whatsapp:account:disconnected",
    "whatsapp:account:suspended",
    "whatsapp:account:connected",
    "whatsapp:account:resumed",
}


def broken_rules(body: Any) -> list[str]:
    """The rules `body` breaks (empty: it may be accepted)."""
    if not isinstance(body, dict):
        return ["not an object"]
    if bad_strings_or_depth(body):
        return ["NUL, lone surrogate or depth"]
    event_type = body.get("event_type")
    if not is_str(event_type) or not event_type.strip():
        return ["event_type"]
    event_type = event_type.strip()
    if event_type in MESSAGE_EVENTS:
        flat = "data" in body and not any(
            k in body for k in ("chat", "message", "whatsapp_account")
        )
        rules = FLAT_MESSAGE if flat else NESTED_MESSAGE
        broken = [path for path, rule in rules.items() if not rule(get(body, path))]
        no_chat_id = get(body, "data.chat_id") in (MISSING, None)
        if flat and no_chat_id and not chat_id(get(body, "data.chat.id")):
            broken.append("data.chat_id")
        direct = get(body, "chat.is_group") is False
        if not flat and direct and not optional(e164)(get(body, "chat.phone")):
            broken.append("chat.phone")
        return broken
    if event_type in ACCOUNT_EVENTS:
        return [path for path, rule in ACCOUNT.items() if not rule(get(body, path))]
    if event_type == "chat:new":
        return [path for path, rule in CHAT.items() if not rule(get(body, path))]
    return []


# --- Mutations -------------------------------------------------------------------------

LONE_SURROGATES = st.sampled_from(["\ud800", "a\udfffb", "\udc00" * 3])
JUNK_STRINGS = st.sampled_from(
    [
        "",
        " ",
        "false",
        "true",
        "0",
        "123",
        "27616435",
        "null",
        "NaN",
        "\x00",
        "STOP\x00",
        "x" * 70_000,
        "2026-05-18 10:44:21",
        "2026-05-18T10:44:21+03:00",
        "2026-02-30 10:44:21 +0300",
        "+40740000101",
        "40740000101",
        "40740000101@s.whatsapp.net",
        "40740000102@s.whatsapp.net",
        "a5bbb005-37f2-402c-96fa-e479a2e09b02",
        "not-a-uuid",
        "javascript:alert(1)",
        "message:received:new",
        "whatsapp:account:disconnected",
    ]
)
NUMBERS = st.one_of(
    st.sampled_from([0, -1, 1, 2**31, 2**53, 2**53 - 1, 2**63, 2**64, -(2**63), 10**30]),
    st.integers(),
    st.floats(allow_nan=False, allow_infinity=False),
)


SCALARS = st.one_of(
    st.none(), st.booleans(), NUMBERS, st.text(max_size=30), JUNK_STRINGS, LONE_SURROGATES
)
JUNK = st.one_of(
    SCALARS,
    st.lists(SCALARS, max_size=4),
    st.dictionaries(st.text(max_size=8), SCALARS, max_size=4),
    st.sampled_from([deep(40), deep(3), {"\x00": 1}, [{}] * 40]),
)


# --- The property ----------------------------------------------------------------------


@pytest.fixture
def world(tenant):
    """The fixtures' accounts as ACTIVE phones, and their contacts as leads."""
    for number in ("+40740000101", "+40740000102"):
        make_phone(
            tenant,
            provider="timelinesai",
            number=number,
            account_id=f"{number[1:]}@s.whatsapp.net",
        )
    make_phone(tenant, provider="timelinesai", number="+40740000103", account_id="")
    for phone in ("+40722000111", "+40744123456"):
        make_lead(tenant, phone=phone)
    return tenant


def phone_states() -> dict[int, tuple[str, str]]:
    return {
        pk: (status, account)
        for pk, status, account in Phone.objects.values_list("pk", "status", "account_id")
    }


def check_one(client, tenant, raw: bytes, body: Any) -> None:
    before = phone_states()
    messages_before = Message.objects.count()
    response = client.post(
        f"/webhooks/timelinesai/{tenant.webhook_token}/", raw, content_type="application/json"
    )
    assert response.status_code < 500, response.content[:500]
    answer = response.json()
    accepted = response.status_code == 200 and answer.get("status") == "accepted"
    if body is None:  # NaN / truncated: never valid JSON
        assert response.status_code in (400, 413), answer
        return
    broken = broken_rules(body)
    if broken:
        assert not accepted, f"accepted although it breaks {broken}"
    if response.status_code == 400:
        assert answer["error"], answer
        event = WebhookEvent.objects.order_by("-pk").first()
        assert event.status == WebhookEvent.Status.MALFORMED
        assert phone_states() == before
        assert Message.objects.count() == messages_before
        return
    if accepted:
        outcome = process_event(answer["id"])
        assert outcome in ("processed", "ignored"), outcome
        changed = {pk for pk, state in phone_states().items() if state != before[pk]}
        if changed:
            assert body["event_type"].strip() in ACCOUNT_EVENTS
            account = body["whatsapp_account"]["id"]
            assert {before[pk][1] for pk in changed} == {account}
    else:
        assert phone_states() == before


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
def test_mutated_fixtures_never_5xx_and_never_process_an_invalid_event(client, world, path):
    original = json.loads(path.read_bytes())
    assert broken_rules(original) == [], "the oracle must accept the recorded fixture"

    @fuzz_settings()
    @given(mutation=nested_mutations(original, JUNK))
    def run(mutation):
        raw, body = mutation
        rolled_back(check_one, client, world, raw, body)

    run()


def test_the_oracle_knows_the_rules():
    assert not math.isnan(0.0)
    body = json.loads((WEBHOOK_FIXTURES / "message_received_new__text.json").read_bytes())
    assert broken_rules(body) == []
    body["chat"]["is_group"] = "false"
    assert broken_rules(body) == ["chat.is_group"]
    assert broken_rules({"event_type": "chat:new"}) != []
    assert broken_rules({"event_type": "message:new", "x": "\x00"}) != []
    assert broken_rules({"event_type": "message:new", "x": deep(40)}) != []
