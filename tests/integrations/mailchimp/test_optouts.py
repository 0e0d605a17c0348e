"""Opt-outs and erasures reach Mailchimp with a receipt (outreach.propagation, optouts.py):
an opt-out sets the synced member unsubscribed, an erasure deletes it permanently, a 404 is
done, and a lead Mailchimp never had from us costs no call on opt-out."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, cast

import pytest

from integrations.mailchimp.models import MailchimpMember
from outreach import optout, propagation
from outreach.erasure import erase_person
from outreach.models import Channel, Propagation
from tests.factories import make_user
from tests.integrations.mailchimp.conftest import (
    AUTH,
    EMAIL,
    HASH,
    LIST_ID,
    api_body,
    member_url,
    problem,
    warm_lead,
)
from tests.outreach.test_erasure import everything_stored

if TYPE_CHECKING:
    from django.contrib.auth.models import User

pytestmark = pytest.mark.django_db
REASON = "Asked by phone on 2026-11-20, confirmed by email"


def synced(tenant, status: str = "subscribed"):
    lead = warm_lead(tenant)
    MailchimpMember.objects.create(
        tenant=tenant,
        lead=lead,
        list_id=LIST_ID,
        subscriber_hash=HASH,
        digest="d" * 64,
        mailchimp_status=status,
        state=MailchimpMember.State.SYNCED,
        sent_tags=["stage:warm_reply"],
    )
    return lead


def receipt_of(lead, **kw) -> Propagation:
    return Propagation.objects.get(lead=lead, provider="mailchimp", **kw)


def dpo(tenant) -> User:
    """The workspace's admin who erases a person on request."""
    return cast("User", make_user(tenant, role="ADMIN"))


def applied(receipt: Propagation) -> Propagation:
    """One attempt at the receipt, as the actor makes it."""
    done = propagation.apply(receipt.pk)
    assert done is not None
    return done


def test_an_opt_out_on_whatsapp_unsubscribes_the_member(tenant, audience, rsps):
    lead = synced(tenant)
    patch = rsps.patch(member_url(), json=api_body("member_put_unsubscribed"))
    optout.opt_out(lead, Channel.WHATSAPP)
    receipt = receipt_of(lead)
    assert (receipt.action, receipt.target) == (
        "unsubscribe_member",
        {"list_id": LIST_ID, "lookup": HASH},
    )

    propagation.apply(receipt.pk)

    receipt.refresh_from_db()
    assert patch.call_count == 1 and patch.calls[0].request.headers["Authorization"] == AUTH
    assert json.loads(patch.calls[0].request.body) == {"status": "unsubscribed"}
    assert (receipt.state, receipt.answer) == ("done", {"unsubscribed": 1})
    assert receipt.target == {"list_id": LIST_ID}  # the hash is not kept once confirmed
    assert MailchimpMember.objects.get(lead=lead).mailchimp_status == "unsubscribed"


def test_a_member_mailchimp_no_longer_has_is_done(tenant, audience, rsps):
    lead = synced(tenant)
    problem(rsps, "PATCH", member_url(), "error_404", 404)
    optout.opt_out(lead, Channel.EMAIL_COLD)
    done = applied(receipt_of(lead))
    assert (done.state, done.answer) == ("done", {"already_gone": 1})


def test_a_lead_never_synced_or_already_unsubscribed_there_costs_no_call(tenant, audience, rsps):
    never = warm_lead(tenant, email="never@agro-example.ro")
    optout.opt_out(never, Channel.WHATSAPP)
    assert not Propagation.objects.filter(provider="mailchimp").exists()
    out_there = synced(tenant, status="unsubscribed")
    optout.opt_out(out_there, Channel.WHATSAPP)
    # Its receipt says the person unsubscribed in Mailchimp; nothing is asked of it.
    done = applied(receipt_of(out_there))
    assert (done.action, done.state, done.answer) == (
        "unsubscribed_there",
        "done",
        {"unsubscribed_there": 1},
    )
    assert not rsps.calls


def test_a_refusing_mailchimp_is_retried_through_the_retry_table(tenant, audience, rsps):
    lead = synced(tenant)
    problem(rsps, "PATCH", member_url(), "error_429", 429)
    optout.opt_out(lead, Channel.WHATSAPP)
    receipt = applied(receipt_of(lead))
    assert receipt.state == "pending" and "RateLimited" in receipt.last_error
    assert receipt.target["lookup"] == HASH  # kept until Mailchimp confirms


@pytest.fixture
def instantly_holds_nobody(settings):
    """Cold email in the demo's sandbox: Instantly's own receipt is not this test's."""
    settings.PROVIDERS = {
        **settings.PROVIDERS,
        "email.instantly": {"BACKEND": "integrations.sandbox.email.SandboxEmail"},
    }


def test_an_erasure_deletes_the_member_permanently_and_nothing_of_it_stays(
    tenant, audience, rsps, instantly_holds_nobody
):
    lead = synced(tenant)
    url = f"{member_url()}/actions/delete-permanent"
    delete = rsps.post(url, status=204)
    erasure = erase_person(lead, by=dpo(tenant), reason=REASON, via="api")
    receipt = receipt_of(lead, erasure=erasure)
    assert (receipt.action, receipt.target) == (
        "delete_member",
        {"list_id": LIST_ID, "lookup": HASH},
    )
    # The erasure itself blanked the record (the receipt carries what Mailchimp needs).
    record = MailchimpMember.objects.get(lead=lead)
    assert (record.subscriber_hash, record.digest, record.sent_tags) == ("", "", [])

    propagation.apply(receipt.pk)

    receipt.refresh_from_db()
    assert delete.call_count == 1 and delete.calls[0].request.headers["Authorization"] == AUTH
    assert (receipt.state, receipt.answer, receipt.target) == (
        "done",
        {"deleted": 1},
        {"list_id": LIST_ID},
    )
    stored = everything_stored()
    assert EMAIL not in stored and HASH not in stored


def test_an_erasure_of_a_lead_never_synced_deletes_its_address_from_the_audience(
    tenant, audience, rsps
):
    lead = warm_lead(tenant)
    gone = problem(rsps, "POST", f"{member_url()}/actions/delete-permanent", "error_404", 404)
    erase_person(lead, by=dpo(tenant), reason=REASON, via="api")
    done = applied(receipt_of(lead))
    assert gone.call_count == 1 and (done.state, done.answer) == ("done", {"already_gone": 1})


def test_without_an_audience_an_erasure_asks_nothing_of_mailchimp(tenant):
    lead = warm_lead(tenant)
    erase_person(lead, by=dpo(tenant), reason=REASON, via="api")
    assert not Propagation.objects.filter(provider="mailchimp").exists()
