"""Pacing: one send in flight per phone and a minimum gap, across concurrent workers."""

from __future__ import annotations

from collections import defaultdict
from datetime import time as wall
from datetime import timedelta

import pytest
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
    assert retry_at is not None and retry_at - now < timedelta(seconds=3)  # in flight: poll soon
    pacing.finish_send(phone.pk, tenant, sent=True, new_contact=True)
    phone.refresh_from_db()
    gap = phone.next_send_at - phone.last_sent_at
    assert timedelta(seconds=30) <= gap <= timedelta(seconds=150)
    assert phone.busy_until is None and phone.total_new_contacts == 1
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
    world = make_outreach_world(tenant, phones=2, leads=30, steps=1)
    Tenant.objects.filter(pk=tenant.pk).update(
        pacing_min_seconds=MIN_GAP_SECONDS, pacing_jitter_seconds=0
    )
    Phone.objects.filter(pk__in=[p.pk for p in world["phones"]]).update(provider="sandbox")
    tenant.refresh_from_db()
    with running_workers(count=3, threads=4):
        assert dispatch_due(tenant).dispatched["WHATSAPP"] == 30
        wait_until(
            lambda: Message.objects.filter(status="SENT").count() == 30, timeout=90, what="30 sends"
        )
    by_phone = defaultdict(list)
    for send in TimingWhatsApp.sends:
        by_phone[send.account_phone].append(send)
    assert sorted(len(v) for v in by_phone.values()) == [15, 15]
    for sends in by_phone.values():
        sends.sort(key=lambda s: s.started)
        for before, after in zip(sends, sends[1:], strict=False):
            assert after.started >= before.ended, "two sends of one phone overlapped"
            assert after.started - before.ended >= MIN_GAP_SECONDS - 0.01, "gap too short"
