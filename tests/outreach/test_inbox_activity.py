"""The inbox's order, "last activity" (hitl.inbox.activity): it moves when a reply comes in
and when a send is recorded, through the real paths; deep keyset pages cover every
conversation once in a fixed number of queries; the expression index the list walks exists
for the rows already there (docs/inbox.md)."""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
import time_machine
from django.db import connection
from django.test.utils import CaptureQueriesContext

from hitl import inbox
from hitl.inbox import InboxQuery
from outreach.models import Channel, Journey, Message
from tests.factories import make_lead, make_message, make_outreach_world

pytestmark = pytest.mark.django_db

NOW = datetime(2026, 11, 23, 10, 0, tzinfo=ZoneInfo("Europe/Bucharest"))


def order(tenant, user, **query) -> list[str]:
    return [lead.name for lead in inbox.page(tenant, user, InboxQuery(**query)).rows]


def written_to(tenant, name: str, minutes_ago: int):
    lead = make_lead(tenant, name=name)
    make_message(lead, status=Message.Status.SENT)
    Journey.objects.filter(lead=lead).update(last_contact_at=NOW - timedelta(minutes=minutes_ago))
    return lead


@time_machine.travel(NOW, tick=False)
def test_an_inbound_reply_moves_the_conversation_to_the_top(tenant, operator):
    from hitl.replies import process_reply

    older = written_to(tenant, "Older", 90)
    written_to(tenant, "Newer", 10)
    assert order(tenant, operator) == ["Newer", "Older"]

    message = make_message(
        older,
        direction=Message.Direction.INBOUND,
        status=Message.Status.RECEIVED,
        idempotency_key=None,
        body="STOP",
    )
    process_reply(older, message)

    assert order(tenant, operator) == ["Older", "Newer"]
    row = inbox.page(tenant, operator, InboxQuery()).rows[0]
    assert row.activity == NOW


def test_a_recorded_send_moves_the_conversation_to_the_top(tenant, operator, settings):
    from outreach.dispatch import dispatch_due
    from outreach.sending import send_message

    settings.PROVIDERS = {
        **settings.PROVIDERS,
        "email.instantly": {"BACKEND": "tests.fakes.FakeEmail"},
    }
    with time_machine.travel(NOW, tick=False):
        world = make_outreach_world(tenant, leads=1, phones=0, channel=Channel.EMAIL_COLD)
        lead = world["leads"][0]
        lead.email_status = "valid"
        lead.name = "Sent to now"
        lead.save()
        dispatch_due(tenant)
        message = Message.objects.get(lead=lead)
        # Before the send is recorded it is not a conversation yet.
        written_to(tenant, "Written yesterday", 60 * 24)
        assert order(tenant, operator) == ["Written yesterday"]

    with time_machine.travel(NOW + timedelta(minutes=5), tick=False):
        assert send_message(message.pk).kind == "sent"

    assert order(tenant, operator) == ["Sent to now", "Written yesterday"]
    assert inbox.page(tenant, operator, InboxQuery()).rows[0].activity == NOW + timedelta(minutes=5)


@time_machine.travel(NOW, tick=False)
def test_the_later_of_reply_and_contact_orders_the_list(tenant, operator):
    replied = written_to(tenant, "Replied 5 min ago, written 2 h ago", 120)
    Journey.objects.filter(lead=replied).update(last_reply_at=NOW - timedelta(minutes=5))
    written_to(tenant, "Written 30 min ago", 30)
    only_reply = make_lead(tenant, name="Only a reply, 1 h ago")
    Journey.objects.filter(lead=only_reply).update(last_reply_at=NOW - timedelta(hours=1))
    make_lead(tenant, name="Never contacted")

    assert order(tenant, operator) == [
        "Replied 5 min ago, written 2 h ago",
        "Written 30 min ago",
        "Only a reply, 1 h ago",
    ]


@time_machine.travel(NOW, tick=False)
def test_deep_pages_cover_every_conversation_once_in_constant_queries(tenant, operator):
    """Ties on the moment, a mix of reply-only, contact-only and both; filtered too."""
    names = []
    for n in range(inbox.PAGE_SIZE * 3 + 7):
        lead = make_lead(tenant, name=f"Ferma {n:03d}")
        moment = NOW - timedelta(minutes=n // 4)
        fields = (
            {"last_contact_at": moment}
            if n % 3 == 0
            else {"last_reply_at": moment}
            if n % 3 == 1
            else {"last_contact_at": moment - timedelta(hours=1), "last_reply_at": moment}
        )
        if n % 2:
            fields["requires_human_review"] = True
            fields["review_priority"] = "HIGH"
        Journey.objects.filter(lead=lead).update(**fields)
        names.append(lead.pk)
    for view, expected in (("all", len(names)), ("review", len(names) // 2)):
        seen: list[int] = []
        moments = []
        sizes = []
        query = InboxQuery(view=view)
        while True:
            with CaptureQueriesContext(connection) as queries:
                page = inbox.page(tenant, operator, query)
            sizes.append(len(queries))
            seen += [row.pk for row in page.rows]
            moments += [(row.activity, row.pk) for row in page.rows]
            if page.next_cursor is None:
                break
            query = InboxQuery(view=view, cursor=page.next_cursor)
        assert len(seen) == len(set(seen)) == expected, view
        assert moments == sorted(moments, reverse=True), view
        # The rows, then their latest messages: none here, so one query a page.
        assert sizes == [1] * len(sizes), sizes


def test_the_expression_index_is_there_for_existing_rows(tenant):
    """An index, not a column: the rows already stored are in it once the migration ran,
    nothing has to fill it."""
    with connection.cursor() as cursor:
        indexes = connection.introspection.get_constraints(cursor, Journey._meta.db_table)
    assert "journey_activity_idx" in indexes
    assert indexes["journey_activity_idx"]["index"]
    assert "journey_review_activity_idx" in indexes


@time_machine.travel(NOW, tick=False)
def test_unread_counts_stop_at_the_cap_in_one_query(tenant, operator, monkeypatch):
    """Counts stop at COUNT_CAP and show as "99+" (here 3 and "2+"): one query for every
    view and channel, one for the badge, one for the phones."""
    monkeypatch.setattr(inbox, "COUNT_CAP", 3)
    for n in range(4):
        lead = written_to(tenant, f"Replied {n}", 60)
        Journey.objects.filter(lead=lead).update(last_reply_at=NOW - timedelta(minutes=n))
    with CaptureQueriesContext(connection) as queries:
        counts = inbox.unread_counts(tenant, operator)
        total = inbox.unread_total(tenant, operator)
        by_phone = inbox.unread_by_phone(tenant, operator, [])
    assert len(queries) == 2  # no phones: no query for them
    assert counts["view:all"] == 3 and str(counts["view:all"]) == "2+"
    assert counts["view:taken"] == 0 and str(counts["view:taken"]) == "0"
    assert total == 3 and str(total) == "2+"
    assert by_phone == {}
    monkeypatch.setattr(inbox, "COUNT_CAP", 100)
    assert inbox.unread_total(tenant, operator) == 4
    assert str(inbox.unread_total(tenant, operator)) == "4"
