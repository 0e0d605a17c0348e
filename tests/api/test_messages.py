"""The Messages endpoints: a manual message through the lead page's send path (its
refusals as 409 with the reason, bad fields as 400), a message's status, tenant scoping."""

from __future__ import annotations

import pytest

from hitl import takeover
from outreach import optout
from outreach.models import Channel, Journey, Message
from tests.factories import make_lead, make_message, make_phone, make_user

MESSAGES = "/api/v1/messages/"


@pytest.fixture
def lead(tenant):
    make_phone(tenant)
    return make_lead(tenant, email="office@agro.ro")


def test_send_a_whatsapp_message_as_the_keys_creator(api, lead, tenant_admin):
    response = api.post(MESSAGES, {"lead": lead.pk, "text": " Bună ziua! "}, format="json")
    assert response.status_code == 201, response.json()
    body = response.json()
    assert (body["lead"], body["channel"], body["status"]) == (lead.pk, "WHATSAPP", "QUEUED")
    message = Message.objects.get(pk=body["id"])
    assert (message.body, message.is_manual, message.sent_by) == ("Bună ziua!", True, tenant_admin)
    assert message.phone is not None


def test_send_an_email(api, lead):
    response = api.post(
        MESSAGES,
        {"lead": lead.pk, "channel": "EMAIL_WARM", "subject": "Oferta", "text": "Atașat."},
        format="json",
    )
    assert response.status_code == 201, response.json()
    message = Message.objects.get(pk=response.json()["id"])
    assert (message.channel, message.subject, message.counterpart) == (
        Channel.EMAIL_WARM,
        "Oferta",
        "office@agro.ro",
    )


def test_an_opted_out_lead_is_409_with_the_reason_and_nothing_is_queued(api, lead):
    optout.opt_out(lead, Channel.WHATSAPP)
    response = api.post(MESSAGES, {"lead": lead.pk, "text": "Bună"}, format="json")
    assert response.status_code == 409
    assert response.json()["error"] == {
        "code": "send_refused",
        "message": "This lead opted out of WhatsApp; nothing can be sent to it there.",
        "fields": {},
    }
    assert not Message.objects.filter(lead=lead).exists()


def test_a_conversation_taken_over_by_someone_else_is_409_naming_them(api, lead, tenant):
    takeover.take_over(lead, make_user(tenant, first_name="Ana", last_name="Pop"))
    response = api.post(MESSAGES, {"lead": lead.pk, "text": "Bună"}, format="json")
    assert response.status_code == 409
    assert "Ana Pop took over this conversation" in response.json()["error"]["message"]
    assert not Message.objects.filter(lead=lead).exists()


def test_no_phone_with_quota_is_409(api, tenant):
    lead = make_lead(tenant)  # the tenant has no phone
    response = api.post(MESSAGES, {"lead": lead.pk, "text": "Bună"}, format="json")
    assert response.status_code == 409
    assert "No active WhatsApp phone" in response.json()["error"]["message"]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"lead": None, "text": "Bună"}, "lead"),
        ({"lead": "x", "text": "Bună"}, "lead"),
        ({"lead": 10**9, "text": "Bună"}, "lead"),
        ({"text": ""}, "text"),
        ({"text": "x" * 5000}, "text"),
        ({"text": "Bună", "channel": "SMS"}, "channel"),
        ({"text": "Bună", "channel": "EMAIL_WARM"}, "subject"),
    ],
)
def test_bad_input_is_400_naming_the_field_and_queues_nothing(api, lead, body, field):
    response = api.post(MESSAGES, {"lead": lead.pk, **body}, format="json")
    assert response.status_code == 400
    assert list(response.json()["error"]["fields"]) == [field]
    assert not Message.objects.exists()


def test_another_tenants_lead_is_refused_as_unknown(api, other_tenant):
    theirs = make_lead(other_tenant)
    make_phone(other_tenant)
    response = api.post(MESSAGES, {"lead": theirs.pk, "text": "Bună"}, format="json")
    assert response.status_code == 400
    assert list(response.json()["error"]["fields"]) == ["lead"]
    assert not Message.objects.exists()


def test_a_lead_without_a_journey_is_409(api, tenant):
    make_phone(tenant)
    lead = make_lead(tenant, with_journey=False)
    response = api.post(MESSAGES, {"lead": lead.pk, "text": "Bună"}, format="json")
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "no_journey"


