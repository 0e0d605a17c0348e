"""TimelinesAI's door is tolerant on what we never read: `message.received_timestamp` (the
time TimelinesAI saw the message; we keep WhatsApp's own `message.timestamp`) takes any
string, while `message.timestamp`, which we read, still refuses a malformed time with a 400
naming it."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.integrations.fuzzing import fuzz_settings, rolled_back
from tests.whatsapp.conftest import WEBHOOK_FIXTURES

pytestmark = pytest.mark.django_db

ANY_STRING = st.text(
    alphabet=st.characters(exclude_categories=("Cs",), exclude_characters="\x00"), max_size=300
)


def _post(client, tenant, message: dict):
    body = json.loads((WEBHOOK_FIXTURES / "message_received_new__text.json").read_bytes())
    body["message"].update(message)
    return client.post(
        f"/webhooks/timelinesai/{tenant.webhook_token}/",
        json.dumps(body),
        content_type="application/json",
    )


def test_the_received_timestamp_accepts_any_string(client, tenant):
    def check(value: str) -> None:
        response = _post(client, tenant, {"received_timestamp": value})
        assert response.status_code == 200, response.content
        assert response.json()["status"] == "accepted"

    @fuzz_settings()
    @given(value=st.one_of(ANY_STRING, st.sampled_from(["", "2026-05-18T11:02:47Z", "ieri"])))
    def run(value):
        rolled_back(check, value)

    run()


def test_the_timestamp_we_read_refuses_a_malformed_time_naming_it(client, tenant):
    def check(value: str) -> None:
        response = _post(client, tenant, {"timestamp": value})
        assert response.status_code == 400, (value, response.content)
        assert response.json()["field"] == "message.timestamp"

    @fuzz_settings()
    @given(value=ANY_STRING.filter(lambda v: not re.match(r"\d{4}-\d\d-\d\d \d\d:\d\d", v)))
    def run(value):
        rolled_back(check, value)

    run()
