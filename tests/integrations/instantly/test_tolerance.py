"""Instantly's door is strict on what we read, tolerant on the rest (schemas.py): a field
we never read (`workspace`, `unibox_url`, `variant`, `is_first`, the sent email) takes any
string, an address we act on takes internationalised addresses and refuses a non-address
with a 400 naming it. Rules written here, independently of the schema."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cerniq.models import WebhookEvent
from tests.integrations.fuzzing import fuzz_settings, rolled_back
from tests.integrations.instantly.conftest import post_webhook, webhook_body

pytestmark = [pytest.mark.usefixtures("registered"), pytest.mark.django_db]

ANY_STRING = st.text(
    alphabet=st.characters(exclude_categories=("Cs",), exclude_characters="\x00"), max_size=300
)
UNREAD = ["workspace", "unibox_url", "variant", "is_first", "email_subject", "email_text"]


@pytest.mark.parametrize("field", UNREAD)
def test_a_field_never_read_accepts_any_string(client, tenant, field):
    def check(value: str) -> None:
        response = post_webhook(client, tenant, {**webhook_body("reply_received"), field: value})
        assert response.status_code == 200, response.content
        assert response.json()["status"] == "accepted"

    @fuzz_settings()
    @given(value=st.one_of(ANY_STRING, st.just("javascript:alert(1)")))
    def run(value):
        rolled_back(check, value)

    run()


@pytest.mark.parametrize("field", ["lead_email", "email_account"])
def test_an_address_we_act_on_refuses_a_non_address_naming_it(client, tenant, field):
    def check(value: str) -> None:
        response = post_webhook(client, tenant, {**webhook_body("reply_received"), field: value})
        assert response.status_code == 400, (value, response.content)
        assert response.json()["field"] == field
        assert WebhookEvent.objects.order_by("-pk").first().status == "MALFORMED"

    @fuzz_settings()
    @given(value=ANY_STRING.filter(lambda v: "@" not in v))
    def run(value):
        rolled_back(check, value)

    run()


@pytest.mark.parametrize("address", ["josé@exemplu.ro", "office@fermă-verde.ro"])
def test_an_internationalised_lead_address_is_accepted(client, tenant, address):
    body = {**webhook_body("reply_received"), "lead_email": address}
    response = post_webhook(client, tenant, body)
    assert response.status_code == 200 and response.json()["status"] == "accepted"
