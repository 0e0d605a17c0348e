"""Meta Lead Ads: a notification is stored once per leadgen_id, the lead is fetched with the
page's token and mapped by the form's field map, made a lead (or matched, or refused with
the reason), its consent recorded, and the tenant's rules take it. End to end: a Lead Ads
webhook → the fetched lead → a rule enrolls it → its first Cloud API template message is
queued inside the sending window, not counted as a cold contact."""

from __future__ import annotations

import json

import pytest
import responses
import time_machine

from cerniq.models import Alert, WebhookEvent
from cerniq.webhooks import process_event
from integrations.meta import leadgen
from integrations.meta.models import ApprovedTemplate, LeadAd, LeadForm
from outreach.dispatch import dispatch_due
from outreach.models import Enrollment, Lead, LeadRule, Message, SequenceStep
from outreach.privacy_models import ContactBasis
from tests.factories import make_lead, make_outreach_world
from tests.integrations.meta.conftest import NUMBER_ID, PAGE_TOKEN, api_body, post, webhook_raw
from tests.whatsapp.conftest import MONDAY_10
from whatsapp.models import Phone

LEAD_URL = "https://graph.facebook.com/v23.0/123123123123"
FIELD_MAP = {
    "contact_name": "full_name",
    "name": "company_name",
    "phone": "phone_number",
    "email": "email",
    "county": "judet",
}


@pytest.fixture
def clock():
    with time_machine.travel(MONDAY_10, tick=False) as traveller:
        yield traveller


@pytest.fixture
def form(tenant):
    return LeadForm.objects.create(
        tenant=tenant,
        page_id="153125381133",
        form_id="12312312312",
        name="Oferta erbicide toamnă",
        field_map=FIELD_MAP,
        consent_text="Sunt de acord să fiu contactat de Agro Demo pe WhatsApp și email.",
    )


def notify(client, tenant) -> LeadAd:
    response = post(client, tenant, webhook_raw("leadgen"))
    assert response.status_code == 200, response.content
    process_event(WebhookEvent.objects.get(provider="meta").pk)
    return LeadAd.objects.get(leadgen_id="123123123123")


def fetch(row: LeadAd, *, status: int = 200, body: dict | None = None) -> leadgen.Fetched:
    with responses.RequestsMock() as rsps:
        rsps.get(LEAD_URL, json=body or api_body("leadgen_lead"), status=status)
        done = leadgen.process(row.pk)
        request = rsps.calls[0].request
    assert request.headers["Authorization"] == f"Bearer {PAGE_TOKEN}"
    assert "fields=created_time%2Cfield_data" in request.url
    return done


def test_a_notification_is_stored_once_with_its_ids_as_strings(client, tenant, form):
    row = notify(client, tenant)
    assert (row.page_id, row.form_id, row.ad_id) == ("153125381133", "12312312312", "12312312312")
    assert post(client, tenant, webhook_raw("leadgen")).json()["status"] == "duplicate"
    # A later notification of the same lead (another body) is a new event but no new row.
    body = json.loads(webhook_raw("leadgen"))
    body["entry"][0]["time"] += 60
    post(client, tenant, json.dumps(body).encode())
    process_event(WebhookEvent.objects.filter(provider="meta").latest("pk").pk)
    assert LeadAd.objects.count() == 1


def test_the_fetched_lead_is_mapped_and_its_consent_recorded(client, tenant, form):
    row = notify(client, tenant)
    fetch(row)
    row.refresh_from_db()
    assert row.status == LeadAd.Status.CREATED, row.reason
    lead = row.lead
    assert (lead.name, lead.contact_name) == ("Ferma Ionescu SRL", "Maria Ionescu")
    assert (lead.phone, lead.email, lead.county) == (
        "+40722111777",
        "maria@ferma-ionescu.ro",
        "Ialomița",
    )
    assert lead.source == "lead_ads"
    bases = ContactBasis.objects.filter(lead=lead)
    assert {b.channel for b in bases} == {"whatsapp", "email"}
    assert all(b.basis == "consent" and b.source == "lead_ads" for b in bases)
    assert bases.first().evidence == form.consent_text


def test_a_person_we_have_is_matched_not_doubled(client, tenant, form):
    existing = make_lead(tenant, phone="+40722111777", name="Ferma Ionescu")
    row = notify(client, tenant)
    fetch(row)
    row.refresh_from_db()
    assert row.status == LeadAd.Status.MERGED and row.lead_id == existing.pk
    assert Lead.objects.filter(tenant=tenant).count() == 1


