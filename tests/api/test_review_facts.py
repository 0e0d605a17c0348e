"""What the review page shows, in the API too: the intent's label, the sentiment on its
scale, why the item has its priority, the SLA countdown; and the bulk endpoint."""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
import time_machine

from hitl import review
from hitl.models import ReviewItem
from outreach.models import Message, Priority
from tests.factories import make_lead, make_message, make_user

REVIEWS = "/api/v1/reviews/"
MONDAY_10 = datetime(2026, 11, 23, 10, 0, tzinfo=ZoneInfo("Europe/Bucharest"))


@pytest.fixture(autouse=True)
def clock():
    with time_machine.travel(MONDAY_10, tick=False):
        yield


def reply(lead, **kw) -> ReviewItem:
    inbound = make_message(
        lead,
        direction=Message.Direction.INBOUND,
        status=Message.Status.RECEIVED,
        idempotency_key=None,
        body="Cât costă?",
    )
    fields = {"reason": "hitl.route.price", "priority": Priority.HIGH, "message": inbound, **kw}
    return review.open_item(lead, **fields)


def test_an_item_carries_its_facts_in_words(api, tenant):
    item = reply(make_lead(tenant), sentiment=-30, intent="price_request")
    ReviewItem.objects.filter(pk=item.pk).update(sla_due_at=MONDAY_10 + timedelta(minutes=65))
    row = api.get(REVIEWS, HTTP_ACCEPT_LANGUAGE="en").json()["results"][0]
    assert row["intent"] == "price_request" and row["intent_label"] == "Asks for a price"
    assert row["sentiment_score"] == -30
    assert row["sentiment"] == {"score": -30, "tone": "negative", "tone_label": "negative"}
    assert row["priority_reason"] == "Asks for a price"
    assert row["sla_due_in"] == "due in 1h 05m"
    detail = api.get(f"{REVIEWS}{item.pk}/", HTTP_ACCEPT_LANGUAGE="en").json()
    assert (
        detail["intent_label"] == "Asks for a price" and detail["sentiment"]["tone"] == "negative"
    )


def test_no_sentiment_is_null(api, tenant):
    reply(make_lead(tenant))
    row = api.get(REVIEWS).json()["results"][0]
    assert row["sentiment"] is None and row["intent_label"] == ""


def test_bulk_resolves_each_and_reports_the_refused(api, tenant, other_tenant):
    mine = [reply(make_lead(tenant)) for _ in range(3)]
    colleague = make_user(tenant, first_name="Ana", last_name="Pop")
    review.assign(mine[0], colleague)
    theirs = reply(make_lead(other_tenant))
    response = api.post(
        f"{REVIEWS}bulk/",
        {"action": "resolve", "items": [*(i.pk for i in mine), theirs.pk]},
        format="json",
        HTTP_ACCEPT_LANGUAGE="en",
    )
    assert response.status_code == 200, response.json()
    body = response.json()
    assert body["done"] == [mine[1].pk, mine[2].pk]
    assert [r["id"] for r in body["refused"]] == [theirs.pk, mine[0].pk]
    assert body["summary"].startswith("2 resolved, 2 refused:")
    theirs.refresh_from_db()
    assert theirs.status == ReviewItem.Status.OPEN


@pytest.mark.parametrize(
    "data",
    [
        {"action": "explode", "items": [1]},
        {"action": "resolve", "items": []},
        {"action": "assign", "items": [1]},
        {"action": "resolve", "items": ["x"]},
    ],
)
def test_bulk_bad_input_is_a_400_naming_the_field(api, tenant, data):
    item = reply(make_lead(tenant))
    response = api.post(f"{REVIEWS}bulk/", data, format="json")
    assert response.status_code == 400
    assert response.json()["error"]["fields"]
    item.refresh_from_db()
    assert item.status == ReviewItem.Status.OPEN


def test_bulk_assign_only_to_a_member(api, tenant, other_tenant):
    item = reply(make_lead(tenant))
    stranger = make_user(other_tenant)
    response = api.post(
        f"{REVIEWS}bulk/",
        {"action": "assign", "items": [item.pk], "assignee": stranger.pk},
        format="json",
    )
    assert response.status_code == 400 and "assignee" in response.json()["error"]["fields"]
    ana = make_user(tenant)
    response = api.post(
        f"{REVIEWS}bulk/",
        {"action": "assign", "items": [item.pk], "assignee": ana.pk},
        format="json",
    )
    assert response.json()["done"] == [item.pk]
    item.refresh_from_db()
    assert item.assignee == ana
