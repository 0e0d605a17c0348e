"""The inbox's conversation list (hitl.inbox): views and their unread counts, unread per
operator, closing and reopening, search, keyset pages, constant queries."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from hitl import inbox, inbox_state, reply_intent
from hitl.inbox import InboxQuery
from hitl.models import ReviewItem
from outreach.models import Channel, Journey, Lead, Message
from tests.factories import make_lead, make_message, make_phone, make_user
from tests.outreach.inbox_setup import NOW

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("inbox_moment")]


def conversation(tenant, *, replied_minutes_ago=None, intent="", channel=Channel.WHATSAPP, **lead):
    """A lead we wrote to an hour ago, that replied `replied_minutes_ago` (None: not yet)."""
    found = make_lead(tenant, **lead)
    make_message(found, channel=channel, status=Message.Status.SENT)
    fields = {"last_contact_at": NOW - timedelta(hours=1)}
    if replied_minutes_ago is not None:
        reply = make_message(
            found,
            channel=channel,
            direction=Message.Direction.INBOUND,
            status=Message.Status.RECEIVED,
            idempotency_key=None,
            body="Cât costă?",
            analysis={"triage": {"intent": intent or "question", "sentiment": 60}},
        )
        reply_intent.triaged(reply, intent or "question")  # as the reply path keeps it
        fields["last_reply_at"] = NOW - timedelta(minutes=replied_minutes_ago)
    Journey.objects.filter(lead=found).update(**fields)
    return found


def shown(tenant, user, **query) -> list[str]:
    page = inbox.page(tenant, user, InboxQuery(**query))
    return [lead.name for lead in page.rows]


def review_item(lead, **kw):
    """An open review item, with the journey's flag hitl.review keeps set beside it."""
    Journey.objects.filter(lead=lead).update(requires_human_review=True, review_priority="HIGH")
    return ReviewItem.objects.create(
        tenant=lead.tenant, lead=lead, reason="x", sla_due_at=NOW + timedelta(hours=4), **kw
    )


def test_views_show_their_conversations_and_count_unread_in_one_query(tenant, operator):
    colleague = make_user(tenant)
    mine = conversation(tenant, replied_minutes_ago=5, name="Assigned to me")
    review_item(mine, status=ReviewItem.Status.ASSIGNED, assignee=operator)
    taken = conversation(tenant, replied_minutes_ago=6, name="Taken by me")
    Journey.objects.filter(lead=taken).update(taken_over_by=operator)
    theirs = conversation(tenant, replied_minutes_ago=7, name="Colleague's")
    review_item(theirs, status=ReviewItem.Status.ASSIGNED, assignee=colleague)
    waiting = conversation(tenant, replied_minutes_ago=8, name="Waiting", intent="price_request")
    review_item(waiting)
    flagged = conversation(tenant, replied_minutes_ago=9, name="Flagged")
    Journey.objects.filter(lead=flagged).update(requires_human_review=True, review_priority="HIGH")
    conversation(tenant, name="Only written to")
    make_lead(tenant, name="Never contacted")

    assert shown(tenant, operator, view="mine") == ["Assigned to me", "Taken by me"]
    assert shown(tenant, operator, view="taken") == ["Taken by me"]
    assert shown(tenant, operator, view="unassigned") == ["Waiting", "Flagged"]
    assert shown(tenant, operator, view="review") == [
        "Assigned to me",
        "Colleague's",
        "Waiting",
        "Flagged",
    ]
    assert shown(tenant, operator, view="hot") == ["Waiting"]
    assert "Never contacted" not in shown(tenant, operator)
    assert shown(tenant, operator)[-1] == "Only written to"  # oldest activity last

    with CaptureQueriesContext(connection) as queries:
        counts = inbox.unread_counts(tenant, operator)
    assert len(queries) == 1
    assert counts["view:all"] == 5
    assert counts["view:mine"] == 2
    assert counts["view:taken"] == 1
    assert counts["view:unassigned"] == 2
    assert counts["view:review"] == 4
    assert counts["view:hot"] == 1
    assert counts["channel:whatsapp"] == 5
    assert counts["channel:email"] == 0
    # The colleague's "mine" is theirs.
    assert inbox.unread_counts(tenant, colleague)["view:mine"] == 1


def test_channel_phone_and_search_narrow_the_list(tenant, operator):
    phone = make_phone(tenant, label="Vânzări 1")
    on_phone = conversation(tenant, replied_minutes_ago=1, name="Agroindustriala Știrbei")
    Journey.objects.filter(lead=on_phone).update(assigned_phone=phone)
    conversation(tenant, replied_minutes_ago=2, name="Ferma Email", channel=Channel.EMAIL_WARM)
    conversation(tenant, replied_minutes_ago=3, name="Ferma WhatsApp")

    assert shown(tenant, operator, channel="email") == ["Ferma Email"]
    assert shown(tenant, operator, channel="whatsapp") == [
        "Agroindustriala Știrbei",
        "Ferma WhatsApp",
    ]
    assert shown(tenant, operator, phone=phone.pk) == ["Agroindustriala Știrbei"]
    # The leads search's rules: the cedilla spelling finds the comma-below name.
    assert shown(tenant, operator, q="Ştirbei") == ["Agroindustriala Știrbei"]
    assert shown(tenant, operator, q=on_phone.phone.replace("+40", "0")) == [
        "Agroindustriala Știrbei"
    ]
    assert inbox.unread_by_phone(tenant, operator, [phone.pk]) == {phone.pk: 1}
    counts = inbox.unread_counts(tenant, operator)
    assert (counts["channel:email"], counts["channel:whatsapp"]) == (1, 2)


