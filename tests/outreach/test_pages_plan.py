"""The plan page: the next working day's counts, the waiting reasons, filters, isolation."""

from __future__ import annotations

import time_machine
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from outreach.models import Journey, Sequence
from tests.factories import make_outreach_world, make_phone
from tests.outreach.test_plan_preview import FRIDAY_EVENING, WEDNESDAY_OPENING, build_world


def test_the_page_shows_the_day_the_counts_and_why_leads_wait(client, operator, tenant):
    build_world(tenant, WEDNESDAY_OPENING)
    with time_machine.travel(FRIDAY_EVENING, tick=False):
        client.force_login(operator)  # at the moment used: a session lasts two weeks
        response = client.get(reverse("outreach:plan"))
    page = response.content.decode()
    assert response.status_code == 200
    assert "Wednesday, 2 Dec 2026, window 09:00–18:00" in page
    assert "<td data-first>8</td>" in page and "<td data-follow-ups>2</td>" in page
    assert "a colleague took the conversation over" in page
    assert "the lead is held for human review" in page
    assert "today&#x27;s WhatsApp limit is reached" in page or "WhatsApp limit is reached" in page


def test_romanian_page(client, operator, tenant):
    build_world(tenant, WEDNESDAY_OPENING)
    with time_machine.travel(FRIDAY_EVENING, tick=False):
        client.force_login(operator)  # at the moment used: a session lasts two weeks
        response = client.get(reverse("outreach:plan"), HTTP_ACCEPT_LANGUAGE="ro")
    assert "miercuri, 02.12.2026" in response.content.decode().lower()


def test_empty_state_says_nothing_goes_out(client, operator, tenant):
    with time_machine.travel(FRIDAY_EVENING, tick=False):
        client.force_login(operator)  # at the moment used: a session lasts two weeks
        page = client.get(reverse("outreach:plan")).content.decode()
    assert "data-plan-empty" in page and "Nothing will go out on Wednesday, 2 Dec 2026" in page


def test_another_workspaces_sequence_is_a_form_error(client, operator, tenant, other_tenant):
    theirs = make_outreach_world(other_tenant, leads=1)["sequence"]
    with time_machine.travel(FRIDAY_EVENING, tick=False):
        client.force_login(operator)  # at the moment used: a session lasts two weeks
        response = client.get(reverse("outreach:plan"), {"sequence": theirs.pk, "phone": "x"})
    assert response.status_code == 400
    page = response.content.decode()
    assert 'data-field-error="sequence"' in page and 'data-field-error="phone"' in page
    assert theirs.name not in page


def test_filter_by_sequence_and_links(client, operator, tenant):
    build_world(tenant, WEDNESDAY_OPENING)
    mail = Sequence.objects.get(tenant=tenant, name="Email")
    with time_machine.travel(FRIDAY_EVENING, tick=False):
        client.force_login(operator)  # at the moment used: a session lasts two weeks
        page = client.get(reverse("outreach:plan"), {"sequence": mail.pk}).content.decode()
        assert "<td data-total>2</td>" in page
        for name in ("outreach:dashboard", "outreach:sequences", "outreach:phones"):
            assert reverse("outreach:plan") in client.get(reverse(name)).content.decode()


def test_queries_per_page_do_not_grow(client, operator, tenant):
    world = make_outreach_world(tenant, leads=10)
    with time_machine.travel(FRIDAY_EVENING, tick=False):
        client.force_login(operator)  # at the moment used: a session lasts two weeks
        with CaptureQueriesContext(connection) as small:
            client.get(reverse("outreach:plan"))
        make_outreach_world(tenant, leads=190, phones=0)
        make_phone(tenant)
        Journey.objects.filter(lead__in=world["leads"]).update(next_action_at=FRIDAY_EVENING)
        with CaptureQueriesContext(connection) as big:
            assert client.get(reverse("outreach:plan")).status_code == 200
    assert len(big.captured_queries) == len(small.captured_queries)
