"""The review queue page /outreach/review/: tabs, order, SLA countdown and actions."""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from django.db import connection
from django.shortcuts import resolve_url
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import translation

from console.views.review import sla_label
from hitl import review, takeover
from hitl.models import ReviewItem
from outreach.models import Journey, Message, Priority, Stage
from tests.factories import make_lead, make_message, make_outreach_world, make_user

BUCHAREST = ZoneInfo("Europe/Bucharest")
MONDAY_10 = datetime(2026, 11, 23, 10, 0, tzinfo=BUCHAREST)
URL = "/outreach/review/"
ACTIONS = ["assign", "approve", "send", "reject", "take-over", "resolve"]


@pytest.fixture
def web(client, operator):
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = "en"
    client.force_login(operator)
    return client


def inbound(lead, body="Da, sunt interesat. Cât costă?"):
    return make_message(
        lead,
        direction=Message.Direction.INBOUND,
        status=Message.Status.RECEIVED,
        idempotency_key=None,
        body=body,
    )


def open_reply(lead, priority=Priority.HIGH, draft="Bună ziua! Vă trimit oferta.", **kw):
    return review.open_item(
        lead,
        reason="positive reply",
        priority=priority,
        message=inbound(lead),
        draft=draft,
        sentiment=70,
        intent="interested",
        **kw,
    )


def raw_item(lead, priority=Priority.MEDIUM, due=None, **kw):
    """A row straight in the table (fast, and with a chosen due time)."""
    fields = {
        "tenant": lead.tenant,
        "lead": lead,
        "message": inbound(lead),
        "reason": "reply",
        "priority": priority,
        "sla_due_at": due or MONDAY_10 + timedelta(hours=1),
        **kw,
    }
    return ReviewItem.objects.create(**fields)


def status_of(item) -> str:
    item.refresh_from_db()
    return item.status


# --- the page --------------------------------------------------------------------------


def test_the_page_is_mounted_at_outreach_review():
    assert reverse("hitl:review") == URL


def test_anonymous_is_sent_to_login(client, settings, db):
    response = client.get(URL)
    assert response.status_code == 302
    assert response.url.startswith(resolve_url(settings.LOGIN_URL))


def test_anonymous_cannot_act(client, lead):
    item = open_reply(lead)
    response = client.post(reverse("hitl:approve", args=[item.pk]))
    assert response.status_code == 302 and status_of(item) == ReviewItem.Status.OPEN


def test_operator_sees_their_items_not_another_tenants(web, lead, other_tenant):
    open_reply(lead)
    stranger = make_lead(other_tenant, name="Secret Farm SRL")
    raw_item(stranger, priority=Priority.HIGH, reason="not yours")
    response = web.get(URL)
    assert response.status_code == 200
    body = response.content.decode()
    assert lead.name in body and lead.phone in body
    assert "Da, sunt interesat. Cât costă?" in body  # the triggering message
    assert "positive reply" in body and ">Interested<" in body and ">70<" in body  # analysis
    assert "Bună ziua! Vă trimit oferta.</textarea>" in body  # the editable draft
    assert "Secret Farm SRL" not in body and "not yours" not in body


def test_tabs_count_open_items_and_default_to_the_most_urgent_non_empty(web, world, tenant):
    first, second = world["leads"]
    raw_item(first, priority=Priority.HIGH)
    raw_item(second, priority=Priority.HIGH)
    raw_item(first, priority=Priority.LOW)
    done = raw_item(second, priority=Priority.URGENT)
    ReviewItem.objects.filter(pk=done.pk).update(
        status=ReviewItem.Status.RESOLVED, resolved_at=MONDAY_10
    )
    response = web.get(URL)
    assert [(code, count) for code, _, count in response.context["tabs"]] == [
        ("URGENT", 0),
        ("HIGH", 2),
        ("MEDIUM", 0),
        ("LOW", 1),
    ]
    assert response.context["tab"] == "HIGH"
    assert {i.priority for i in response.context["items"]} == {"HIGH"}
    low = web.get(URL, {"tab": "LOW"})
    assert [i.priority for i in low.context["items"]] == ["LOW"]
    assert 'aria-current="page"' in low.content.decode()


