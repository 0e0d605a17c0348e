"""The dead letters page and the queue view: login, tenant isolation (another tenant's
ids ignored in bulk, 404 one at a time), bulk and single actions with their counts, and
the queue view's constant number of queries."""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
import time_machine
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from cerniq.models import WebhookEvent
from outreach.models import Channel, Journey, Message, Stage
from tests.factories import make_lead, make_message, make_phone, make_user
from whatsapp.models import Phone

pytestmark = pytest.mark.django_db

DEAD = Message.Status.DEAD_LETTER
PAGE = "/outreach/dead-letters/"


def dead(lead, **kw) -> Message:
    return make_message(
        lead,
        status=DEAD,
        error="RejectedRequest: TimelinesAI POST /messages: HTTP 400: Payload too large",
        failed_at=timezone.now(),
        attempts=1,
        **kw,
    )


def failed_event(tenant, **kw) -> WebhookEvent:
    fields = {
        "tenant": tenant,
        "provider": "sandbox",
        "event_type": "message:received:new",
        "provider_event_id": f"evt-{WebhookEvent.objects.count()}",
        "raw_body": b"{}",
        "verified": True,
        "status": WebhookEvent.Status.FAILED,
        "error": "RuntimeError: inbound store unavailable\n\nTraceback (most recent call): …",
    }
    return WebhookEvent.objects.create(**{**fields, **kw})


def flashes(response) -> list[str]:
    return [str(m) for m in response.context["messages"]]


def test_anonymous_users_are_sent_to_log_in(client):
    for path in (PAGE, "/outreach/queues/"):
        response = client.get(path)
        assert response.status_code == 302 and "/login/" in response["Location"]


@pytest.mark.parametrize(("days", "said"), [(7, "after 7 days"), (1, "after 1 day,")])
def test_the_page_states_the_configured_retention(client, operator, settings, days, said):
    settings.DEAD_LETTER_RETENTION_DAYS = days
    client.force_login(operator)
    assert said in client.get("/outreach/dead-letters/").content.decode()


def test_the_page_lists_the_tenants_dead_letters_and_failed_events_only(
    client, operator, tenant, other_tenant
):
    phone = make_phone(tenant, number="+40740000001")
    mine = dead(make_lead(tenant, name="Ferma Verde SRL"), phone=phone)
    dead(make_lead(other_tenant, name="Not Yours SRL"))
    make_message(make_lead(tenant, name="Sent Fine SRL"), status=Message.Status.SENT)
    event = failed_event(tenant)
    failed_event(other_tenant, event_type="theirs:event")
    client.force_login(operator)
    html = client.get(PAGE).content.decode()
    assert f'data-dead-letter="{mine.pk}"' in html
    assert "Ferma Verde SRL" in html and "+40740000001" in html and "Payload too large" in html
    assert "Not Yours SRL" not in html and "Sent Fine SRL" not in html
    assert f'data-failed-event="{event.pk}"' in html
    assert "RuntimeError: inbound store unavailable" in html and "Traceback" not in html
    assert "theirs:event" not in html
    assert 'data-count="messages">1<' in html and 'data-count="events">1<' in html


def test_bulk_retry_requeues_the_selected_and_ignores_another_tenants(
    client, operator, tenant, other_tenant, django_capture_on_commit_callbacks
):
    phone = make_phone(tenant)
    first, second = dead(make_lead(tenant), phone=phone), dead(make_lead(tenant), phone=phone)
    untouched = dead(make_lead(tenant), phone=phone)
    theirs = dead(make_lead(other_tenant), phone=make_phone(other_tenant))
    client.force_login(operator)
    with django_capture_on_commit_callbacks():  # handed to the broker on commit
        response = client.post(
            f"{PAGE}messages/",
            {"action": "retry", "ids": [first.pk, second.pk, theirs.pk]},
            follow=True,
        )
    assert flashes(response) == [
        "2 messages queued to be sent again.",
        "Not changed — no longer a dead letter: 1",
    ]
    statuses = dict(Message.objects.values_list("pk", "status"))
    assert statuses[first.pk] == statuses[second.pk] == Message.Status.QUEUED
    assert statuses[untouched.pk] == statuses[theirs.pk] == DEAD


def test_bulk_discard_and_pause(client, operator, tenant):
    letters = [dead(make_lead(tenant)) for _ in range(2)]
    client.force_login(operator)
    response = client.post(
        f"{PAGE}messages/",
        {"action": "discard_pause", "ids": [m.pk for m in letters]},
        follow=True,
    )
    assert flashes(response) == ["2 messages discarded; their leads are paused."]
    assert set(Message.objects.values_list("status", flat=True)) == {Message.Status.CANCELLED}
    assert set(Journey.objects.values_list("stage", flat=True)) == {Stage.PAUSED}


