"""InstantlyEmail (the `email.instantly` backend) against faked HTTP: one campaign per tenant
sequence, created once and activated; leads pushed in calls of ≤ 1,000 with our rendered
text; leads Instantly did not create looked up, never pushed twice; failures per message."""

from __future__ import annotations

import json
import threading
from dataclasses import replace
from datetime import UTC, datetime

import pytest
import requests
from django.db import IntegrityError, connection, transaction

from cerniq.provider_errors import (
    InvalidRecipient,
    PermanentProviderError,
    ProviderTimeout,
    ProviderUnavailable,
    RateLimited,
    RejectedRequest,
    SendResult,
)
from cerniq.retry import decide
from email_channels.backends import OutgoingEmail
from email_channels.models import EmailCampaign
from integrations.instantly.backend import CampaignNotSending, InstantlyEmail
from integrations.instantly.campaign_sync import UNCERTAIN, ensure_campaign
from outreach.models import Sequence
from tests.integrations.instantly import instantly_fake as fake
from tests.integrations.instantly.conftest import BASE, CAMPAIGN_ID, api_body

pytestmark = pytest.mark.django_db
SENDER = "vanzari@cerniq-mail.ro"


@pytest.fixture
def sequence(tenant):
    return Sequence.objects.create(tenant=tenant, name="Ferme Moldova")


@pytest.fixture
def backend(instantly):
    return InstantlyEmail(client=instantly, senders=SENDER, daily_limit="40")


@pytest.fixture
def campaign(tenant, sequence):
    """The sequence's campaign, already created and running at Instantly."""
    return EmailCampaign.objects.create(
        tenant=tenant,
        provider="instantly",
        sequence=sequence,
        name="Agro Demo · Ferme Moldova",
        external_id=CAMPAIGN_ID,
        status=EmailCampaign.Status.ACTIVE,
    )


def emails(tenant, sequence, count: int, start: int = 0) -> list[tuple[OutgoingEmail, str]]:
    key = f"tenant:{tenant.pk}:sequence:{sequence.pk}"
    return [
        (
            OutgoingEmail(
                to=f"office{n}@ferma{n}.ro",
                subject=f"Ofertă pentru Ferma {n}",
                text=f"Bună ziua,\nOferta {n}.",
                html=f"<p>Bună ziua,<br>Oferta {n}.</p>",
                campaign=key,
            ),
            f"message-{n}",
        )
        for n in range(start, start + count)
    ]


def test_the_campaign_is_created_once_activated_and_leads_carry_our_text(
    rsps, backend, tenant, sequence
):
    fake.mock_campaign_creation(rsps)
    rsps.add_callback("POST", fake.ADD_URL, callback=fake.leads_add())
    results = backend.send_many(emails(tenant, sequence, 2))

    (create,) = fake.calls_to(rsps, fake.CAMPAIGNS_URL)
    sent = fake.body(create)
    assert sent["name"] == "Agro Demo · Ferme Moldova"
    (step,) = sent["sequences"][0]["steps"]  # one cold email per lead and sequence
    assert step["variants"] == [{"subject": "{{subject_1}}", "body": "{{body_1}}"}]
    assert (sent["email_list"], sent["daily_limit"], sent["stop_on_reply"]) == ([SENDER], 40, True)
    (schedule,) = sent["campaign_schedule"]["schedules"]
    assert schedule["timing"] == {"from": "09:00", "to": "18:00"}
    assert schedule["timezone"] == "Europe/Bucharest"
    assert len(fake.calls_to(rsps, fake.ACTIVATE_URL)) == 1
    row = EmailCampaign.objects.get(sequence=sequence)
    assert (row.provider, row.external_id, row.status) == ("instantly", CAMPAIGN_ID, "ACTIVE")

    (add,) = fake.calls_to(rsps, fake.ADD_URL)
    pushed = fake.body(add)
    assert (pushed["campaign_id"], pushed["skip_if_in_workspace"]) == (CAMPAIGN_ID, True)
    assert pushed["leads"][1] == {
        "email": "office1@ferma1.ro",
        "custom_variables": {
            "cerniq_key": "message-1",
            "subject_1": "Ofertă pentru Ferma 1",
            "body_1": "<p>Bună ziua,<br>Oferta 1.</p>",
        },
    }
    created = {row["index"]: row["id"] for row in add.response.json()["created_leads"]}
    assert [r.provider_message_id for r in results] == [created[0], created[1]]

    backend.send_many(emails(tenant, sequence, 1, start=5))  # the next push: no new campaign
    assert len(fake.calls_to(rsps, fake.CAMPAIGNS_URL)) == 1
    assert len(fake.calls_to(rsps, fake.ACTIVATE_URL)) == 1


