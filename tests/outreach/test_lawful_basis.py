"""A lawful basis for every first message (outreach.lawful_basis): "require" holds a first
message without one and sends it with one, "warn" sends and marks it, "off" asks nothing;
a reply asking for the offer records consent; the template check; the recipient's
country; a person's first message is refused under "require"."""

from __future__ import annotations

from datetime import datetime
from types import SimpleNamespace
from zoneinfo import ZoneInfo

import pytest
import time_machine
from django.core.exceptions import ValidationError

from cerniq import reasons
from cerniq.models import Tenant, validate_basis_policy
from outreach import lawful_basis, template_compliance
from outreach import reasons as codes
from outreach.dispatch import dispatch_due
from outreach.lawful_basis import BasisRefused, record
from outreach.models import (
    Channel,
    ContactBasis,
    Enrollment,
    Lead,
    Message,
    TemplateVersion,
)
from tests.factories import make_lead, make_message, make_outreach_world, make_user

pytestmark = pytest.mark.django_db
MONDAY_10 = datetime(2026, 11, 23, 10, 0, tzinfo=ZoneInfo("Europe/Bucharest"))


def set_policy(tenant: Tenant, **policy) -> None:
    Tenant.objects.filter(pk=tenant.pk).update(basis_policy=policy)
    tenant.refresh_from_db()


