"""The embedded demo: seeded companies go out through sandbox providers on real workers."""

from __future__ import annotations

from collections import Counter

import pytest
import time_machine

from cerniq.providers import get_backend
from outreach.dispatch import dispatch_due
from outreach.models import Channel, Journey, Message
from outreach.seeding import seed_demo
from tests.drain import running_workers, wait_until
from tests.whatsapp.conftest import MONDAY_10


@pytest.mark.django_db(transaction=True)
def test_demo_leads_are_contacted_over_whatsapp_and_cold_email(settings):
    # The demo's cold email goes to the sandbox, as `make run` sets INSTANTLY_BACKEND.
    settings.PROVIDERS = {
        **settings.PROVIDERS,
        "email.instantly": {"BACKEND": "integrations.sandbox.email.SandboxEmail"},
    }
    with time_machine.travel(MONDAY_10, tick=True):
        tenant = seed_demo(companies=40).tenant
        result = dispatch_due(tenant)
        wa, email = result.dispatched[Channel.WHATSAPP], result.dispatched[Channel.EMAIL_COLD]
        assert wa > 20 and email > 0
        outbox = get_backend("whatsapp.sandbox").outbox
        before = len(outbox)
        with running_workers(threads=4):
            # Pacing lets each of the 20 phones send once now; emails are not paced.
            wait_until(
                lambda: Message.objects.filter(channel="WHATSAPP", status="SENT").count() == 20
                and Message.objects.filter(channel="EMAIL_COLD", status="SENT").count() == email,
                what=lambda: sorted(
                    Counter(Message.objects.values_list("channel", "status")).items()
                ),
            )
        assert len(outbox) - before == 20
        assert len({s.account_phone for s in outbox[before:]}) == 20
        stages = set(Journey.objects.filter(tenant=tenant).values_list("stage", flat=True))
        assert {"CONTACTED_WA", "CONTACTED_EMAIL"} <= stages
        queued = Message.objects.filter(channel="WHATSAPP", status="QUEUED")
        assert queued.count() == wa - 20  # the rest wait for their phone's pacing gap
