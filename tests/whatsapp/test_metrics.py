"""A real WhatsApp send (TimelinesAI's HTTP faked with `responses`) shows in /metrics: the
send path's outcome counter and the phone's quota gauge."""

from __future__ import annotations

import pytest
import responses
from django.db import connection
from django.test.utils import CaptureQueriesContext

from outreach.sending import send_message
from tests.cerniq.test_json_logs import json_lines
from tests.factories import make_phone, make_tenant
from tests.scrape import scrape, value
from tests.whatsapp.conftest import BASE, MONDAY_10, api_body
from whatsapp import metrics
from whatsapp.models import QuotaUsage
from whatsapp.quota import quota_day

pytestmark = pytest.mark.django_db

SEND_URL = f"{BASE}/messages"
SENT = "cerniq_outreach_messages_total"


def phone_labels(message) -> dict[str, str]:
    return {
        "tenant": message.tenant.slug,
        "phone": str(message.phone_id),
        "name": message.phone.label,
    }


@responses.activate
def test_a_real_send_is_counted_and_uses_the_phones_quota(
    client, settings, queued, django_capture_on_commit_callbacks
):
    responses.post(SEND_URL, json=api_body("send_ok.json"))
    before = scrape(client, settings)
    with django_capture_on_commit_callbacks(execute=True):
        assert send_message(queued.pk).kind == "sent"
    after = scrape(client, settings)
    sent = {"channel": "whatsapp", "status": "sent"}
    assert value(after, SENT, **sent) - value(before, SENT, **sent) == 1
    assert value(after, "cerniq_wa_quota_used", **phone_labels(queued)) == 1
    assert value(after, "cerniq_wa_quota_limit", **phone_labels(queued)) == 200


@responses.activate
@pytest.mark.parametrize(
    "status, fixture, outcome",
    [
        (429, "error_rate_limited.json", "retry"),
        (401, "error_invalid_token.json", "dead_letter"),
        (400, "error_invalid_phone_format.json", "failed"),
    ],
)
def test_each_recorded_outcome_is_counted(
    client, settings, queued, django_capture_on_commit_callbacks, status, fixture, outcome
):
    responses.post(SEND_URL, status=status, json=api_body(fixture))
    before = scrape(client, settings)
    with django_capture_on_commit_callbacks(execute=True):
        send_message(queued.pk)
    after = scrape(client, settings)
    labels = {"channel": "whatsapp", "status": outcome}
    assert value(after, SENT, **labels) - value(before, SENT, **labels) == 1
    assert value(after, SENT, channel="whatsapp", status="sent") == value(
        before, SENT, channel="whatsapp", status="sent"
    )
    dead_letters = value(
        after, "cerniq_outreach_dead_letters", tenant=queued.tenant.slug, channel="whatsapp"
    )
    assert dead_letters == (1 if outcome == "dead_letter" else 0)


def test_quota_gauges_cost_two_queries_whatever_the_number_of_phones(time_machine):
    time_machine.move_to(MONDAY_10, tick=False)

    def collected_with_queries():
        with CaptureQueriesContext(connection) as queries:
            families = {family.name: family for family in metrics.collect()}
        return families, len(queries)

    tenant = make_tenant(time_zone="Europe/Bucharest")
    phones = [make_phone(tenant, daily_limit=150) for _ in range(2)]
    QuotaUsage.objects.create(
        tenant=tenant, phone=phones[0], day=quota_day(tenant), used=37, limit=150
    )
    few, few_queries = collected_with_queries()
    for _ in range(6):
        make_phone(make_tenant(time_zone="America/New_York"))
    many, many_queries = collected_with_queries()
    assert few_queries == many_queries == 2
    used = {s.labels["phone"]: s.value for s in many["cerniq_wa_quota_used"].samples}
    limits = {s.labels["phone"]: s.value for s in many["cerniq_wa_quota_limit"].samples}
    assert used[str(phones[0].pk)] == 37 and used[str(phones[1].pk)] == 0
    assert limits[str(phones[1].pk)] == 150  # no row yet: the phone's own limit
    assert len(used) == 8
    names = {s.labels["name"] for s in many["cerniq_wa_quota_used"].samples}
    assert all("***" in name for name in names)  # numbers masked (these phones have no label)


@responses.activate
def test_the_send_paths_log_lines_carry_message_lead_and_tenant_ids(queued):
    responses.post(SEND_URL, status=401, json=api_body("error_invalid_token.json"))
    with json_lines("outreach.sending") as lines:
        assert send_message(queued.pk).kind == "dead"
    (line,) = [line for line in lines if "DEAD_LETTER" in line["message"]]
    assert line["message_id"] == str(queued.pk)
    assert line["lead_id"] == str(queued.lead_id)
    assert line["tenant_id"] == str(queued.tenant_id)
