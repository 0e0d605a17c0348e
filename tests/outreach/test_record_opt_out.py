"""Recording an opt-out a lead asked for where the app could not see it (issue 19 §4):
the one opt-out rule (every channel, providers told, suppression), a reason, an audit row;
on the lead page (errors in the form), in bulk from the leads list."""

from __future__ import annotations

import html
import re

import pytest

from cerniq import reasons
from cerniq.models import WebhookDelivery
from outreach import optout, optout_manual
from outreach import reasons as codes
from outreach.models import (
    Channel,
    Enrollment,
    Journey,
    Lead,
    Message,
    OptOutRecord,
)
from outreach.sequences import enroll
from outreach.suppression import is_suppressed
from tests.factories import make_lead, make_message, make_sequence, make_webhook_endpoint

pytestmark = pytest.mark.django_db
REASON = "Called on 24.11 and asked not to be contacted again"
LIST = "/outreach/leads/"


@pytest.fixture
def lead(tenant):
    return make_lead(tenant, email="ion@agro.ro", email_status=Lead.EmailStatus.VALID)


@pytest.fixture
def told(monkeypatch) -> list[tuple[str, int]]:
    """The providers told (outreach.propagation.start), as (cause, lead id)."""
    calls: list[tuple[str, int]] = []
    monkeypatch.setattr(
        optout.propagation, "start", lambda lead, *, cause, **kw: calls.append((cause, lead.pk))
    )
    return calls


def _out(lead: Lead) -> tuple[bool, bool]:
    journey = Journey.objects.get(lead=lead)
    return journey.whatsapp_opted_out, journey.email_opted_out


# --- the service ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("channel", "reason", "field"),
    [
        ("all", "", "reason"),
        ("all", "   he   called   ", "reason"),  # 10 characters once spaces are squeezed
        ("all", "x" * 1001, "reason"),
        ("all", "Called and asked\x00 to stop", "reason"),
        ("phone", REASON, "channel"),
        ("", REASON, "channel"),
    ],
)
def test_a_record_needs_a_known_place_and_a_reason_and_changes_nothing_without(
    lead, operator, told, channel, reason, field
):
    with pytest.raises(optout_manual.OptOutRefused) as refused:
        optout_manual.record_opt_out(lead, user=operator, channel=channel, reason=reason)
    assert refused.value.field == field
    assert _out(lead) == (False, False)
    assert not is_suppressed(lead.tenant, phone=lead.phone)
    assert not OptOutRecord.objects.exists() and not told


def test_lifting_and_recording_share_the_reason_rule(lead, operator):
    optout.opt_out(lead, Channel.WHATSAPP)
    with pytest.raises(optout_manual.LiftRefused) as refused:
        optout_manual.lift_opt_out(lead, user=operator, reason="x" * 1001)
    assert refused.value.field == "reason"
    assert _out(lead) == (True, True)


@pytest.mark.parametrize("channel", ["whatsapp", "email", "all"])
def test_a_recorded_opt_out_stops_every_channel_and_is_audited(
    lead, operator, tenant, told, channel
):
    make_webhook_endpoint(tenant, events=["lead.opted_out"])
    record = optout_manual.record_opt_out(
        lead, user=operator, channel=channel, reason=f"  {REASON}  "
    )
    assert _out(lead) == (True, True)  # whichever channel it was asked on
    assert is_suppressed(tenant, phone=lead.phone) and is_suppressed(tenant, email="ion@agro.ro")
    assert told == [("opt_out", lead.pk)]
    delivery = WebhookDelivery.objects.get()
    assert delivery.payload["data"] == {
        "lead_id": lead.pk,
        "channel": optout_manual.RECORDED_CHANNEL[channel],
    }
    assert (record.lead, record.by_user, record.asked_on, record.reason) == (
        lead,
        operator,
        channel,
        REASON,
    )


def test_a_lead_already_out_of_every_channel_is_left_as_it_is(lead, operator, told):
    optout.opt_out(lead, Channel.WHATSAPP)
    told.clear()
    assert optout_manual.record_opt_out(lead, user=operator, channel="all", reason=REASON) is None
    assert not OptOutRecord.objects.exists() and not told


def test_a_lead_out_of_one_channel_only_is_opted_out_of_both(lead, operator):
    Journey.objects.filter(lead=lead).update(whatsapp_opted_out=True)  # an older, partial one
    record = optout_manual.record_opt_out(lead, user=operator, channel="email", reason=REASON)
    assert record is not None and _out(lead) == (True, True)


