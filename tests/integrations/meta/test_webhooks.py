"""Meta's webhook at the door and in the worker: the hub.* verification, the signature over
the raw bytes (good, bad, missing, from another app), batches, duplicates, and every
recorded WhatsApp change reaching the core's rules for the right workspace only."""

from __future__ import annotations

import json

import pytest

from cerniq.models import WebhookEvent
from cerniq.webhooks import process_event
from integrations.meta.models import MessagingLimit, SeenSend
from outreach.models import Journey, Lead, Message
from tests.factories import make_lead, make_message
from tests.integrations.meta.conftest import VERIFY_TOKEN, post, signature, webhook_raw
from whatsapp.models import Phone

pytestmark = pytest.mark.django_db


def deliver(client, tenant, name: str) -> WebhookEvent:
    raw = webhook_raw(name)
    response = post(client, tenant, raw)
    assert response.status_code == 200, response.content
    event = WebhookEvent.objects.filter(provider="meta").latest("pk")
    if event.status == WebhookEvent.Status.RECEIVED:
        process_event(event.pk)
        event.refresh_from_db()
    return event


# --- verification ------------------------------------------------------------------------


def hub(client, tenant, **params):
    query = {
        "hub.mode": "subscribe",
        "hub.challenge": "1158201444",
        "hub.verify_token": VERIFY_TOKEN,
    }
    query.update(params)
    return client.get(f"/webhooks/meta/{tenant.webhook_token}/", query)


def test_the_verification_answers_the_challenge_as_plain_text(client, tenant):
    response = hub(client, tenant)
    assert response.status_code == 200
    assert response.content == b"1158201444"
    assert response["Content-Type"].startswith("text/plain")


@pytest.mark.parametrize(
    "params",
    [
        {"hub.verify_token": "wrong"},
        {"hub.verify_token": ""},
        {"hub.mode": "unsubscribe"},
        {"hub.challenge": "<script>alert(1)</script>"},
    ],
)
def test_a_wrong_verification_is_refused(client, tenant, params):
    assert hub(client, tenant, **params).status_code == 403


def test_the_verification_needs_a_workspace_url(client, tenant):
    response = client.get(
        "/webhooks/meta/not-a-token/",
        {"hub.mode": "subscribe", "hub.challenge": "1", "hub.verify_token": VERIFY_TOKEN},
    )
    assert response.status_code == 403
    assert not WebhookEvent.objects.exists()


# --- signature ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "sig",
    [
        "",  # missing
        "sha256=" + "0" * 64,  # wrong
        None,  # placeholder: replaced by another app's secret below
        "sha1=abc",  # another scheme
    ],
)
def test_a_body_not_signed_by_our_app_is_refused_and_changes_nothing(client, tenant, sig):
    raw = webhook_raw("whatsapp_message_text")
    if sig is None:
        sig = signature(raw, secret="another-apps-secret")
    response = post(client, tenant, raw, sig=sig)
    assert response.status_code == 401
    assert not WebhookEvent.objects.exists() and not Message.objects.exists()


def test_the_signature_is_over_the_bytes_as_sent(client, tenant):
    """Meta signs its escaped-unicode bytes; re-serialising would change them."""
    raw = webhook_raw("whatsapp_message_text")
    reserialised = json.dumps(json.loads(raw), ensure_ascii=True).encode()
    assert reserialised != raw
    response = post(client, tenant, reserialised, sig=signature(raw))
    assert response.status_code == 401


def test_a_signed_body_with_a_bad_change_is_a_400_naming_the_field(client, tenant):
    body = json.loads(webhook_raw("whatsapp_message_text"))
    del body["entry"][0]["changes"][0]["value"]["metadata"]["phone_number_id"]
    raw = json.dumps(body).encode()
    response = post(client, tenant, raw)
    assert response.status_code == 400
    assert response.json()["field"] == "entry[0].changes[0].value.metadata.phone_number_id"
    assert WebhookEvent.objects.get().status == WebhookEvent.Status.MALFORMED


# --- messages and statuses -----------------------------------------------------------------


def test_an_inbound_text_takes_the_reply_path_once(client, tenant, cloud_phone):
    lead = make_lead(tenant, phone="+40722111333")
    deliver(client, tenant, "whatsapp_message_text")
    reply = Message.objects.get(direction="IN")
    assert reply.lead_id == lead.pk and reply.phone_id == cloud_phone.pk
    assert reply.body.startswith("Bună ziua, cât costă")
    assert Lead.objects.get(pk=lead.pk).whatsapp_user_id == "RO.1402298745310293847"
    assert Journey.objects.get(lead=lead).last_reply_at is not None
    # Meta retries the same batch: a duplicate, nothing stored twice.
    response = post(client, tenant, webhook_raw("whatsapp_message_text"))
    assert response.json()["status"] == "duplicate"
    assert Message.objects.filter(direction="IN").count() == 1