def test_a_new_person_of_a_known_firm_becomes_its_contact(client, tenant, form):
    from tests.factories import make_company

    firm = make_company(tenant, name="Ferma Ionescu SRL", cui="18547290")
    colleague = make_lead(tenant, company=firm, phone="+40722000555", contact_name="Dan")
    form.field_map = {**FIELD_MAP, "cui": "cui"}
    form.save(update_fields=["field_map"])
    body = api_body("leadgen_lead")
    body["field_data"].append({"name": "cui", "values": ["RO18547290"]})
    row = notify(client, tenant)
    fetch(row, body=body)
    row.refresh_from_db()
    assert row.status == LeadAd.Status.CREATED, row.reason
    assert row.lead.company_id == firm.pk and row.lead.pk != colleague.pk
    assert (row.lead.contact_name, row.lead.name) == ("Maria Ionescu", "Ferma Ionescu SRL")
    assert set(firm.contacts.values_list("pk", flat=True)) == {colleague.pk, row.lead.pk}


@pytest.mark.parametrize(
    ("answers", "needs_cui", "expected"),
    [
        ({"full_name": "Ion", "phone_number": "nu am"}, False, "not a number"),
        ({"full_name": "Ion", "email": "ion@agro.ro"}, True, "CUI"),
    ],
)
def test_a_submission_we_cannot_use_is_refused_with_the_reason(
    client, tenant, form, answers, needs_cui, expected
):
    LeadForm.objects.filter(pk=form.pk).update(requires_cui=needs_cui)
    row = notify(client, tenant)
    body = {
        "id": "123123123123",
        "field_data": [{"name": k, "values": [v]} for k, v in answers.items()],
    }
    fetch(row, body=body)
    row.refresh_from_db()
    assert row.status == LeadAd.Status.REFUSED and expected in row.reason
    assert not Lead.objects.exists()


def test_a_form_not_set_up_is_refused_without_calling_meta(client, tenant):
    row = notify(client, tenant)
    with responses.RequestsMock():
        leadgen.process(row.pk)
    row.refresh_from_db()
    assert row.status == LeadAd.Status.REFUSED and "Lead Ads" in row.reason


def test_a_fault_is_retried_by_the_table_and_a_final_one_is_an_alert(client, tenant, form):
    row = notify(client, tenant)
    done = fetch(row, status=500, body={"error": {"message": "x", "code": 2, "type": "x"}})
    assert done.retry_in_seconds == 15
    assert LeadAd.objects.get(pk=row.pk).status == LeadAd.Status.NOTIFIED
    fetch(row, status=400, body=api_body("error_190"))
    row.refresh_from_db()
    assert row.status == LeadAd.Status.FAILED
    assert Alert.objects.filter(tenant=tenant, subject__contains="123123123123").exists()


def test_end_to_end_a_rule_enrolls_the_form_lead_and_its_template_is_queued(
    client, tenant, form, clock
):
    world = make_outreach_world(tenant, phones=1, leads=0, steps=2)
    Phone.objects.update(provider="meta", account_id=NUMBER_ID, number="+40740000201")
    for step in SequenceStep.objects.filter(tenant=tenant):
        ApprovedTemplate.objects.create(
            tenant=tenant,
            template_version=step.template.versions.get(),
            name=f"pas_{step.position}",
            parameters=["contact_name"],
            text="Bună ziua {{1}}, ați cerut oferta noastră. Răspundeți STOP pentru dezabonare.",
        )
    LeadRule.objects.create(
        tenant=tenant,
        name="Formulare Meta",
        source=LeadRule.Source.LEAD_ADS,
        form_id=form.form_id,
        sequence=world["sequence"],
    )
    row = notify(client, tenant)
    fetch(row)
    lead = LeadAd.objects.get(pk=row.pk).lead
    assert Enrollment.objects.filter(lead=lead, sequence=world["sequence"]).exists()
    dispatch_due(tenant)
    queued = Message.objects.get(lead=lead, status="QUEUED")
    assert queued.phone.provider == "meta"
    assert queued.quota_cost == 0  # asked to be contacted: not a cold contact
    with responses.RequestsMock() as rsps:
        rsps.post(
            f"https://graph.facebook.com/v23.0/{NUMBER_ID}/messages",
            json=api_body("send_template_ok"),
        )
        from outreach.sending import send_message

        assert send_message(queued.pk).kind == "sent"
        sent = json.loads(rsps.calls[0].request.body)
    assert sent["type"] == "template" and sent["to"] == "40722111777"
    assert sent["template"]["components"][0]["parameters"][0]["text"] == "Maria Ionescu"


def test_an_erased_persons_form_answers_are_blanked(client, tenant, form):
    from outreach.erasure import erase_person

    row = notify(client, tenant)
    fetch(row)
    lead = LeadAd.objects.get(pk=row.pk).lead
    erase_person(lead, by=None, reason="She asked by email to delete all her data", via="command")
    row.refresh_from_db()
    assert row.answers == {} and "Maria" not in str(row.answers)