def test_a_recorded_opt_out_ends_open_enrollments_and_cancels_queued_messages(tenant, operator):
    active, paused = make_lead(tenant), make_lead(tenant)
    sequence = make_sequence(tenant)
    for lead in (active, paused):
        enroll(lead, sequence)
    Enrollment.objects.filter(lead=paused).update(status=Enrollment.Status.PAUSED)
    queued = make_message(active)
    by_hand = make_message(active, is_manual=True, idempotency_key=None)
    for lead in (active, paused):
        optout_manual.record_opt_out(lead, user=operator, channel="all", reason=REASON)
    stopped = Enrollment.objects.filter(lead__in=[active, paused])
    assert {e.status for e in stopped} == {Enrollment.Status.STOPPED}
    assert all(reasons.is_code(e.stop_reason, codes.STOP_OPT_OUT) for e in stopped)
    assert Message.objects.get(pk=queued.pk).status == Message.Status.CANCELLED
    # A person's message is not automation: the send path refuses it (opt-out) when due.
    assert Message.objects.get(pk=by_hand.pk).status == Message.Status.QUEUED
    assert not Journey.objects.filter(lead__in=[active, paused], next_action_at__isnull=False)


# --- the lead page -----------------------------------------------------------------------


@pytest.fixture
def logged_in(client, operator):
    client.force_login(operator)
    return client


def _record_url(lead: Lead) -> str:
    return f"/outreach/leads/{lead.pk}/record-opt-out/"


def test_the_lead_page_explains_the_rule_and_records_an_opt_out(logged_in, lead, operator):
    page = logged_in.get(f"/outreach/leads/{lead.pk}/").content.decode()
    assert "Record an opt-out" in page and "Every channel stops" in page
    response = logged_in.post(_record_url(lead), {"channel": "all", "reason": REASON}, follow=True)
    page = html.unescape(response.content.decode())
    assert f"{lead.name} is opted out of every channel" in page
    assert re.search(r"data-opt-out-record>[^<]*Another way \(a phone call, in person\)", page)
    assert REASON in page and operator.get_username() in page
    assert "Record an opt-out" not in page  # out of every channel: the lift form instead
    assert "Lift the opt-out" in page
    assert _out(lead) == (True, True)


@pytest.mark.parametrize(
    ("posted", "field", "error"),
    [
        ({"channel": "all", "reason": "he called"}, "reason", "Say why the lead is opted out"),
        ({"channel": "fax", "reason": REASON}, "channel", "Select a valid choice"),
    ],
)
def test_a_refused_record_shows_the_error_in_the_form_and_keeps_the_text(
    logged_in, lead, posted, field, error
):
    response = logged_in.post(_record_url(lead), posted)
    assert response.status_code == 400
    page = html.unescape(response.content.decode())
    found = re.search(rf'data-errors="{field}"><li>([^<]*)</li>', page)
    assert found and error in found.group(1)
    assert f">{posted['reason']}</textarea>" in page
    assert '<details class="record-opt-out" id="record-opt-out" open>' in page
    assert _out(lead) == (False, False) and not OptOutRecord.objects.exists()


def test_another_tenants_lead_cannot_be_opted_out(logged_in, other_tenant):
    theirs = make_lead(other_tenant)
    response = logged_in.post(_record_url(theirs), {"channel": "all", "reason": REASON})
    assert response.status_code == 404
    assert _out(theirs) == (False, False)


def test_recording_needs_a_login(client, lead):
    response = client.post(_record_url(lead), {"channel": "all", "reason": REASON})
    assert response.status_code == 302 and response["Location"].startswith("/login/")
    assert _out(lead) == (False, False)


# --- the leads list ----------------------------------------------------------------------


def test_bulk_record_counts_done_and_already_out(logged_in, tenant, other_tenant, operator):
    a, b, already = make_lead(tenant), make_lead(tenant), make_lead(tenant)
    optout.opt_out(already, Channel.WHATSAPP)
    theirs = make_lead(other_tenant)
    response = logged_in.post(
        "/outreach/leads/bulk/",
        {
            "ids": [a.pk, b.pk, already.pk, theirs.pk],
            "action": "opt-out",
            "opt_out_channel": "whatsapp",
            "opt_out_reason": "Asked on the phone to stop, 24.11",
        },
        follow=True,
    )
    page = html.unescape(response.content.decode())
    assert "Opt-out recorded for 2 lead(s); 1 had already opted out." in page
    assert _out(a) == _out(b) == (True, True)
    assert _out(theirs) == (False, False)
    records = OptOutRecord.objects.order_by("lead_id")
    assert [(r.lead_id, r.asked_on, r.by_user) for r in records] == [
        (a.pk, "whatsapp", operator),
        (b.pk, "whatsapp", operator),
    ]


def test_bulk_record_without_a_reason_changes_nothing(logged_in, tenant):
    a = make_lead(tenant)
    response = logged_in.post(
        "/outreach/leads/bulk/",
        {"ids": [a.pk], "action": "opt-out", "opt_out_channel": "all", "opt_out_reason": "x"},
        follow=True,
    )
    assert "Say why the lead is opted out" in html.unescape(response.content.decode())
    assert _out(a) == (False, False) and not OptOutRecord.objects.exists()


def test_the_leads_list_offers_the_bulk_opt_out(logged_in, tenant):
    make_lead(tenant)
    page = logged_in.get(LIST).content.decode()
    assert 'value="opt-out"' in page and 'name="opt_out_reason"' in page
    assert "Every channel stops for each of them" in page
