"""The inbox list's unread counts (hitl.inbox.unread_summary, one SQL query) agree with the
list itself: for every view, channel and phone, the count is the number of unread rows the
list shows there. And the list page costs the same queries however many conversations."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from hitl import inbox, inbox_state, reply_intent
from hitl.inbox import InboxQuery
from hitl.models import ConversationState, ReviewItem
from outreach.models import Channel, Journey, Message
from tests.factories import make_lead, make_message, make_phone, make_user
from tests.outreach.inbox_setup import NOW

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("inbox_moment")]


def inbound(lead, intent: str, channel=Channel.WHATSAPP):
    """A triaged reply, its intent kept on the journey as the reply path keeps it."""
    message = make_message(
        lead,
        channel=channel,
        direction=Message.Direction.INBOUND,
        status=Message.Status.RECEIVED,
        idempotency_key=None,
        body="Răspuns",
        analysis={"triage": {"intent": intent}},
    )
    reply_intent.triaged(message, intent)
    return message


def world(tenant, operator, colleague, phones, start: int, n: int) -> None:
    """`n` conversations with every kind of mark: read, closed, reopened by a reply, marked
    unread, review items assigned to the operator / a colleague / nobody, the review flag
    alone, taken over by either, phones, channels, a hot latest reply and a hot reply
    followed by a plain one."""
    for i in range(start, start + n):
        lead = make_lead(tenant, name=f"Ferma {i:03d}")
        channel = Channel.EMAIL_COLD if i % 3 == 0 else Channel.WHATSAPP
        make_message(lead, channel=channel, status=Message.Status.SENT)
        if i % 5 == 0:
            other = Channel.WHATSAPP if channel != Channel.WHATSAPP else Channel.EMAIL_WARM
            make_message(lead, channel=other, status=Message.Status.SENT)
        replied = NOW - timedelta(minutes=i) if i % 4 != 3 else None
        if replied is not None:
            if i % 7 == 0:  # hot once, then a plain reply: not hot
                inbound(lead, "price_request", channel)
                inbound(lead, "question", channel)
            else:
                inbound(lead, "interested" if i % 6 == 0 else "question", channel)
        fields: dict = {
            "last_contact_at": NOW - timedelta(hours=2, minutes=i),
            "last_reply_at": replied,
            "assigned_phone": phones[i % 4] if i % 4 < len(phones) else None,
        }
        if i % 12 == 5:
            fields.update(taken_over_by=operator, taken_over_at=NOW)
        elif i % 12 == 6:
            fields.update(taken_over_by=colleague, taken_over_at=NOW)
        if i % 5 in (1, 2, 3) or i % 13 == 0:
            fields.update(requires_human_review=True, review_priority="HIGH")
        Journey.objects.filter(lead=lead).update(**fields)
        if i % 5 in (1, 2, 3):
            assignee = {1: operator, 2: colleague, 3: None}[i % 5]
            ReviewItem.objects.create(
                tenant=tenant,
                lead=lead,
                reason="x",
                sla_due_at=NOW + timedelta(hours=4),
                status=ReviewItem.Status.ASSIGNED if assignee else ReviewItem.Status.OPEN,
                assignee=assignee,
            )
        moment = replied or NOW
        state = {
            1: {"last_read_at": moment + timedelta(seconds=1)},  # read
            2: {"closed_at": moment + timedelta(seconds=1)},  # closed since
            3: {"closed_at": moment - timedelta(seconds=1)},  # reopened by the reply
            4: {"last_read_at": None},  # marked unread
        }.get(i % 8)
        if state is not None:
            ConversationState.objects.create(tenant=tenant, user=operator, lead=lead, **state)


def unread_rows(tenant, user, query: InboxQuery) -> int:
    """How many rows of the whole list (every page) are unread for the user."""
    n = 0
    while True:
        found = inbox.page(tenant, user, query)
        n += sum(
            1
            for row in found.rows
            if row.last_reply_at and (row.read_at is None or row.read_at < row.last_reply_at)
        )
        if found.next_cursor is None:
            return n
        query = InboxQuery(**{**query.__dict__, "cursor": found.next_cursor})


@pytest.fixture
def team(tenant, operator):
    colleague = make_user(tenant)
    phones = [make_phone(tenant, label=f"Vânzări {n}") for n in range(3)]
    return colleague, phones


def test_every_count_is_the_number_of_unread_rows_its_list_shows(tenant, operator, team):
    colleague, phones = team
    world(tenant, operator, colleague, phones, 0, 90)

    counts, by_phone = inbox.unread_summary(tenant, operator, [p.pk for p in phones])

    for view in inbox.VIEWS:
        if view == "closed":
            continue
        assert counts[f"view:{view}"] == unread_rows(tenant, operator, InboxQuery(view=view)), view
    for channel in inbox.CHANNELS:
        expected = unread_rows(tenant, operator, InboxQuery(channel=channel))
        assert counts[f"channel:{channel}"] == expected, channel
    for phone in phones:
        assert by_phone[phone.pk] == unread_rows(tenant, operator, InboxQuery(phone=phone.pk))
    # Something in every count (the checks above compare more than zeros).
    assert all(counts[key] > 0 for key in counts), counts
    assert counts["view:hot"] < counts["view:all"]
    # The colleague's own marks, "Mine" and "Taken over by me".
    theirs = inbox.unread_counts(tenant, colleague)
    assert theirs["view:mine"] == unread_rows(tenant, colleague, InboxQuery(view="mine"))
    assert theirs["view:taken"] == unread_rows(tenant, colleague, InboxQuery(view="taken"))
    assert inbox.unread_total(tenant, operator) == counts["view:all"]


def test_the_counts_stop_at_the_cap_whatever_they_count(tenant, operator, team, monkeypatch):
    colleague, phones = team
    world(tenant, operator, colleague, phones, 0, 60)
    exact, exact_phones = inbox.unread_summary(tenant, operator, [p.pk for p in phones])

    monkeypatch.setattr(inbox, "COUNT_CAP", 4)
    counts, by_phone = inbox.unread_summary(tenant, operator, [p.pk for p in phones])

    assert counts == {key: min(n, 4) for key, n in exact.items()}
    assert by_phone == {pk: min(n, 4) for pk, n in exact_phones.items()}
    assert str(counts["view:all"]) == "3+"
    assert inbox.unread_total(tenant, operator) == 4


def test_the_list_page_costs_the_same_queries_with_three_times_the_conversations(
    client, tenant, operator, team
):
    colleague, phones = team
    client.force_login(operator)
    urls = [
        "/outreach/inbox/",
        "/outreach/inbox/?view=hot",
        "/outreach/inbox/?view=mine&channel=email",
        f"/outreach/inbox/?view=review&phone={phones[0].pk}",
        "/outreach/inbox/list/?v=stale",
    ]

    def cost() -> list[int]:
        sizes = []
        for url in urls:
            with CaptureQueriesContext(connection) as queries:
                assert client.get(url).status_code == 200
            sizes.append(len(queries))
        return sizes

    world(tenant, operator, colleague, phones, 0, 30)
    few = cost()
    world(tenant, operator, colleague, phones, 30, 90)
    assert cost() == few
    # The page's own queries: session, user, membership; rows, their latest messages,
    # phones, the counts, the stamp; the alerts badge (the inbox badge is the counts').
    assert few[0] == 9


def test_the_stamp_moves_on_a_take_over_and_its_release(tenant, operator, team):
    lead = make_lead(tenant)
    Journey.objects.filter(lead=lead).update(last_contact_at=NOW)
    before = inbox_state.list_stamp(tenant, operator)
    Journey.objects.filter(lead=lead).update(taken_over_by=operator, taken_over_at=NOW)
    taken = inbox_state.list_stamp(tenant, operator)
    Journey.objects.filter(lead=lead).update(taken_over_by=None, taken_over_at=None)
    assert len({before, taken}) == 2
    assert inbox_state.list_stamp(tenant, operator) == before