def test_a_person_with_a_username_and_no_number_is_found_by_their_id(client, tenant, cloud_phone):
    lead = make_lead(tenant, whatsapp_user_id="RO.8812734401928374")
    deliver(client, tenant, "whatsapp_message_username_only")
    reply = Message.objects.get(direction="IN")
    assert reply.lead_id == lead.pk and reply.counterpart == "RO.8812734401928374"


def test_an_image_is_kept_with_its_caption(client, tenant, cloud_phone):
    make_lead(tenant, phone="+40722111333")
    deliver(client, tenant, "whatsapp_message_image")
    reply = Message.objects.get(direction="IN")
    assert reply.body == "Asta e parcela"
    assert reply.raw_response["attachments"][0]["media_id"] == "1479537139650973"


def test_statuses_only_move_forward_and_the_reference_is_kept(client, tenant, cloud_phone):
    lead = make_lead(tenant, phone="+40722111333")
    ours = make_message(
        lead,
        phone=cloud_phone,
        status="SENT",
        provider_message_id="wamid.HBgLNDA3MjIxMTEzMzMVAgARGBI4QzFCMjNENEU1RjYwNzg5QQA=",
        idempotency_key="wa-msg-4711",
    )
    deliver(client, tenant, "whatsapp_statuses_out_of_order")  # read, then delivered
    assert Message.objects.get(pk=ours.pk).status == "READ"
    deliver(client, tenant, "whatsapp_status_delivered")
    assert Message.objects.get(pk=ours.pk).status == "READ"
    assert SeenSend.objects.get(reference="wa-msg-4711").wamid == ours.provider_message_id


def test_a_failed_status_marks_a_number_not_on_whatsapp(client, tenant, cloud_phone):
    lead = make_lead(tenant, phone="+40722111555")
    ours = make_message(
        lead,
        phone=cloud_phone,
        status="SENT",
        provider_message_id="wamid.HBgLNDA3MjIxMTEzMzMVAgARGBJBQUFBQUFBQUFBQUFBQUFBQQA=",
    )
    deliver(client, tenant, "whatsapp_status_failed_131026")
    ours.refresh_from_db()
    assert ours.status == "FAILED" and "131026" in ours.error
    assert Lead.objects.get(pk=lead.pk).phone_reachable is False


def test_another_workspaces_number_is_never_acted_on(client, tenant, other_tenant, cloud_phone):
    """The body is signed and well formed, but its number is another workspace's."""
    Phone.objects.filter(pk=cloud_phone.pk).update(tenant=other_tenant)
    make_lead(tenant, phone="+40722111333")
    deliver(client, tenant, "whatsapp_message_text")
    assert not Message.objects.exists()


def test_a_stop_from_whatsapp_settings_opts_the_lead_out(client, tenant, cloud_phone):
    lead = make_lead(tenant, phone="+40722111333")
    deliver(client, tenant, "whatsapp_user_preferences_stop")
    journey = Journey.objects.get(lead=lead)
    assert journey.whatsapp_opted_out and journey.email_opted_out


def test_a_changed_number_follows_the_lead(client, tenant, cloud_phone):
    lead = make_lead(tenant, phone="+40722111333")
    deliver(client, tenant, "whatsapp_system_user_changed_number")
    assert Lead.objects.get(pk=lead.pk).phone == "+40733999888"


# --- account -------------------------------------------------------------------------------


def test_a_ban_makes_the_numbers_banned(client, tenant, cloud_phone):
    deliver(client, tenant, "whatsapp_account_update_disabled")
    assert Phone.objects.get(pk=cloud_phone.pk).status == Phone.Status.BANNED


def test_a_restriction_pauses_the_number_it_names(client, tenant, cloud_phone):
    deliver(client, tenant, "whatsapp_account_update_restriction")
    phone = Phone.objects.get(pk=cloud_phone.pk)
    assert phone.status == Phone.Status.PAUSED and phone.new_contacts_paused_until


def test_the_portfolio_limit_is_learnt(client, tenant, cloud_phone):
    deliver(client, tenant, "whatsapp_business_capability_update")
    assert MessagingLimit.objects.get(tenant=tenant).unique_users_per_day == 2000


def test_a_template_review_is_stored_and_ignored(client, tenant):
    event = deliver(client, tenant, "whatsapp_template_status_update")
    assert event.status == WebhookEvent.Status.IGNORED


def test_a_number_flagged_for_quality_rests(client, tenant, cloud_phone):
    deliver(client, tenant, "whatsapp_phone_number_quality_flagged")
    phone = Phone.objects.get(pk=cloud_phone.pk)
    assert phone.status == Phone.Status.PAUSED and phone.new_contacts_paused_until
