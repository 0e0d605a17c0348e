"""#24 §5: a WhatsApp chat's earlier messages, fetched from TimelinesAI once the chat is known
(hitl.chat_backfill, hitl.chat_backfill_run, hitl.whatsapp_history).

TimelinesAI is faked at its HTTP boundary only (`responses`, the recorded pages of
`GET /chats/{id}/messages`). Each test travels to Monday 23 November 2026 10:00 first.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest
import responses
from django.core.exceptions import ImproperlyConfigured
from django.db.models import Q

from cerniq import reasons
from hitl import chat_backfill, whatsapp_inbound
from hitl.chat_backfill_run import run
from hitl.models import ChatBackfill, ReplyTriage, ReviewItem
from hitl.tasks import backfill_chat
from outreach.analytics.rollup import rollup_day
from outreach.models import Enrollment, Message
from outreach.past_messages import HISTORY_MARK, is_history
from outreach.recording import ECHO_MARK
from outreach.retention import anonymise_tenant
from tests.factories import make_lead, make_phone, make_user
from tests.hitl.chat_history_world import (
    CHAT,
    FIRST_UID,
    HISTORY_UIDS,
    LEAD_NUMBER,
    OUR_NUMBER,
    PAGES_URL,
    body,
    both_pages,
    contacted,
    serve_pages,
)
from tests.whatsapp.conftest import timelinesai  # noqa: F401 - the real client's backend

Status, End = ChatBackfill.Status, ChatBackfill.End


@pytest.fixture(autouse=True)
def budget(settings):
    settings.TIMELINESAI_HISTORY_REQUESTS_PER_SECOND = 25  # the clock stands still here


@pytest.fixture
def http():
    with responses.RequestsMock(assert_all_requests_are_fired=False) as mock:
        yield mock


@pytest.fixture
def world(tenant, clock, timelinesai):  # noqa: F811
    return contacted(tenant)


@pytest.fixture
def queued(world, tenant):
    """The fetch `chat_known` queues when the chat is learnt."""
    return chat_backfill.chat_known(tenant, lead_id=world.lead.pk, phone=world.phone, chat_id=CHAT)


def history(lead) -> list[Message]:
    return list(
        Message.objects.filter(lead=lead, raw_response__has_key=HISTORY_MARK).order_by("created_at")
    )


# --- storing once, both directions, in its place ----------------------------------------


def test_a_known_chats_history_is_stored_once_even_if_fetched_twice(world, queued, http, operator):
    serve_pages(http, *both_pages())

    assert run(queued.pk).outcome == "done"
    first = ChatBackfill.objects.get()
    assert (first.status, first.end, first.pages) == (Status.DONE, End.START, 2)
    assert (first.fetched, first.stored, first.already, first.skipped) == (6, 4, 0, 2)
    assert [m.provider_message_id for m in history(world.lead)] == HISTORY_UIDS

    # A person asks again: the same pages come back, nothing is stored twice.
    chat_backfill.request(world.lead, operator)
    assert run(queued.pk).outcome == "done"
    again = ChatBackfill.objects.get()
    assert (again.stored, again.already, again.trigger) == (0, 4, ChatBackfill.Trigger.PERSON)
    assert Message.objects.filter(lead=world.lead).count() == 5  # ours + the four
    assert len(http.calls) == 4


def test_both_directions_at_their_real_time_marked_as_history(world, queued, http):
    serve_pages(http, *both_pages())
    run(queued.pk)

    ours_oct, theirs_oct, theirs_nov, ours_nov = history(world.lead)
    for inbound in (theirs_oct, theirs_nov):
        assert (inbound.direction, inbound.status) == ("IN", "RECEIVED")
        assert inbound.counterpart == LEAD_NUMBER
        assert not inbound.is_manual and inbound.analysis is None
    for outbound in (ours_oct, ours_nov):
        assert outbound.direction == "OUT" and outbound.is_manual
        assert outbound.sent_by is None and outbound.idempotency_key is None
        assert outbound.raw_response[ECHO_MARK] is True  # a late-recorded send adopts it
    assert (ours_oct.status, ours_nov.status) == ("DELIVERED", "READ")
    for message in (ours_oct, theirs_oct, theirs_nov, ours_nov):
        assert (message.phone, message.provider_thread_id) == (world.phone, CHAT)
        assert is_history(message.raw_response)
        assert message.created_at == message.sent_at  # where it happened, not when fetched
    assert theirs_nov.created_at == datetime(2026, 11, 20, 14, 5, 12, tzinfo=UTC)
    assert theirs_nov.body.startswith("Bună ziua, mai aveți sămânță de floarea-soarelui?")
    assert theirs_oct.raw_response["attachments"] == [{"filename": "factura-2025.pdf"}]
    # The conversation reads in order: the history, then our first message of today.
    order = Message.objects.filter(lead=world.lead).order_by("created_at", "pk")
    assert list(order.values_list("provider_message_id", flat=True)) == [
        *HISTORY_UIDS,
        FIRST_UID,
    ]


def test_history_never_takes_the_reply_path(world, queued, http):
    """An old "stop" and an old "interested": history. Nothing is opted out, stopped,
    triaged, reviewed or counted as a reply."""
    page1, page2 = both_pages()
    page1["data"]["messages"][3]["text"] = "STOP, nu mai scrieți"
    page2["data"]["messages"][0]["text"] = "Sunt interesat, sunați-mă mâine pentru o ofertă!"
    serve_pages(http, page1, page2)
    journey = world.lead.journey
    before = (journey.stage, journey.reply_count, journey.last_reply_at)

    run(queued.pk)

    journey.refresh_from_db()
    assert (journey.stage, journey.reply_count, journey.last_reply_at) == before
    assert not journey.whatsapp_opted_out and not journey.requires_human_review
    assert Enrollment.objects.get(lead=world.lead).status == Enrollment.Status.ACTIVE
    assert not ReviewItem.objects.exists() and not ReplyTriage.objects.exists()
    assert world.lead.reply_responses.count() == 0


def test_the_figures_leave_history_out(world, queued, http, tenant):
    serve_pages(http, *both_pages())
    run(queued.pk)

    for day in (date(2026, 10, 1), date(2026, 10, 2), date(2026, 11, 20)):
        counts = rollup_day(tenant, day)
        assert (counts.sent, counts.replies) == (0, 0), day
    # Blanked by the retention job, a history row stays history.
    tenant.message_retention_days = 30
    tenant.save()
    assert anonymise_tenant(tenant, datetime(2026, 11, 23, 8, 0, tzinfo=UTC)) == (2, 0)
    blanked = Message.objects.filter(provider_message_id=HISTORY_UIDS[1]).get()
    assert blanked.body == "" and blanked.raw_response == {HISTORY_MARK: True}
    assert rollup_day(tenant, date(2026, 10, 2)).replies == 0


# --- bounds ------------------------------------------------------------------------------


def test_at_most_the_page_limit(world, queued, http, settings):
    settings.CHAT_HISTORY_MAX_PAGES = 1
    serve_pages(http, *both_pages())

    run(queued.pk)

    row = ChatBackfill.objects.get()
    assert (row.status, row.end, row.pages, row.stored) == (Status.DONE, End.PAGES, 1, 2)
    assert len(http.calls) == 1


def test_nothing_older_than_the_age_limit(world, queued, http, settings):
    settings.CHAT_HISTORY_MAX_DAYS = 30  # 24 October on: the October messages are too old
    serve_pages(http, *both_pages())

    run(queued.pk)

    row = ChatBackfill.objects.get()
    assert (row.end, row.stored, row.skipped) == (End.START, 2, 4)
    assert [m.provider_message_id for m in history(world.lead)] == HISTORY_UIDS[2:]
    # TimelinesAI is asked for that span only (less the margin for its time zone).
    assert dict(http.calls[0].request.params)["after"] == "2026-10-23 18:00:00"


def test_a_page_past_the_age_limit_ends_the_fetch(world, queued, http, settings):
    settings.CHAT_HISTORY_MAX_DAYS = 30
    page1, page2 = both_pages()
    page2["data"]["has_more_pages"] = True  # TimelinesAI would go on: we do not
    serve_pages(http, page1, page2)

    run(queued.pk)

    assert ChatBackfill.objects.get().end == End.DAYS
    assert len(http.calls) == 2


def test_nothing_older_than_the_workspaces_retention_age(world, queued, http, tenant):
    tenant.message_retention_days = 10  # it would be blanked tonight
    tenant.save()
    serve_pages(http, *both_pages())

    run(queued.pk)

    assert [m.provider_message_id for m in history(world.lead)] == HISTORY_UIDS[2:]


def test_what_came_after_the_fetch_was_asked_for_is_the_webhooks(world, queued, http):
    ChatBackfill.objects.filter(pk=queued.pk).update(
        requested_at=datetime(2026, 11, 20, 14, 10, tzinfo=UTC)
    )
    serve_pages(http, *both_pages())

    run(queued.pk)

    assert HISTORY_UIDS[3] not in [m.provider_message_id for m in history(world.lead)]
    assert ChatBackfill.objects.get().stored == 3


@pytest.mark.parametrize(
    ("name", "value"), [("CHAT_HISTORY_MAX_PAGES", 0), ("CHAT_HISTORY_MAX_DAYS", "x")]
)
def test_a_bad_bound_is_named(settings, name, value):
    setattr(settings, name, value)
    with pytest.raises(ImproperlyConfigured, match=name):
        chat_backfill.limits()


# --- faults ------------------------------------------------------------------------------


def test_a_fault_waits_as_the_retry_table_says_then_the_fetch_goes_on(
    world, queued, http, monkeypatch
):
    requeued: list[tuple] = []
    monkeypatch.setattr(
        backfill_chat, "send_with_options", lambda **kw: requeued.append((kw["args"], kw["delay"]))
    )
    page1, page2 = both_pages()
    serve_pages(http, page1, (500, body("error_internal.json")))

    backfill_chat(queued.pk)  # page 1 stored, page 2 answers 500

    row = ChatBackfill.objects.get()
    assert (row.status, row.next_page, row.stored, row.retries) == (
        Status.RUNNING,
        2,
        2,
        {"unavailable": 1},
    )
    assert requeued == [((queued.pk,), 15_000)]  # the retry table's first wait
    assert reasons.parse(row.error)[0] == "hitl.backfill.retrying"
    assert row.retry_at == datetime(2026, 11, 23, 8, 0, 15, tzinfo=UTC)

    http.reset()
    serve_pages(http, {"status": "ok", "data": {"has_more_pages": False, "messages": []}}, page2)
    backfill_chat(queued.pk)  # the queued run: it goes on at page 2

    row.refresh_from_db()
    assert (row.status, row.stored, row.pages, row.error) == (Status.DONE, 4, 2, "")
    assert [dict(call.request.params)["page"] for call in http.calls] == ["2"]
    assert len(requeued) == 1


def test_past_the_retry_table_the_fetch_fails_with_the_providers_answer(world, queued, http):
    http.get(PAGES_URL, status=404, json=body("error_chat_not_found.json"))

    ran = run(queued.pk)

    row = ChatBackfill.objects.get()
    assert (ran.outcome, row.status, row.stored) == ("failed", Status.FAILED, 0)
    assert "not found" in reasons.render(row.error)
    assert row.finished_at is not None and row.claimed_until is None


def test_two_runs_never_fetch_one_chat_at_once(world, queued, http):
    ChatBackfill.objects.filter(pk=queued.pk).update(
        status=Status.RUNNING, claimed_until=datetime(2026, 11, 23, 8, 5, tzinfo=UTC)
    )
    assert run(queued.pk).outcome == "busy"
    assert len(http.calls) == 0


def test_a_run_that_died_lets_go_when_its_lease_passes(world, queued, http, clock):
    ChatBackfill.objects.filter(pk=queued.pk).update(
        status=Status.RUNNING, claimed_until=datetime(2026, 11, 23, 8, 5, tzinfo=UTC)
    )
    serve_pages(http, *both_pages())
    clock.shift(timedelta(minutes=6))
    assert run(queued.pk).outcome == "done"


# --- when a fetch is queued --------------------------------------------------------------


def test_learning_a_chat_queues_its_fetch_once(
    world, tenant, django_capture_on_commit_callbacks, monkeypatch
):
    sent: list[int] = []
    monkeypatch.setattr(backfill_chat, "send", sent.append)
    echo = whatsapp_inbound.WhatsAppEcho(
        provider_message_id=FIRST_UID,
        text=world.first.body,
        sent_at=None,
        our_number=OUR_NUMBER,
        recipient_phone=LEAD_NUMBER,
        chat_id=CHAT,
    )
    reply = whatsapp_inbound.WhatsAppInbound(
        provider_message_id="0f6e2b1c-3d4a-4b5c-8d6e-7f8091a2b3c4",
        text="Mulțumesc, revin.",
        sent_at=datetime(2026, 11, 23, 8, 30, tzinfo=UTC),
        our_number=OUR_NUMBER,
        sender_phone=LEAD_NUMBER,
        chat_id=CHAT,
    )
    with django_capture_on_commit_callbacks(execute=True):
        whatsapp_inbound.record_echo(tenant, echo)  # our send comes back with its chat
        whatsapp_inbound.receive(tenant, reply)  # the same chat again
        whatsapp_inbound.link_chat(
            tenant, chat_id=CHAT, chat_url="", contact_phone=LEAD_NUMBER, account_number=OUR_NUMBER
        )

    row = ChatBackfill.objects.get()
    assert (row.lead, row.phone, row.chat_id, row.trigger) == (
        world.lead,
        world.phone,
        CHAT,
        ChatBackfill.Trigger.CHAT_LEARNT,
    )
    assert sent == [row.pk]


def test_a_reply_in_a_chat_we_did_not_know_queues_its_fetch(world, tenant):
    whatsapp_inbound.receive(
        tenant,
        whatsapp_inbound.WhatsAppInbound(
            provider_message_id="5a4b3c2d-1e0f-4a9b-8c7d-6e5f4a3b2c1d",
            text="Bună ziua, aveți îngrășăminte?",
            sent_at=datetime(2026, 11, 23, 8, 30, tzinfo=UTC),
            our_number=OUR_NUMBER,
            sender_phone=LEAD_NUMBER,
            chat_id="27616499",
        ),
    )
    assert ChatBackfill.objects.get().chat_id == "27616499"


def test_no_fetch_where_the_provider_keeps_no_history_or_it_is_turned_off(world, tenant, settings):
    sandbox = make_phone(tenant)  # the sandbox provider reads no history
    assert (
        chat_backfill.chat_known(tenant, lead_id=world.lead.pk, phone=sandbox, chat_id="1") is None
    )
    settings.CHAT_HISTORY_ON_NEW_CHAT = False
    assert (
        chat_backfill.chat_known(tenant, lead_id=world.lead.pk, phone=world.phone, chat_id=CHAT)
        is None
    )
    assert not ChatBackfill.objects.exists()


def test_a_message_the_fetch_stored_first_still_takes_the_reply_path_when_it_arrives(
    world, queued, http, tenant
):
    """Its webhook is the live path catching up: the reply path runs for it, once."""
    serve_pages(http, *both_pages())
    run(queued.pk)
    inbound = whatsapp_inbound.WhatsAppInbound(
        provider_message_id=HISTORY_UIDS[2],
        text="Bună ziua, mai aveți sămânță de floarea-soarelui? Ne trebuie pentru 40 ha.",
        sent_at=datetime(2026, 11, 20, 14, 5, 12, tzinfo=UTC),
        our_number=OUR_NUMBER,
        sender_phone=LEAD_NUMBER,
        chat_id=CHAT,
    )

    taken = whatsapp_inbound.receive(tenant, inbound)
    again = whatsapp_inbound.receive(tenant, inbound)  # TimelinesAI delivers it twice

    assert taken is not None and again is None
    assert not is_history(Message.objects.get(pk=taken.pk).raw_response)
    journey = world.lead.journey
    journey.refresh_from_db()
    assert journey.last_reply_at is not None
    assert Enrollment.objects.get(lead=world.lead).status == Enrollment.Status.STOPPED
    assert ReplyTriage.objects.filter(message=taken).count() == 1  # its triage is owed


# --- who may ask, and for whom ------------------------------------------------------------


def test_an_erased_person_is_never_fetched(world, queued, http, operator):
    world.lead.erased_at = datetime(2026, 11, 23, 7, 0, tzinfo=UTC)
    world.lead.save()

    with pytest.raises(chat_backfill.BackfillRefused, match="erased"):
        chat_backfill.request(world.lead, operator)
    assert run(queued.pk).outcome == "failed"
    assert ChatBackfill.objects.get().error == "hitl.backfill.erased"
    assert len(http.calls) == 0


def test_a_fetch_in_progress_is_not_asked_for_twice(world, queued, operator):
    ChatBackfill.objects.filter(pk=queued.pk).update(
        status=Status.RUNNING, claimed_until=datetime(2026, 11, 23, 8, 5, tzinfo=UTC)
    )
    with pytest.raises(chat_backfill.BackfillRefused, match="right now"):
        chat_backfill.request(world.lead, operator)


def test_each_workspace_fetches_its_own_chat_into_its_own_leads(
    world, queued, http, tenant, other_tenant
):
    """The same chat id in another workspace is another fetch; one workspace's fetch stores
    nothing in the other, and a message the other stored is left as it is."""
    other_phone = make_phone(other_tenant, number=OUR_NUMBER, provider="timelinesai")
    other_lead = make_lead(other_tenant, phone=LEAD_NUMBER)
    theirs = Message.objects.create(
        tenant=other_tenant,
        lead=other_lead,
        channel="WHATSAPP",
        direction="IN",
        status="RECEIVED",
        body="their own copy",
        provider_message_id=HISTORY_UIDS[2],
        provider_thread_id=CHAT,
    )
    other = chat_backfill.chat_known(
        other_tenant, lead_id=other_lead.pk, phone=other_phone, chat_id=CHAT
    )
    assert other is not None and other.pk != queued.pk
    serve_pages(http, *both_pages())

    run(queued.pk)

    mine = Message.objects.filter(tenant=tenant, raw_response__has_key=HISTORY_MARK)
    assert set(mine.values_list("lead", flat=True)) == {world.lead.pk}
    assert mine.count() == 3 and ChatBackfill.objects.get(pk=queued.pk).already == 1
    assert not Message.objects.filter(Q(lead=other_lead) & ~Q(pk=theirs.pk)).exists()
    theirs.refresh_from_db()
    assert (theirs.body, theirs.raw_response) == ("their own copy", None)
    assert ChatBackfill.objects.get(pk=other.pk).status == Status.QUEUED


def test_the_person_who_asks_is_kept(world, operator, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks() as callbacks:
        (row,) = chat_backfill.request(world.lead, operator)
    assert (row.requested_by, row.trigger, row.status) == (
        operator,
        ChatBackfill.Trigger.PERSON,
        Status.QUEUED,
    )
    assert len(callbacks) == 1  # the actor, after the commit


def test_no_known_chat_nothing_to_ask_for(tenant, clock, timelinesai):  # noqa: F811
    lead = make_lead(tenant)
    with pytest.raises(chat_backfill.BackfillRefused, match="No WhatsApp chat"):
        chat_backfill.request(lead, make_user(tenant))
