"""Property-based fuzzing of the Instantly door, through the real intake (like
tests/integrations/timelinesai/test_fuzz.py).

Each recorded fixture is mutated at random (values of another type, missing fields, huge,
NUL or lone-surrogate strings, out-of-range numbers, junk lead columns, NaN) and posted
with the tenant's secret; every accepted event is processed as a worker would. Whatever the
mutation:

- the answer is never a 5xx, and processing an accepted event never raises;
- a body that breaks one of the rules below is never accepted (so never processed);
- a refused body stores no message, opens no alert and moves no stage.

The rules are written out again here from docs/providers.md §2.4, independently of
integrations/instantly/schemas.py: they are the oracle, not the code under test. Examples
are derandomised and bounded (`FUZZ_EXAMPLES`, default 30 per fixture); each runs in a
savepoint that is rolled back.
"""

from __future__ import annotations

import copy
import json
import re
from datetime import datetime
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cerniq.models import Alert, WebhookEvent
from cerniq.webhooks import process_event
from email_channels.models import EmailCampaign
from outreach.models import Journey, Message, Stage, StageTransition
from tests.factories import make_lead
from tests.integrations.fuzzing import bad_strings_or_depth, fuzz_settings, rolled_back, serialize
from tests.integrations.instantly.conftest import (
    CAMPAIGN_ID,
    LEAD_EMAIL,
    WEBHOOK_FIXTURES,
    post_webhook,
)

FIXTURES = sorted(WEBHOOK_FIXTURES.glob("*.json"))
pytestmark = pytest.mark.usefixtures("registered")

# --- The oracle ------------------------------------------------------------------------

_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")


def string(max_len):
    return lambda v: isinstance(v, str) and len(v) <= max_len


def uuid(v):
    return isinstance(v, str) and _UUID.fullmatch(v) is not None


def email(v):
    return isinstance(v, str) and len(v) <= 254 and re.fullmatch(r"[^@\s<>]+@[^@\s<>]+", v)


def iso_time(v):
    if not isinstance(v, str) or not re.fullmatch(
        r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,9})?(Z|[+-]\d\d:\d\d)", v
    ):
        return False
    try:
        datetime.strptime(v[:19] + "+0000", "%Y-%m-%dT%H:%M:%S%z")
    except ValueError:
        return False
    return True


def count(v):
    return type(v) is int and 0 <= v <= 10_000


FIELDS = {
    "timestamp": iso_time,
    "campaign_id": uuid,
    "campaign_name": string(2000),
    "lead_email": email,
    "email_account": email,
    "step": count,
    "email_id": uuid,
    "reply_subject": string(2000),
    **{k: string(1_000_000) for k in ("reply_text_snippet", "reply_text", "reply_html")},
}  # fmt: skip
ALWAYS = {"timestamp"}  # `workspace` and the sent email are never read: anything goes
LEAD = {"campaign_id", "lead_email"}
NEEDS = {
    "email_sent": LEAD | {"email_id"},
    "email_opened": LEAD,
    "link_clicked": LEAD,
    "reply_received": LEAD | {"email_id"},
    "auto_reply_received": LEAD | {"email_id"},
    "email_bounced": LEAD,
    "lead_unsubscribed": {"lead_email"},
    "account_error": set(),
    "campaign_completed": {"campaign_id"},
    **dict.fromkeys(
        ("lead_interested", "lead_not_interested", "lead_meeting_booked",
         "lead_meeting_completed", "lead_closed"), LEAD),
}  # fmt: skip


def extra_ok(value: Any, depth: int = 0) -> bool:
    if isinstance(value, str):
        return len(value) <= 10_000
    if isinstance(value, dict | list):
        if depth >= 3 or len(value) > 200:
            return False
        items = value.values() if isinstance(value, dict) else value
        return all(extra_ok(item, depth + 1) for item in items)
    return True


def broken_rules(body: Any) -> list[str]:
    if not isinstance(body, dict):
        return ["not an object"]
    if bad_strings_or_depth(body):
        return ["NUL, lone surrogate or depth"]
    event_type = body.get("event_type")
    if not isinstance(event_type, str) or not event_type.strip():
        return ["event_type"]
    if event_type not in NEEDS:
        return []  # ignored without a schema check
    broken = [
        name
        for name, rule in FIELDS.items()
        if (name in ALWAYS | NEEDS[event_type] and body.get(name) is None)
        or (body.get(name) is not None and not rule(body[name]))
    ]
    extras = {k: v for k, v in body.items() if k not in FIELDS and k != "event_type"}
    if len(extras) > 200 or any(len(k) > 100 or not extra_ok(v) for k, v in extras.items()):
        broken.append("extra lead columns")
    return broken


