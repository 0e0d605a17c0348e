from __future__ import annotations

from datetime import timedelta
from io import StringIO

import dramatiq
import pytest
import time_machine
from django.core.management import CommandError, call_command

from outreach.dispatch import dispatch_due
from outreach.models import Message
from tests.drain import running_workers, wait_until
from tests.factories import make_outreach_world, make_tenant
from tests.whatsapp.conftest import MONDAY_10


def run(*args: str) -> str:
    out = StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


def test_dispatch_outreach_prints_the_counts(tenant):
    with time_machine.travel(MONDAY_10, tick=False):
        make_outreach_world(tenant, leads=3)
        dry = run("dispatch_outreach", "--tenant", tenant.slug, "--dry-run")
        assert "DRY RUN" in dry and "eligible 3; dispatched: WHATSAPP 3" in dry
        assert not Message.objects.exists()
        output = run("dispatch_outreach", "--tenant", tenant.slug)
    assert f"{tenant.slug}: eligible 3; dispatched: WHATSAPP 3; skipped: none" in output
    assert Message.objects.count() == 3


@pytest.mark.parametrize(
    ("args", "message"),
    [(["--tenant", "nope"], "Unknown or inactive tenant"), (["--batch-size", "0"], "at least 1")],
)
def test_dispatch_outreach_rejects_bad_arguments(db, args, message):
    with pytest.raises(CommandError, match=message):
        call_command("dispatch_outreach", *args)


@pytest.mark.django_db(transaction=True)
def test_requeue_stale_recovers_messages_whose_broker_copy_was_lost():
    with time_machine.travel(MONDAY_10, tick=True) as clock:
        tenant = make_tenant()
        make_outreach_world(tenant, leads=4, phones=2)
        dispatch_due(tenant)
        dramatiq.get_broker().flush_all()  # the broker lost everything (e.g. Redis flushed)
        clock.shift(timedelta(minutes=20))
        with running_workers():
            # WhatsApp messages are sent by their phone's planned run: the phones are woken.
            assert "woke 2 phones" in run("requeue_stale", "--minutes", "15")
            wait_until(lambda: Message.objects.filter(status="SENT").count() == 4, what="4 sends")
