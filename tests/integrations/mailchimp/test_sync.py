"""A lead reaching a chosen stage is upserted into the audience, once: the hook queues the
actor after the stage change commits, the actor PUTs the member at its hash and tags it, and
an unchanged lead costs no second call. A lead that is not sent says why; Mailchimp's
refusals are kept with their text; faults follow the retry table."""

from __future__ import annotations

import json

import pytest
import requests

from cerniq import reasons
from integrations.mailchimp import sync, tasks
from integrations.mailchimp.models import MailchimpMember
from outreach import optout, stages
from outreach.models import Channel, Journey, Lead, Stage, Suppression
from tests.factories import make_lead
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

pytestmark = pytest.mark.django_db
State = MailchimpMember.State


@pytest.fixture
def queued(monkeypatch):
    """The lead ids the hook queues for the actor."""
    found: list[int] = []
    monkeypatch.setattr(tasks.sync_lead, "send", lambda lead_id: found.append(lead_id))
    return found


def put_and_tag(rsps, fixture: str = "member_put"):
    return rsps.put(member_url(), json=api_body(fixture)), rsps.post(
        f"{member_url()}/tags", status=204
    )


def record_of(lead: Lead) -> MailchimpMember:
    return MailchimpMember.objects.get(lead=lead)


def test_a_lead_reaching_warm_reply_is_queued_after_the_change_commits(
    tenant, audience, queued, django_capture_on_commit_callbacks
):
    lead = warm_lead(tenant, stage=Stage.CONTACTED_WA)
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        stages.transition(Journey.objects.get(lead=lead), Stage.WARM_REPLY, reason="replied")
    assert queued == []  # nothing before the commit
    for callback in callbacks:
        callback()
    assert queued == [lead.pk]


def test_a_stage_not_chosen_queues_nothing_and_a_tenant_without_the_sync_neither(
    tenant, other_tenant, audience, queued, django_capture_on_commit_callbacks
):
    lead = warm_lead(tenant, stage=Stage.COLD)
    elsewhere = warm_lead(other_tenant, stage=Stage.CONTACTED_WA, email="x@agro.ro")
    with django_capture_on_commit_callbacks(execute=True):
        stages.transition(Journey.objects.get(lead=lead), Stage.CONTACTED_WA, reason="sent")
        stages.transition(Journey.objects.get(lead=elsewhere), Stage.WARM_REPLY, reason="r")
    assert queued == []


def test_a_warm_reply_lead_synced_twice_costs_one_put_of_its_hash(tenant, audience, rsps):
    lead = warm_lead(tenant)
    put, tags = put_and_tag(rsps)

    assert tasks.sync.sync_lead(lead.pk).outcome == "synced"
    assert sync.sync_lead(lead.pk).outcome == "unchanged"

    assert (put.call_count, tags.call_count) == (1, 1)
    request = put.calls[0].request
    assert request.url == member_url(HASH) and request.headers["Authorization"] == AUTH
    assert json.loads(request.body) == {
        "email_address": EMAIL,
        "status_if_new": "subscribed",
        # The audience has no COMPANY: only what it allows is sent.
        "merge_fields": {"FNAME": "Ion", "LNAME": "Popescu", "PHONE": "+40722123456"},
    }
    assert json.loads(tags.calls[0].request.body) == {
        "tags": [
            {"name": "county:Iași", "status": "active"},
            {"name": "stage:warm_reply", "status": "active"},
        ]
    }
    record = record_of(lead)
    assert (record.state, record.subscriber_hash, record.list_id) == (State.SYNCED, HASH, LIST_ID)
    assert record.mailchimp_status == "subscribed" and record.digest


def test_a_changed_lead_is_put_again_and_its_old_stage_tag_taken_off(tenant, audience, rsps):
    lead = warm_lead(tenant)
    put, tags = put_and_tag(rsps)
    sync.sync_lead(lead.pk)
    Journey.objects.filter(lead=lead).update(stage=Stage.CONVERTED)
    assert sync.sync_lead(lead.pk).outcome == "synced"
    assert put.call_count == 1  # the member body did not change: tags only
    assert json.loads(tags.calls[1].request.body)["tags"] == [
        {"name": "stage:converted", "status": "active"},
        {"name": "stage:warm_reply", "status": "inactive"},
    ]
    Lead.objects.filter(pk=lead.pk).update(contact_name="Ion Ionel Popescu")
    sync.sync_lead(lead.pk)
    assert put.call_count == 2
    assert json.loads(put.calls[1].request.body)["merge_fields"]["LNAME"] == "Ionel Popescu"


@pytest.mark.parametrize(
    ("make", "reason"),
    [
        (lambda t: warm_lead(t, email=""), "mailchimp.no_email"),
        (lambda t: warm_lead(t, email_status=Lead.EmailStatus.BOUNCED), "mailchimp.bad_address"),
        (lambda t: _erased(warm_lead(t)), "mailchimp.erased"),
        (lambda t: _opted_out(warm_lead(t)), "mailchimp.opted_out"),
        (lambda t: _listed(warm_lead(t)), "mailchimp.suppressed"),
    ],
    ids=["no-email", "bounced", "erased", "opted-out", "listed"],
)
def test_a_lead_that_is_never_sent_says_why(tenant, audience, rsps, make, reason):
    lead = make(tenant)
    assert sync.sync_lead(lead.pk).outcome == "not_synced"
    assert len(rsps.calls) == 0
    record = record_of(lead)
    assert record.state == State.NOT_SYNCED and reasons.is_code(record.reason, reason)


def _erased(lead: Lead) -> Lead:
    from django.utils import timezone

    Lead.objects.filter(pk=lead.pk).update(erased_at=timezone.now())
    return lead


