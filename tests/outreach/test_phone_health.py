"""The phone health guard: signals from crafted histories, throttle, pause with re-planning,
hysteresis, hard signals through the real send path (restricted, banned)."""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
import time_machine
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext

from cerniq import reasons
from cerniq.models import Alert
from cerniq.providers import get_backend
from outreach import phone_health
from outreach.dispatch import dispatch_due
from outreach.models import Journey, Message
from outreach.phone_health import Signals, check_tenant, score
from outreach.sending import send_message
from tests.factories import make_lead, make_message, make_outreach_world, make_phone
from whatsapp import phones, quota
from whatsapp.models import Phone, PhoneStatusChange

BUCHAREST = ZoneInfo("Europe/Bucharest")
MONDAY_10 = datetime(2026, 11, 23, 10, 0, tzinfo=BUCHAREST)
MONDAY = MONDAY_10.date()


@pytest.fixture
def clock():
    with time_machine.travel(MONDAY_10, tick=False) as traveller:
        yield traveller


@pytest.fixture
def sandbox():
    """The sandbox WhatsApp backend the send path uses; its simulated faults are cleared."""
    backend = get_backend("whatsapp.sandbox")
    yield backend
    backend.banned.clear()
    backend.restricted.clear()


def fail(phone: Phone, count: int, *, at: datetime | None = None) -> None:
    """`count` sends of the phone that ended in a dead letter."""
    lead = make_lead(phone.tenant)
    for _ in range(count):
        make_message(
            lead,
            phone=phone,
            status=Message.Status.DEAD_LETTER,
            failed_at=at or MONDAY_10,
            error="ProviderUnavailable: 502",
        )


def first_contacts(
    phone: Phone, count: int, *, at: datetime, status: str = Message.Status.READ
) -> list[Message]:
    """First messages of the phone to `count` new leads, sent at `at`."""
    return [
        make_message(make_lead(phone.tenant), phone=phone, quota_cost=1, status=status, sent_at=at)
        for _ in range(count)
    ]


def reload(phone: Phone) -> Phone:
    phone.refresh_from_db()
    return phone


# --- the score ----------------------------------------------------------------------------------


def test_each_signal_alone_throttles_at_its_throttle_value_and_pauses_at_its_pause_value():
    assert score(Signals()).value == 100
    assert score(Signals(failures=1)).value == 100
    assert score(Signals(failures=3)).value == 70
    assert score(Signals(failures=5)).value == 40
    assert score(Signals(disconnects=2)).value == 70
    assert score(Signals(contacted=100, negative=8)).value == 70
    assert score(Signals(contacted=100, negative=15)).value == 40
    assert score(Signals(judged=100, undelivered=30)).value == 70
    assert score(Signals(judged=100, undelivered=50)).value == 40
    assert score(Signals(failures=9)).value == 0


def test_signals_add_up_and_the_reason_names_the_costliest_first():
    result = score(Signals(failures=2, contacted=100, negative=8))
    assert result.value == 55
    said = tuple(reasons.render(stored) for stored in result.reasons)  # stored as codes
    assert said == ("new contacts who opted out or blocked: 8%", "2 sends failed in a row")


def test_shares_need_a_minimum_sample_and_a_provider_that_reports_delivery():
    assert score(Signals(contacted=10, negative=5)).value == 100  # 10 < 20 leads: noise
    assert score(Signals(judged=19, undelivered=19)).value == 100
    assert score(Signals(judged=40, undelivered=40, tracks_delivery=False)).value == 100


# --- signals from history -----------------------------------------------------------------------


def test_failures_count_only_since_the_last_successful_send(tenant, clock):
    phone = make_phone(tenant, last_sent_at=MONDAY_10 - timedelta(minutes=30))
    fail(phone, 2, at=MONDAY_10 - timedelta(hours=1))  # before the last send: forgiven
    fail(phone, 3, at=MONDAY_10 - timedelta(minutes=5))
    signals = phone_health.signals_of([phone], MONDAY_10)[phone.pk]
    assert signals.failures == 3