def test_without_sending_accounts_nothing_is_created_and_the_variable_is_named(
    rsps, instantly, tenant, sequence, settings
):
    settings.INSTANTLY_SENDERS = ""
    backend = InstantlyEmail(client=instantly)
    results = backend.send_many(emails(tenant, sequence, 2))
    assert all(isinstance(r, PermanentProviderError) for r in results)
    assert "INSTANTLY_SENDERS" in str(results[0])
    assert not rsps.calls


def test_1500_emails_go_in_two_calls_mapped_back_by_index(rsps, backend, tenant, campaign):
    rsps.add_callback("POST", fake.ADD_URL, callback=fake.leads_add())
    results = backend.send_many(emails(tenant, campaign.sequence, 1500))
    calls = fake.calls_to(rsps, fake.ADD_URL)
    assert [len(fake.body(c)["leads"]) for c in calls] == [1000, 500]
    ids = [row["id"] for c in calls for row in c.response.json()["created_leads"]]
    assert [r.provider_message_id for r in results] == ids
    assert len(set(ids)) == 1500


def test_a_lead_already_in_the_campaign_with_our_key_is_sent_not_pushed_twice(
    rsps, backend, tenant, campaign
):
    pairs = emails(tenant, campaign.sequence, 2)
    earlier = fake.listed_lead("office1@ferma1.ro", key="message-1")
    rsps.add_callback(
        "POST",
        fake.ADD_URL,
        callback=fake.leads_add(lambda lead: lead["email"] == "office1@ferma1.ro", skipped_count=1),
    )
    rsps.post(fake.LIST_URL, json={"items": [earlier], "next_starting_after": None})
    first, second = backend.send_many(pairs)
    assert isinstance(first, SendResult)
    assert second.provider_message_id == earlier["id"] and second.raw["found"] is True
    assert len(fake.calls_to(rsps, fake.ADD_URL)) == 1
    (lookup,) = fake.calls_to(rsps, fake.LIST_URL)
    assert fake.body(lookup) == {
        "contacts": ["office1@ferma1.ro"],
        "campaign": CAMPAIGN_ID,
        "limit": 100,
    }


def test_the_same_address_in_the_campaign_for_another_message_is_refused(
    rsps, backend, tenant, campaign
):
    rsps.add_callback(
        "POST", fake.ADD_URL, callback=fake.leads_add(lambda lead: True, duplicated_leads=1)
    )
    other = fake.listed_lead("office0@ferma0.ro", key="message-other")
    rsps.post(fake.LIST_URL, json={"items": [other], "next_starting_after": None})
    (result,) = backend.send_many(emails(tenant, campaign.sequence, 1))
    assert isinstance(result, RejectedRequest) and "another message" in str(result)


@pytest.mark.parametrize(
    ("counts", "error"),
    [
        ({"invalid_email_count": 1}, InvalidRecipient),
        ({"in_blocklist": 1}, RejectedRequest),
        ({"skipped_count": 1}, RejectedRequest),
    ],
    ids=["invalid", "blocklisted", "skipped"],
)
def test_a_lead_not_created_and_not_in_the_campaign_fails_alone(
    rsps, backend, tenant, campaign, counts, error
):
    rsps.add_callback(
        "POST",
        fake.ADD_URL,
        callback=fake.leads_add(lambda lead: lead["email"] == "office1@ferma1.ro", **counts),
    )
    rsps.post(fake.LIST_URL, json={"items": [], "next_starting_after": None})
    first, second, third = backend.send_many(emails(tenant, campaign.sequence, 3))
    assert isinstance(first, SendResult) and isinstance(third, SendResult)
    assert type(second) is error
    if error is RejectedRequest:
        assert "blocklisted or skipped by Instantly" in str(second)


