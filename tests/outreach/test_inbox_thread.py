"""The inbox thread's cost (issue #21): the same queries whatever the thread's length and
content (attachments, notes, stage changes, AI readings, emails), a poll stamp that moves
with everything the thread shows, and the composer's one-statement reading of the lead's
latest messages agreeing with the queries the send path makes."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
import time_machine
from django.db import connection
from django.test.utils import CaptureQueriesContext

from hitl import inbox_state
from hitl.models import ConversationState, Note, ReplyTriage, ReviewItem
from outreach import stages
from outreach.manual_checks import _chat_phones, _inbound, email_subjects, latest
from outreach.models import Channel, Journey, Message, MessageAttachment, Stage
from tests.factories import make_lead, make_message, make_phone, make_template, make_user
from tests.outreach.inbox_setup import INBOX, NOW

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("inbox_moment")]


def busy_thread(tenant, operator, n: int):
    """A lead with `n` messages of every kind the thread shows, with notes and stage
    changes between them."""
    phone = make_phone(tenant, label="Vânzări")
    version = make_template(tenant).versions.get()
    lead = make_lead(tenant, email="ion@ferma.ro")
    journey = Journey.objects.get(lead=lead)
    start = NOW - timedelta(days=2)
    for i in range(n):
        with time_machine.travel(start + timedelta(minutes=7 * i), tick=False):
            if i % 3 == 0:
                make_message(
                    lead,
                    direction=Message.Direction.INBOUND,
                    status=Message.Status.RECEIVED,
                    idempotency_key=None,
                    channel=Channel.EMAIL_COLD if i % 2 else Channel.WHATSAPP,
                    phone=phone,
                    subject="Re: ofertă" if i % 2 else "",
                    body=f"răspuns {i}\na doua linie",
                    analysis={"triage": {"intent": "price_request", "sentiment": 60}},
                )
                continue
            message = make_message(
                lead,
                channel=Channel.EMAIL_WARM if i % 2 else Channel.WHATSAPP,
                status=[Message.Status.READ, Message.Status.FAILED][i % 2],
                phone=phone,
                error="not on WhatsApp" if i % 2 else "",
                is_manual=bool(i % 4 == 1),
                sent_by=operator if i % 4 == 1 else None,
                template_version=version if i % 4 == 2 else None,
                raw_request={"sender": "vanzari@cerniq.ro"},
                body=f"mesaj {i}",
            )
            if i % 5 == 1:
                MessageAttachment.objects.create(
                    message=message,
                    file="x.pdf",
                    filename=f"oferta-{i}.pdf",
                    content_type="application/pdf",
                    size=4096,
                )
            if i % 11 == 2:
                Note.objects.create(tenant=tenant, lead=lead, author=operator, body=f"notă {i}")
            if i == 4:
                stages.transition(journey, Stage.CONTACTED_WA, reason="sent", by_system="send")
    Journey.objects.filter(lead=lead).update(
        last_contact_at=NOW - timedelta(hours=1), last_reply_at=NOW - timedelta(hours=2)
    )
    return lead


def _count(client, url: str) -> tuple[int, str]:
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
    assert response.status_code == 200
    return len(queries), response.content.decode()


def _earlier(html: str) -> str:
    found = re.search(r'class="thread-earlier"><button[^>]*hx-get="([^"]+)"', html)
    assert found is not None
    return found.group(1).replace("&amp;", "&")


def test_the_thread_costs_the_same_queries_whatever_its_length_and_content(
    logged_in, tenant, operator
):
    short = busy_thread(tenant, operator, 4)
    long = busy_thread(tenant, operator, 160)

    page_short, _html = _count(logged_in, f"{INBOX}{short.pk}/")
    page_long, html = _count(logged_in, f"{INBOX}{long.pk}/")
    assert page_short == page_long
    assert html.count("data-message=") == 50 and "data-attachment" in html

    poll_short, _html = _count(logged_in, f"{INBOX}{short.pk}/timeline/")
    poll_long, html = _count(logged_in, f"{INBOX}{long.pk}/timeline/")
    assert poll_short == poll_long
    # The session, its user and workspace, the lead, the stamp, the read mark, then the
    # messages, their files, the stage changes and the notes: nothing per message.
    assert poll_long <= 10

    earlier, older = _count(logged_in, _earlier(html))
    earliest, oldest = _count(logged_in, _earlier(older))
    assert earlier == earliest and oldest.count("data-message=") == 50


def test_the_poll_stamp_moves_with_everything_the_thread_shows(tenant, operator):
    lead = busy_thread(tenant, operator, 3)
    journey = Journey.objects.get(lead=lead)
    message = Message.objects.filter(lead=lead, direction="OUT").first()
    reply = Message.objects.filter(lead=lead, direction="IN").first()
    seen = {inbox_state.thread_stamp(lead)}

    def moved() -> bool:
        stamp = inbox_state.thread_stamp(lead)
        new = stamp not in seen
        seen.add(stamp)
        return new

    assert not moved()  # reading it changes nothing
    inbox_state.mark_read(lead, operator)
    assert not moved()  # nor does my read mark (the list's stamp has it)
    with time_machine.travel(NOW + timedelta(minutes=1), tick=False):
        make_message(lead, body="încă unul")
    assert moved()
    Message.objects.filter(pk=message.pk).update(delivered_at=NOW + timedelta(minutes=2))
    assert moved()
    Message.objects.filter(pk=message.pk).update(read_at=NOW + timedelta(minutes=3))
    assert moved()
    Message.objects.filter(pk=message.pk).update(failed_at=NOW + timedelta(minutes=4))
    assert moved()
    Message.objects.filter(pk=message.pk).update(sent_at=NOW + timedelta(minutes=5))
    assert moved()
    ReplyTriage.objects.create(
        tenant=tenant, lead=lead, message=reply, queued_at=NOW, triaged_at=NOW
    )
    assert moved()
    with time_machine.travel(NOW + timedelta(minutes=7), tick=False):
        stages.transition(journey, Stage.CONTACTED_WA, reason="sent", by_system="send")
    assert moved()
    with time_machine.travel(NOW + timedelta(minutes=8), tick=False):
        Note.objects.create(tenant=tenant, lead=lead, author=operator, body="sună-l")
    assert moved()
    ReviewItem.objects.create(
        tenant=tenant, lead=lead, message=reply, reason="test", sla_due_at=NOW
    )
    assert moved()
    Journey.objects.filter(lead=lead).update(taken_over_by=make_user(tenant))
    assert moved()


def test_opening_the_thread_reads_it_in_one_statement_and_says_closed(tenant, operator):
    lead = busy_thread(tenant, operator, 2)
    assert inbox_state.mark_read(lead, operator) is None  # the row is created
    state = ConversationState.objects.get(user=operator, lead=lead)
    assert state.last_read_at == NOW and state.tenant_id == tenant.pk and state.closed_at is None
    inbox_state.close(lead, operator, now=NOW - timedelta(minutes=5))
    later = NOW + timedelta(minutes=1)
    with CaptureQueriesContext(connection) as queries:
        closed_at = inbox_state.mark_read(lead, operator, now=later)
    assert len(queries) == 1 and closed_at == NOW - timedelta(minutes=5)
    state.refresh_from_db()
    assert state.last_read_at == later and state.closed_at == closed_at
    assert ConversationState.objects.filter(lead=lead).count() == 1


def test_the_composers_latest_agrees_with_the_send_paths_queries(tenant, operator):
    lead = make_lead(tenant)
    empty = latest(lead)
    assert (empty.channel, empty.subject, empty.chat_phone) == (None, None, None)

    phone, other = make_phone(tenant), make_phone(tenant)
    with time_machine.travel(NOW - timedelta(hours=3), tick=False):
        make_message(lead, phone=phone, status=Message.Status.DELIVERED)
        make_message(
            lead,
            direction=Message.Direction.INBOUND,
            status=Message.Status.RECEIVED,
            idempotency_key=None,
            channel=Channel.EMAIL_WARM,
            subject="Ofertă tractor",
        )
    with time_machine.travel(NOW - timedelta(hours=2), tick=False):
        make_message(lead, phone=other, status=Message.Status.FAILED)  # never went out
        make_message(
            lead,
            direction=Message.Direction.INBOUND,
            status=Message.Status.RECEIVED,
            idempotency_key=None,
            channel=Channel.EMAIL_COLD,
            subject="",
        )
        make_message(
            lead,
            direction=Message.Direction.INBOUND,
            status=Message.Status.RECEIVED,
            idempotency_key=None,
            channel=Channel.WHATSAPP,
        )

    found = latest(lead)
    assert found.channel == _inbound(lead).values_list("channel", flat=True).first()
    assert found.channel == Channel.WHATSAPP
    assert found.subject == email_subjects(lead).first() == "Ofertă tractor"
    assert found.chat_phone == _chat_phones(lead).first() == phone.pk