def test_undelivered_first_messages_count_for_providers_that_report_delivery(tenant, clock):
    tracked = make_phone(tenant, provider="timelinesai")
    sandbox = make_phone(tenant)
    seven_hours_ago = MONDAY_10 - timedelta(hours=7)
    for phone in (tracked, sandbox):
        first_contacts(phone, 10, at=seven_hours_ago, status=Message.Status.SENT)
        first_contacts(phone, 10, at=seven_hours_ago, status=Message.Status.DELIVERED)
        first_contacts(phone, 5, at=MONDAY_10, status=Message.Status.SENT)  # too recent
    found = phone_health.signals_of([tracked, sandbox], MONDAY_10)
    assert (found[tracked.pk].judged, found[tracked.pk].undelivered) == (20, 10)
    assert score(found[tracked.pk]).value == 40  # half undelivered
    assert score(found[sandbox.pk]).value == 100  # the sandbox never delivers anything


def test_opt_outs_after_the_first_message_and_block_words_are_negative_replies(tenant, clock):
    phone = make_phone(tenant)
    sent = first_contacts(phone, 20, at=MONDAY_10 - timedelta(hours=30))
    Journey.objects.filter(lead_id=sent[0].lead_id).update(
        whatsapp_opted_out=True, whatsapp_opted_out_at=MONDAY_10 - timedelta(hours=2)
    )
    Journey.objects.filter(lead_id=sent[1].lead_id).update(  # before we wrote: not ours
        whatsapp_opted_out=True, whatsapp_opted_out_at=MONDAY_10 - timedelta(days=2)
    )
    for message, text in ((sent[2], "SPAM!!"), (sent[3], "V-am blocat."), (sent[4], "Da, cât?")):
        make_message(
            message.lead,
            direction=Message.Direction.INBOUND,
            status=Message.Status.RECEIVED,
            idempotency_key=None,
            body=text,
        )
    signals = phone_health.signals_of([phone], MONDAY_10)[phone.pk]
    assert (signals.contacted, signals.negative) == (20, 3)
    assert score(signals).value == 40  # 15 % negative replies: the pause value


def test_disconnections_in_the_window_are_counted(tenant, clock):
    phone = make_phone(tenant)
    for hours in (1, 30, 100):  # the last is outside the 72 hours
        PhoneStatusChange.objects.create(
            tenant=tenant, phone=phone, status="OFFLINE", at=MONDAY_10 - timedelta(hours=hours)
        )
    assert phone_health.signals_of([phone], MONDAY_10)[phone.pk].disconnects == 2


# --- what the guard does -----------------------------------------------------------------------


def test_throttle_then_pause_replans_the_queued_leads_onto_healthy_phones(tenant, clock):
    world = make_outreach_world(tenant, phones=2, leads=6)
    sick, healthy = world["phones"]
    dispatch_due(tenant)
    on_sick = list(Message.objects.filter(phone=sick, status=Message.Status.QUEUED))
    assert len(on_sick) == 3

    fail(sick, 3)
    run = check_tenant(tenant)
    assert run.changed == {"throttled": 1}
    sick = reload(sick)
    assert (sick.status, sick.health, sick.health_score) == ("ACTIVE", "THROTTLED", 70)
    assert reasons.render(sick.health_reason) == "Health 70/100: 3 sends failed in a row"
    # Today's row follows the throttle: half of 200, the 3 slots used stay used.
    assert quota.status(sick, MONDAY) == quota.QuotaStatus(used=3, limit=100)
    alert = Alert.objects.get(kind=Alert.Kind.PHONE_HEALTH, subject=f"phone:{sick.number}")
    assert alert.severity == "WARNING" and "Throttled" in reasons.render(alert.message)
    assert Message.objects.filter(phone=sick, status="QUEUED").count() == 3  # still sending

    fail(sick, 2)
    assert check_tenant(tenant).changed == {"paused": 1}
    sick = reload(sick)
    assert (sick.status, sick.health) == ("PAUSED", "PAUSED")
    assert reasons.render(sick.status_reason) == "Health 40/100: 5 sends failed in a row"
    assert set(
        Message.objects.filter(pk__in=[m.pk for m in on_sick]).values_list("status", flat=True)
    ) == {"CANCELLED"}
    assert quota.status(sick, MONDAY).used == 0  # the cancelled sends gave their slots back
    alert.refresh_from_db()
    assert alert.severity == "CRITICAL" and alert.resolved_at is None

    assert dispatch_due(tenant).dispatched["WHATSAPP"] == 3
    moved = Message.objects.filter(status="QUEUED", lead__in=[m.lead_id for m in on_sick])
    assert set(moved.values_list("phone", flat=True)) == {healthy.pk}


