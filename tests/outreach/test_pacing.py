"""Pacing: one send in flight per phone and a minimum gap, across concurrent workers."""

from __future__ import annotations

import heapq
from collections import defaultdict
from collections.abc import Callable
from datetime import datetime, timedelta
from datetime import time as wall
from zoneinfo import ZoneInfo

import pytest
import time_machine
from django.utils import timezone

from cerniq.models import Tenant
from outreach import pacing
from outreach.dispatch import dispatch_due
from outreach.models import Message
from tests.drain import running_workers, wait_until
from tests.factories import make_outreach_world, make_phone, make_tenant
from tests.fakes import TimingWhatsApp
from whatsapp.models import Phone

MIN_GAP_SECONDS = 1


def test_claim_is_exclusive_until_the_send_finishes_and_its_gap_passes(tenant):
    phone = make_phone(tenant)
    Tenant.objects.filter(pk=tenant.pk).update(pacing_min_seconds=30, pacing_jitter_seconds=120)
    tenant.refresh_from_db()
    now = timezone.now()
    assert pacing.claim_phone(phone.pk, now) is None
    retry_at = pacing.claim_phone(phone.pk, now)
    # In flight: no polling; the sender's run plans what follows, its lease is the backstop.
    assert retry_at == now + pacing.SEND_LEASE
    finished = pacing.finish_send(phone.pk, tenant)
    phone.refresh_from_db()
    gap = phone.next_send_at - finished
    assert timedelta(seconds=30) <= gap <= timedelta(seconds=150)
    assert phone.busy_until is None
    assert pacing.claim_phone(phone.pk, timezone.now()) == phone.next_send_at
    assert pacing.claim_phone(phone.pk, phone.next_send_at) is None


def test_a_crashed_senders_lease_expires(tenant):
    phone = make_phone(tenant)
    now = timezone.now()
    assert pacing.claim_phone(phone.pk, now) is None
    assert pacing.claim_phone(phone.pk, now + pacing.SEND_LEASE + timedelta(seconds=1)) is None


@pytest.mark.django_db(transaction=True)
def test_concurrent_workers_never_overlap_sends_of_a_phone_and_keep_the_gap(settings):
    settings.PROVIDERS = {
        **settings.PROVIDERS,
        "whatsapp.sandbox": {"BACKEND": "tests.fakes.TimingWhatsApp"},
    }
    TimingWhatsApp.sends.clear()
    tenant = make_tenant(
        working_days=[0, 1, 2, 3, 4, 5, 6],
        holiday_country="",
        window_start=wall(0, 0),
        window_end=wall(23, 59, 59, 999999),
    )
    # 12 leads, 6 per phone: enough sends to interleave 12 worker threads, and each phone's
    # gaps add up to some 6 s (30 leads took 15 s for no more evidence).
    world = make_outreach_world(tenant, phones=2, leads=12, steps=1)
    Tenant.objects.filter(pk=tenant.pk).update(
        pacing_min_seconds=MIN_GAP_SECONDS, pacing_jitter_seconds=0
    )
    Phone.objects.filter(pk__in=[p.pk for p in world["phones"]]).update(provider="sandbox")
    tenant.refresh_from_db()
    with running_workers(count=3, threads=4):
        assert dispatch_due(tenant).dispatched["WHATSAPP"] == 12
        wait_until(
            lambda: Message.objects.filter(status="SENT").count() == 12, timeout=90, what="12 sends"
        )
    by_phone = defaultdict(list)
    for send in TimingWhatsApp.sends:
        by_phone[send.account_phone].append(send)
    assert sorted(len(v) for v in by_phone.values()) == [6, 6]
    for sends in by_phone.values():
        sends.sort(key=lambda s: s.started)
        for before, after in zip(sends, sends[1:], strict=False):
            assert after.started >= before.ended, "two sends of one phone overlapped"
            assert after.started - before.ended >= MIN_GAP_SECONDS - 0.01, "gap too short"


