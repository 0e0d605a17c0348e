"""Every way a lead is created passes through the one door of the lead rules: the import
(in bulk, with a number of queries that does not grow with the rows), the API and the
leads page's "add a lead"; each new lead is owed one `lead.created` event."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest
import time_machine
from django.db import connection
from django.test.utils import CaptureQueriesContext

from cerniq import api_keys, reasons
from cerniq.models import TenantAPIKey, WebhookDelivery
from outreach.importing import import_rows
from outreach.lead_rules import reasons as codes
from outreach.models import Enrollment, Journey, Lead, LeadRule, RuleFiring
from tests.api.conftest import key_client
from tests.factories import make_phone, make_sequence, make_user, make_webhook_endpoint

# Every test travels to its moment before it makes anything: the clock phase skips them.
pytestmark = pytest.mark.own_moment

BUCHAREST = ZoneInfo("Europe/Bucharest")
TUESDAY_10 = datetime(2026, 11, 24, 10, 0, tzinfo=BUCHAREST)


@pytest.fixture(autouse=True)
def tuesday():
    with time_machine.travel(TUESDAY_10, tick=False):
        yield TUESDAY_10


def rows(count: int, start: int = 0) -> list[dict[str, str]]:
    return [
        {
            "name": f"Ferma {n} SRL",
            "county": "Iași" if n % 2 else "Vaslui",
            "phone": f"+4072{n:07d}",
            "email": f"office{n}@ferma{n}.ro",
        }
        for n in range(start, start + count)
    ]


@pytest.fixture
def rules(tenant):
    """Two rules with every kind of action, and an endpoint that takes lead.created."""
    ana = make_user(tenant, first_name="Ana")
    LeadRule.objects.create(
        tenant=tenant,
        name="Iași",
        position=1,
        county="Iași",
        sequence=make_sequence(tenant),
        operator=ana,
        phone=make_phone(tenant),
        add_tags=["iasi"],
    )
    LeadRule.objects.create(
        tenant=tenant,
        name="The rest",
        position=2,
        add_tags=["rest"],
        sequence=make_sequence(tenant),
    )
    make_webhook_endpoint(tenant, events=["lead.created"])


def queries(tenant, count: int, start: int) -> list[str]:
    with CaptureQueriesContext(connection) as captured:
        assert import_rows(tenant, rows(count, start), source="csv").created == count
    return [q["sql"] for q in captured.captured_queries]


def test_an_import_fires_the_rules_with_queries_that_do_not_grow_with_rows(
    tenant, other_tenant, rules
):
    # What the rules add to an import (the import's own inserts are split by SQLite's
    # parameter limit): the same for 10 rows as for 50.
    plain = len(queries(other_tenant, 50, 500)) - len(queries(other_tenant, 10, 600))
    ruled = queries(tenant, 50, 100), queries(tenant, 10, 0)
    assert len(ruled[0]) - len(ruled[1]) == plain, ruled[0]
    assert len(ruled[1]) > len(queries(other_tenant, 10, 700))  # the rules did cost queries

    assert RuleFiring.objects.filter(tenant=tenant).count() == 60
    assert not RuleFiring.objects.filter(tenant=other_tenant).exists()
    assert set(RuleFiring.objects.values_list("source", flat=True)) == {"import"}
    iasi = Lead.objects.filter(tenant=tenant, county="Iași")
    assert iasi.count() == 30 and all(lead.tags == ["iasi"] for lead in iasi)
    assert Journey.objects.filter(lead__in=iasi, operator__first_name="Ana").count() == 30
    assert Journey.objects.filter(lead__in=iasi, assigned_phone__isnull=False).count() == 30
    assert Enrollment.objects.filter(tenant=tenant, status="ACTIVE").count() == 60
    assert WebhookDelivery.objects.filter(event_type="lead.created").count() == 60


def test_a_re_import_creates_nothing_and_fires_nothing(tenant, rules):
    import_rows(tenant, rows(5), source="csv")
    report = import_rows(tenant, rows(5), source="csv")
    assert report.created == 0 and report.unchanged == 5
    assert RuleFiring.objects.count() == 5
    assert WebhookDelivery.objects.filter(event_type="lead.created").count() == 5


def test_a_dry_run_fires_nothing(tenant, rules):
    import_rows(tenant, rows(5), source="csv", dry_run=True)
    assert not RuleFiring.objects.exists() and not WebhookDelivery.objects.exists()


def test_a_lead_created_over_the_api_is_taken_by_the_rules(tenant, rules):
    admin = make_user(tenant, role="ADMIN")
    _, key = api_keys.create_key(tenant, name="crm", scope=TenantAPIKey.Scope.WRITE, user=admin)
    answer = key_client(key).post(
        "/api/v1/leads/",
        {"name": "Agro Ferma SRL", "county": "Iasi", "phone": "0722 123 456"},
        format="json",
    )
    assert answer.status_code == 201, answer.content
    lead = Lead.objects.get(pk=answer.json()["id"])
    firing = RuleFiring.objects.get(lead=lead)
    assert (firing.rule_name, firing.source) == ("Iași", "api")
    assert lead.tags == ["iasi"] and Enrollment.objects.filter(lead=lead).exists()
    assert answer.json()["tags"] == ["iasi"]  # the answer shows what the rule did


def test_a_lead_added_on_the_page_is_taken_by_the_rules(client, tenant, rules):
    client.force_login(make_user(tenant))
    answer = client.post(
        "/outreach/leads/add/",
        {"name": "Ferma Prutului SRL", "county": "Vaslui", "email": "office@prut.ro"},
    )
    lead = Lead.objects.get(name="Ferma Prutului SRL")
    assert answer.status_code == 302 and answer["Location"] == f"/outreach/leads/{lead.pk}/"
    firing = RuleFiring.objects.get(lead=lead)
    assert (firing.rule_name, firing.source, lead.source) == ("The rest", "page", "page")
    page = client.get(answer["Location"]).content.decode()
    assert "Lead rule The rest: tagged rest" in page  # the message after adding
    assert 'data-rule-firing="' in page and "The rest" in page  # the lead's own history


def test_a_bad_value_on_the_add_page_is_a_form_error_naming_the_field(client, tenant, rules):
    client.force_login(make_user(tenant))
    answer = client.post("/outreach/leads/add/", {"name": "Ferma", "phone": "123"})
    assert answer.status_code == 400
    assert "phone" in answer.context["form"].errors
    assert answer.context["form"]["name"].value() == "Ferma"  # what was typed is kept
    assert not Lead.objects.exists() and not RuleFiring.objects.exists()


def test_the_lead_page_shows_what_a_rule_did_and_refused(client, tenant, rules):
    client.force_login(make_user(tenant))
    import_rows(tenant, rows(1, start=1), source="csv")  # county Iași
    lead = Lead.objects.get()
    page = client.get(f"/outreach/leads/{lead.pk}/").content.decode()
    firing = RuleFiring.objects.get(lead=lead)
    assert [reasons.parse(c)[0] for c in firing.done] == [
        codes.TAGGED,
        codes.OPERATOR,
        codes.PHONE,
        codes.ENROLLED,
    ]
    for stored in firing.done:
        assert reasons.render(stored) in page
    assert "given to Ana" in page