def dispatch(tenant, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        return dispatch_due(tenant)


@pytest.fixture
def monday():
    with time_machine.travel(MONDAY_10, tick=False):
        yield


def test_require_holds_a_first_message_without_a_basis_and_sends_it_with_one(
    tenant, monday, django_capture_on_commit_callbacks
):
    world = make_outreach_world(tenant, leads=2, phones=1)
    set_policy(tenant, whatsapp={"RO": "require"})
    held, allowed = world["leads"]
    record(allowed, channels=["whatsapp"], basis="customer", source="page", detail="contract 17")

    result = dispatch(tenant, django_capture_on_commit_callbacks)

    assert result.dispatched == {Channel.WHATSAPP: 1}
    sent = Message.objects.get(lead=allowed)
    assert sent.basis == "customer"
    assert not Message.objects.filter(lead=held).exists()
    enrollment = Enrollment.objects.get(lead=held)
    assert reasons.parse(enrollment.stalled_reason)[0] == codes.NO_BASIS
    said = reasons.render(enrollment.stalled_reason)
    assert "lawful basis" in said and "RO" in said and "WhatsApp" in said
    # Recording one wakes the lead: the next dispatch sends it.
    record(held, channels=["whatsapp"], basis="consent", source="page", evidence="form at fair")
    assert dispatch(tenant, django_capture_on_commit_callbacks).dispatched == {Channel.WHATSAPP: 1}
    assert Message.objects.get(lead=held).basis == "consent"


def test_warn_sends_and_marks_off_asks_nothing_and_only_first_messages_count(
    tenant, monday, django_capture_on_commit_callbacks
):
    world = make_outreach_world(tenant, leads=2, phones=1)
    first, talked_to = world["leads"]
    make_message(talked_to, status=Message.Status.SENT, phone=world["phones"][0])
    # The default: Romania warns.
    dispatch(tenant, django_capture_on_commit_callbacks)
    marks = dict(
        Message.objects.filter(status=Message.Status.QUEUED).values_list("lead_id", "basis")
    )
    assert marks == {first.pk: "missing", talked_to.pk: ""}
    # "off" for the recipient's country: nothing is marked.
    assert lawful_basis.mode(tenant, "whatsapp", "DE") == "off"
    set_policy(tenant, whatsapp={"RO": "off"})
    assert lawful_basis.check(first, Channel.WHATSAPP).mark == ""


def test_the_policy_by_country_and_its_fallbacks(tenant):
    assert lawful_basis.mode(tenant, "email", "RO") == "warn"
    set_policy(tenant, email={"DE": "require", "*": "warn"})
    # A channel's own entry replaces the default for that channel.
    assert [lawful_basis.mode(tenant, "email", c) for c in ("DE", "RO", "FR")] == [
        "require",
        "warn",
        "warn",
    ]
    assert lawful_basis.mode(tenant, "whatsapp", "RO") == "warn"  # still the default
    lead = SimpleNamespace(phone="+4915112345678", email="x@firma.ro")
    assert lawful_basis.recipient_country(lead) == "DE"
    assert lawful_basis.recipient_country(SimpleNamespace(phone="", email="a@b.co.uk")) == "GB"
    assert lawful_basis.recipient_country(SimpleNamespace(phone="", email="a@ferma.com")) == "RO"
    for bad in ([], {"sms": {}}, {"email": {"ro": "warn"}}, {"email": {"RO": "block"}}):
        with pytest.raises(ValidationError):
            validate_basis_policy(bad)
    validate_basis_policy({"email": {"RO": "require", "*": "off"}})


def test_a_reply_asking_for_the_offer_records_consent_on_its_channel(tenant):
    lead = make_lead(tenant, email="ana@ferma.ro")
    reply = make_message(
        lead, direction="IN", status="RECEIVED", channel=Channel.EMAIL_WARM, body="Trimiteți oferta"
    )
    assert lawful_basis.consent_from_reply(reply, "not_interested") is None
    assert lawful_basis.consent_from_reply(reply, "price_request", confidence=0.4) is None
    row = lawful_basis.consent_from_reply(reply, "price_request", confidence=0.9)
    assert (row.channel, row.basis, row.source) == ("email", "consent", "reply")
    assert f"reply #{reply.pk}" in row.source_detail and row.given_at == reply.created_at
    assert lawful_basis.consent_from_reply(reply, "interested") is None  # consent already
    assert lawful_basis.check(lead, Channel.EMAIL_COLD).lawful
    assert not lawful_basis.check(lead, Channel.WHATSAPP).lawful  # that channel only


def test_the_triage_of_a_reply_records_consent(tenant, settings):
    """Through the reply path: a triaged price request is consent on WhatsApp."""
    from hitl import replies
    from hitl.triage.base import TriageResult

    lead = make_lead(tenant)
    reply = make_message(lead, direction="IN", status="RECEIVED", body="Cât costă?")
    result = TriageResult(
        sentiment=60,
        intent="price_request",
        confidence=0.92,
        language="ro",
        draft="",
        backend="offline",
    )
    replies._store_triage(reply, result, {"decision": "x"})
    assert ContactBasis.objects.get(lead=lead).channel == "whatsapp"


def test_recording_refuses_what_is_not_a_basis_and_stores_nothing(tenant):
    lead = make_lead(tenant)
    for kwargs, field in (
        ({"channels": ["sms"], "basis": "consent", "evidence": "x"}, "channel"),
        ({"channels": ["email"], "basis": "maybe"}, "basis"),
        ({"channels": ["email"], "basis": "consent"}, "evidence"),
        ({"channels": ["email"], "basis": "none", "evidence": "x" * 2001}, "evidence"),
    ):
        with pytest.raises(BasisRefused) as refused:
            record(lead, source="page", **kwargs)
        assert refused.value.field == field
    assert not ContactBasis.objects.exists()


def test_a_template_must_say_who_writes_and_how_to_stop(
    tenant, monday, django_capture_on_commit_callbacks
):
    tenant.name = "Agro Semințe SRL"
    assert template_compliance.missing(tenant, body="Bună ziua, aveți nevoie de semințe?") == [
        "identity",
        "opt_out",
    ]
    assert (
        template_compliance.missing(
            tenant,
            body="Vă scrie Ion de la AGRO SEMINTE SRL. Răspundeți STOP și nu vă mai scriem.",
        )
        == []
    )
    assert (
        template_compliance.missing(
            tenant, body="Agro Semințe SRL: dacă nu mai doriți mesaje, spuneți-ne."
        )
        == []
    )
    assert template_compliance.missing(tenant, body="Agro Semințe SRL vă scrie.") == ["opt_out"]
    assert "stop" in template_compliance.said(["identity", "opt_out"])
    # The name without its legal form, or its first word as a brand, names the workspace;
    # a brand word inside another word does not.
    brand = type("T", (), {"name": "Cerniq Demo Agro"})()
    assert template_compliance.missing(brand, body="Andrei de la Cerniq. Răspundeți STOP.") == []
    assert template_compliance.missing(brand, body="Cerniqul vă scrie. STOP") == ["identity"]

    # With the workspace asking, a first message from a template lacking them is held.
    world = make_outreach_world(tenant, leads=1, phones=1)
    Tenant.objects.filter(pk=tenant.pk).update(first_templates_must_comply=True)
    tenant.refresh_from_db()
    dispatch(tenant, django_capture_on_commit_callbacks)
    enrollment = Enrollment.objects.get(lead=world["leads"][0])
    assert reasons.parse(enrollment.stalled_reason)[0] == codes.TEMPLATE_NOT_COMPLIANT
    assert "who is writing" in reasons.render(enrollment.stalled_reason)
    TemplateVersion.objects.filter(tenant=tenant).update(
        body="Bună ziua de la Agro Demo. Răspundeți STOP dacă nu doriți mesaje."
    )
    from outreach import stalls

    stalls.wake([world["leads"][0].pk])
    assert dispatch(tenant, django_capture_on_commit_callbacks).dispatched == {Channel.WHATSAPP: 1}


def test_a_persons_first_message_is_refused_under_require(tenant, monday):
    from outreach.manual import SendRefused, send_manual

    lead = make_lead(tenant, email="")
    user = make_user(tenant)
    set_policy(tenant, whatsapp={"RO": "require"})
    make_outreach_world(tenant, leads=0, phones=1)
    with pytest.raises(SendRefused, match="lawful basis"):
        send_manual(lead, "Bună ziua", user=user, channel=Channel.WHATSAPP)
    record(lead, channels=["whatsapp"], basis="legitimate_interest", source="page")
    message = send_manual(lead, "Bună ziua", user=user, channel=Channel.WHATSAPP)
    assert message.status == Message.Status.QUEUED


def test_the_lead_page_shows_the_basis_and_records_one(client, tenant):
    lead = make_lead(tenant, email="ana@ferma.ro")
    set_policy(tenant, email={"RO": "require"})
    client.force_login(make_user(tenant, username="ana"))
    page = client.get(f"/outreach/leads/{lead.pk}/").content.decode()
    assert 'data-basis="email" data-basis-value=""' in page
    assert "data-basis-held" in page and 'data-basis-policy="require"' in page
    url = f"/outreach/leads/{lead.pk}/basis/"
    refused = client.post(url, {"channel": "email", "basis": "consent", "evidence": ""})
    assert refused.status_code == 400 and "Say how consent was given" in refused.content.decode()
    bad_date = client.post(
        url, {"channel": "both", "basis": "consent", "evidence": "x", "given_on": "20.11"}
    )
    assert bad_date.status_code == 400 and "YYYY-MM-DD" in bad_date.content.decode()
    assert not ContactBasis.objects.exists()
    done = client.post(
        url,
        {
            "channel": "both",
            "basis": "consent",
            "evidence": "Signed the form at Agraria, stand 12",
            "given_on": "2026-11-20",
        },
        follow=True,
    )
    page = done.content.decode()
    assert 'data-basis="email" data-basis-value="consent"' in page
    assert 'data-basis="whatsapp" data-basis-value="consent"' in page
    assert "Signed the form at Agraria" in page and "data-basis-held" not in page
    rows = ContactBasis.objects.filter(lead=lead)
    assert {r.channel for r in rows} == {"email", "whatsapp"}
    assert all(
        r.recorded_by.username == "ana" and r.given_at.date().isoformat() == "2026-11-20"
        for r in rows
    )


def test_import_columns_record_the_basis_and_refuse_what_is_not_one(tenant):
    import io

    from outreach.importing import import_csv

    existing = make_lead(tenant, phone="+40722000001", name="Ferma Veche")
    csv = (
        "denumire,telefon,email,temei,canal_temei,dovada,data_consimtamant\n"
        "Ferma Nouă,0722000002,,consimțământ,whatsapp,Formular Agraria 2026,20.11.2026\n"
        "Ferma Veche,0722000001,,client,,factura 17/2025,\n"
        "Ferma Fără,0722000003,,,,,\n"
        "Ferma Greșită,0722000004,,poate,fax,,ieri\n"
    )
    report = import_csv(tenant, io.BytesIO(csv.encode()), source="targ.csv")
    assert (report.created, report.updated + report.unchanged) == (2, 1)
    (error,) = report.rejected
    said = reasons.render(error.reason)
    assert error.line == 5 and "“poate”" in said and "“fax”" in said and "“ieri”" in said
    new = Lead.objects.get(phone="+40722000002")
    (consent,) = ContactBasis.objects.filter(lead=new)
    assert (consent.channel, consent.basis, consent.source) == ("whatsapp", "consent", "import")
    assert consent.source_detail == "targ.csv, line 2"
    assert consent.evidence == "Formular Agraria 2026"
    assert consent.given_at.date().isoformat() == "2026-11-20"
    assert sorted(ContactBasis.objects.filter(lead=existing).values_list("channel", "basis")) == [
        ("email", "customer"),
        ("whatsapp", "customer"),
    ]
    assert not ContactBasis.objects.filter(lead__phone="+40722000003").exists()
    assert not Lead.objects.filter(phone="+40722000004").exists()


def test_the_api_records_and_lists_a_leads_basis(tenant, other_tenant):
    from rest_framework.test import APIClient

    from cerniq import api_keys

    lead = make_lead(tenant)
    theirs = make_lead(other_tenant)
    admin = make_user(tenant, role="ADMIN", username="crm-admin")
    _, key = api_keys.create_key(tenant, name="crm", scope="write", user=admin)
    api = APIClient(HTTP_ACCEPT_LANGUAGE="en")
    api.credentials(HTTP_AUTHORIZATION=f"Api-Key {key}")
    url = f"/api/v1/leads/{lead.pk}/basis/"
    missing = api.post(url, {"channels": ["email"], "basis": "consent"}, format="json")
    assert missing.status_code == 400 and "evidence" in missing.json()["error"]["fields"]
    wrong = api.post(url, {"channels": ["sms"], "basis": "consent"}, format="json")
    assert wrong.status_code == 400 and "channels.0" in wrong.json()["error"]["fields"]
    created = api.post(
        url,
        {
            "channels": ["email", "whatsapp"],
            "basis": "consent",
            "evidence": "https://ferma.example.ro/abonare — bifă nebifată implicit",
            "given_at": "2026-11-20T10:00:00Z",
            "source": "form",
        },
        format="json",
    )
    assert created.status_code == 201
    assert {row["channel"] for row in created.json()} == {"email", "whatsapp"}
    assert created.json()[0]["source_detail"] == "API key crm"
    listed = api.get(url).json()
    assert len(listed) == 2 and listed[0]["recorded_by"] == "crm-admin"
    assert api.get(f"/api/v1/leads/{theirs.pk}/basis/").status_code == 404


def test_an_admin_sets_the_policy_on_the_consent_page(client, tenant):
    url = "/outreach/settings/consent/"
    client.force_login(make_user(tenant))
    assert client.get(url).status_code == 403
    client.force_login(make_user(tenant, role="ADMIN"))
    page = client.get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "RO: warn" in page  # the default, as text
    bad = client.post(url, {"whatsapp": "RO: warn\nromania: require", "email": "RO: warn"})
    assert bad.status_code == 400 and "Line 2" in bad.content.decode()
    worse = client.post(url, {"whatsapp": "RO: warn", "email": "RO: block"})
    assert worse.status_code == 400 and "“block” is not off, warn or require" in (
        worse.content.decode()
    )
    tenant.refresh_from_db()
    assert tenant.basis_policy == {} and not tenant.first_templates_must_comply
    done = client.post(
        url, {"whatsapp": "ro: warn", "email": "RO = require\n*: warn", "templates": "on"}
    )
    assert done.status_code == 302
    tenant.refresh_from_db()
    assert tenant.basis_policy == {
        "whatsapp": {"RO": "warn"},
        "email": {"RO": "require", "*": "warn"},
    }
    assert tenant.first_templates_must_comply
    assert lawful_basis.mode(tenant, "email", "DE") == "warn"
