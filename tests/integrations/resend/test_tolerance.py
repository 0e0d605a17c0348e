"""Strict where it matters, tolerant where it does not (integrations/resend/schemas.py).

- A field the product never reads (the time Resend put in `data.created_at`, the `from` and
  `subject` of our own sends, the whole `click` object) is accepted whatever string it
  holds, and the event is processed.
- A field we read and act on, given a value that breaks its rule, is refused with a 400
  naming that field, and nothing is processed.
- Internationalised addresses (a non-ASCII local part, an IDN domain) are addresses.
- A `javascript:` link of a click is stored as inert data: no page renders it as a link.

The invalid values are generated from rules written here, independently of the schemas.
"""

from __future__ import annotations

import copy
import itertools
import re
from typing import Any

import pytest
from django.urls import reverse
from hypothesis import given
from hypothesis import strategies as st

from cerniq.models import WebhookEvent
from cerniq.webhooks import process_event
from outreach.models import Channel, Lead, Message
from tests.factories import make_lead, make_message
from tests.integrations.fuzzing import fuzz_settings, rolled_back
from tests.integrations.resend.conftest import post_webhook, tagged, webhook_fixture

pytestmark = pytest.mark.django_db
_ids = itertools.count()

# Any JSON string the door takes at all (NUL and lone surrogates are refused everywhere).
ANY_STRING = st.text(
    alphabet=st.characters(exclude_categories=("Cs",), exclude_characters="\x00"), max_size=300
)
TRICKY = st.sampled_from(
    ["", " ", "javascript:alert(1)", "data:text/html,<script>x</script>", "2026-02-30", "-1"]
)
UNREAD = [
    ("email_delivered", ("created_at",)),
    ("email_delivered", ("from",)),
    ("email_delivered", ("subject",)),
    ("email_clicked", ("click", "link")),
    ("email_clicked", ("click", "timestamp")),
    ("email_clicked", ("click", "ipAddress")),
    ("email_clicked", ("click", "userAgent")),
    ("email_suppressed", ("suppressed", "type")),
    ("email_received", ("created_at",)),
]


def _set(body: dict, path: tuple, value: Any) -> dict:
    node = body["data"]
    for part in path[:-1]:
        node = node[part]
    node[path[-1]] = value
    return body


def _post(client, tenant, body: dict):
    return post_webhook(client, tenant, body, msg_id=f"msg_tol{next(_ids)}")


@pytest.mark.parametrize(("fixture", "path"), UNREAD, ids=lambda v: ".".join(v) if v else v)
def test_a_field_never_read_accepts_any_string(client, sent_email, fixture, path):
    tenant = sent_email.tenant
    original = tagged(webhook_fixture(fixture), tenant)

    def check(value: str) -> None:
        response = _post(client, tenant, _set(copy.deepcopy(original), path, value))
        assert response.status_code == 200, response.content
        answer = response.json()
        assert answer["status"] == "accepted"
        assert process_event(answer["id"]) in ("processed", "ignored")

    @fuzz_settings()
    @given(value=st.one_of(ANY_STRING, TRICKY))
    def run(value):
        rolled_back(check, value)

    run()


def _not_iso(value: str) -> bool:
    return not re.match(r"[0-9]{4}-[0-9]{2}-[0-9]{2}[T ][0-9]{2}:[0-9]{2}:[0-9]{2}", value)


ACTED_ON = [
    ("email_delivered", "created_at", ANY_STRING.filter(_not_iso)),
    (
        "email_delivered",
        "data.email_id",
        ANY_STRING.filter(lambda v: not re.fullmatch(r"[0-9a-fA-F-]{36}", v)),
    ),
    ("email_bounced", "data.to[0]", ANY_STRING.filter(lambda v: "@" not in v)),
    (
        "email_bounced",
        "data.bounce.type",
        ANY_STRING.filter(lambda v: v not in ("Permanent", "Transient", "Undetermined")),
    ),
    (
        "email_suppressed",
        "data.suppressed.reason",
        ANY_STRING.filter(lambda v: v not in ("previous_bounce", "previous_complaint")),
    ),
    ("email_received", "data.from", ANY_STRING.filter(lambda v: "@" not in v)),
    (
        "email_received",
        "data.email_id",
        ANY_STRING.filter(lambda v: not re.fullmatch(r"[A-Za-z0-9_-]{1,100}", v)),
    ),
    ("email_received", "data.message_id", ANY_STRING.map(lambda v: f"<{v} x@y.ro>")),
]