@pytest.mark.parametrize(
    ("status", "fixture", "error"),
    [(429, "error_429", RateLimited), (500, "error_500", ProviderUnavailable)],
)
def test_a_failed_add_call_gives_each_message_the_error(
    rsps, backend, tenant, campaign, status, fixture, error
):
    rsps.post(fake.ADD_URL, status=status, json=api_body(fixture), headers={"Retry-After": "7"})
    results = backend.send_many(emails(tenant, campaign.sequence, 3))
    assert len(results) == 3 and all(type(r) is error for r in results)
    assert results[0] is results[2]  # one error, nothing raised
    if error is RateLimited:
        assert results[0].retry_after == 7


@pytest.mark.parametrize("status", [EmailCampaign.Status.PAUSED, EmailCampaign.Status.COMPLETED])
def test_a_paused_or_completed_campaign_refuses_its_group_for_later(
    rsps, backend, tenant, campaign, status
):
    EmailCampaign.objects.filter(pk=campaign.pk).update(status=status, status_reason="by Ana")
    results = backend.send_many(emails(tenant, campaign.sequence, 2))
    assert all(isinstance(r, CampaignNotSending) for r in results)
    assert "by Ana" in str(results[0]) and status.label.lower() in str(results[0])
    assert not isinstance(results[0], PermanentProviderError)
    assert not decide(results[0], attempts=10).give_up  # waits for the next day's window
    assert not rsps.calls


def test_a_single_send_raises_its_error(rsps, backend, tenant, campaign):
    email, key = emails(tenant, campaign.sequence, 1)[0]
    rsps.post(fake.ADD_URL, status=500, json=api_body("error_500"))
    with pytest.raises(ProviderUnavailable):
        backend.send(email, idempotency_key=key)
    rsps.remove("POST", fake.ADD_URL)
    rsps.add_callback("POST", fake.ADD_URL, callback=fake.leads_add())
    assert backend.send(email, idempotency_key=key).provider_message_id


def test_an_email_without_a_campaign_key_is_refused(rsps, backend):
    (result,) = backend.send_many([(OutgoingEmail(to="a@b.ro", subject="s", text="t"), "k")])
    assert isinstance(result, RejectedRequest) and not rsps.calls


def test_find_sent_finds_the_lead_by_its_key(rsps, backend, campaign):
    since = campaign.created_at
    ours = fake.listed_lead("office0@ferma0.ro", key="message-0")
    other = fake.listed_lead("office0@ferma0.ro", key="message-9")
    rsps.post(fake.LIST_URL, json={"items": [other, ours], "next_starting_after": None})
    found = backend.find_sent(idempotency_key="message-0", to="office0@ferma0.ro", since=since)
    assert found.provider_message_id == ours["id"]
    assert fake.body(rsps.calls[0]) == {"contacts": ["office0@ferma0.ro"], "limit": 100}
    assert (
        backend.find_sent(idempotency_key="message-1", to="office0@ferma0.ro", since=since) is None
    )


def test_find_sent_takes_an_unkeyed_lead_of_our_campaign_only(rsps, backend, campaign):
    since = campaign.created_at
    unkeyed = fake.listed_lead("office0@ferma0.ro", key=None)
    elsewhere = fake.listed_lead("office0@ferma0.ro", key=None, campaign="not-ours")
    rsps.post(fake.LIST_URL, json={"items": [elsewhere, unkeyed], "next_starting_after": None})
    found = backend.find_sent(idempotency_key="message-0", to="office0@ferma0.ro", since=since)
    assert found.provider_message_id == unkeyed["id"]


def test_a_failed_activation_keeps_the_campaign_and_is_retried(rsps, backend, tenant, sequence):
    rsps.post(fake.CAMPAIGNS_URL, json=api_body("campaign_create"))
    rsps.post(fake.ACTIVATE_URL, status=500, json=api_body("error_500"))
    with pytest.raises(ProviderUnavailable):
        ensure_campaign(tenant, sequence, client=backend.client, senders=SENDER)
    row = EmailCampaign.objects.get(sequence=sequence)
    assert (row.external_id, row.status) == (CAMPAIGN_ID, EmailCampaign.Status.DRAFT)
    rsps.replace("POST", fake.ACTIVATE_URL, json=api_body("campaign_activate"))
    assert ensure_campaign(tenant, sequence, client=backend.client, senders=SENDER).status == (
        EmailCampaign.Status.ACTIVE
    )
    assert len(fake.calls_to(rsps, fake.CAMPAIGNS_URL)) == 1


