"""A message's status only moves forward (outreach.message_status), whichever channel or
provider reports it: late, twice or out of order."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from outreach.message_status import advance, further
from tests.factories import make_lead, make_message

pytestmark = pytest.mark.django_db
AT = datetime(2026, 11, 23, 9, 30, tzinfo=UTC)


def test_events_out_of_order_never_move_a_message_backwards(tenant):
    message = make_message(make_lead(tenant), status="SENT")
    assert advance(message, "READ", at=AT)
    assert not advance(message, "DELIVERED")  # the late "delivered"
    assert not advance(message, "READ")  # twice
    message.refresh_from_db()
    assert (message.status, message.read_at, message.delivered_at) == ("READ", AT, None)
    assert advance(message, "BOUNCED", error="hard bounce: 550")
    assert not advance(message, "READ")  # nothing after a final status
    message.refresh_from_db()
    assert message.status == "BOUNCED" and message.failed_at is not None


def test_further_compares_known_statuses_only():
    assert further("DELIVERED", than="SENT") and not further("SENT", than="DELIVERED")
    assert not further("READ", than="BOUNCED") and not further("opened", than="SENT")
    assert not further("READ", than="something-new")