def _put(body: dict, field: str, value: str) -> dict:
    parts = [int(p) if p.isdigit() else p for p in re.split(r"\.|\[|\]\.?", field) if p]
    node = body
    for part in parts[:-1]:
        node = node[part]
    node[parts[-1]] = value
    return body


@pytest.mark.parametrize(("fixture", "field", "values"), ACTED_ON, ids=lambda v: str(v)[:30])
def test_a_field_acted_on_refuses_an_invalid_value_naming_it(
    client, sent_email, fixture, field, values
):
    tenant = sent_email.tenant
    original = tagged(webhook_fixture(fixture), tenant)

    def check(value: str) -> None:
        response = _post(client, tenant, _put(copy.deepcopy(original), field, value))
        assert response.status_code == 400, (value, response.content)
        assert response.json()["field"] == field
        assert WebhookEvent.objects.order_by("-pk").first().status == "MALFORMED"

    @fuzz_settings()
    @given(value=values)
    def run(value):
        rolled_back(check, value)

    run()


INTERNATIONAL = [
    "josé@exemplu.ro",
    "office@fermă-verde.ro",
    "ștefan@agroferma.ro",
    "用户@例子.广告",
]


@pytest.mark.parametrize("address", INTERNATIONAL)
def test_an_internationalised_recipient_is_an_address_and_its_bounce_acts(client, tenant, address):
    lead = make_lead(tenant, email=address, email_status=Lead.EmailStatus.VALID)
    body = tagged(webhook_fixture("email_bounced"), tenant)
    body["data"]["to"] = [address]
    make_message(
        lead,
        channel=Channel.EMAIL_WARM,
        status=Message.Status.SENT,
        counterpart=address,
        provider_message_id=body["data"]["email_id"],
    )
    response = _post(client, tenant, body)
    assert response.status_code == 200, response.content
    assert process_event(response.json()["id"]) == "processed"
    lead.refresh_from_db()
    assert lead.email_status == Lead.EmailStatus.BOUNCED


LINKS = ["javascript:alert(document.cookie)", "JaVaScRiPt:alert(1)", "data:text/html,<b>x</b>"]


@pytest.mark.parametrize("link", LINKS)
def test_a_javascript_click_link_is_stored_and_never_rendered_as_a_link(
    client, admin_client, sent_email, link
):
    tenant = sent_email.tenant
    body = tagged(webhook_fixture("email_clicked"), tenant)
    body["data"]["click"]["link"] = link
    response = _post(client, tenant, body)
    assert response.status_code == 200 and response.json()["status"] == "accepted"
    event = WebhookEvent.objects.get(pk=response.json()["id"])
    assert process_event(event.pk) == "processed"
    assert link.encode() in bytes(event.raw_body)  # kept as it came
    page = admin_client.get(reverse("admin:cerniq_webhookevent_change", args=[event.pk]))
    html = page.content.decode()
    assert page.status_code == 200
    assert "alert(" in html or "text/html" in html  # shown, as text
    scheme = link.split(":")[0].lower()
    assert not re.search(rf"""(href|src|action)\s*=\s*["']?\s*{scheme}:""", html, re.I)
    assert "<b>x</b>" not in html  # escaped, not markup


def test_a_lead_page_shows_a_javascript_link_in_a_reply_as_text(client, operator, tenant):
    lead = make_lead(tenant, email="office@fermaverde.ro")
    make_message(
        lead,
        channel=Channel.EMAIL_WARM,
        direction=Message.Direction.INBOUND,
        status=Message.Status.RECEIVED,
        body='Vedeți <a href="javascript:alert(1)">aici</a> sau javascript:alert(2)',
        idempotency_key=None,
    )
    client.force_login(operator)
    page = client.get(reverse("outreach:lead", args=[lead.pk]))
    html = page.content.decode()
    assert page.status_code == 200 and "javascript:alert(2)" in html
    assert not re.search(r"""(href|src|action)\s*=\s*["']?\s*javascript:""", html, re.I)
