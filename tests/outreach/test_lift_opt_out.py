"""Lifting an opt-out (issue #11 §8): only with a reason, audited, on every channel."""

from __future__ import annotations

import pytest

from outreach import optout, optout_manual
from outreach.models import Channel, Journey, Lead, OptOutLift, Suppression
from outreach.suppression import is_suppressed
from tests.factories import make_lead

pytestmark = pytest.mark.django_db
REASON = "Called on 24.11 and asked for the seed offer by email"


@pytest.fixture
def opted_out(tenant):
    lead = make_lead(tenant, email="ion@agro.ro", email_status=Lead.EmailStatus.VALID)
    optout.opt_out(lead, Channel.WHATSAPP)
    Lead.objects.filter(pk=lead.pk).update(email_status=Lead.EmailStatus.UNSUBSCRIBED)
    lead.refresh_from_db()
    return lead


def test_a_lift_needs_a_reason_and_changes_nothing_without_one(opted_out, operator):
    for reason in ("", "   ", "ok", "he called"):
        with pytest.raises(optout_manual.LiftRefused, match="Say why"):
            optout_manual.lift_opt_out(opted_out, user=operator, reason=reason)
    journey = Journey.objects.get(lead=opted_out)
    assert journey.whatsapp_opted_out and journey.email_opted_out
    assert is_suppressed(opted_out.tenant, phone=opted_out.phone)
    assert not OptOutLift.objects.exists()


def test_a_lift_opens_every_channel_and_is_audited(opted_out, operator):
    lift = optout_manual.lift_opt_out(opted_out, user=operator, reason=f"  {REASON}  ")
    journey = Journey.objects.get(lead=opted_out)
    opted_out.refresh_from_db()
    assert not (journey.whatsapp_opted_out or journey.email_opted_out)
    assert not is_suppressed(opted_out.tenant, phone=opted_out.phone)
    assert not is_suppressed(opted_out.tenant, email="ion@agro.ro")
    assert opted_out.email_status == Lead.EmailStatus.VALID
    assert (lift.by_user, lift.reason, lift.email_status_before) == (
        operator,
        REASON,
        Lead.EmailStatus.UNSUBSCRIBED,
    )
    assert lift.whatsapp_opted_out_at is not None
    assert sorted(lift.unsuppressed) == sorted([opted_out.phone, "ion@agro.ro"])
    with pytest.raises(optout_manual.LiftRefused, match="has not opted out"):
        optout_manual.lift_opt_out(opted_out, user=operator, reason=REASON)


def test_a_bounced_address_stays_bounced(opted_out, operator):
    Lead.objects.filter(pk=opted_out.pk).update(email_status=Lead.EmailStatus.BOUNCED)
    opted_out.refresh_from_db()
    optout_manual.lift_opt_out(opted_out, user=operator, reason=REASON)
    opted_out.refresh_from_db()
    assert opted_out.email_status == Lead.EmailStatus.BOUNCED


def test_the_lead_page_lifts_with_a_reason(client, operator, opted_out):
    client.force_login(operator)
    url = f"/outreach/leads/{opted_out.pk}/lift-opt-out/"
    page = client.post(url, {"reason": "ok"}, follow=True).content.decode()
    assert "Say why the opt-out is lifted" in page
    assert Journey.objects.get(lead=opted_out).whatsapp_opted_out
    page = client.post(url, {"reason": REASON}, follow=True).content.decode()
    assert "is lifted" in page and REASON in page
    assert not Journey.objects.get(lead=opted_out).whatsapp_opted_out


def test_the_admin_cannot_delete_a_suppression(admin_client, opted_out):
    row = Suppression.objects.filter(phone=opted_out.phone).get()
    response = admin_client.post(f"/admin/outreach/suppression/{row.pk}/delete/", {"post": "yes"})
    assert response.status_code == 403
    assert Suppression.objects.filter(pk=row.pk).exists()