def test_unread_is_per_operator(tenant, operator):
    ana = make_user(tenant)
    lead = conversation(tenant, replied_minutes_ago=5)

    inbox_state.mark_read(lead, operator)

    assert inbox.unread_total(tenant, operator) == 0
    assert inbox.unread_total(tenant, ana) == 1
    assert shown(tenant, operator, view="unread") == []
    assert shown(tenant, ana, view="unread") == [lead.name]
    # A new reply after the operator read it: unread again.
    Journey.objects.filter(lead=lead).update(last_reply_at=NOW + timedelta(minutes=1))
    assert inbox.unread_total(tenant, operator) == 1
    # Marked unread by hand: unread whatever the times.
    inbox_state.mark_read(lead, operator, now=NOW + timedelta(minutes=2))
    inbox_state.mark_unread(lead, operator)
    assert inbox.unread_total(tenant, operator) == 1


def test_closing_hides_until_the_next_reply(tenant, operator):
    ana = make_user(tenant)
    lead = conversation(tenant, replied_minutes_ago=5, name="Done for now")
    conversation(tenant, replied_minutes_ago=6, name="Still open")

    inbox_state.close(lead, operator)

    assert shown(tenant, operator) == ["Still open"]
    assert shown(tenant, operator, view="closed") == ["Done for now"]
    assert shown(tenant, ana) == ["Done for now", "Still open"]  # closed for me only
    assert inbox.unread_total(tenant, operator) == 1  # closing reads it

    # The lead writes again: back in the open list, unread.
    Journey.objects.filter(lead=lead).update(last_reply_at=NOW + timedelta(minutes=3))
    assert shown(tenant, operator) == ["Done for now", "Still open"]
    assert shown(tenant, operator, view="closed") == []
    assert inbox.unread_total(tenant, operator) == 2

    inbox_state.close(lead, operator, now=NOW + timedelta(minutes=4))
    inbox_state.reopen(lead, operator)
    assert "Done for now" in shown(tenant, operator)


def test_a_stop_reply_counts_as_a_reply(tenant, operator):
    """An opt-out reply is a reply too: the conversation is unread and on top."""
    from hitl.replies import process_reply

    lead = conversation(tenant, name="Said stop")
    message = make_message(
        lead,
        direction=Message.Direction.INBOUND,
        status=Message.Status.RECEIVED,
        idempotency_key=None,
        body="STOP",
    )
    process_reply(lead, message)
    assert Journey.objects.get(lead=lead).last_reply_at == NOW
    assert inbox.unread_total(tenant, operator) == 1


def test_tenants_never_see_each_other(tenant, other_tenant, operator):
    conversation(other_tenant, replied_minutes_ago=1, name="Charlie's farm")
    assert shown(tenant, operator) == []
    assert inbox.unread_total(tenant, operator) == 0
    assert inbox.unread_counts(tenant, operator)["view:all"] == 0


def test_keyset_pages_walk_the_whole_list_in_constant_queries(tenant, operator):
    leads = []
    for n in range(inbox.PAGE_SIZE * 2 + 5):
        lead = make_lead(tenant, name=f"Ferma {n:03d}")
        make_message(lead)
        leads.append(lead)
    # Some share a moment: the lead id breaks the tie.
    for n, lead in enumerate(leads):
        Journey.objects.filter(lead=lead).update(last_contact_at=NOW - timedelta(minutes=n // 3))
    seen: list[int] = []
    query = InboxQuery()
    sizes = []
    while True:
        with CaptureQueriesContext(connection) as queries:
            page = inbox.page(tenant, operator, query)
        sizes.append(len(queries))
        seen += [lead.pk for lead in page.rows]
        assert all(lead.pk in page.last_messages for lead in page.rows)
        if page.next_cursor is None:
            break
        query = InboxQuery(cursor=page.next_cursor)
    assert sorted(seen) == sorted(lead.pk for lead in leads)
    assert len(seen) == len(set(seen))
    assert sizes == [2, 2, 2]


def test_the_cursor_refuses_what_it_did_not_write():
    assert inbox.Cursor.decode("junk") is None
    assert inbox.Cursor.decode("2026-11-24T10:00:00_0") is None  # no offset, no id
    assert inbox.Cursor.decode("") is None
    cursor = inbox.Cursor(NOW, 42)
    assert inbox.Cursor.decode(cursor.encode()) == cursor


def test_unknown_filter_values_are_ignored(tenant, operator):
    query = InboxQuery.from_params({"view": "nope", "channel": "fax", "phone": "x", "q": " a "})
    assert (query.view, query.channel, query.phone, query.q) == ("all", "", None, "a")
    assert Lead.objects.count() == 0


@pytest.mark.parametrize(
    ("closed_hours_ago", "replied_hours_ago", "closed"),
    [
        (None, 1, False),  # never closed
        (2, None, True),  # closed, no reply ever
        (2, 3, True),  # closed after the latest reply
        (2, 2, True),  # closed at the reply's moment
        (2, 1, False),  # a reply since: open again
    ],
)
def test_a_conversation_is_closed_until_a_reply_comes_after_the_close(
    closed_hours_ago, replied_hours_ago, closed
):
    def ago(hours):
        return None if hours is None else NOW - timedelta(hours=hours)

    assert inbox.is_closed(ago(closed_hours_ago), ago(replied_hours_ago)) is closed