def test_one_row_discard_re_plans_and_another_tenants_row_is_404(
    client, operator, tenant, other_tenant
):
    step_message = dead(make_lead(tenant))
    theirs = dead(make_lead(other_tenant))
    client.force_login(operator)
    response = client.post(f"{PAGE}messages/{step_message.pk}/discard/", follow=True)
    assert flashes(response) == ["1 message discarded; its lead is re-planned."]
    assert Message.objects.get(pk=step_message.pk).status == Message.Status.CANCELLED
    assert client.post(f"{PAGE}messages/{theirs.pk}/retry/").status_code == 404
    assert client.post(f"{PAGE}messages/{theirs.pk}/discard/").status_code == 404
    assert Message.objects.get(pk=theirs.pk).status == DEAD
    # Clicked again (another tab): nothing changes, and the page says why.
    again = client.post(f"{PAGE}messages/{step_message.pk}/discard/", follow=True)
    assert flashes(again) == [
        "0 messages discarded; their leads are re-planned.",
        "Not changed — no longer a dead letter: 1",
    ]


def test_bad_requests_change_nothing(client, operator, tenant):
    letter = dead(make_lead(tenant))
    client.force_login(operator)
    empty = client.post(f"{PAGE}messages/", {"action": "retry"}, follow=True)
    assert flashes(empty) == ["Select at least one dead letter."]
    unknown = client.post(f"{PAGE}messages/", {"action": "delete", "ids": [letter.pk]}, follow=True)
    assert flashes(unknown) == ["Unknown action."]
    assert client.post(f"{PAGE}messages/{letter.pk}/explode/", follow=True).status_code == 200
    assert client.get(f"{PAGE}messages/").status_code == 405
    assert Message.objects.get(pk=letter.pk).status == DEAD


def test_actions_need_the_csrf_token(tenant):
    letter = dead(make_lead(tenant))
    client = Client(enforce_csrf_checks=True)
    client.force_login(make_user(tenant))
    assert (
        client.post(f"{PAGE}messages/", {"action": "retry", "ids": [letter.pk]}).status_code == 403
    )
    assert Message.objects.get(pk=letter.pk).status == DEAD


def test_failed_events_are_processed_again_or_discarded(
    client, operator, tenant, other_tenant, django_capture_on_commit_callbacks
):
    retried, discarded = failed_event(tenant), failed_event(tenant)
    theirs = failed_event(other_tenant)
    client.force_login(operator)
    with django_capture_on_commit_callbacks() as handed:
        response = client.post(
            f"{PAGE}events/", {"action": "retry", "event_ids": [retried.pk, theirs.pk]}, follow=True
        )
    assert len(handed) == 1
    assert flashes(response) == [
        "1 webhook event queued to be processed again.",
        "Not changed — no longer a dead letter: 1",
    ]
    response = client.post(f"{PAGE}events/{discarded.pk}/discard/", follow=True)
    assert flashes(response) == ["1 webhook event discarded."]
    assert client.post(f"{PAGE}events/{theirs.pk}/discard/").status_code == 404
    statuses = dict(WebhookEvent.objects.values_list("pk", "status"))
    assert statuses == {
        retried.pk: WebhookEvent.Status.RECEIVED,
        discarded.pk: WebhookEvent.Status.IGNORED,
        theirs.pk: WebhookEvent.Status.FAILED,
    }
    note = WebhookEvent.objects.get(pk=discarded.pk).error
    assert note.startswith(f"discarded from the dead letters by {operator.username}\n\nRuntime")


# --- the queue view ---------------------------------------------------------------------


TUESDAY_MORNING = datetime(2026, 11, 24, 10, 0, tzinfo=ZoneInfo("Europe/Bucharest"))
SATURDAY_NOON = datetime(2026, 11, 28, 12, 0, tzinfo=ZoneInfo("Europe/Bucharest"))


