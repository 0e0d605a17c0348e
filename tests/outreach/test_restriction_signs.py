"""WhatsApp's restriction signs (outreach.restriction_signs): the first sign on a number
stops its new chats at once (day limit 0, queued first messages handed to another number)
while follow-ups in its existing chats go on; an alert; a cooldown that grows; then the
warm-up ramp from day 1. Signs from crafted histories; the provider's own "restricted"
through the real send path."""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
import time_machine

from cerniq import reasons
from cerniq.models import Alert
from outreach import restriction_signs
from outreach.dispatch import dispatch_due
from outreach.models import Channel, Message
from tests.factories import make_lead, make_message, make_outreach_world, make_phone
from whatsapp import quota, warmup
from whatsapp.models import Phone

pytestmark = pytest.mark.django_db
BUCHAREST = ZoneInfo("Europe/Bucharest")
MONDAY_10 = datetime(2026, 11, 23, 10, 0, tzinfo=BUCHAREST)


@pytest.fixture
def clock():
    with time_machine.travel(MONDAY_10, tick=False) as traveller:
        yield traveller


def history(phone: Phone, *, new_failed=0, new_sent=0, follow_sent=0, at=None) -> None:
    """What the number did an hour ago: first messages that failed or went out, and
    messages in chats it already had."""
    at = at or MONDAY_10 - timedelta(hours=1)
    for _ in range(new_failed):
        make_message(
            make_lead(phone.tenant),
            phone=phone,
            quota_cost=1,
            status=Message.Status.FAILED,
            failed_at=at,
            error="ProviderError: chat could not be started",
        )
    for _ in range(new_sent):
        make_message(make_lead(phone.tenant), phone=phone, quota_cost=1, status="SENT", sent_at=at)
    for _ in range(follow_sent):
        make_message(make_lead(phone.tenant), phone=phone, status="SENT", sent_at=at)


def established(tenant, **kwargs) -> Phone:
    return make_phone(tenant, warmup_started_at=None, daily_limit=200, **kwargs)


def test_new_chats_failing_while_existing_chats_go_rests_that_number_only(tenant, clock):
    sick, well = established(tenant), established(tenant)
    history(sick, new_failed=2, new_sent=1, follow_sent=1)
    history(well, new_failed=1, new_sent=5, follow_sent=3)
    queued_first = make_message(
        make_lead(tenant), phone=sick, quota_cost=1, quota_day=MONDAY_10.date()
    )
    queued_follow = make_message(make_lead(tenant), phone=sick, quota_cost=0)

    run = restriction_signs.check_tenant(tenant)

    assert run.paused == [sick.pk]
    sick.refresh_from_db()
    assert sick.new_contacts_paused_until == MONDAY_10 + timedelta(hours=24)
    assert sick.status == Phone.Status.ACTIVE  # follow-ups go on
    said = reasons.render(sick.restriction_reason)
    assert "2 of its last 3 new chats failed" in said
    # No new chat today; the follow-up stays queued, the first message goes elsewhere.
    limits = quota.day_limits([sick, well], MONDAY_10.date())
    assert limits[sick.pk].limit == 0 and limits[well.pk].limit == 200
    queued_first.refresh_from_db()
    queued_follow.refresh_from_db()
    assert queued_first.status == "CANCELLED" and "starts no new chat" in reasons.render(
        queued_first.error
    )
    assert queued_follow.status == "QUEUED"
    alert = Alert.objects.get(subject=f"phone:{sick.number}:new-contacts")
    assert alert.severity == Alert.Severity.CRITICAL and alert.resolved_at is None
    assert "starts no new chat until" in reasons.render(alert.message)
    # Checked again, nothing more happens (the same failures are not counted twice).
    assert restriction_signs.check_tenant(tenant).paused == []