def test_items_are_shown_oldest_due_first(web, world):
    first, second = world["leads"]
    later = raw_item(first, due=MONDAY_10 + timedelta(hours=5))
    sooner = raw_item(second, due=MONDAY_10 - timedelta(minutes=30))
    middle = raw_item(first, due=MONDAY_10 + timedelta(hours=2))
    response = web.get(URL, {"tab": "MEDIUM"})
    assert [i.pk for i in response.context["items"]] == [sooner.pk, middle.pk, later.pk]
    body = response.content.decode()
    assert body.index(f'id="item-{sooner.pk}"') < body.index(f'id="item-{middle.pk}"')
    assert body.index(f'id="item-{middle.pk}"') < body.index(f'id="item-{later.pk}"')
    assert "overdue by 30m" in body and "due in 2h 00m" in body and "due in 5h 00m" in body


@translation.override("en")
def test_sla_label():
    assert sla_label(MONDAY_10, MONDAY_10 + timedelta(hours=1, minutes=5)) == (
        True,
        "overdue by 1h 05m",
    )
    assert sla_label(MONDAY_10 + timedelta(days=2, hours=3), MONDAY_10) == (False, "due in 2d 3h")


def test_a_long_tab_is_paged_25_at_a_time_most_urgent_first(web, tenant, clock):
    items = [raw_item(make_lead(tenant), due=MONDAY_10 + timedelta(minutes=n)) for n in range(30)]
    items.reverse()  # created latest-due first, so the order comes from the query

    def shown(query: str) -> list[int]:
        html = web.get(URL + query).content.decode()
        return [int(part.split('"')[0]) for part in html.split('data-item="')[1:]]

    by_due = [item.pk for item in sorted(items, key=lambda i: i.sla_due_at)]
    assert shown("?tab=MEDIUM") == by_due[:25]
    assert shown("?tab=MEDIUM&page=2") == by_due[25:]
    assert shown("?tab=MEDIUM&page=99") == by_due[25:]  # past the end: the last page
    assert shown("?tab=MEDIUM&page=nope") == by_due[:25]
    first = web.get(URL + "?tab=MEDIUM").content.decode()
    assert "Items 1–25 of 30, the most urgent first" in first
    assert 'rel="next" href="?tab=MEDIUM&amp;page=2"' in first and 'rel="prev"' not in first
    second = web.get(URL + "?tab=MEDIUM&page=2").content.decode()
    assert "Items 26–30 of 30" in second and 'rel="next"' not in second


def test_the_page_runs_the_same_queries_for_3_or_25_items(web, tenant, operator, clock):
    def page_queries() -> int:
        with CaptureQueriesContext(connection) as queries:
            assert web.get(URL).status_code == 200
        return len(queries)

    def add(n: int) -> None:
        for i in range(n):
            lead = make_lead(tenant)
            raw_item(
                lead,
                assignee=operator if i % 2 else None,
                status=ReviewItem.Status.ASSIGNED if i % 2 else ReviewItem.Status.OPEN,
            )
            if i % 3 == 0:
                Journey.objects.filter(lead=lead).update(
                    taken_over_by=operator, taken_over_at=MONDAY_10
                )

    add(3)
    few = page_queries()
    add(22)
    many = page_queries()
    assert len(web.get(URL).context["items"]) == 25
    assert many == few


# --- actions ---------------------------------------------------------------------------


def test_approve_sends_the_draft_and_resolves(web, lead, operator):
    item = open_reply(lead)
    response = web.post(reverse("hitl:approve", args=[item.pk]), {"tab": "HIGH"})
    assert response.status_code == 302 and response.url == f"{URL}?tab=HIGH"
    item.refresh_from_db()
    assert item.status == ReviewItem.Status.RESOLVED and item.resolved_by == operator
    sent = Message.objects.get(lead=lead, is_manual=True)
    assert sent.status == Message.Status.QUEUED and sent.body == "Bună ziua! Vă trimit oferta."
    assert sent.sent_by == operator
    page = web.get(response.url)
    assert "is queued" in page.content.decode()


def test_approve_ignores_the_textarea_but_edit_and_send_uses_it(web, lead):
    item = open_reply(lead)
    web.post(
        reverse("hitl:send", args=[item.pk]), {"text": "  Vă sun mâine la 10.  ", "tab": "HIGH"}
    )
    assert status_of(item) == ReviewItem.Status.RESOLVED
    assert Message.objects.get(lead=lead, is_manual=True).body == "Vă sun mâine la 10."
    assert "edited reply" in item.resolution


def test_edit_and_send_refuses_an_empty_reply(web, lead):
    item = open_reply(lead)
    response = web.post(reverse("hitl:send", args=[item.pk]), {"text": "   "}, follow=True)
    assert "The reply is empty." in response.content.decode()
    assert status_of(item) == ReviewItem.Status.OPEN
    assert not Message.objects.filter(lead=lead, is_manual=True).exists()


