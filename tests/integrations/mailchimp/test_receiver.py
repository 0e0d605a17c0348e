"""Mailchimp webhooks through the real intake: the validation GET, the tenant's token, every
recorded event (form-encoded, as Mailchimp posts it) and what it does to our leads, strict
schemas at the door and hostile form bodies refused naming the field."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest

from cerniq import reasons
from cerniq.models import WebhookEvent
from cerniq.webhooks import process_event
from integrations.mailchimp import formdata
from integrations.mailchimp.client import subscriber_hash
from integrations.mailchimp.models import MailchimpMember
from outreach import propagation
from outreach.models import Journey, Lead, Propagation, Suppression
from tests.factories import make_user
from tests.integrations.mailchimp.conftest import (
    EMAIL,
    HASH,
    LIST_ID,
    WEBHOOK_FIXTURES,
    post_webhook,
    warm_lead,
)

pytestmark = pytest.mark.django_db
Status = WebhookEvent.Status
NEW_EMAIL = "ion@agroferma-popescu.ro"  # upemail.txt's new address


def body(name: str) -> dict:
    """A recorded event as a nested dict (to change one field and post it again)."""
    return formdata.parse((WEBHOOK_FIXTURES / f"{name}.txt").read_bytes(), max_depth=8)


def form(payload: dict) -> bytes:
    return urlencode(formdata.encode(payload)).encode()


def deliver(client, tenant, raw: bytes) -> WebhookEvent:
    """Post as Mailchimp, then process the stored event as a worker does."""
    response = post_webhook(client, tenant, raw)
    assert response.status_code == 200, response.content
    event = WebhookEvent.objects.filter(provider="mailchimp").latest("pk")
    if event.status == Status.RECEIVED:
        process_event(event.pk)
        event.refresh_from_db()
    return event


def synced(lead: Lead) -> MailchimpMember:
    return MailchimpMember.objects.create(
        tenant=lead.tenant,
        lead=lead,
        list_id=LIST_ID,
        subscriber_hash=subscriber_hash(lead.email),
        digest="d" * 64,
        mailchimp_status="subscribed",
        state=MailchimpMember.State.SYNCED,
    )


# --- the door ---------------------------------------------------------------------------


def test_mailchimps_validation_get_is_answered_200_and_stores_nothing(client, tenant):
    response = client.get(
        f"/webhooks/mailchimp/{tenant.webhook_token}/",
        headers={"User-Agent": "MailChimp.com WebHook Validator"},
    )
    assert response.status_code == 200
    assert not WebhookEvent.objects.exists()


@pytest.mark.parametrize("path", ["/webhooks/mailchimp/not-the-token/", "/webhooks/mailchimp/"])
def test_a_get_without_the_tenants_token_is_404(client, tenant, path):
    assert client.get(path).status_code == 404


def test_other_providers_still_answer_a_get_405(client, tenant):
    assert client.get(f"/webhooks/timelinesai/{tenant.webhook_token}/").status_code == 405


@pytest.mark.parametrize("token", ["wrong-token", ""])
def test_a_post_without_the_tenants_token_is_404_and_stores_nothing(client, tenant, token):
    raw = (WEBHOOK_FIXTURES / "unsubscribe.txt").read_bytes()
    url = f"/webhooks/mailchimp/{token}/" if token else "/webhooks/mailchimp/"
    assert (
        client.post(url, raw, content_type="application/x-www-form-urlencoded").status_code == 404
    )
    assert not WebhookEvent.objects.exists()


@pytest.mark.parametrize(
    ("name", "stored"),
    [
        ("subscribe", Status.PROCESSED),
        ("unsubscribe", Status.PROCESSED),
        ("cleaned", Status.PROCESSED),
        ("upemail", Status.PROCESSED),
        ("profile", Status.IGNORED),
        ("campaign", Status.IGNORED),
    ],
)
def test_every_recorded_event_is_taken_in(client, tenant, audience, name, stored):
    warm_lead(tenant)
    raw = (WEBHOOK_FIXTURES / f"{name}.txt").read_bytes()
    # Form-encoded, byte for byte as Mailchimp posts it (no newline an editor would add).
    assert b"%5B" in raw and b"{" not in raw and not raw.endswith(b"\n")
    event = deliver(client, tenant, raw)
    assert (event.event_type, event.status) == (name, stored)
    assert event.headers["Content-Type"] == "application/x-www-form-urlencoded"


def test_a_redelivery_is_a_duplicate_and_a_later_one_is_not(client, tenant):
    raw = (WEBHOOK_FIXTURES / "unsubscribe.txt").read_bytes()
    assert post_webhook(client, tenant, raw).json()["status"] == "accepted"
    assert post_webhook(client, tenant, raw).json()["status"] == "duplicate"
    later = body("unsubscribe")
    later["fired_at"] = "2026-11-25 08:00:00"
    assert post_webhook(client, tenant, form(later)).json()["status"] == "accepted"
    keys = list(WebhookEvent.objects.order_by("pk").values_list("provider_event_id", flat=True))
    assert keys[0] == f"unsubscribe:{LIST_ID}:{HASH}:2026-11-24 09:15:02"
    assert EMAIL not in "".join(keys)  # the key outlives an erasure: no address in it


# --- what the events do ----------------------------------------------------------------


def test_an_unsubscribe_opts_the_lead_out_of_every_channel(client, tenant, audience, rsps):
    lead = warm_lead(tenant)
    record = synced(lead)
    same_address = warm_lead(tenant, name="Popescu Ion PFA", phone="+40733000111")
    deliver(client, tenant, (WEBHOOK_FIXTURES / "unsubscribe.txt").read_bytes())

    for each in (lead, same_address):
        journey = Journey.objects.get(lead=each)
        assert journey.email_opted_out and journey.whatsapp_opted_out  # cross-channel
        each.refresh_from_db()
        assert each.email_status == Lead.EmailStatus.UNSUBSCRIBED
    entry = Suppression.objects.get(tenant=tenant, email=EMAIL)
    assert entry.source == Suppression.Source.UNSUBSCRIBE
    assert reasons.render(entry.reason) == "Unsubscribed (Mailchimp)"
    record.refresh_from_db()
    assert (record.mailchimp_status, record.state) == ("unsubscribed", "not_synced")
    # Mailchimp holds the member as unsubscribed already: it is not called back, but each
    # lead's page says the opt-out came from Mailchimp (its receipt).
    receipts = Propagation.objects.filter(provider="mailchimp")
    assert sorted(receipts.values_list("lead_id", "action")) == [
        (lead.pk, "unsubscribed_there"),
        (same_address.pk, "unsubscribed_there"),
    ]
    for receipt in receipts:
        propagation.apply(receipt.pk)
    assert not rsps.calls
    client.force_login(make_user(tenant, role="ADMIN"))
    page = client.get(f"/outreach/leads/{same_address.pk}/").content.decode()
    assert "Mailchimp" in page and "the person unsubscribed there" in page


def test_an_abuse_report_is_a_complaint(client, tenant):
    lead = warm_lead(tenant)
    report = body("unsubscribe")
    report["data"]["reason"] = "abuse"
    deliver(client, tenant, form(report))
    lead.refresh_from_db()
    assert lead.email_status == Lead.EmailStatus.COMPLAINED
    assert Journey.objects.get(lead=lead).email_opted_out


def test_an_admins_delete_in_mailchimp_only_keeps_the_lead_out_of_the_audience(client, tenant):
    lead = warm_lead(tenant)
    record = synced(lead)
    deleted = body("unsubscribe")
    deleted["data"]["action"] = "delete"
    deliver(client, tenant, form(deleted))
    assert not Journey.objects.get(lead=lead).email_opted_out
    record.refresh_from_db()
    assert record.mailchimp_status == "archived"
    assert reasons.is_code(record.reason, "mailchimp.deleted_there")


def test_a_cleaned_address_is_a_hard_bounce(client, tenant):
    lead = warm_lead(tenant)
    record = synced(lead)
    deliver(client, tenant, (WEBHOOK_FIXTURES / "cleaned.txt").read_bytes())
    lead.refresh_from_db()
    assert lead.email_status == Lead.EmailStatus.BOUNCED
    entry = Suppression.objects.get(tenant=tenant, email=EMAIL)
    assert entry.source == Suppression.Source.BOUNCE
    record.refresh_from_db()
    assert record.mailchimp_status == "cleaned"


def test_an_address_change_in_mailchimp_moves_the_lead_to_it(client, tenant):
    lead = warm_lead(tenant)
    record = synced(lead)
    deliver(client, tenant, (WEBHOOK_FIXTURES / "upemail.txt").read_bytes())
    lead.refresh_from_db()
    assert (lead.email, lead.email_status) == (NEW_EMAIL, Lead.EmailStatus.UNKNOWN)
    record.refresh_from_db()
    assert record.subscriber_hash == subscriber_hash(NEW_EMAIL)
    assert reasons.is_code(record.note, "mailchimp.email_changed")


def test_an_address_change_to_another_leads_address_is_refused_and_recorded(client, tenant):
    lead = warm_lead(tenant)
    warm_lead(tenant, name="Alt SRL", email=NEW_EMAIL.upper(), phone="+40733000222")
    deliver(client, tenant, (WEBHOOK_FIXTURES / "upemail.txt").read_bytes())
    lead.refresh_from_db()
    assert lead.email == EMAIL
    note = MailchimpMember.objects.get(lead=lead).note
    assert reasons.is_code(note, "mailchimp.email_change_refused")
    assert "another lead has this address" in reasons.render(note)


def test_an_address_change_to_a_listed_address_is_refused(client, tenant):
    lead = warm_lead(tenant)
    Suppression.objects.create(tenant=tenant, email=NEW_EMAIL, reason="asked by phone")
    deliver(client, tenant, (WEBHOOK_FIXTURES / "upemail.txt").read_bytes())
    lead.refresh_from_db()
    assert lead.email == EMAIL
    assert "do-not-contact" in reasons.render(MailchimpMember.objects.get(lead=lead).note)


def test_a_subscribe_is_noted_and_never_lifts_an_opt_out(client, tenant):
    lead = warm_lead(tenant)
    record = synced(lead)
    MailchimpMember.objects.filter(pk=record.pk).update(mailchimp_status="unsubscribed")
    Journey.objects.filter(lead=lead).update(email_opted_out=True)
    deliver(client, tenant, (WEBHOOK_FIXTURES / "subscribe.txt").read_bytes())
    record.refresh_from_db()
    assert record.mailchimp_status == "subscribed"
    assert Journey.objects.get(lead=lead).email_opted_out


# --- strict schemas and hostile bodies --------------------------------------------------


@pytest.mark.parametrize(
    ("change", "field", "problem"),
    [
        (lambda b: b["data"].pop("email"), "data.email", "missing"),
        (lambda b: b["data"].update(email="not-an-address"), "data.email", "not an email"),
        (lambda b: b.update(fired_at="yesterday"), "fired_at", "YYYY-MM-DD HH:MM:SS"),
        (lambda b: b.update(fired_at="2026-02-30 10:00:00"), "fired_at", "YYYY-MM-DD"),
        (lambda b: b["data"].update(action="maybe"), "data.action", "unsub"),
        (lambda b: b["data"].update(list_id="../x"), "data.list_id", "audience id"),
        (lambda b: b.pop("data"), "data", "missing"),
    ],
)
def test_a_malformed_event_is_400_naming_the_field_and_kept_malformed(
    client, tenant, change, field, problem
):
    bad = body("unsubscribe")
    change(bad)
    response = post_webhook(client, tenant, form(bad))
    assert response.status_code == 400
    assert response.json()["field"] == field and problem in response.json()["problem"]
    event = WebhookEvent.objects.get(provider="mailchimp")
    assert event.status == Status.MALFORMED


GOOD = (WEBHOOK_FIXTURES / "unsubscribe.txt").read_bytes()


@pytest.mark.parametrize(
    ("raw", "field", "problem"),
    [
        (GOOD + b"&data%5Bmerges%5D%5BFNAME%5D=x", "data.merges.FNAME", "given twice"),
        (GOOD + b"&data%5Bemail%5D%5Bx%5D=y", "data.email", "both a value and a group"),
        (GOOD.replace(b"manual", b"man%00ual"), "data.reason", "NUL"),
        (GOOD.replace(b"Ion", b"%FF%FE"), "(body)", "not UTF-8"),
        (GOOD.replace(b"Ion", b"%ED%A0%80"), "(body)", "not UTF-8"),  # a lone surrogate
        (GOOD + b"&a" + b"%5Bb%5D" * 9 + b"=deep", "a.b.b.b.b.b.b.b", "nested deeper"),
        (GOOD + b"&data%5B=x", "data[", "not a field name"),
        (GOOD + b"&noequals", "(body)", "not a form"),
        (b"&".join(b"f%d=x" % n for n in range(501)), "(body)", "more than 500 fields"),
        (b"", "type", "missing"),
    ],
    ids=["twice", "value-and-group", "nul", "not-utf8", "surrogate", "depth", "bad-key",
         "no-equals", "too-many", "empty"],
)  # fmt: skip
def test_a_hostile_form_is_refused_naming_the_field(client, tenant, raw, field, problem):
    response = post_webhook(client, tenant, raw)
    assert response.status_code == 400, response.content
    answer = response.json()
    assert answer["field"] == field and problem in answer["problem"], answer
    assert WebhookEvent.objects.get(provider="mailchimp").status == Status.MALFORMED


def test_a_json_body_is_not_mailchimps(client, tenant):
    response = post_webhook(
        client, tenant, b'{"type": "unsubscribe"}', content_type="application/json"
    )
    assert response.status_code == 400
    assert "application/x-www-form-urlencoded" in response.json()["problem"]


def test_a_body_over_64_kib_is_413_and_not_stored(client, tenant):
    raw = GOOD + b"&data%5Bmerges%5D%5BNOTES%5D=" + b"x" * (64 * 1024)
    assert post_webhook(client, tenant, raw).status_code == 413
    assert not WebhookEvent.objects.exists()
