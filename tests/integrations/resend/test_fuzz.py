"""Property-based fuzzing of the Resend door, through the real intake (like
tests/integrations/timelinesai/test_fuzz.py).

Each recorded fixture is mutated at random (a value of another type, a missing field,
huge, NUL or lone-surrogate strings, numbers, nested junk, NaN), signed as Resend would
sign it (the signature is valid: what is tested is the schema, not the signature) and posted
to `/webhooks/resend/<token>/`; every accepted event is then processed as a worker would.
Whatever the mutation:

- the answer is never a 5xx, and processing an accepted event never raises;
- a body that breaks one of the rules below is never accepted (so never processed);
- a refused body changes no message, no lead and no suppression;
- a lead or a suppression changes only for a bounce, a complaint or a suppression.

The rules are written out here again, independently of integrations/resend/schemas.py,
from the documented formats (docs/providers.md §3.4): they are the oracle. Each example runs in
a savepoint that is rolled back. Examples are derandomised and bounded (`FUZZ_EXAMPLES`,
default 30 per fixture); `FUZZ_RANDOM=1 FUZZ_EXAMPLES=500` explores further.
"""

from __future__ import annotations

import itertools
import json
import re
from datetime import datetime
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cerniq.models import WebhookEvent
from cerniq.webhooks import process_event
from outreach.models import Lead, Message, Suppression
from tests.integrations.fuzzing import (
    MISSING,
    bad_strings_or_depth,
    deep,
    fuzz_settings,
    get,
    nested_mutations,
    rolled_back,
)
from tests.integrations.resend.conftest import WEBHOOK_FIXTURES, post_webhook, tagged

FIXTURES = sorted(WEBHOOK_FIXTURES.glob("*.json"))
_ids = itertools.count()

# --- The oracle: what a valid handled event looks like ---------------------------------

_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")


def is_str(value: Any, limit: int = 1_024) -> bool:
    return isinstance(value, str) and len(value) <= limit


def iso(value: Any) -> bool:
    if not is_str(value, 40) or not re.fullmatch(r"\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d.*", value):
        return False
    try:
        return datetime.fromisoformat(value).tzinfo is not None
    except ValueError:
        return False


def email(value: Any) -> bool:
    return is_str(value, 254) and "@" in value and not any(ch.isspace() for ch in value)


def sender(value: Any) -> bool:
    return is_str(value) and "@" in value


def recipients(value: Any) -> bool:
    return isinstance(value, list) and 1 <= len(value) <= 50 and all(map(email, value))


def tags(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and len(value) <= 50
        and all(is_str(k, 256) and is_str(v, 256) for k, v in value.items())
    )


def strings(value: Any) -> bool:
    return isinstance(value, list) and all(is_str(v, 10_000) for v in value)


def optional(rule):
    return lambda value: value is MISSING or value is None or rule(value)


def present(rule):
    return lambda value: value is not MISSING and rule(value)


def obj(value: Any) -> bool:
    return isinstance(value, dict)


def message_id(value: Any) -> bool:
    return is_str(value, 998) and len(value) >= 3 and not any(ch.isspace() for ch in value)


def string_list(value: Any) -> bool:
    return isinstance(value, list) and all(is_str(v) for v in value)


# What is read: only these are rules. `data.created_at`, `data.from`, `data.subject`,
# `data.headers` of our sends and the whole `click` object are never read: anything goes.
COMMON = {
    "created_at": present(iso),
    "data": present(obj),
    "data.email_id": present(lambda v: is_str(v, 36) and _UUID.fullmatch(v) is not None),
    "data.to": present(recipients),
    "data.tags": optional(tags),
    "data.message_id": optional(message_id),
}
RECEIVED = {
    "created_at": present(iso),
    "data": present(obj),
    "data.email_id": present(lambda v: is_str(v, 100) and re.fullmatch(r"[\w-]+", v, re.A)),
    "data.from": present(sender),
    "data.to": present(string_list),
    "data.cc": optional(string_list),
    "data.bcc": optional(string_list),
    "data.received_for": optional(string_list),
    "data.message_id": present(message_id),
    "data.subject": optional(lambda v: isinstance(v, str)),
}
EXTRA = {
    "email.bounced": {
        "data.bounce": present(obj),
        "data.bounce.type": present(lambda v: v in ("Permanent", "Transient", "Undetermined")),
        "data.bounce.subType": present(is_str),
        "data.bounce.message": optional(lambda v: is_str(v, 10_000)),
        "data.bounce.diagnosticCode": optional(strings),
    },
    "email.failed": {"data.failed": present(obj), "data.failed.reason": present(is_str)},
    "email.suppressed": {
        "data.suppressed": present(obj),
        "data.suppressed.reason": present(lambda v: v in ("previous_bounce", "previous_complaint")),
    },
}
HANDLED = {
    "email.sent",
    "email.delivered",
    "email.delivery_delayed",
    "email.complained",
    "email.opened",
    "email.clicked",
    "email.received",
    *EXTRA,
}
ACT_ON_LEADS = {"email.bounced", "email.complained", "email.suppressed"}


