"""GET /api/v1/lead-rules/: the key's workspace's rules in the order they are tried, with
their conditions, actions and the leads each took in the last 7 days; never another
workspace's; read-only."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest
import schemathesis
import time_machine
from django.core.signals import request_finished, request_started
from django.db import close_old_connections

from cerniq.wsgi import application
from outreach.lead_rules import lead_created
from outreach.models import LeadRule
from tests.factories import make_lead, make_sequence, make_user

pytestmark = pytest.mark.django_db

URL = "/api/v1/lead-rules/"
TUESDAY_10 = datetime(2026, 11, 24, 10, 0, tzinfo=ZoneInfo("Europe/Bucharest"))


def test_the_rules_in_order_with_what_they_took(read_api, tenant, other_tenant):
    sequence = make_sequence(tenant)
    ana = make_user(tenant, username="ana")
    second = LeadRule.objects.create(tenant=tenant, name="Restul", position=2, add_tags=["x"])
    first = LeadRule.objects.create(
        tenant=tenant,
        name="Formular Iași",
        position=1,
        source="lead_ads",
        form_id="F-1",
        county="Iași",
        has_phone="yes",
        sequence=sequence,
        operator=ana,
    )
    LeadRule.objects.create(tenant=other_tenant, name="Not ours", position=1)
    with time_machine.travel(TUESDAY_10, tick=False):
        lead_created(make_lead(tenant, county="Vaslui"), source="api")
        answer = read_api.get(URL)
    assert answer.status_code == 200, answer.content
    body = answer.json()
    assert [rule["id"] for rule in body] == [first.pk, second.pk]
    assert body[0]["conditions"] == {
        "source": "lead_ads",
        "form_id": "F-1",
        "county": "Iași",
        "tags": [],
        "has_phone": True,
        "has_email": None,
    }
    assert body[0]["actions"] == {
        "sequence": sequence.pk,
        "operator": "ana",
        "phone": None,
        "add_tags": [],
    }
    assert [rule["taken_last_7_days"] for rule in body] == [0, 1]


def test_it_is_read_only(api):
    assert api.post(URL, {"name": "x"}, format="json").status_code == 405


def test_without_a_key_it_is_refused(anonymous):
    assert anonymous.get(URL).status_code == 401


def test_the_answer_conforms_to_the_schema(client, tenant, read_key):
    """The schema is honest for this operation: its answer, with every kind of condition
    and action set (the schemathesis runs cover it with the others too)."""
    schema = schemathesis.from_dict(client.get("/api/schema/?format=json").json(), app=application)
    LeadRule.objects.create(
        tenant=tenant,
        name="Formular",
        source="lead_ads",
        form_id="F-1",
        county="Iași",
        tags=["vip"],
        has_phone="no",
        sequence=make_sequence(tenant),
        operator=make_user(tenant),
        add_tags=["formular"],
    )
    LeadRule.objects.create(tenant=tenant, name="Restul", position=2)
    # As Django's test client does: the WSGI handler would close the test's connection.
    for signal in (request_started, request_finished):
        signal.disconnect(close_old_connections)
    try:
        case = schema["/api/v1/lead-rules/"]["GET"].make_case(
            headers={"Authorization": f"Api-Key {read_key}"}
        )
        case.query, case.cookies = {}, {}  # the auth checks try each way of signing in
        response = case.call()
        case.validate_response(response)
    finally:
        for signal in (request_started, request_finished):
            signal.connect(close_old_connections)
    assert response.status_code == 200 and len(response.json) == 2