def test_a_throttled_number_recovers_only_well_above_the_throttle_threshold(tenant, clock):
    phone = make_phone(tenant, last_sent_at=MONDAY_10 - timedelta(hours=2))
    fail(phone, 3, at=MONDAY_10 - timedelta(hours=1))
    check_tenant(tenant)
    assert reload(phone).health == "THROTTLED"

    # It sends again; two failures since, and 1 of 25 new contacts opted out: score 79,
    # above the throttle threshold (70) but below recovery (85): it stays throttled.
    clock.shift(timedelta(hours=1))
    now = MONDAY_10 + timedelta(hours=1)
    Phone.objects.filter(pk=phone.pk).update(last_sent_at=now - timedelta(minutes=30))
    fail(phone, 2, at=now - timedelta(minutes=10))
    sent = first_contacts(phone, 25, at=now - timedelta(hours=3))
    Journey.objects.filter(lead_id=sent[0].lead_id).update(
        whatsapp_opted_out=True, whatsapp_opted_out_at=now
    )
    assert check_tenant(tenant).changed == {}
    phone = reload(phone)
    assert (phone.health, phone.health_score) == ("THROTTLED", 79)

    Phone.objects.filter(pk=phone.pk).update(last_sent_at=now)  # a good send: no failures
    assert check_tenant(tenant).changed == {"recovered": 1}
    phone = reload(phone)
    assert (phone.health, phone.health_score) == ("OK", 94)
    assert quota.status(phone, MONDAY).limit == 200
    assert Alert.objects.get(kind=Alert.Kind.PHONE_HEALTH).resolved_at is not None


def test_a_paused_number_rests_before_it_comes_back_throttled(tenant, clock):
    phone = make_phone(tenant)
    fail(phone, 5)
    check_tenant(tenant)
    assert reload(phone).status == "PAUSED"

    clock.shift(timedelta(hours=25))  # rested, but the failures are still in the window
    assert check_tenant(tenant).changed == {}
    assert reload(phone).status == "PAUSED"

    clock.shift(timedelta(hours=48))  # the failures left the 72-hour window
    assert check_tenant(tenant).changed == {"resumed": 1}
    phone = reload(phone)
    assert (phone.status, phone.health) == ("ACTIVE", "THROTTLED")
    assert reasons.render(phone.health_reason).startswith("Recovering (before: Health 40/100")

    assert check_tenant(tenant).changed == {"recovered": 1}
    assert reload(phone).health == "OK"


def test_a_recovered_number_is_not_resumed_before_its_rest(tenant, clock):
    phone = make_phone(tenant)
    fail(phone, 5, at=MONDAY_10 - timedelta(hours=71))
    check_tenant(tenant)
    assert reload(phone).status == "PAUSED"
    clock.shift(timedelta(hours=2))  # the failures left the window: score 100, resting
    assert check_tenant(tenant).changed == {}
    assert reload(phone).status == "PAUSED"


def test_an_operator_resuming_a_paused_number_holds_the_guard_off_for_a_day(tenant, clock):
    phone = make_phone(tenant)
    fail(phone, 5)
    check_tenant(tenant)
    phones.resume(reload(phone))  # the operator knows better
    phone = reload(phone)
    assert (phone.status, phone.health) == ("ACTIVE", "THROTTLED")
    assert phone.health_hold_until == MONDAY_10 + timedelta(hours=24)

    clock.shift(timedelta(hours=1))
    assert check_tenant(tenant).changed == {}  # still 5 failures, but held: throttled only
    assert reload(phone).status == "ACTIVE"

    clock.shift(timedelta(hours=24))
    assert check_tenant(tenant).changed == {"paused": 1}


def test_a_number_an_operator_paused_is_left_alone(tenant, clock):
    phone = make_phone(tenant)
    phones.pause(phone)
    check_tenant(tenant)
    phone = reload(phone)
    assert (phone.status, phone.health, phone.health_score) == ("PAUSED", "OK", 100)