# --- Mutations -------------------------------------------------------------------------

JUNK_STRINGS = st.sampled_from(
    ["", " ", "1", "true", "null", "\x00", "a\x00b", "x" * 12_000, "2026-10-06 09:03:55",
     "2026-02-30T09:03:55.000Z", "2026-10-06T09:03:55.000Z", "2026-10-06T09:03:55+03:00",
     "019ffad2-9c4e-7be6-8364-ed444afb02d5", "not-a-uuid", LEAD_EMAIL, "a@b", "javascript:x",
     "reply_received", "lead_interested", "email_bounced", "Hot lead"]
)  # fmt: skip
NUMBERS = st.one_of(
    st.sampled_from([0, -1, 1, 10_000, 10_001, 2**53, 2**64]),
    st.integers(),
    st.floats(allow_nan=False, allow_infinity=False),
)
SCALARS = st.one_of(
    st.none(), st.booleans(), NUMBERS, st.text(max_size=30), JUNK_STRINGS,
    st.sampled_from(["\ud800", "a\udfffb"]),
)  # fmt: skip
JUNK = st.one_of(
    SCALARS,
    st.lists(SCALARS, max_size=4),
    st.dictionaries(st.text(max_size=8), SCALARS, max_size=4),
    st.sampled_from([{"a": {"b": {"c": {"d": 1}}}}, [[[[1]]]], {"\x00": 1}]),
)


@st.composite
def mutations(draw, original: dict) -> tuple[bytes, Any]:
    body = copy.deepcopy(original)
    for _ in range(draw(st.integers(min_value=1, max_value=3))):
        keys = list(body)
        operation = draw(st.sampled_from(["replace", "delete", "add", "retext", "many"]))
        if operation == "add" or not keys:
            body[draw(st.text(min_size=1, max_size=120))] = draw(JUNK)
        elif operation == "many":
            body.update({f"col_{i}": "x" for i in range(draw(st.sampled_from([5, 201])))})
        else:
            key = draw(st.sampled_from(keys))
            if operation == "delete":
                del body[key]
            elif operation == "retext" and isinstance(body[key], str):
                body[key] = draw(st.one_of(st.text(max_size=40), JUNK_STRINGS))
            else:
                body[key] = copy.deepcopy(draw(JUNK))
    return serialize(draw, body)


# --- The property ----------------------------------------------------------------------


@pytest.fixture
def world(tenant):
    lead = make_lead(tenant, email=LEAD_EMAIL)
    Journey.objects.filter(lead=lead).update(stage=Stage.CONTACTED_EMAIL)
    EmailCampaign.objects.create(
        tenant=tenant, name="Ferme", provider="instantly", external_id=CAMPAIGN_ID
    )
    return tenant


def effects() -> tuple:
    return (
        Message.objects.count(),
        Alert.objects.count(),
        StageTransition.objects.count(),
        tuple(EmailCampaign.objects.values_list("sent", "bounced", "status")),
    )


def check_one(client, tenant, raw: bytes, body: Any) -> None:
    before = effects()
    response = post_webhook(client, tenant, raw)
    assert response.status_code < 500, response.content[:500]
    answer = response.json()
    accepted = response.status_code == 200 and answer.get("status") == "accepted"
    if body is None:
        assert response.status_code == 400, answer
        return
    broken = broken_rules(body)
    if broken:
        assert not accepted, f"accepted although it breaks {broken}"
    if response.status_code == 400:
        assert WebhookEvent.objects.order_by("-pk").first().status == WebhookEvent.Status.MALFORMED
        assert effects() == before
        return
    if accepted:
        assert process_event(answer["id"]) in ("processed", "ignored")
    else:
        assert effects() == before


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
def test_mutated_fixtures_never_5xx_and_never_process_an_invalid_event(client, world, path):
    original = json.loads(path.read_bytes())
    assert broken_rules(original) == [], "the oracle must accept the recorded fixture"

    @fuzz_settings()
    @given(mutation=mutations(original))
    def run(mutation):
        raw, body = mutation
        rolled_back(check_one, client, world, raw, body)

    run()


def test_the_oracle_knows_the_rules():
    body = json.loads((WEBHOOK_FIXTURES / "reply_received.json").read_bytes())
    assert broken_rules(body) == []
    assert broken_rules({**body, "step": "1"}) == ["step"]
    assert broken_rules({**body, "email_id": None}) == ["email_id"]
    assert broken_rules({**body, "col": {"a": {"b": {"c": 1}}}}) == []
    assert broken_rules({**body, "col": {"a": {"b": {"c": {}}}}}) == ["extra lead columns"]
    assert broken_rules({"event_type": "Hot lead"}) == []
