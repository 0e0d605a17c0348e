"""Opt-outs and erasures reach Instantly with a receipt (outreach.propagation, optouts.py),
at the HTTP boundary: an erasure deletes every Instantly lead with the person's address,
once; a provider that keeps refusing is retried, alerted on, and the receipt is closed when
it finally answers."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.utils import timezone

from cerniq.models import Alert
from outreach import optout, propagation
from outreach.automation import EMAILED
from outreach.erasure import erase_person
from outreach.models import Channel, Lead, Message, Propagation
from tests.factories import make_lead, make_message, make_user
from tests.integrations.instantly.conftest import BASE, api_body
from tests.outreach.test_erasure import everything_stored

pytestmark = [pytest.mark.usefixtures("registered"), pytest.mark.django_db]
PUSHED_ID = "019ffad3-aaaa-7bbb-8ccc-ddddeeeeffff"
OTHER_ID = "019ffad3-bbbb-7bbb-8ccc-ddddeeeeffff"  # a lead Instantly has that we never pushed
EMAIL = "ana.vladescu@ferma-example.ro"
REASON = "Asked by phone on 2026-11-20, confirmed by email"


@pytest.fixture
def keyed(monkeypatch, api_key):
    monkeypatch.setenv("INSTANTLY_API_KEY", api_key)


def pushed_lead(tenant) -> Lead:
    lead = make_lead(tenant, email=EMAIL, email_status=Lead.EmailStatus.VALID)
    make_message(
        lead,
        channel=Channel.EMAIL_COLD,
        status=Message.Status.SENT,
        counterpart=lead.email,
        provider_message_id=PUSHED_ID,
        raw_response={EMAILED: "2026-10-06T09:02:11.000Z"},
    )
    return lead


def instantly_lead(lead_id: str) -> dict:
    return {**api_body("lead_get"), "id": lead_id, "email": EMAIL}


def test_an_erasure_deletes_every_instantly_lead_of_the_address_once(tenant, rsps, keyed):
    lead = pushed_lead(tenant)
    listing = rsps.post(
        f"{BASE}/api/v2/leads/list",
        json={
            "items": [instantly_lead(PUSHED_ID), instantly_lead(OTHER_ID)],
            "next_starting_after": None,
        },
    )
    deleted = rsps.delete(f"{BASE}/api/v2/leads/{PUSHED_ID}", json={"id": PUSHED_ID})
    gone = rsps.delete(
        f"{BASE}/api/v2/leads/{OTHER_ID}",
        status=404,
        json={"statusCode": 404, "error": "Not Found", "message": "Lead not found"},
    )
    erasure = erase_person(lead, by=make_user(tenant, role="ADMIN"), reason=REASON, via="api")
    receipt = Propagation.objects.get(erasure=erasure, provider="instantly")
    assert (receipt.state, receipt.target) == ("pending", {"ids": [PUSHED_ID], "lookup": EMAIL})

    propagation.apply(receipt.pk)

    receipt.refresh_from_db()
    assert (listing.call_count, deleted.call_count, gone.call_count) == (1, 1, 1)
    assert json.loads(listing.calls[0].request.body)["contacts"] == [EMAIL]
    assert receipt.state == "done" and receipt.applied_at is not None
    assert receipt.answer == {"deleted": [PUSHED_ID], "already_gone": [OTHER_ID]}
    assert receipt.target == {"ids": [PUSHED_ID]}  # the address is not kept once confirmed
    assert EMAIL not in everything_stored()
    assert propagation.apply(receipt.pk) is None  # done: never called again
    assert len(rsps.calls) == 3


def test_an_opt_out_is_retried_until_instantly_confirms_with_an_alert_meanwhile(
    tenant, rsps, keyed
):
    lead = pushed_lead(tenant)
    optout.opt_out(lead, Channel.WHATSAPP)
    receipt = Propagation.objects.get(lead=lead, provider="instantly")
    assert (receipt.cause, receipt.target) == ("opt_out", {"ids": [PUSHED_ID]})
    ours = Propagation.objects.get(lead=lead, provider="cerniq")
    assert ours.state == "done" and ours.answer["still_queued"] == 0

    failing = rsps.delete(
        f"{BASE}/api/v2/leads/{PUSHED_ID}",
        status=500,
        json={"statusCode": 500, "error": "Internal Server Error", "message": "boom"},
    )
    now = timezone.now()
    states = []
    for attempt in range(1, propagation.ALERT_AFTER + 2):
        receipt = propagation.apply(receipt.pk, now)
        assert receipt is not None and receipt.attempts == attempt
        states.append(receipt.state)
        assert receipt.next_attempt_at is not None  # never given up
        assert timedelta(0) < receipt.next_attempt_at - now <= propagation.LONGEST_WAIT
        # Not before it is due: the sweep and a late actor message find nothing to do.
        assert propagation.apply(receipt.pk, now) is None
        now = receipt.next_attempt_at
    # Pending while the retry table retries, then refused (at ALERT_AFTER at the latest),
    # and still retried: the last attempt ran an hour after the one before.
    assert states[0] == "pending" and states[-2:] == ["refused", "refused"]
    assert states.index("refused") < propagation.ALERT_AFTER
    assert "500" in receipt.last_error
    alert = Alert.objects.get(subject=f"propagation:instantly:{receipt.pk}")
    assert alert.severity == Alert.Severity.CRITICAL and alert.resolved_at is None
    assert alert.occurrences == 1  # raised once, however many attempts follow
    assert failing.call_count == propagation.ALERT_AFTER + 1

    rsps.replace("DELETE", f"{BASE}/api/v2/leads/{PUSHED_ID}", json={"id": PUSHED_ID})
    assert propagation.apply_due(now) == 1
    receipt.refresh_from_db()
    assert receipt.state == "done" and receipt.answer == {
        "deleted": [PUSHED_ID],
        "already_gone": [],
    }
    alert.refresh_from_db()
    assert alert.resolved_at is not None


def test_a_lead_instantly_never_had_gets_our_receipt_only(tenant, rsps, keyed):
    lead = make_lead(tenant)
    optout.opt_out(lead, Channel.WHATSAPP)
    assert list(Propagation.objects.filter(lead=lead).values_list("provider", "state")) == [
        ("cerniq", "done")
    ]
    assert len(rsps.calls) == 0


def test_the_actor_queues_itself_for_the_next_attempt(tenant, rsps, keyed, monkeypatch):
    """A refused call is tried again when its receipt says, not a sweep later."""
    from outreach import tasks

    lead = pushed_lead(tenant)
    optout.opt_out(lead, Channel.WHATSAPP)
    receipt = Propagation.objects.get(lead=lead, provider="instantly")
    rsps.delete(
        f"{BASE}/api/v2/leads/{PUSHED_ID}",
        status=503,
        json={"statusCode": 503, "error": "Service Unavailable", "message": "busy"},
    )
    again: list[tuple] = []
    monkeypatch.setattr(
        tasks.propagate, "send_with_options", lambda *, args, delay: again.append((args, delay))
    )
    tasks.propagate.fn(receipt.pk)
    receipt.refresh_from_db()
    ((args, delay),) = again
    assert args == (receipt.pk,) and receipt.state == "pending"
    expected = (receipt.next_attempt_at - timezone.now()).total_seconds() * 1000
    assert abs(delay - expected) < 2000 and delay >= 10_000
