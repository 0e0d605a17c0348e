"""The first human response to a reply (hitl.responses), measured in working time."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from io import StringIO
from zoneinfo import ZoneInfo

import pytest
import time_machine
from django.core.management import call_command

from hitl import review
from hitl.models import ReplyResponse
from hitl.replies import process_reply
from outreach.manual import queue_reply, send_manual
from outreach.models import Message, Priority
from outreach.recording import ECHO_MARK
from tests.factories import make_message, make_outreach_world, make_user

BUCHAREST = ZoneInfo("Europe/Bucharest")


def at(*args: int) -> datetime:
    return datetime(*args, tzinfo=BUCHAREST)


FRIDAY_1730 = at(2026, 11, 27, 17, 30)  # before Sf. Andrei (Mon) and Ziua Națională (Tue)
WEDNESDAY_0930 = at(2026, 12, 2, 9, 30)


@pytest.fixture
def clock():
    with time_machine.travel(FRIDAY_1730, tick=False) as traveller:
        yield traveller


@pytest.fixture
def lead(tenant, clock):
    return make_outreach_world(tenant, leads=1, phones=1)["leads"][0]


def reply(lead, body="Da, sunt interesat. Cât costă?") -> Message:
    message = make_message(
        lead,
        direction=Message.Direction.INBOUND,
        status=Message.Status.RECEIVED,
        idempotency_key=None,
        body=body,
    )
    process_reply(lead, message)
    return message


def waiting(lead) -> ReplyResponse:
    return ReplyResponse.objects.get(lead=lead, responded_at__isnull=True)


def test_weekend_and_public_holidays_count_no_working_time(lead, operator, clock):
    message = reply(lead)
    clock.move_to(WEDNESDAY_0930)
    answer = send_manual(lead, "Bună ziua! Vă trimit oferta.", user=operator)
    row = ReplyResponse.objects.get(reply=message)
    # Friday 17:30–18:00 and Wednesday 09:00–09:30: one working hour in five days.
    assert row.working_seconds == 3600
    assert row.kind == ReplyResponse.Kind.ANSWERED
    assert row.responder == operator and row.answer == answer
    assert row.responded_at == WEDNESDAY_0930 and row.local_day == date(2026, 11, 27)


def test_a_second_manual_message_does_not_change_the_first_response(lead, operator, clock):
    message = reply(lead)
    clock.move_to(at(2026, 12, 2, 10, 0))
    send_manual(lead, "Revin cu oferta.", user=operator)
    clock.move_to(at(2026, 12, 2, 15, 0))
    send_manual(lead, "Oferta atașată.", user=make_user(lead.tenant))
    row = ReplyResponse.objects.get(reply=message)
    assert row.working_seconds == 30 * 60 + 60 * 60 and row.responder == operator
    assert ReplyResponse.objects.filter(lead=lead).count() == 1


def test_an_automatic_message_is_no_human_response(lead, operator, clock):
    message = reply(lead)
    clock.move_to(at(2026, 12, 2, 9, 5))
    queue_reply(lead, "Mulțumim!", reason="AI reply", is_manual=False, idempotency_key="ai:1")
    assert waiting(lead).reply == message
    clock.move_to(at(2026, 12, 2, 11, 0))
    send_manual(lead, "Bună ziua!", user=operator)
    row = ReplyResponse.objects.get(reply=message)
    assert row.working_seconds == 30 * 60 + 2 * 3600 and row.responder == operator


def test_consecutive_inbound_messages_are_one_reply_waiting(lead, operator, clock):
    first = reply(lead)
    clock.move_to(at(2026, 12, 2, 9, 10))
    reply(lead, "Mai sunteți acolo?")
    assert waiting(lead).reply == first
    clock.move_to(at(2026, 12, 2, 9, 20))
    send_manual(lead, "Da, bună ziua!", user=operator)
    clock.move_to(at(2026, 12, 2, 10, 0))
    again = reply(lead, "Și livrarea?")
    assert waiting(lead).reply == again
    assert ReplyResponse.objects.filter(lead=lead).count() == 2


def test_an_opt_out_is_no_reply_waiting(lead):
    reply(lead, "STOP")
    assert not ReplyResponse.objects.filter(lead=lead).exists()


def test_a_review_closed_without_a_message_is_handled_not_answered(lead, operator, clock):
    message = reply(lead)
    item = review.open_item(lead, reason="reply", priority=Priority.URGENT, message=message)
    clock.move_to(at(2026, 12, 2, 9, 15))
    review.resolve(item, operator, note="Sunat la telefon.")
    row = ReplyResponse.objects.get(reply=message)
    assert row.kind == ReplyResponse.Kind.HANDLED and row.answer is None
    assert row.responder == operator and row.working_seconds == 45 * 60
    assert row.sla_seconds == 60 * 60  # the URGENT item's deadline, not MEDIUM's


def test_an_approved_draft_is_answered_by_its_approver(lead, operator, clock):
    message = reply(lead)
    item = review.open_item(
        lead, reason="reply", priority=Priority.MEDIUM, message=message, draft="Bună ziua!"
    )
    clock.move_to(at(2026, 12, 2, 9, 1))
    sent = review.approve_draft(item, operator)
    row = ReplyResponse.objects.get(reply=message)
    assert row.kind == ReplyResponse.Kind.ANSWERED and row.answer == sent
    assert row.working_seconds == 31 * 60 and row.responder == operator


def test_the_day_is_the_replys_day_in_the_tenants_zone(lead, clock):
    clock.move_to(at(2026, 11, 25, 0, 30))  # 24 Nov 22:30 UTC
    reply(lead)
    assert waiting(lead).local_day == date(2026, 11, 25)


def test_rebuild_gives_the_rows_the_hooks_wrote_and_is_idempotent(tenant, lead, operator, clock):
    reply(lead)
    clock.move_to(at(2026, 12, 2, 9, 30))
    send_manual(lead, "Bună ziua!", user=operator)
    queue_reply(lead, "Auto", reason="AI reply", is_manual=False, idempotency_key="ai:2")
    clock.move_to(at(2026, 12, 2, 9, 40))
    second = reply(lead, "Mulțumesc")
    item = review.open_item(lead, reason="reply", priority=Priority.HIGH, message=second)
    clock.move_to(at(2026, 12, 2, 11, 0))
    review.reject(item, operator, "Nimic de răspuns.")
    clock.move_to(at(2026, 12, 2, 12, 0))
    reply(lead, "Alo?")
    fields = (
        "reply_id",
        "kind",
        "responder_id",
        "answer_id",
        "responded_at",
        "working_seconds",
        "sla_seconds",
        "local_day",
        "received_at",
    )
    live = list(ReplyResponse.objects.order_by("reply_id").values_list(*fields))
    assert len(live) == 3 and live[-1][1] == ""
    out = StringIO()
    call_command("rebuild_reply_responses", stdout=out)
    call_command("rebuild_reply_responses", stdout=out)
    assert list(ReplyResponse.objects.order_by("reply_id").values_list(*fields)) == live
    assert f"{tenant.pk}: 3 replies" in out.getvalue()


def test_answering_a_lead_without_a_reply_records_nothing(lead, operator):
    send_manual(lead, "Bună ziua!", user=operator)
    assert not ReplyResponse.objects.exists()


def test_responses_stay_in_their_tenant(lead, operator, other_tenant, clock):
    other = make_outreach_world(other_tenant, leads=1, phones=1)["leads"][0]
    reply(lead)
    reply(other)
    clock.move_to(at(2026, 12, 2, 9, 30))
    send_manual(lead, "Bună ziua!", user=operator)
    assert ReplyResponse.objects.get(lead=other).responded_at is None
    assert ReplyResponse.objects.get(lead=other).tenant == other_tenant
    assert timedelta(seconds=ReplyResponse.objects.get(lead=lead).working_seconds) == timedelta(
        hours=1
    )


@pytest.mark.parametrize(("origin", "counts"), [("WhatsApp", True), ("Public API", False)])
def test_a_message_typed_in_the_phones_app_is_a_human_answer(lead, clock, origin, counts):
    message = reply(lead)
    clock.move_to(at(2026, 12, 2, 9, 10))
    make_message(
        lead,
        status=Message.Status.SENT,
        is_manual=True,
        idempotency_key=None,
        raw_response={ECHO_MARK: True, "origin": origin},
    )
    row = ReplyResponse.objects.get(reply=message)
    assert (row.kind == ReplyResponse.Kind.ANSWERED) is counts
    if counts:
        assert row.responder is None and row.working_seconds == 40 * 60


@pytest.mark.parametrize(
    ("body", "needs_nobody_because"),
    [
        ("Da, sunt foarte interesat, super!", "the AI answered it itself"),
        ("Sunt în concediu până pe 7 decembrie, revin după.", "an out-of-office answer"),
    ],
)
def test_a_reply_that_needs_nobody_does_not_wait_and_the_backfill_agrees(
    lead, clock, body, needs_nobody_because
):
    from hitl import responses
    from tests.drain import run_triage

    tenant = lead.tenant
    tenant.ai_auto_reply_enabled = True
    tenant.ai_auto_reply_intents = []
    tenant.save()
    message = reply(lead, body)
    assert waiting(lead).reply == message  # waiting until the triage decides
    run_triage()
    message.refresh_from_db()
    assert responses.needs_nobody(message), (needs_nobody_because, message.analysis)
    assert not ReplyResponse.objects.filter(lead=lead).exists()
    responses.rebuild(tenant)
    assert not ReplyResponse.objects.filter(lead=lead).exists()
