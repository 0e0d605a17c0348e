"""The statistics rollup and a send's record at the same moment, on PostgreSQL: neither
deadlocks. (The fault run saw the send's record rolled back: the rollup held the tenant
row FOR UPDATE, and the send checks its foreign keys to the tenant when it commits, after
it updated its template version, whose totals the rollup then waited to refresh.)"""

from __future__ import annotations

import threading

import pytest
import time_machine

from cerniq.provider_errors import SendResult
from outreach import sequences
from outreach.analytics import local_today, rollup_day
from outreach.dispatch import dispatch_due
from outreach.models import Channel, DailyStats, Message
from outreach.recording import record_sent
from outreach.transports import transport_for
from tests.concurrency import run_together, wait_for_a_lock_wait
from tests.factories import make_outreach_world, make_tenant
from tests.whatsapp.conftest import MONDAY_10


@pytest.mark.django_db(transaction=True)
def test_a_rollup_while_a_send_is_recorded_finishes_and_so_does_the_send(monkeypatch):
    with time_machine.travel(MONDAY_10, tick=True):
        tenant = make_tenant()
        make_outreach_world(tenant, leads=2, phones=1, steps=1)
        dispatch_due(tenant)
        earlier, pending = Message.objects.order_by("pk")
        transport = transport_for(Channel.WHATSAPP)
        # A send of the template version today: the rollup refreshes that version's totals.
        record_sent(earlier, transport, SendResult("uid-earlier"))

        recorded_so_far, go_on = threading.Event(), threading.Event()
        advance = sequences.advance_many

        def last_step_then_wait(*args, **kwargs):
            """The send's record, done but not committed (its template version updated)."""
            advance(*args, **kwargs)
            recorded_so_far.set()
            assert go_on.wait(30)

        monkeypatch.setattr(sequences, "advance_many", last_step_then_wait)

        def send() -> bool:
            return record_sent(pending, transport, SendResult("uid-pending"))

        def rollup():
            assert recorded_so_far.wait(30)
            return rollup_day(tenant, local_today(tenant, MONDAY_10))

        def release_the_send_once_the_rollup_waits() -> None:
            assert recorded_so_far.wait(30)
            wait_for_a_lock_wait()  # the rollup waits for the send's template version row
            go_on.set()

        recorded, first_rollup, _ = run_together(
            send, rollup, release_the_send_once_the_rollup_waits
        )
        monkeypatch.undo()
        # (PostgreSQL's rollup read before the send committed; SQLite's waited for it.)
        assert recorded is True and first_rollup.sent in (1, 2)
        again = rollup_day(tenant, local_today(tenant, MONDAY_10))
    assert again.sent == 2
    assert Message.objects.filter(status=Message.Status.SENT).count() == 2
    version = pending.template_version
    version.refresh_from_db()
    assert version.sent_count == 2
    channel_row = DailyStats.objects.get(tenant=tenant, channel=Channel.WHATSAPP, phone=None)
    assert channel_row.sent == 2
