"""The backfill ("sync now", or the settings changed): every lead of the chosen stages in
batches of at most 500 (`POST /lists/{id}`, `update_existing: true`), the answer read per
address, a refused address shown with Mailchimp's text, a known member's status sent back
as it is, and a second run sending nothing unchanged."""

from __future__ import annotations

import json

import pytest

from cerniq import reasons
from integrations.mailchimp import backfill as backfilling
from integrations.mailchimp import tasks
from integrations.mailchimp.client import subscriber_hash
from integrations.mailchimp.models import MailchimpMember
from outreach.models import Journey, Stage
from tests.factories import make_user
from tests.integrations.mailchimp.conftest import (
    AUTH,
    BASE,
    EMAIL,
    LIST_ID,
    api_body,
    problem,
    warm_lead,
)

pytestmark = pytest.mark.django_db
State = MailchimpMember.State
BATCH_URL = f"{BASE}/lists/{LIST_ID}"
ANA = "ana.vladescu@ferma-vladescu.ro"
FAKE = "fake@example.com"
GONE = "gone@agro-example.ro"


def four_leads(tenant):
    """Ion and Ana (written by the fixture's answer), a fake address and one Mailchimp keeps
    out (its errors), all Warm reply; and a cold lead, not in a chosen stage."""
    ion = warm_lead(tenant)
    ana = warm_lead(tenant, email=ANA, contact_name="Ana Vlădescu", stage=Stage.CONVERTED)
    fake = warm_lead(tenant, email=FAKE, contact_name="")
    gone = warm_lead(tenant, email=GONE, contact_name="")
    warm_lead(tenant, email="cold@agro-example.ro", stage=Stage.COLD)
    return ion, ana, fake, gone


def test_a_backfill_sends_one_batch_and_shows_each_refused_address(tenant, audience, rsps, client):
    ion, ana, fake, gone = four_leads(tenant)
    batch = rsps.post(BATCH_URL, json=api_body("batch_subscribe"))

    done = backfilling.backfill(tenant.pk)

    assert done.outcome == "done" and batch.call_count == 1
    assert batch.calls[0].request.headers["Authorization"] == AUTH
    body = json.loads(batch.calls[0].request.body)
    assert body["update_existing"] is True
    assert [m["email_address"] for m in body["members"]] == [EMAIL, ANA, FAKE, GONE]
    assert body["members"][0] == {
        "email_address": EMAIL,
        "status": "subscribed",
        "merge_fields": {"FNAME": "Ion", "LNAME": "Popescu", "PHONE": "+40722123456"},
        "tags": ["county:Iași", "stage:warm_reply"],
    }
    assert body["members"][1]["tags"] == ["county:Iași", "stage:converted"]
    states = {r.lead_id: r for r in MailchimpMember.objects.all()}
    assert states[ion.pk].state == states[ana.pk].state == State.SYNCED
    assert states[ion.pk].subscriber_hash == subscriber_hash(EMAIL)
    refused = states[fake.pk]
    assert refused.state == State.NOT_SYNCED and reasons.is_code(
        refused.reason, "mailchimp.refused"
    )
    assert "looks fake or invalid" in refused.detail
    kept = states[gone.pk]
    assert kept.mailchimp_status == "compliance"
    assert reasons.is_code(kept.reason, "mailchimp.compliance")
    assert done.counts == {"sent": 4, "synced": 2, "unchanged": 0, "not_synced": 2}

    # The page shows the per-address refusal, with Mailchimp's own text.
    admin = make_user(tenant, role="ADMIN")
    client.force_login(admin)
    page = client.get("/outreach/settings/mailchimp/").content.decode()
    assert f'data-lead="{fake.pk}"' in page and "looks fake or invalid" in page
    assert f'data-lead="{gone.pk}"' in page and f'data-lead="{ion.pk}"' not in page


def test_a_second_backfill_sends_only_what_changed(tenant, audience, rsps):
    four_leads(tenant)
    batch = rsps.post(BATCH_URL, json=api_body("batch_subscribe"))
    backfilling.backfill(tenant.pk)
    done = backfilling.backfill(tenant.pk)
    # Ion and Ana are unchanged; the refused fake address is tried again; the address
    # Mailchimp keeps out is never sent again.
    assert batch.call_count == 2
    again = json.loads(batch.calls[1].request.body)["members"]
    assert [m["email_address"] for m in again] == [FAKE]
    assert done.counts["unchanged"] == 2


def test_a_known_members_status_is_sent_back_as_it_is(tenant, audience, rsps):
    ion = warm_lead(tenant)
    MailchimpMember.objects.create(
        tenant=tenant,
        lead=ion,
        list_id=LIST_ID,
        subscriber_hash=subscriber_hash(EMAIL),
        mailchimp_status="transactional",
        state=State.SYNCED,
        sent_tags=["stage:negotiation"],
    )
    Journey.objects.filter(lead=ion).update(stage=Stage.WARM_REPLY)
    batch = rsps.post(BATCH_URL, json=api_body("batch_subscribe"))
    tags = rsps.post(f"{BATCH_URL}/members/{subscriber_hash(EMAIL)}/tags", status=204)
    backfilling.backfill(tenant.pk)
    (member,) = json.loads(batch.calls[0].request.body)["members"]
    assert member["status"] == "transactional"  # never changed by us
    # The batch only adds tags: the one wanted no more is taken off by itself.
    assert json.loads(tags.calls[0].request.body) == {
        "tags": [{"name": "stage:negotiation", "status": "inactive"}]
    }


def test_batches_hold_at_most_500_members(tenant, audience, rsps, monkeypatch):
    monkeypatch.setattr(backfilling, "MAX_BATCH", 2)
    four_leads(tenant)
    batch = rsps.post(BATCH_URL, json={"new_members": [], "updated_members": [], "errors": []})
    backfilling.backfill(tenant.pk)
    sizes = [len(json.loads(c.request.body)["members"]) for c in batch.calls]
    assert sizes == [2, 2]


def test_a_failed_batch_follows_the_retry_table_and_the_audience_says_so(
    tenant, audience, rsps, monkeypatch
):
    four_leads(tenant)
    problem(rsps, "POST", BATCH_URL, "error_500", 500)
    again: list[dict] = []
    monkeypatch.setattr(tasks.backfill, "send_with_options", lambda **kw: again.append(kw))
    tasks.backfill.fn(tenant.pk)
    assert again == [{"args": (tenant.pk, {"unavailable": 1}), "delay": 15_000}]
    audience.refresh_from_db()
    assert "HTTP 500" in audience.last_error


def test_an_opted_out_lead_is_never_in_a_batch(tenant, audience, rsps):
    from outreach import optout
    from outreach.models import Channel

    ion, *_ = four_leads(tenant)
    optout.opt_out(ion, Channel.EMAIL_COLD)
    batch = rsps.post(BATCH_URL, json=api_body("batch_subscribe"))
    backfilling.backfill(tenant.pk)
    sent = [m["email_address"] for m in json.loads(batch.calls[0].request.body)["members"]]
    assert EMAIL not in sent
    assert reasons.is_code(MailchimpMember.objects.get(lead=ion).reason, "mailchimp.opted_out")
