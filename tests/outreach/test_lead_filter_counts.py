"""The leads list counts a journey-only filter on the journeys alone
(outreach.lead_filters.count_from_journeys): the same number the joined query gives, for
every such filter; the leads themselves when a filter reads the lead."""

from __future__ import annotations

import itertools

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from outreach.lead_filters import count_from_journeys, filter_leads
from outreach.models import Journey, Lead, Stage
from tests.factories import make_lead, make_phone, make_sequence, make_tenant

pytestmark = pytest.mark.django_db

JOURNEY_FILTERS = {
    "stage": ["", Stage.COLD, Stage.WARM_REPLY],
    "channel": ["", "WHATSAPP", "EMAIL_COLD"],
    "phone": ["", "first"],
    "sequence": ["", "first"],
    "review": ["", "1", "0"],
    "opted_out": ["", "any", "whatsapp", "email", "none"],
}


@pytest.fixture
def leads(tenant):
    """Twelve leads with a spread of journeys, two without one, and another tenant's."""
    phones = [make_phone(tenant), make_phone(tenant)]
    sequence = make_sequence(tenant)
    stages = [Stage.COLD, Stage.WARM_REPLY, Stage.CONTACTED_WA]
    for n in range(12):
        lead = make_lead(tenant)
        Journey.objects.filter(lead=lead).update(
            stage=stages[n % 3],
            last_channel=["WHATSAPP", "EMAIL_COLD", ""][n % 3],
            assigned_phone=phones[n % 2] if n % 4 else None,
            current_sequence=sequence if n % 3 == 0 else None,
            requires_human_review=n % 5 == 0,
            review_priority="HIGH" if n % 5 == 0 else "",
            whatsapp_opted_out=n % 4 == 1,
            email_opted_out=n % 6 == 2,
        )
    make_lead(tenant, with_journey=False)
    make_lead(tenant, with_journey=False)
    other = make_tenant()
    make_lead(other, with_journey=True)
    return {"phone": str(phones[0].pk), "sequence": str(sequence.pk)}


def test_a_journey_only_filter_counts_what_the_joined_query_finds(tenant, leads):
    names = list(JOURNEY_FILTERS)
    checked = 0
    for values in itertools.product(*JOURNEY_FILTERS.values()):
        params = {
            name: leads.get(name) if value == "first" else value
            for name, value in zip(names, values, strict=True)
            if value
        }
        expected = filter_leads(Lead.objects.filter(tenant=tenant), params).count()
        fast = count_from_journeys(tenant.pk, params)
        if params:
            assert fast == expected, params
            checked += 1
        else:
            assert fast is None  # no filter: the leads are counted (leads without journeys)
    assert checked > 500


@pytest.mark.parametrize(
    "params",
    [
        {"stage": Stage.COLD, "county": "Iași"},
        {"review": "1", "q": "agro"},
        {"stage": Stage.COLD, "email_status": "valid"},
        {"stage": Stage.COLD, "contactable": "true"},
        {"stage": Stage.COLD, "stalled": "false"},
        {"phone": "none"},  # a lead without a journey has no phone either
        {"sequence": "none"},
        {"stage": "NOT_A_STAGE"},  # ignored, as the list ignores it
    ],
)
def test_a_filter_on_the_lead_or_on_a_missing_journey_counts_the_leads(tenant, leads, params):
    assert count_from_journeys(tenant.pk, params) is None


def test_the_leads_page_counts_a_phone_filter_without_joining_the_leads(
    client, operator, tenant, leads
):
    client.force_login(operator)
    with CaptureQueriesContext(connection) as ctx:
        html = client.get("/outreach/leads/", {"phone": leads["phone"]}).content.decode()
    counts = [q["sql"] for q in ctx.captured_queries if "COUNT(*)" in q["sql"]]
    assert any('FROM "outreach_journey"' in sql and "outreach_lead" not in sql for sql in counts)
    expected = filter_leads(Lead.objects.filter(tenant=tenant), {"phone": leads["phone"]})
    assert html.count('<tr data-lead="') == expected.count() > 0