def test_new_contacts_never_delivered_while_existing_chats_are_is_a_sign(
    tenant, clock, monkeypatch
):
    monkeypatch.setattr(restriction_signs, "tracks_delivery", lambda provider: True)
    phone = established(tenant)
    three_hours_ago = MONDAY_10 - timedelta(hours=3)
    for _ in range(3):
        make_message(
            make_lead(tenant), phone=phone, quota_cost=1, status="SENT", sent_at=three_hours_ago
        )
    make_message(make_lead(tenant), phone=phone, status="DELIVERED", sent_at=three_hours_ago)
    assert restriction_signs.signs_of([phone], MONDAY_10)
    said = reasons.render(restriction_signs.signs_of([phone], MONDAY_10)[phone.pk])
    assert "3 new contacts accepted more than 2 hours ago were never delivered" in said
    # One delivered new chat: no sign. A provider that reports no delivery: no sign.
    make_message(
        make_lead(tenant), phone=phone, quota_cost=1, status="DELIVERED", sent_at=three_hours_ago
    )
    assert restriction_signs.signs_of([phone], MONDAY_10) == {}


def test_a_failing_number_that_fails_everywhere_is_not_this_sign(tenant, clock):
    """Failing new and existing chats alike is a disconnection (the health guard's)."""
    phone = established(tenant)
    history(phone, new_failed=3)
    assert restriction_signs.signs_of([phone], MONDAY_10) == {}


def test_the_rest_ends_after_the_cooldown_on_the_warm_up_ramp_and_grows_each_time(tenant, clock):
    phone = established(tenant)
    history(phone, new_failed=2, follow_sent=1)
    restriction_signs.check_tenant(tenant)
    clock.move_to(MONDAY_10 + timedelta(hours=25))
    run = restriction_signs.check_tenant(tenant)
    assert run.resumed == [phone.pk]
    phone.refresh_from_db()
    alert = Alert.objects.get(subject=f"phone:{phone.number}:new-contacts")
    assert alert.resolved_at is not None
    day = (MONDAY_10 + timedelta(hours=25)).date()
    ramp = warmup.stored_ramp(None)
    assert quota.day_limits([phone], day)[phone.pk].limit == ramp.limit_on(1)
    # A second sign (new failures after the resume): three days this time.
    later = MONDAY_10 + timedelta(hours=26)
    clock.move_to(later)
    history(phone, new_failed=2, follow_sent=1, at=later - timedelta(minutes=10))
    assert restriction_signs.check_tenant(tenant).paused == [phone.pk]
    phone.refresh_from_db()
    assert phone.new_contacts_paused_until == later + timedelta(hours=72)
    assert phone.restrictions == 2


def test_dispatch_gives_new_chats_to_another_number_and_follow_ups_stay(
    tenant, clock, django_capture_on_commit_callbacks
):
    world = make_outreach_world(tenant, phones=2, leads=4, steps=2)
    sick, well = world["phones"]
    talked = world["leads"][0]
    make_message(talked, phone=sick, status="SENT", sent_at=MONDAY_10 - timedelta(days=2))
    history(sick, new_failed=2, follow_sent=1)
    restriction_signs.check_tenant(tenant)
    with django_capture_on_commit_callbacks(execute=True):
        dispatch_due(tenant)
    queued = Message.objects.filter(status="QUEUED", channel=Channel.WHATSAPP)
    first = queued.filter(quota_cost=1)
    assert first.exists() and set(first.values_list("phone", flat=True)) == {well.pk}
    assert not queued.filter(phone=sick, quota_cost=1).exists()


def test_the_phones_page_shows_each_numbers_figures_beside_the_signs(client, tenant, clock):
    from tests.factories import make_user

    sick, well = established(tenant), established(tenant)
    history(sick, new_failed=1, new_sent=4, follow_sent=1)
    history(well, new_sent=3)
    client.force_login(make_user(tenant))
    page = client.get("/outreach/phones/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert page.count("data-new-chats") == 2
    assert "4 out, 1 failed" in page and "3 out, 0 failed" in page
    assert 'class="warn-text"' in page  # the number with a failure is marked
