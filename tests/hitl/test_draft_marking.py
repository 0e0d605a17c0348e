"""An answer sent from an AI draft is marked (Message.ai_drafted / ai_draft_edited, the
approver in sent_by) on every path that sends one, shown in the lead's timeline and the API;
the reply path uses the tenant's price list and says when there is none; the settings page."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, transaction
from django.urls import reverse

from cerniq import reasons
from hitl import reasons as why
from hitl import replies, review
from hitl.models import ReviewItem
from outreach.manual import send_manual
from outreach.models import Message, Priority
from tests.drain import run_triage
from tests.factories import make_message, make_user


def inbound(lead, body: str) -> Message:
    return make_message(
        lead,
        direction=Message.Direction.INBOUND,
        status=Message.Status.RECEIVED,
        idempotency_key=None,
        body=body,
    )


def open_reply(lead, draft="Bună ziua! Vă trimit oferta."):
    return review.open_item(
        lead,
        reason="positive reply",
        priority=Priority.HIGH,
        message=inbound(lead, "Cât costă?"),
        draft=draft,
    )


# --- the marking ---------------------------------------------------------------------------------


def test_approve_marks_the_message_as_an_ai_draft_approved_by_the_operator(lead, operator):
    message = review.approve_draft(open_reply(lead), operator)
    message.refresh_from_db()
    assert (message.ai_drafted, message.ai_draft_edited, message.sent_by) == (True, False, operator)


def test_edit_and_send_marks_the_draft_as_edited(lead, operator):
    message = review.approve_draft(open_reply(lead), operator, text="Bună ziua, vă sun eu.")
    message.refresh_from_db()
    assert (message.ai_drafted, message.ai_draft_edited, message.sent_by) == (True, True, operator)


def test_edit_and_send_with_the_same_text_is_not_an_edit(lead, operator):
    message = review.approve_draft(
        open_reply(lead), operator, text=" Bună ziua! Vă trimit oferta. "
    )
    assert message.ai_drafted and not message.ai_draft_edited


def test_an_operators_own_text_on_an_item_without_a_draft_is_not_ai(lead, operator):
    message = review.approve_draft(open_reply(lead, draft=""), operator, text="Revin eu.")
    assert not message.ai_drafted and not message.ai_draft_edited


def test_a_manual_send_is_not_ai(lead, operator):
    message = send_manual(lead, "Bună ziua, revin cu oferta.", user=operator)
    message.refresh_from_db()
    assert message.is_manual and not message.ai_drafted and not message.ai_draft_edited


def test_an_automatic_ai_reply_is_marked_without_an_approver(tenant, lead):
    tenant.ai_auto_reply_enabled = True
    tenant.ai_auto_reply_intents = []
    tenant.save()
    replies.process_reply(lead, inbound(lead, "Da, sunt foarte interesat, super!"))
    run_triage()
    sent = Message.objects.get(lead=lead, channel_reason__contains="auto")
    assert sent.ai_drafted and sent.sent_by is None and not sent.is_manual


def test_an_edited_draft_must_be_an_ai_draft_in_the_database(lead):
    with pytest.raises(IntegrityError), transaction.atomic():
        make_message(lead, ai_drafted=False, ai_draft_edited=True)


@pytest.mark.django_db
def test_the_migration_adds_the_fields():
    from django.db import connection
    from django.db.migrations.loader import MigrationLoader

    loader = MigrationLoader(connection)
    before = loader.project_state(("outreach", "0019_journey_tenant_sort_indexes"))
    after = loader.project_state(("outreach", "0022_message_ai_drafted"))
    assert "ai_drafted" not in before.models["outreach", "message"].fields
    fields = after.models["outreach", "message"].fields
    assert not fields["ai_drafted"].default and not fields["ai_draft_edited"].default


# --- shown in the timeline and the API -----------------------------------------------------------


def test_the_lead_timeline_says_who_approved_or_edited_the_ai_draft(client, lead, tenant):
    ana = make_user(tenant, first_name="Ana", last_name="Pop")
    approved = review.approve_draft(open_reply(lead), ana)
    edited = review.approve_draft(open_reply(lead), ana, text="Altceva.")
    manual = send_manual(lead, "Scris de mine.", user=ana)
    client.force_login(ana)
    page = client.get(reverse("outreach:lead", args=[lead.pk])).content.decode()
    assert "AI draft · approved by Ana Pop" in page
    assert "AI draft, edited by Ana Pop" in page
    for message, origin in ((approved, "ai-approved"), (edited, "ai-edited"), (manual, "manual")):
        row = page.split(f'data-message="{message.pk}"')[1].split("</tr>")[0]
        assert f'data-origin="{origin}"' in row


def test_the_api_exposes_the_marking_read_only(lead, operator):
    from api.serializers import MessageSerializer

    message = review.approve_draft(open_reply(lead), operator, text="Altceva.")
    data = MessageSerializer(message).data
    assert data["ai_drafted"] is True and data["ai_draft_edited"] is True
    assert data["sent_by"] == operator.pk
    assert {"ai_drafted", "ai_draft_edited"} <= set(MessageSerializer.Meta.read_only_fields)


# --- the reply path: the tenant's price list, or why there is none ------------------------------


def test_a_price_question_without_a_price_list_says_so_in_the_review_item(lead):
    replies.process_reply(lead, inbound(lead, "Bună ziua, cât costă azotatul?"))
    run_triage()
    item = ReviewItem.objects.get(lead=lead)
    assert item.intent == "price_request"
    assert why.ROUTE_PRICE_LIST_MISSING in item.reason
    assert "Price list not configured" in reasons.render(item.reason)
    assert "un coleg vă trimite" in item.ai_draft


def test_an_interest_that_mentions_the_price_also_says_the_list_is_missing(lead):
    replies.process_reply(lead, inbound(lead, "Da, sunt interesat! Ce preț are azotatul?"))
    run_triage()
    item = ReviewItem.objects.get(lead=lead)
    assert why.ROUTE_PRICE_LIST_MISSING in item.reason


def test_a_price_question_gets_the_tenants_answer_with_the_leads_variables(tenant, lead):
    tenant.price_list_answer = "{{contact_name|Stimate client}}, lista pentru {{company_name}}:"
    tenant.price_list_url = "https://agro.example/preturi"
    tenant.save()
    replies.process_reply(lead, inbound(lead, "Bună ziua, cât costă azotatul?"))
    run_triage()
    item = ReviewItem.objects.get(lead=lead)
    expected = f"{lead.contact_name or 'Stimate client'}, lista pentru {lead.name}:"
    assert expected in item.ai_draft and "https://agro.example/preturi" in item.ai_draft
    assert why.ROUTE_PRICE_LIST_MISSING not in item.reason


# --- the settings page ---------------------------------------------------------------------------


def test_admins_set_the_price_list_and_bad_input_changes_nothing(client, tenant):
    admin = make_user(tenant, role="ADMIN")
    client.force_login(admin)
    url = reverse("outreach:reply_settings")
    page = client.get(url)
    assert page.status_code == 200 and b'data-price-list-state="missing"' in page.content
    bad = client.post(url, {"price_list_url": "not a url", "price_list_answer": "{{nope}}"})
    assert bad.status_code == 400
    assert b'data-error="price_list_url"' in bad.content
    assert b'data-error="price_list_answer"' in bad.content
    tenant.refresh_from_db()
    assert tenant.price_list_url == "" and tenant.price_list_answer == ""
    good = client.post(
        url,
        {
            "price_list_url": "https://agro.example/p",
            "price_list_answer": "Lista: {{company_name}}",
        },
    )
    assert good.status_code == 302
    tenant.refresh_from_db()
    assert tenant.price_list_url == "https://agro.example/p"
    assert tenant.price_list_answer == "Lista: {{company_name}}"
    assert b'data-price-list-state="configured"' in client.get(url).content


def test_operators_cannot_change_the_price_list(client, tenant, operator):
    client.force_login(operator)
    assert client.get(reverse("outreach:reply_settings")).status_code == 403