def _opted_out(lead: Lead) -> Lead:
    optout.opt_out(lead, Channel.WHATSAPP)  # a stop on any channel
    return lead


def _listed(lead: Lead) -> Lead:
    """On the do-not-contact list (added there for another lead of the address)."""
    Suppression.objects.create(tenant=lead.tenant, email=lead.email, reason="asked by phone")
    return lead


def test_an_address_mailchimp_holds_as_unsubscribed_is_never_resubscribed(tenant, audience, rsps):
    lead = warm_lead(tenant)
    put, tags = put_and_tag(rsps, "member_put_unsubscribed")
    assert sync.sync_lead(lead.pk).outcome == "not_synced"
    assert tags.call_count == 0
    record = record_of(lead)
    assert record.mailchimp_status == "unsubscribed"
    assert reasons.is_code(record.reason, "mailchimp.kept_out")
    Lead.objects.filter(pk=lead.pk).update(contact_name="Ion P.")
    assert sync.sync_lead(lead.pk).outcome == "not_synced"
    assert put.call_count == 1  # never asked again


@pytest.mark.parametrize(
    ("fixture", "status", "code"),
    [
        ("error_400_compliance", "compliance", "mailchimp.compliance"),
        ("error_400_forgotten", "forgotten", "mailchimp.forgotten"),
    ],
)
def test_a_member_in_compliance_state_is_recorded_and_never_retried(
    tenant, audience, rsps, fixture, status, code
):
    lead = warm_lead(tenant)
    put = problem(rsps, "PUT", member_url(), fixture, 400)
    assert sync.sync_lead(lead.pk).outcome == "not_synced"
    assert sync.sync_lead(lead.pk).outcome == "not_synced"
    assert put.call_count == 1
    record = record_of(lead)
    assert record.mailchimp_status == status and reasons.is_code(record.reason, code)
    assert EMAIL in record.detail  # Mailchimp's own text, for the admin


def test_a_refused_address_keeps_mailchimps_text(tenant, audience, rsps):
    lead = warm_lead(tenant)
    problem(rsps, "PUT", member_url(), "error_400_invalid_resource", 400)
    assert sync.sync_lead(lead.pk).outcome == "refused"
    record = record_of(lead)
    assert record.state == State.NOT_SYNCED and reasons.is_code(record.reason, "mailchimp.refused")
    assert "looks fake or invalid" in record.detail
    assert "looks fake or invalid" in reasons.render(record.reason)


@pytest.mark.parametrize(
    ("answer", "kind", "seconds"),
    [
        (("error_429", 429), "rate_limited", 60),
        (("error_500", 500), "unavailable", 15),
        (requests.exceptions.ReadTimeout("read timed out"), "timeout", 15),
    ],
    ids=["429", "5xx", "timeout"],
)
def test_a_fault_is_retried_as_the_retry_table_says(tenant, audience, rsps, answer, kind, seconds):
    lead = warm_lead(tenant)
    if isinstance(answer, tuple):
        problem(rsps, "PUT", member_url(), answer[0], answer[1])
    else:
        rsps.put(member_url(), body=answer)
    done = sync.sync_lead(lead.pk)
    assert done.retry_in is not None
    assert (done.outcome, done.failures, done.retry_in.total_seconds()) == (
        "retry",
        {kind: 1},
        seconds,
    )
    assert record_of(lead).state == State.QUEUED


def test_past_the_retry_table_the_record_says_it_failed(tenant, audience, rsps):
    lead = warm_lead(tenant)
    problem(rsps, "PUT", member_url(), "error_500", 500)
    done = sync.sync_lead(lead.pk, {"unavailable": 3})
    assert (done.outcome, done.retry_in) == ("failed", None)
    record = record_of(lead)
    assert record.state == State.FAILED and reasons.is_code(record.reason, "mailchimp.failed")


@pytest.mark.parametrize(("fixture", "status"), [("error_401", 401), ("error_404", 404)])
def test_a_refused_key_or_a_missing_audience_is_the_audiences_error(
    tenant, audience, rsps, fixture, status
):
    lead = warm_lead(tenant)
    put = problem(rsps, "PUT", member_url(), fixture, status)
    done = sync.sync_lead(lead.pk)
    assert (done.outcome, done.retry_in, put.call_count) == ("failed", None, 1)
    audience.refresh_from_db()
    assert f"HTTP {status}" in audience.last_error and audience.last_error_at is not None
    assert reasons.is_code(record_of(lead).reason, "mailchimp.audience_failed")


def test_the_actor_queues_its_next_try_with_the_failures_so_far(
    tenant, audience, rsps, monkeypatch
):
    lead = warm_lead(tenant)
    problem(rsps, "PUT", member_url(), "error_429", 429)
    again: list[dict] = []
    monkeypatch.setattr(tasks.sync_lead, "send_with_options", lambda **kw: again.append(kw))
    tasks.sync_lead.fn(lead.pk)
    assert again == [{"args": (lead.pk, {"rate_limited": 1}), "delay": 60_000}]


def test_without_a_key_nothing_is_called_and_the_audience_says_why(
    tenant, audience, rsps, settings
):
    settings.MAILCHIMP_API_KEY = ""
    lead = warm_lead(tenant)
    assert sync.sync_lead(lead.pk).outcome == "off"
    audience.refresh_from_db()
    assert audience.last_error == "MAILCHIMP_API_KEY is not set" and len(rsps.calls) == 0


def test_a_lead_of_a_stage_not_chosen_gets_no_record(tenant, audience, rsps):
    lead = make_lead(tenant, email="cold@agro.ro")
    assert sync.sync_lead(lead.pk).outcome == "not_chosen"
    assert not MailchimpMember.objects.exists()