def broken_rules(body: Any) -> list[str]:
    """The rules `body` breaks (empty: it may be accepted)."""
    if not isinstance(body, dict):
        return ["not an object"]
    if bad_strings_or_depth(body):
        return ["NUL, lone surrogate or depth"]
    event_type = body.get("type")
    if not is_str(event_type) or not event_type.strip():
        return ["type"]
    if event_type not in HANDLED:
        return []
    common = RECEIVED if event_type == "email.received" else COMMON
    rules = {**common, **EXTRA.get(event_type, {})}
    return [path for path, rule in rules.items() if not rule(get(body, path))]


# --- Mutations -------------------------------------------------------------------------

JUNK_STRINGS = st.sampled_from(
    [
        "",
        " ",
        "false",
        "123",
        "null",
        "\x00",
        "x" * 12_000,
        "Permanent",
        "permanent",
        "Transient",
        "previous_bounce",
        "previous_complaint",
        "2026-08-01T10:00:00.000Z",
        "2026-08-01T10:00:00",
        "2026-08-01 10:00:00+00",
        "2026-02-30T10:00:00Z",
        "56761188-7520-42d8-8898-ff6fc54ce618",
        "56761188-7520-42D8-8898-FF6FC54CE618",
        "49a3999c-...",
        "office@fermaverde.ro",
        "Ion <office@fermaverde.ro>",
        "not-an-email",
        "a@b",
        "javascript:alert(1)",
        "https://agrofirma.ro/x",
        "999.1.1.1",
        "email.bounced",
        "email.suppressed",
        "contact.created",
    ]
)
NUMBERS = st.one_of(
    st.sampled_from([0, -1, 1, 2**53, 2**64, 10**30, 1785578400]),
    st.integers(),
    st.floats(allow_nan=False, allow_infinity=False),
)
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    NUMBERS,
    st.text(max_size=30),
    JUNK_STRINGS,
    st.sampled_from(["\ud800", "a\udfffb"]),
)


JUNK = st.one_of(
    SCALARS,
    st.lists(SCALARS, max_size=4),
    st.dictionaries(st.text(max_size=8), SCALARS, max_size=4),
    st.sampled_from([deep(40), deep(3), {"\x00": 1}, [{}] * 60, ["a@b.ro"] * 51]),
)


# --- The property ----------------------------------------------------------------------


def states() -> tuple:
    return (
        sorted(Message.objects.values_list("pk", "status", "error")),
        sorted(Lead.objects.values_list("pk", "email_status")),
        Suppression.objects.count(),
    )


def check_one(client, tenant, raw: bytes, body: Any) -> None:
    before = states()
    response = post_webhook(client, tenant, raw, msg_id=f"msg_fuzz{next(_ids)}")
    assert response.status_code < 500, response.content[:500]
    answer = response.json()
    accepted = response.status_code == 200 and answer.get("status") == "accepted"
    if body is None:  # NaN / truncated: never valid JSON
        assert response.status_code == 400, answer
        return
    broken = broken_rules(body)
    if broken:
        assert not accepted, f"accepted although it breaks {broken}"
    if not accepted:
        if response.status_code == 400:
            assert WebhookEvent.objects.order_by("-pk").first().status == "MALFORMED"
        assert states() == before
        return
    assert process_event(answer["id"]) in ("processed", "ignored")
    after = states()
    if after[1:] != before[1:]:
        assert body["type"] in ACT_ON_LEADS, body["type"]


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
def test_mutated_fixtures_never_5xx_and_never_process_an_invalid_event(client, sent_email, path):
    tenant = sent_email.tenant
    original = tagged(json.loads(path.read_bytes()), tenant)
    assert broken_rules(original) == [], "the oracle must accept the recorded fixture"

    @fuzz_settings()
    @given(mutation=nested_mutations(original, JUNK))
    def run(mutation):
        raw, body = mutation
        rolled_back(check_one, client, tenant, raw, body)

    run()


def test_the_oracle_knows_the_rules():
    body = json.loads((WEBHOOK_FIXTURES / "email_bounced.json").read_bytes())
    assert broken_rules(body) == []
    body["data"]["bounce"]["type"] = "permanent"
    assert broken_rules(body) == ["data.bounce.type"]
    assert broken_rules({"type": "email.sent"}) != []
    assert broken_rules({"type": "contact.created", "x": "\x00"}) != []
    assert broken_rules({"type": "domain.created", "x": deep(40)}) != []
