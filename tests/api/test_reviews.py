"""The Reviews endpoints: tenant scoping, filters, the page's actions through hitl.review
(refusals as 409 with the reason, nothing changed), constant queries on the list."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from hitl import review
from hitl.models import ReviewItem
from outreach.models import Journey, Message, Priority, Stage
from tests.factories import make_lead, make_message, make_phone, make_user

REVIEWS = "/api/v1/reviews/"
DRAFT = "Bună ziua! Vă trimit oferta."


def review_url(item: ReviewItem, suffix: str = "") -> str:
    return f"{REVIEWS}{item.pk}/{suffix}"


def open_reply(lead, priority=Priority.HIGH, draft=DRAFT) -> ReviewItem:
    inbound = make_message(
        lead,
        direction=Message.Direction.INBOUND,
        status=Message.Status.RECEIVED,
        idempotency_key=None,
        body="Da, sunt interesat. Cât costă?",
    )
    return review.open_item(
        lead, reason="positive reply", priority=priority, message=inbound, draft=draft
    )


@pytest.fixture
def item(tenant) -> ReviewItem:
    make_phone(tenant)
    return open_reply(make_lead(tenant))


def _ids(response) -> list[int]:
    return [row["id"] for row in response.json()["results"]]


ACTIONS = ["assign/", "approve/", "send/", "reject/", "resolve/"]


@pytest.mark.parametrize("suffix", ["", *ACTIONS])
def test_another_tenants_item_is_404_and_unchanged(api, other_tenant, suffix):
    theirs = open_reply(make_lead(other_tenant))
    send = api.post if suffix else api.get
    response = send(review_url(theirs, suffix), {"text": "x", "note": "x"}, format="json")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"
    theirs.refresh_from_db()
    assert theirs.status == ReviewItem.Status.OPEN


@pytest.mark.parametrize("suffix", ["", *ACTIONS])
def test_every_review_endpoint_needs_a_key(anonymous, item, suffix):
    send = anonymous.post if suffix else anonymous.get
    assert send(review_url(item, suffix)).status_code == 401


@pytest.mark.parametrize("suffix", ACTIONS)
def test_a_read_key_cannot_act(read_api, item, suffix):
    response = read_api.post(review_url(item, suffix), {"text": "x", "note": "x"}, format="json")
    assert response.status_code == 403
    item.refresh_from_db()
    assert item.status == ReviewItem.Status.OPEN


def test_list_is_the_tenants_items_in_queue_order_with_filters(api, tenant, other_tenant):
    low = open_reply(make_lead(tenant), Priority.LOW)
    urgent = open_reply(make_lead(tenant), Priority.URGENT)
    late = open_reply(make_lead(tenant), Priority.MEDIUM)
    ReviewItem.objects.filter(pk=late.pk).update(sla_due_at=timezone.now() - timedelta(hours=1))
    done = open_reply(make_lead(tenant), Priority.URGENT)
    review.reject(done, make_user(tenant), "spam")
    operator = make_user(tenant)
    review.assign(low, operator)
    open_reply(make_lead(other_tenant))
    assert _ids(api.get(REVIEWS)) == [late.pk, urgent.pk, done.pk, low.pk]
    assert _ids(api.get(REVIEWS, {"priority": "URGENT"})) == [urgent.pk, done.pk]
    open_queue = api.get(f"{REVIEWS}?status=OPEN&status=ASSIGNED")
    assert _ids(open_queue) == [late.pk, urgent.pk, low.pk]
    assert _ids(api.get(REVIEWS, {"status": "DISMISSED"})) == [done.pk]
    assert _ids(api.get(REVIEWS, {"assignee": operator.pk})) == [low.pk]
    assert low.pk not in _ids(api.get(REVIEWS, {"assignee": "none"}))
    breached = api.get(REVIEWS, {"sla_breached": "true"})
    assert _ids(breached) == [late.pk]
    assert breached.json()["results"][0]["sla_breached"] is True
    assert late.pk not in _ids(api.get(REVIEWS, {"sla_breached": "false"}))


def test_a_bad_filter_value_is_400_naming_it(api, tenant):
    response = api.get(REVIEWS, {"priority": "NOW", "status": "GONE", "assignee": "ana"})
    assert response.status_code == 400
    assert set(response.json()["error"]["fields"]) == {"priority", "status", "assignee"}


def _list_queries(api, size: int) -> int:
    with CaptureQueriesContext(connection) as queries:
        response = api.get(REVIEWS, {"page_size": size, "status": "ASSIGNED"})
    assert response.status_code == 200
    assert len(response.json()["results"]) == size
    return len(queries)


def test_list_queries_do_not_grow_with_the_page_size(api, tenant):
    operator = make_user(tenant)
    for _ in range(20):
        review.assign(open_reply(make_lead(tenant)), operator)
    api.get(REVIEWS)  # the key's first use of the minute also records last_used_at
    assert _list_queries(api, 3) == _list_queries(api, 20)


def test_retrieve_has_the_message_analysis_and_draft(api, item):
    body = api.get(review_url(item)).json()
    assert body["message"]["body"] == "Da, sunt interesat. Cât costă?"
    assert (body["ai_draft"], body["status"], body["priority"]) == (DRAFT, "OPEN", "HIGH")
    assert body["lead"]["id"] == item.lead_id


def test_assign_to_the_keys_creator_or_a_member(api, item, tenant, tenant_admin, other_tenant):
    mine = api.post(review_url(item, "assign/"))
    assert mine.status_code == 200
    assert (mine.json()["status"], mine.json()["assignee"]["id"]) == ("ASSIGNED", tenant_admin.pk)
    ana = make_user(tenant, first_name="Ana", last_name="Pop")
    theirs = api.post(review_url(item, "assign/"), {"assignee": ana.pk}, format="json")
    assert theirs.json()["assignee"] == {"id": ana.pk, "name": "Ana Pop"}
    outsider = make_user(other_tenant)
    refused = api.post(review_url(item, "assign/"), {"assignee": outsider.pk}, format="json")
    assert refused.status_code == 400
    assert list(refused.json()["error"]["fields"]) == ["assignee"]
    item.refresh_from_db()
    assert item.assignee == ana


def test_approve_sends_the_draft_and_resolves(api, item, tenant_admin):
    response = api.post(review_url(item, "approve/"))
    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["review"]["status"] == "RESOLVED"
    assert body["review"]["resolved_by"]["id"] == tenant_admin.pk
    message = Message.objects.get(pk=body["message"]["id"])
    assert (message.body, message.is_manual, message.sent_by) == (DRAFT, True, tenant_admin)
    assert not Journey.objects.get(lead=item.lead).requires_human_review


def test_edit_and_send_sends_the_text(api, item):
    response = api.post(review_url(item, "send/"), {"text": "  Vă sun mâine.  "}, format="json")
    assert response.status_code == 201
    assert response.json()["message"]["body"] == "Vă sun mâine."
    assert "edited reply" in response.json()["review"]["resolution"]


def test_edit_and_send_needs_text(api, item):
    response = api.post(review_url(item, "send/"), {"text": ""}, format="json")
    assert response.status_code == 400
    assert list(response.json()["error"]["fields"]) == ["text"]


def test_a_refused_send_is_409_with_the_reason_and_changes_nothing(api, item):
    Journey.objects.filter(lead=item.lead).update(whatsapp_opted_out=True)
    response = api.post(review_url(item, "approve/"))
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "review_refused"
    assert "opted out of WhatsApp" in response.json()["error"]["message"]
    item.refresh_from_db()
    assert item.status == ReviewItem.Status.OPEN
    assert not Message.objects.filter(lead=item.lead, is_manual=True).exists()


def test_an_item_assigned_to_someone_else_is_409_naming_them(api, item, tenant):
    review.assign(item, make_user(tenant, first_name="Ana", last_name="Pop"))
    for suffix, body in [("approve/", {}), ("reject/", {"note": "no"}), ("resolve/", {})]:
        response = api.post(review_url(item, suffix), body, format="json")
        assert response.status_code == 409
        assert "assigned to Ana Pop" in response.json()["error"]["message"]
    item.refresh_from_db()
    assert item.status == ReviewItem.Status.ASSIGNED


def test_reject_needs_a_note_and_closes_without_sending(api, item):
    missing = api.post(review_url(item, "reject/"), {}, format="json")
    assert missing.status_code == 400
    assert list(missing.json()["error"]["fields"]) == ["note"]
    response = api.post(review_url(item, "reject/"), {"note": "spam"}, format="json")
    assert response.status_code == 200
    assert (response.json()["status"], response.json()["resolution"]) == ("DISMISSED", "spam")
    assert not Message.objects.filter(lead=item.lead, is_manual=True).exists()
    again = api.post(review_url(item, "reject/"), {"note": "spam"}, format="json")
    assert again.status_code == 409
    assert "already dismissed" in again.json()["error"]["message"]


def test_resolve_with_a_stage(api, item):
    response = api.post(
        review_url(item, "resolve/"), {"stage": "DEAD", "note": "closed"}, format="json"
    )
    assert response.status_code == 200
    assert (response.json()["status"], response.json()["resolved_stage"]) == ("RESOLVED", "DEAD")
    assert Journey.objects.get(lead=item.lead).stage == Stage.DEAD


def test_resolve_refuses_a_stage_a_review_cannot_set(api, item):
    response = api.post(review_url(item, "resolve/"), {"stage": "COLD"}, format="json")
    assert response.status_code == 400
    assert list(response.json()["error"]["fields"]) == ["stage"]


def test_an_illegal_move_is_409_and_leaves_the_item_open(api, item):
    response = api.post(review_url(item, "resolve/"), {"stage": "CONVERTED"}, format="json")
    assert response.status_code == 409
    assert "Cannot move a lead from Cold to Converted" in response.json()["error"]["message"]
    item.refresh_from_db()
    assert item.status == ReviewItem.Status.OPEN