def test_a_throttle_never_breaks_the_quota_rows_constraint(tenant, clock):
    phone = make_phone(tenant)
    for _ in range(150):
        quota.reserve_new_contact(phone, MONDAY)
    fail(phone, 3)
    check_tenant(tenant)
    assert quota.status(phone, MONDAY) == quota.QuotaStatus(used=150, limit=150)  # full
    assert not quota.reserve_new_contact(reload(phone), MONDAY)
    Phone.objects.filter(pk=phone.pk).update(last_sent_at=MONDAY_10 + timedelta(minutes=1))
    clock.shift(timedelta(minutes=5))
    check_tenant(tenant)
    assert quota.status(reload(phone), MONDAY) == quota.QuotaStatus(used=150, limit=200)


def test_one_run_costs_the_same_queries_for_2_and_for_12_phones(tenant, clock):
    def run_queries() -> int:
        check_tenant(tenant)  # first run: scores are written for the first time
        with CaptureQueriesContext(connection) as ctx:
            check_tenant(tenant)
        return len(ctx)

    for _ in range(2):
        phone = make_phone(tenant)
        first_contacts(phone, 3, at=MONDAY_10 - timedelta(hours=8))
    small = run_queries()
    for _ in range(10):
        phone = make_phone(tenant, provider="timelinesai")
        first_contacts(phone, 3, at=MONDAY_10 - timedelta(hours=8))
        fail(phone, 1)
    assert run_queries() == small <= 7


def test_the_command_scores_every_active_tenant(tenant, other_tenant, clock, capsys):
    sick = make_phone(tenant)
    fail(sick, 3)
    make_phone(other_tenant)
    call_command("check_phones")
    assert reload(sick).health == "THROTTLED"
    out = capsys.readouterr().out
    assert f"{tenant.slug}: 1 phones scored; throttled 1" in out
    assert f"{other_tenant.slug}: 1 phones scored; no changes" in out


# --- hard signals through the send path ----------------------------------------------------------


def test_a_ban_error_makes_the_number_banned_and_its_leads_move(tenant, clock, sandbox):
    world = make_outreach_world(tenant, phones=2, leads=4)
    banned, healthy = world["phones"]
    dispatch_due(tenant)
    queued = list(Message.objects.filter(phone=banned).order_by("pk"))
    sandbox.banned.add(banned.number)

    outcome = send_message(queued[0].pk)

    assert outcome.kind == "cancelled"
    banned = reload(banned)
    assert banned.status == Phone.Status.BANNED
    assert "368" in reasons.render(banned.status_reason)
    alert = Alert.objects.get(kind=Alert.Kind.PHONE_BANNED)
    assert alert.severity == "CRITICAL" and alert.subject == f"phone:{banned.number}"
    assert not Message.objects.filter(phone=banned, status="QUEUED").exists()
    assert not Journey.objects.filter(assigned_phone=banned).exists()
    assert dispatch_due(tenant).dispatched["WHATSAPP"] == 2
    moved = Message.objects.filter(status="QUEUED", lead__in=[m.lead_id for m in queued])
    assert set(moved.values_list("phone", flat=True)) == {healthy.pk}


def test_a_restriction_error_pauses_the_number_at_once(tenant, clock, sandbox):
    world = make_outreach_world(tenant, phones=2, leads=4)
    restricted, healthy = world["phones"]
    dispatch_due(tenant)
    queued = list(Message.objects.filter(phone=restricted).order_by("pk"))
    sandbox.restricted.add(restricted.number)

    send_message(queued[0].pk)

    restricted = reload(restricted)
    assert (restricted.status, restricted.health) == ("PAUSED", "PAUSED")
    assert "131048" in reasons.render(restricted.health_reason)
    # Its new chats rest a day beyond, then ramp up again (outreach.restriction_signs).
    assert restricted.new_contacts_paused_until == MONDAY_10 + timedelta(hours=24)
    assert restricted.warmup_started_at == restricted.new_contacts_paused_until
    assert Alert.objects.get(kind=Alert.Kind.PHONE_HEALTH).severity == "CRITICAL"
    assert not Alert.objects.filter(kind=Alert.Kind.PHONE_BANNED).exists()
    assert not Message.objects.filter(phone=restricted, status="QUEUED").exists()
    dispatch_due(tenant)
    moved = Message.objects.filter(status="QUEUED", lead__in=[m.lead_id for m in queued])
    assert set(moved.values_list("phone", flat=True)) == {healthy.pk}