def test_a_creation_whose_answer_was_lost_is_found_by_name_not_made_twice(
    rsps, backend, tenant, sequence
):
    rsps.post(fake.CAMPAIGNS_URL, body=requests.exceptions.ReadTimeout("slow"))
    with pytest.raises(ProviderTimeout):
        ensure_campaign(tenant, sequence, client=backend.client, senders=SENDER)
    row = EmailCampaign.objects.get(sequence=sequence)
    assert row.external_id == "" and row.status_reason.startswith(UNCERTAIN)
    made = {**api_body("campaign_create"), "name": row.name}
    rsps.get(fake.CAMPAIGNS_URL, json={"items": [made], "next_starting_after": None})
    rsps.post(fake.ACTIVATE_URL, json=api_body("campaign_activate"))
    row = ensure_campaign(tenant, sequence, client=backend.client, senders=SENDER)
    assert (row.external_id, row.status) == (CAMPAIGN_ID, EmailCampaign.Status.ACTIVE)
    assert [c.request.method for c in fake.calls_to(rsps, fake.CAMPAIGNS_URL)] == ["POST", "GET"]


def test_one_campaign_row_per_tenant_sequence_and_provider(tenant, sequence, campaign):
    other = Sequence.objects.create(tenant=tenant, name="Altă secvență")
    EmailCampaign.objects.create(tenant=tenant, provider="instantly", sequence=other, name="b")
    EmailCampaign.objects.create(tenant=tenant, provider="instantly", name="c")  # no sequence
    EmailCampaign.objects.create(tenant=tenant, provider="instantly", name="d")
    with pytest.raises(IntegrityError), transaction.atomic():
        EmailCampaign.objects.create(
            tenant=tenant, provider="instantly", sequence=sequence, name="again"
        )


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(
    connection.vendor != "postgresql", reason="row locks need PostgreSQL (SQLite has none)"
)
def test_two_concurrent_pushers_create_one_campaign(rsps, instantly, tenant, sequence):
    started = threading.Barrier(2)
    created = []

    def create(request):
        created.append(request)
        threading.Event().wait(0.3)  # slow enough for the other pusher to arrive
        return 200, {}, json.dumps(api_body("campaign_create"))

    rsps.add_callback("POST", fake.CAMPAIGNS_URL, callback=create)
    rsps.post(fake.ACTIVATE_URL, json=api_body("campaign_activate"))
    found: list[object] = []

    def pusher():
        backend = InstantlyEmail(client=instantly, senders=SENDER)
        try:
            started.wait()
            found.append(backend.campaign_for(f"tenant:{tenant.pk}:sequence:{sequence.pk}"))
        except Exception as exc:  # reported below
            found.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=pusher) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert found == [CAMPAIGN_ID, CAMPAIGN_ID]
    assert len(created) == 1
    assert EmailCampaign.objects.filter(sequence=sequence).count() == 1


def test_campaign_controls_call_instantly(rsps, backend):
    rsps.post(fake.ACTIVATE_URL, json=api_body("campaign_activate"))
    rsps.post(f"{BASE}/api/v2/campaigns/{CAMPAIGN_ID}/pause", json=api_body("campaign_pause"))
    rsps.get(
        f"{BASE}/api/v2/campaigns/{CAMPAIGN_ID}/sending-status",
        json=api_body("sending_status_healthy"),
    )
    backend.activate_campaign(CAMPAIGN_ID)
    backend.pause_campaign(CAMPAIGN_ID)
    assert backend.campaign_status(CAMPAIGN_ID) == "healthy"
    paths = [c.request.url.removeprefix(BASE) for c in rsps.calls]
    assert paths[:2] == [
        f"/api/v2/campaigns/{CAMPAIGN_ID}/activate",
        f"/api/v2/campaigns/{CAMPAIGN_ID}/pause",
    ]