@time_machine.travel(TUESDAY_MORNING, tick=False)
def test_the_queue_view_shows_the_tenants_backlog_per_channel_and_phone(
    client, operator, tenant, other_tenant
):
    """Inside the sending window (a working Tuesday at 10:00), the busy phone's next slot
    is its pacing gap: two minutes from now."""
    now = timezone.now()
    busy = make_phone(tenant, number="+40740000001", next_send_at=now + timedelta(minutes=2))
    idle = make_phone(tenant, number="+40740000002", status=Phone.Status.OFFLINE)
    theirs = make_phone(other_tenant, number="+40740000999")
    lead = make_lead(tenant)
    for _ in range(3):
        make_message(lead, phone=busy, scheduled_for=now - timedelta(minutes=5))
    make_message(lead, phone=busy, scheduled_for=now + timedelta(hours=1))
    make_message(lead, phone=busy, status=Message.Status.SENDING)
    make_message(lead, phone=busy, status=Message.Status.SENT)
    dead(lead, channel=Channel.EMAIL_COLD, counterpart="a@b.ro")
    make_message(make_lead(other_tenant), phone=theirs)
    client.force_login(operator)
    html = client.get("/outreach/queues/").content.decode()
    row = html[html.index('data-phone="+40740000001"') : html.index('data-phone="+40740000002"')]
    assert "data-backlog>4<" in row and "data-due>3 " in row and "data-sending>1<" in row
    slot = row[row.index("data-next-slot>") :]
    assert "24 Nov 10:02</span>" in slot[: slot.index("</td>")]  # the pacing gap, local time
    assert "200/200" in row
    idle_row = html[html.index('data-phone="+40740000002"') :]
    assert "Offline" in idle_row[: idle_row.index("</tr>")]
    assert "+40740000999" not in html
    wa = html[html.index('data-channel="WHATSAPP"') :]
    assert "data-due>3<" in wa[: wa.index("</tr>")]
    assert "data-scheduled>1<" in wa[: wa.index("</tr>")]
    cold = html[html.index('data-channel="EMAIL_COLD"') :]
    assert "data-dead>" in cold and ">1</a>" in cold[: cold.index("</tr>")]
    assert "queue-broker" not in html  # platform-wide numbers are for staff only
    assert idle.number in html


@time_machine.travel(SATURDAY_NOON, tick=False)
def test_outside_the_window_the_next_slot_is_the_next_working_morning(client, operator, tenant):
    """On a Saturday the next slot is not the pacing gap but the window's next opening:
    Monday 30 November and Tuesday 1 December are Romanian public holidays, so Wednesday."""
    make_phone(tenant, number="+40740000001", next_send_at=timezone.now() + timedelta(minutes=2))
    client.force_login(operator)
    html = client.get("/outreach/queues/").content.decode()
    row = html[html.index('data-phone="+40740000001"') :]
    slot = row[row.index("data-next-slot>") :]
    assert "Wed 2 Dec 09:00</span>" in slot[: slot.index("</td>")]


def test_staff_see_the_broker_queues(client, tenant):
    staff = make_user(tenant, is_staff=True)
    client.force_login(staff)
    html = client.get("/outreach/queues/").content.decode()
    assert "queue-broker" in html
    assert 'data-queue="email.warm"' in html and 'data-queue="wa.phone_01"' in html


def test_the_queue_view_costs_the_same_queries_for_two_phones_or_ten(client, operator, tenant):
    def queries() -> int:
        with CaptureQueriesContext(connection) as captured:
            assert client.get("/outreach/queues/").status_code == 200
        return len(captured)

    client.force_login(operator)
    lead = make_lead(tenant)
    for _ in range(2):
        make_message(lead, phone=make_phone(tenant))
    few = queries()
    for _ in range(8):
        make_message(lead, phone=make_phone(tenant))
    assert queries() == few


# --- the admin --------------------------------------------------------------------------


def test_the_admin_retries_and_discards_dead_letters(
    admin_client, tenant, other_tenant, django_capture_on_commit_callbacks
):
    ours = dead(make_lead(tenant), phone=make_phone(tenant))
    theirs = dead(make_lead(other_tenant), phone=make_phone(other_tenant))
    sent = make_message(make_lead(tenant), status=Message.Status.SENT)
    changelist = "/admin/outreach/message/"
    with django_capture_on_commit_callbacks():
        response = admin_client.post(
            changelist,
            {"action": "retry_dead_letters", "_selected_action": [ours.pk, sent.pk]},
            follow=True,
        )
    assert flashes(response) == [
        "1 dead letter(s) queued to be sent again.",
        "Not changed — no longer a dead letter: 1",
    ]
    response = admin_client.post(
        changelist, {"action": "discard_dead_letters", "_selected_action": [theirs.pk]}, follow=True
    )
    assert flashes(response) == ["1 dead letter(s) discarded, their leads re-planned."]
    statuses = dict(Message.objects.values_list("pk", "status"))
    assert statuses == {
        ours.pk: Message.Status.QUEUED,
        theirs.pk: Message.Status.CANCELLED,
        sent.pk: Message.Status.SENT,
    }
