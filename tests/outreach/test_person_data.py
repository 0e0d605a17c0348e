"""The data-subject export (outreach.person_data): every table that names a person is in it
(a walk over the project's models), and a person's export holds their rows and nobody
else's."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest
from django.apps import apps
from django.db import models

from cerniq.models import WebhookDelivery, WebhookEndpoint, WebhookEvent
from hitl.models import ConversationState, Note, ReplyTriage, ReviewItem
from outreach import person_data
from outreach.models import (
    Lead,
    Message,
    MessageAttachment,
    OptOutRecord,
    StageTransition,
    Suppression,
)
from outreach.suppression import suppress
from outreach.suppression_list import add_entry
from tests.factories import make_lead, make_message, make_user

PROJECT_APPS = ("cerniq", "whatsapp", "email_channels", "outreach", "hitl", "console", "api")
# Fields that hold a person's address or what they wrote, whatever the model.
PERSONAL_FIELDS = {"phone", "email", "counterpart", "cui", "contact_name", "value"}
# Fields that hold a provider's payload or an uploaded file: a person may be in them.
CONTENT_FIELDS = {"raw_body", "content", "payload", "raw_request", "raw_response"}

# Tables a field name above would flag but which hold no person's data, and why.
NOT_PERSON_DATA = {
    "whatsapp.Phone": "our own sending numbers",
    "whatsapp.QuotaUsage": "a count per sending number and day (`phone` is our number)",
    "whatsapp.PhoneStatusChange": "a sending number's history",
    "outreach.DailyStats": "counts per sending number and day",
    "email_channels.SenderPause": "our own sending addresses and domains, paused",
    "outreach.LeadRule": "a workspace's lead rule (`phone` is our sending number to assign)",
}


def _reaches_lead(model: type[models.Model], depth: int = 3) -> bool:
    if model is Lead:
        return True
    if depth == 0:
        return False
    return any(
        field.many_to_one or field.one_to_one
        for field in model._meta.concrete_fields
        if field.is_relation
        and field.related_model is not None
        and field.related_model is not model
        and _reaches_lead(field.related_model, depth - 1)
    )


def _names_a_person(model: type[models.Model]) -> bool:
    names = {field.name for field in model._meta.concrete_fields}
    if names & (PERSONAL_FIELDS | CONTENT_FIELDS):
        return True
    return (
        any(
            field.is_relation
            and field.related_model is not None
            and _reaches_lead(field.related_model)
            and field.related_model._meta.label != "cerniq.Tenant"
            for field in model._meta.concrete_fields
        )
        or model is Lead
    )


def _project_models() -> list[type[models.Model]]:
    return [m for m in apps.get_models() if m.__module__.split(".")[0] in PROJECT_APPS]


def test_every_table_that_names_a_person_is_exported_or_declared_as_holding_none():
    exported = {section.model for section in person_data.sections()}
    missing = [
        model._meta.label
        for model in _project_models()
        if _names_a_person(model)
        and model not in exported
        and model._meta.label not in NOT_PERSON_DATA
    ]
    assert missing == [], (
        "these tables name a person but are not in the data-subject export: add a Section "
        "(outreach.person_data) or, if they hold no person's data, say why in NOT_PERSON_DATA"
    )
    # The walk is not vacuous: it finds the tables we know name a person.
    found = {m._meta.label for m in _project_models() if _names_a_person(m)}
    assert {"outreach.Message", "hitl.Note", "cerniq.WebhookEvent", "outreach.Suppression"} <= found


@pytest.mark.django_db
def test_a_persons_export_holds_their_rows_and_nobody_elses(tenant):
    operator = make_user(tenant)
    ana = make_lead(tenant, phone="+40722111222", email="ana@ferma.ro", cui="22732040")
    other = make_lead(tenant, phone="+40733444555", email="ion@agro.ro")
    inbound = make_message(ana, direction="IN", status="RECEIVED", body="Cât costă?")
    make_message(other, direction="IN", status="RECEIVED", body="Nu, mulțumesc")
    MessageAttachment.objects.create(
        message=inbound, file="attachments/oferta.pdf", filename="oferta.pdf", size=10
    )
    due = datetime(2026, 12, 2, 10, tzinfo=UTC)
    ReviewItem.objects.create(
        tenant=tenant, lead=ana, message=inbound, reason="price", sla_due_at=due
    )
    ReplyTriage.objects.create(tenant=tenant, lead=ana, message=inbound, queued_at=due)
    Note.objects.create(tenant=tenant, lead=ana, author=operator, body="Sună după 10.")
    ConversationState.objects.create(tenant=tenant, lead=ana, user=operator)
    OptOutRecord.objects.create(
        tenant=tenant, lead=ana, by_user=operator, asked_on="all", reason="asked by phone"
    )
    suppress(tenant, phone=ana.phone, reason="stop")
    add_entry(tenant, kind="domain", value="ferma.ro", reason="x")
    add_entry(tenant, kind="domain", value="agro.ro", reason="not hers")
    payload = json.dumps({"message": {"sender": {"phone": "+40722111222"}}}).encode()
    WebhookEvent.objects.create(tenant=tenant, provider="timelinesai", raw_body=payload)
    WebhookEvent.objects.create(tenant=tenant, provider="timelinesai", raw_body=b'{"x": 1}')
    endpoint = WebhookEndpoint.objects.create(tenant=tenant, url="https://h.example/", secret="s")
    for lead in (ana, other):
        WebhookDelivery.objects.create(
            tenant=tenant,
            endpoint=endpoint,
            event_id=f"msg_{lead.pk}",
            event_type="lead.replied",
            payload={"data": {"lead_id": lead.pk}},
        )
    from outreach.stages import transition

    transition(ana.journey, "CONTACTED_WA", reason="test")

    document = json.loads(person_data.export_json(ana))
    assert document["format"] == person_data.FORMAT and document["lead_id"] == ana.pk
    got = document["sections"]
    assert [row["pk"] for row in got["lead"]] == [ana.pk]
    assert got["lead"][0]["fields"]["email"] == "ana@ferma.ro"
    assert [row["fields"]["body"] for row in got["messages"]] == ["Cât costă?"]
    assert [row["fields"]["filename"] for row in got["attachments"]] == ["oferta.pdf"]
    assert len(got["review_items"]) == len(got["reply_triages"]) == len(got["notes"]) == 1
    assert len(got["conversation_read_state"]) == len(got["opt_out_records"]) == 1
    assert [r["fields"]["to_stage"] for r in got["stage_history"]] == ["CONTACTED_WA"]
    assert StageTransition.objects.count() == 1
    assert {r["fields"]["phone"] or r["fields"]["domain"] for r in got["suppression_entries"]} == {
        "+40722111222",
        "ferma.ro",
    }
    assert [json.loads(r["fields"]["raw_body"]) for r in got["provider_webhooks"]] == [
        {"message": {"sender": {"phone": "+40722111222"}}}
    ]
    assert [r["fields"]["event_id"] for r in got["outbound_webhooks"]] == [f"msg_{ana.pk}"]
    # Nothing of the other lead anywhere in the document.
    text = json.dumps(document, ensure_ascii=False)
    assert "ion@agro.ro" not in text and "Nu, mulțumesc" not in text and "+40733444555" not in text
    assert Message.objects.count() == 2 and Suppression.objects.count() == 3


@pytest.mark.django_db
def test_a_number_written_in_any_format_in_a_stored_payload_is_found(tenant):
    ana = make_lead(tenant, phone="+40722111222", email="")
    for raw in (
        b'{"phone": "40722111222"}',
        b"name,phone\nAna,0722111222\n",
        b'{"p": "+40722111222"}',
    ):
        WebhookEvent.objects.create(tenant=tenant, provider="timelinesai", raw_body=raw)
    WebhookEvent.objects.create(
        tenant=tenant, provider="timelinesai", raw_body=b'{"p": "0722111223"}'
    )
    assert person_data.webhook_events_of(ana).count() == 3


@pytest.mark.django_db
def test_the_command_finds_the_person_by_number_and_writes_the_document(tenant, tmp_path):
    from django.core.management import CommandError, call_command

    ana = make_lead(tenant, phone="+40722111222", email="ana@ferma.ro")
    out = tmp_path / "ana.json"
    call_command(
        "export_person", "--tenant", tenant.slug, "--phone", "0722 111 222", "--output", str(out)
    )
    assert json.loads(out.read_text(encoding="utf-8"))["lead_id"] == ana.pk
    with pytest.raises(CommandError, match="no lead of this tenant matches"):
        call_command("export_person", "--tenant", tenant.slug, "--email", "nobody@ferma.ro")
    with pytest.raises(CommandError, match="--phone '12'"):
        call_command("export_person", "--tenant", tenant.slug, "--phone", "12")


@pytest.mark.django_db
def test_the_api_exports_a_lead_of_the_keys_workspace_only(tenant, other_tenant):
    from rest_framework.test import APIClient

    from cerniq import api_keys

    ana = make_lead(tenant, phone="+40722111222", email="ana@ferma.ro")
    theirs = make_lead(other_tenant, phone="+40722111222")
    admin = make_user(tenant, role="ADMIN")
    _, key = api_keys.create_key(tenant, name="dpo", scope="read", user=admin)
    api = APIClient(HTTP_ACCEPT_LANGUAGE="en")
    api.credentials(HTTP_AUTHORIZATION=f"Api-Key {key}")
    response = api.get(f"/api/v1/leads/{ana.pk}/export/")
    assert response.status_code == 200
    assert response.json()["sections"]["lead"][0]["fields"]["email"] == "ana@ferma.ro"
    assert api.get(f"/api/v1/leads/{theirs.pk}/export/").status_code == 404


@pytest.mark.django_db
def test_the_lead_page_links_the_export_and_serves_it_to_the_tenant_only(
    client, tenant, other_tenant
):
    import time_machine

    ana = make_lead(tenant, phone="+40722111222", email="ana@ferma.ro")
    theirs = make_lead(other_tenant)
    client.force_login(make_user(tenant))
    page = client.get(f"/outreach/leads/{ana.pk}/").content.decode()
    assert f'href="/outreach/leads/{ana.pk}/export.json"' in page
    with time_machine.travel("2026-12-02T10:00:00+02:00", tick=False):
        response = client.get(f"/outreach/leads/{ana.pk}/export.json")
    assert response.status_code == 200 and response["Content-Type"].startswith("application/json")
    assert f'filename="lead-{ana.pk}-2026-12-02.json"' in response["Content-Disposition"]
    assert json.loads(response.content)["sections"]["lead"][0]["pk"] == ana.pk
    assert client.get(f"/outreach/leads/{theirs.pk}/export.json").status_code == 404
    assert client.post(f"/outreach/leads/{ana.pk}/export.json").status_code == 405