class PlannedRuns:
    """Stands in for the broker's delay queue: records each planned run of a phone, and
    plays them back in time order with the clock moved to each one's time."""

    def __init__(self, clock) -> None:
        self.clock = clock
        self.planned: list[tuple[datetime, int, int]] = []
        self.runs = 0

    def enqueue(self, phone_id: int, at: datetime) -> None:
        heapq.heappush(self.planned, (at, len(self.planned) + self.runs, phone_id))

    def play(self, until: Callable[[], bool], limit: int) -> None:
        while self.planned and not until() and self.runs < limit:
            at, _, phone_id = heapq.heappop(self.planned)
            if at > timezone.now():
                self.clock.move_to(at)
            self.runs += 1
            pacing.run_phone(phone_id)


@pytest.fixture
def planned_runs(monkeypatch):
    """Runs are enqueued once their transaction commits: use with transaction=True."""
    with time_machine.travel(
        datetime(2026, 11, 23, 14, 0, tzinfo=ZoneInfo("Europe/Bucharest")), tick=False
    ) as clock:
        runs = PlannedRuns(clock)
        monkeypatch.setattr(pacing, "_enqueue_run", runs.enqueue)
        yield runs


@pytest.mark.own_moment  # travels to its moment first
@pytest.mark.django_db(transaction=True)
def test_production_pacing_plans_one_run_per_send_across_the_window(planned_runs):
    tenant = make_tenant()
    """200 first messages on one phone, 30 s + random(0–120 s) gaps, from Monday 14:00:
    they do not fit before 18:00, so the rest wait for Tuesday 09:00. Every send is
    one planned run (plus one per window closing), and every gap holds."""
    world = make_outreach_world(tenant, leads=200, phones=1, steps=1)
    Tenant.objects.filter(pk=tenant.pk).update(pacing_min_seconds=30, pacing_jitter_seconds=120)
    Phone.objects.update(daily_limit=200)
    tenant.refresh_from_db()
    assert dispatch_due(tenant).dispatched["WHATSAPP"] == 200
    sent = Message.objects.filter(status="SENT")
    planned_runs.play(until=lambda: sent.count() == 200, limit=1000)
    assert sent.count() == 200
    times = sorted(sent.values_list("sent_at", flat=True))
    gaps = [b - a for a, b in zip(times, times[1:], strict=False)]
    assert min(gaps) >= timedelta(seconds=30)
    local = [t.astimezone(ZoneInfo("Europe/Bucharest")) for t in times]
    assert all(wall(9) <= t.time() < wall(18) for t in local)
    assert {t.date().day for t in local} == {23, 24}  # the window closed in between
    assert planned_runs.runs <= 200 + 2, planned_runs.runs
    assert world["phones"][0].pk == Phone.objects.get().pk


@pytest.mark.django_db(transaction=True)
def test_a_message_queued_while_the_phone_rests_shares_the_planned_run(planned_runs):
    tenant = make_tenant()
    make_outreach_world(tenant, leads=2, phones=1, steps=1)
    Tenant.objects.filter(pk=tenant.pk).update(pacing_min_seconds=60, pacing_jitter_seconds=0)
    tenant.refresh_from_db()
    dispatch_due(tenant)
    phone = Phone.objects.get()
    assert len(planned_runs.planned) == 1
    planned_runs.play(until=lambda: Message.objects.filter(status="SENT").count() == 1, limit=5)
    # The first send was made; its run planned the next at the end of the 60 s gap.
    phone.refresh_from_db()
    assert [at for at, _, _ in planned_runs.planned] == [phone.next_send_at]
    # More work for the phone during the gap: no second run is planned for it.
    assert not pacing.wake(phone.pk)
    assert not pacing.wake(phone.pk, phone.next_send_at)
    assert len(planned_runs.planned) == 1


@pytest.mark.django_db(transaction=True)
def test_a_lost_planned_run_is_found_by_the_reconciler(planned_runs):
    tenant = make_tenant()
    make_outreach_world(tenant, leads=3, phones=1, steps=1)
    dispatch_due(tenant)
    planned_runs.planned.clear()  # the broker lost it (Redis flushed)
    phone = Phone.objects.get()
    assert pacing.phones_needing_a_run() == []  # planned a moment ago: not lost yet
    planned_runs.clock.shift(pacing.WAKE_GRACE + timedelta(seconds=1))
    assert pacing.phones_needing_a_run() == [phone.pk]
    assert pacing.wake(phone.pk)
    planned_runs.play(until=lambda: Message.objects.filter(status="SENT").count() == 3, limit=10)
    assert Message.objects.filter(status="SENT").count() == 3