def test_reject_needs_a_note(web, lead):
    item = open_reply(lead)
    response = web.post(reverse("hitl:reject", args=[item.pk]), {"note": "  "}, follow=True)
    assert response.status_code == 200
    assert "Say why you reject it" in response.content.decode()
    assert status_of(item) == ReviewItem.Status.OPEN
    web.post(reverse("hitl:reject", args=[item.pk]), {"note": "out-of-office reply"})
    assert status_of(item) == ReviewItem.Status.DISMISSED
    assert item.resolution == "out-of-office reply"
    assert not Message.objects.filter(lead=lead, is_manual=True).exists()


def test_resolve_as_dead_moves_the_stage(web, lead):
    item = open_reply(lead)
    web.post(reverse("hitl:resolve", args=[item.pk]), {"stage": "DEAD", "note": "closed"})
    assert status_of(item) == ReviewItem.Status.RESOLVED and item.resolved_stage == Stage.DEAD
    journey = Journey.objects.get(lead=lead)
    assert journey.stage == Stage.DEAD and not journey.requires_human_review


def test_resolve_refuses_another_stage(web, lead):
    item = open_reply(lead)
    response = web.post(reverse("hitl:resolve", args=[item.pk]), {"stage": "COLD"}, follow=True)
    assert "can only close a lead as" in response.content.decode()
    assert status_of(item) == ReviewItem.Status.OPEN


def test_resolve_without_a_stage_keeps_it(web, lead):
    item = open_reply(lead)
    web.post(reverse("hitl:resolve", args=[item.pk]), {"stage": ""})
    assert status_of(item) == ReviewItem.Status.RESOLVED and item.resolved_stage == ""
    assert Journey.objects.get(lead=lead).stage == Stage.COLD


def test_assign_to_me_and_take_over(web, lead, operator):
    item = open_reply(lead)
    web.post(reverse("hitl:assign", args=[item.pk]))
    item.refresh_from_db()
    assert item.status == ReviewItem.Status.ASSIGNED and item.assignee == operator
    web.post(reverse("hitl:take-over", args=[item.pk]))
    assert Journey.objects.get(lead=lead).taken_over_by == operator
    body = web.get(URL).content.decode()
    assert "Assigned to" in body and "Taken over by" in body


def test_a_colleagues_takeover_is_refused_with_their_name(web, lead, tenant):
    item = open_reply(lead)
    colleague = make_user(tenant, first_name="Ana", last_name="Pop")
    takeover.take_over(lead, colleague)
    response = web.post(reverse("hitl:take-over", args=[item.pk]), follow=True)
    assert "Ana Pop took over this conversation" in response.content.decode()


@pytest.mark.parametrize("action", ACTIONS)
def test_another_tenants_item_is_a_404(web, other_tenant, clock, action):
    stranger = make_outreach_world(other_tenant, leads=1, phones=1)["leads"][0]
    item = open_reply(stranger)
    response = web.post(
        reverse(f"hitl:{action}", args=[item.pk]), {"note": "x", "stage": "DEAD", "text": "hi"}
    )
    assert response.status_code == 404
    item.refresh_from_db()
    assert item.status == ReviewItem.Status.OPEN and item.assignee is None
    assert not Message.objects.filter(lead=stranger, is_manual=True).exists()
    assert Journey.objects.get(lead=stranger).taken_over_by is None


@pytest.mark.parametrize("action", ACTIONS)
def test_a_post_without_csrf_is_refused(operator, lead, action):
    item = open_reply(lead)
    client = Client(enforce_csrf_checks=True)
    client.force_login(operator)
    response = client.post(
        reverse(f"hitl:{action}", args=[item.pk]), {"note": "x", "stage": "DEAD", "text": "hi"}
    )
    assert response.status_code == 403
    assert status_of(item) == ReviewItem.Status.OPEN


def test_get_on_an_action_is_not_allowed(web, lead):
    item = open_reply(lead)
    assert web.get(reverse("hitl:approve", args=[item.pk])).status_code == 405
    assert status_of(item) == ReviewItem.Status.OPEN


def test_every_action_on_the_page_posts_to_its_url(web, tenant, clock):
    item = raw_item(make_lead(tenant), priority=Priority.MEDIUM, ai_draft="Bună ziua!")
    html = web.get(URL + "?tab=MEDIUM").content.decode()
    for action in ACTIONS:
        target = reverse(f"hitl:{action}", args=[item.pk])
        assert f'action="{target}"' in html or f'formaction="{target}"' in html, action