def test_an_answer_in_a_thread_uses_the_reply_endpoint_from_the_account_reached(backend, rsps):
    reply = rsps.post(f"{BASE}/api/v2/emails/reply", json=api_body("email_reply"))
    email = OutgoingEmail(
        to="ion.popescu@agroferma-example.ro",
        subject="Re: Irigații pentru Agroferma Popescu",
        text="Vă trimit oferta.",
        html="<p>Vă trimit oferta.</p>",
        in_reply_to="019ffad3-4b5c-7d6e-8f70-8192a3b4c5d6",
        sender="vanzari@cerniq-mail.ro",
    )
    result = backend.send(email, idempotency_key="ai-reply:1")
    assert result.provider_message_id == "019ffad3-9a8b-7c6d-8e5f-4a3b2c1d0e9f"
    assert result.thread_id == email.in_reply_to
    assert json.loads(reply.calls[0].request.body) == {
        "reply_to_uuid": "019ffad3-4b5c-7d6e-8f70-8192a3b4c5d6",
        "eaccount": "vanzari@cerniq-mail.ro",
        "subject": "Re: Irigații pentru Agroferma Popescu",
        "body": {"html": "<p>Vă trimit oferta.</p>", "text": "Vă trimit oferta."},
    }
    # Never pushed into a campaign, and refused without the receiving account.
    assert not any("/leads" in c.request.url for c in rsps.calls)
    with pytest.raises(RejectedRequest, match="account that received the reply is unknown"):
        backend.send(
            OutgoingEmail(
                to="a@b.ro",
                subject="Re: x",
                text="x",
                in_reply_to="019ffad3-4b5c-7d6e-8f70-8192a3b4c5d6",
            ),
            idempotency_key="k",
        )


ANSWER = OutgoingEmail(
    to="ion.popescu@agroferma-example.ro",
    subject="Re: Irigații pentru Agroferma Popescu",
    text="Vă trimit oferta.",
    in_reply_to="019ffad3-4b5c-7d6e-8f70-8192a3b4c5d6",
    sender="vanzari@cerniq-mail.ro",
)


def at(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


def test_an_answer_whose_outcome_is_unknown_is_found_in_the_leads_emails(backend, rsps):
    """`POST /emails/reply` takes no idempotency key: an attempt whose worker died is found
    among the lead's non-campaign emails (ours, this subject, since the attempt), so the
    send path records it instead of answering twice."""
    rsps.get(f"{BASE}/api/v2/emails", json=api_body("emails_list"))
    found = backend.find_sent(
        idempotency_key="ai-reply:1",
        to=ANSWER.to,
        since=at("2026-10-06T09:15:00"),
        email=ANSWER,
    )
    assert found is not None
    assert found.provider_message_id == "019ffad3-9a8b-7c6d-8e5f-4a3b2c1d0e9f"
    assert found.thread_id == ANSWER.in_reply_to
    assert "/api/v2/leads" not in " ".join(c.request.url for c in rsps.calls)


@pytest.mark.parametrize(
    ("since", "email"),
    [
        # Our only answers are older than the attempt (an earlier answer in the thread).
        ("2026-10-06T09:25:00", ANSWER),
        # Another subject: not this answer.
        ("2026-10-06T09:15:00", replace(ANSWER, subject="Oferta de preț")),
    ],
)
def test_an_answer_not_in_the_leads_emails_is_not_found(backend, rsps, since, email):
    rsps.get(f"{BASE}/api/v2/emails", json=api_body("emails_list"))
    assert backend.find_sent(idempotency_key="k", to=email.to, since=at(since), email=email) is None


def test_a_lead_reply_in_the_thread_is_not_our_answer(backend, rsps):
    """Only the lead's reply (from their address, in our account's inbox) is newer than the
    attempt: not found, with or without the sender's address in the item."""
    body = api_body("emails_list")
    body["items"] = [item for item in body["items"] if item["ue_type"] == 2] * 2
    body["items"][0]["timestamp_created"] = "2026-10-06T09:30:00.000Z"
    body["items"][1] = {**body["items"][0]}
    del body["items"][1]["from_address_email"]
    rsps.get(f"{BASE}/api/v2/emails", json=body)
    assert (
        backend.find_sent(
            idempotency_key="k", to=ANSWER.to, since=at("2026-10-06T09:15:00"), email=ANSWER
        )
        is None
    )