def test_a_read_key_cannot_send(read_api, lead):
    response = read_api.post(MESSAGES, {"lead": lead.pk, "text": "Bună"}, format="json")
    assert response.status_code == 403
    assert not Message.objects.exists()


def test_sending_needs_a_key(anonymous, lead):
    assert anonymous.post(MESSAGES, {"lead": lead.pk, "text": "Bună"}).status_code == 401


def test_a_messages_status(api, lead, anonymous, other_tenant):
    message = make_message(lead, status=Message.Status.DELIVERED)
    body = api.get(f"{MESSAGES}{message.pk}/").json()
    assert (body["id"], body["status"], body["lead"]) == (message.pk, "DELIVERED", lead.pk)
    assert anonymous.get(f"{MESSAGES}{message.pk}/").status_code == 401
    theirs = make_message(make_lead(other_tenant))
    response = api.get(f"{MESSAGES}{theirs.pk}/")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"


def test_there_is_no_message_list_or_edit(api, lead):
    message = make_message(lead)
    assert api.get(MESSAGES).status_code == 405
    assert api.patch(f"{MESSAGES}{message.pk}/", {"body": "x"}, format="json").status_code == 405
    assert Journey.objects.filter(lead=lead).exists()


# --- retries with an Idempotency-Key -----------------------------------------------------


def test_a_repeated_idempotency_key_answers_the_first_message(api, lead):
    first = api.post(
        MESSAGES, {"lead": lead.pk, "text": "Bună"}, format="json", HTTP_IDEMPOTENCY_KEY="crm-1"
    )
    assert first.status_code == 201
    again = api.post(
        MESSAGES, {"lead": lead.pk, "text": "Bună"}, format="json", HTTP_IDEMPOTENCY_KEY="crm-1"
    )
    assert again.status_code == 200
    assert again.json()["id"] == first.json()["id"]
    assert Message.objects.filter(lead=lead).count() == 1
    other = api.post(
        MESSAGES, {"lead": lead.pk, "text": "Bună"}, format="json", HTTP_IDEMPOTENCY_KEY="crm-2"
    )
    assert other.status_code == 201


def test_a_key_is_per_tenant_and_per_lead(api, lead, tenant, other_tenant):
    make_message(make_lead(other_tenant), idempotency_key=f"api:{other_tenant.pk}:crm-1")
    mine = api.post(
        MESSAGES, {"lead": lead.pk, "text": "Bună"}, format="json", HTTP_IDEMPOTENCY_KEY="crm-1"
    )
    assert mine.status_code == 201
    reused = api.post(
        MESSAGES,
        {"lead": make_lead(tenant).pk, "text": "Bună"},
        format="json",
        HTTP_IDEMPOTENCY_KEY="crm-1",
    )
    assert reused.status_code == 409
    assert reused.json()["error"]["code"] == "idempotency_key_reused"


def test_a_bad_idempotency_key_is_400_naming_the_header(api, lead):
    response = api.post(
        MESSAGES, {"lead": lead.pk, "text": "Bună"}, format="json", HTTP_IDEMPOTENCY_KEY="k" * 101
    )
    assert response.status_code == 400
    assert list(response.json()["error"]["fields"]) == ["Idempotency-Key"]
    assert not Message.objects.exists()


def test_a_concurrent_retry_loses_to_the_first_and_takes_no_quota(api, lead, tenant):
    """The key's unique constraint decides a race the lookup missed; the loser's quota
    grant rolls back with it."""
    from unittest import mock

    from api.views import messages as view
    from whatsapp import quota
    from whatsapp.models import Phone

    winner = make_message(lead, idempotency_key=f"api:{tenant.pk}:crm-1", is_manual=True)
    with mock.patch.object(view, "already_sent", side_effect=[None, winner]):  # lookup missed
        response = api.post(
            MESSAGES, {"lead": lead.pk, "text": "Bună"}, format="json", HTTP_IDEMPOTENCY_KEY="crm-1"
        )
    assert response.status_code == 200
    assert response.json()["id"] == winner.pk
    assert Message.objects.filter(lead=lead).count() == 1
    phone = Phone.objects.get(tenant=tenant)
    assert quota.status(phone, quota.quota_day(tenant)).used == 0
