"""Erasing a person (outreach.erasure): nothing of them is left in any table (a walk over
every row of the project's models), their counts stay, they are never imported or given to
a lead again, the audit row says who asked, and a database restored from before the
erasure is erased again from the ledger."""

from __future__ import annotations

import io
import json
from datetime import UTC, datetime

import pytest
from django.apps import apps
from django.core import serializers
from django.core.files.base import ContentFile
from django.core.management import call_command

from cerniq import reasons
from cerniq.models import Alert, WebhookDelivery, WebhookEndpoint, WebhookEvent
from hitl.models import ConversationState, Note, ReplyTriage, ReviewItem
from outreach import erasure_ledger
from outreach.erasure import ErasureRefused, erase_person, reapply
from outreach.importing import import_csv
from outreach.lead_entry import LeadInvalid, create_lead, update_lead
from outreach.models import (
    Erasure,
    ImportJob,
    Journey,
    Lead,
    Message,
    MessageAttachment,
    OptOutRecord,
    Propagation,
    Suppression,
)
from outreach.stages import transition
from outreach.suppression import digest, is_suppressed
from outreach.suppression_list import add_entry
from tests.factories import make_lead, make_message, make_user

pytestmark = pytest.mark.django_db

PROJECT_APPS = ("cerniq", "whatsapp", "email_channels", "outreach", "hitl", "console", "api")
ANA = {
    "name": "Ferma Ana Vlădescu PFA",
    "contact_name": "Ana Vlădescu",
    "phone": "+40722111222",
    "email": "ana.vladescu@ferma-example.ro",
    "cui": "22732040",
    "locality": "Slobozia",
    "whatsapp_user_id": "RO.8812734401928374",  # WhatsApp's id of her (a BSUID)
}
# What of Ana may be written anywhere: her names, number (in any format) and address, and
# what she and we wrote.
ANA_TEXTS = [
    "Vlădescu",
    "722111222",
    "ana.vladescu@ferma-example.ro",
    "RO.8812734401928374",
    "Cât costă tratamentul pentru 40 ha?",
    "Oferta pentru Ferma Ana",
    "Sună-l pe soțul ei",
]
REASON = "She asked by email on 2026-11-20 to delete all her data"


def seed_person(tenant):
    """Ana, with a row in every kind of table that can name a person; Ion beside her."""
    operator = make_user(tenant, username="operator")
    ana = make_lead(tenant, custom_fields={"ferma": "Ana Vlădescu, 40 ha"}, **ANA)
    ion = make_lead(tenant, phone="+40733444555", email="ion@agro-example.ro", name="Agro Ion")
    out = make_message(ana, body="Oferta pentru Ferma Ana", counterpart=ana.email, subject="Ofertă")
    inbound = make_message(
        ana,
        direction="IN",
        status="RECEIVED",
        body="Cât costă tratamentul pentru 40 ha?",
        counterpart=ana.phone,
        raw_request={"from": "40722111222"},
        analysis={"intent": "price_question", "sentiment": 70, "summary": "Ana Vlădescu asks"},
    )
    make_message(
        ion, direction="IN", status="RECEIVED", body="Nu, mulțumesc", counterpart=ion.phone
    )
    # Before she was a lead: a message from her number, from an unknown sender.
    Message.objects.create(
        tenant=tenant,
        channel="WHATSAPP",
        direction="IN",
        status="RECEIVED",
        body="Bună, Ana Vlădescu aici",
        counterpart=ana.phone,
    )
    MessageAttachment.objects.create(
        message=out, file="attachments/oferta-ana.pdf", filename="oferta.pdf", size=10
    )
    due = datetime(2026, 12, 2, 10, tzinfo=UTC)
    ReviewItem.objects.create(
        tenant=tenant,
        lead=ana,
        message=inbound,
        reason="Ana Vlădescu asks for a price",
        sla_due_at=due,
        ai_draft="Bună ziua doamna Vlădescu",
    )
    ReplyTriage.objects.create(tenant=tenant, lead=ana, message=inbound, queued_at=due)
    Note.objects.create(tenant=tenant, lead=ana, author=operator, body="Sună-l pe soțul ei")
    ConversationState.objects.create(tenant=tenant, lead=ana, user=operator)
    OptOutRecord.objects.create(
        tenant=tenant, lead=ana, by_user=operator, asked_on="all", reason="Ana Vlădescu called"
    )
    add_entry(tenant, kind="domain", value="ferma-example.ro", reason="Vlădescu's farm")
    WebhookEvent.objects.create(
        tenant=tenant,
        provider="timelinesai",
        raw_body=json.dumps({"message": {"sender": {"phone": "40722111222"}}}).encode(),
    )
    endpoint = WebhookEndpoint.objects.create(tenant=tenant, url="https://h.example/", secret="s")
    WebhookDelivery.objects.create(
        tenant=tenant,
        endpoint=endpoint,
        event_id="evt_1",
        event_type="lead.replied",
        payload={"data": {"lead_id": ana.pk, "email": ana.email}},
    )
    ImportJob.objects.create(
        tenant=tenant,
        file_name="leads.csv",
        content=(
            "name,phone,email\n"
            "Ferma Ana Vlădescu PFA,0722111222,ana.vladescu@ferma-example.ro\n"
            "Agro Ion,0733444555,ion@agro-example.ro\n"
        ).encode(),
    )
    Alert.objects.create(
        tenant=tenant, kind="other", subject="withdrawal:instantly", message="Ana Vlădescu: 500"
    )
    transition(ana.journey, "CONTACTED_WA", reason="test")
    return operator, ana, ion


def everything_stored() -> str:
    """Every row of every model of the project, as one text."""
    rows = []
    for model in apps.get_models():
        if model.__module__.split(".")[0] in PROJECT_APPS:
            rows += serializers.serialize("json", model._default_manager.all())
            for obj in model._default_manager.all():
                for field in model._meta.concrete_fields:
                    value = getattr(obj, field.attname)
                    if isinstance(value, bytes | memoryview):
                        rows.append(bytes(value).decode("utf-8", errors="replace"))
    return json.loads(json.dumps("".join(rows)))


@pytest.fixture
def no_provider_holds_anyone(settings):
    """Cold email in the demo's sandbox: no provider receipt (those are tested at the HTTP
    boundary, tests/integrations/instantly/test_erasure.py)."""
    settings.PROVIDERS = {
        **settings.PROVIDERS,
        "email.instantly": {"BACKEND": "integrations.sandbox.email.SandboxEmail"},
    }


def test_an_erased_person_is_nowhere_and_every_count_stays(tenant, no_provider_holds_anyone):
    operator, ana, ion = seed_person(tenant)
    admin = make_user(tenant, username="dpo", role="ADMIN")
    before = everything_stored()
    assert all(text in before for text in ANA_TEXTS)  # the walk sees her before
    messages = Message.objects.filter(tenant=tenant).count()

    erasure = erase_person(ana, by=admin, reason=REASON, via=Erasure.Via.PAGE)

    after = everything_stored()
    assert [text for text in ANA_TEXTS if text in after] == []
    # Ion is untouched: his lead, his message, his line of the import file.
    assert "Nu, mulțumesc" in after and "ion@agro-example.ro" in after
    assert "Agro Ion,0733444555,ion@agro-example.ro" in after
    # Every count stays: the rows are there, without their text.
    assert Message.objects.filter(tenant=tenant).count() == messages
    ana.refresh_from_db()
    assert ana.erased_at is not None and ana.name == "[erased]" and not ana.phone
    assert Journey.objects.get(lead=ana).stage == "CONTACTED_WA"
    reply = Message.objects.get(lead=ana, direction="IN")
    assert reply.analysis == {"intent": "price_question", "sentiment": 70}
    assert not MessageAttachment.objects.exists()
    # She is opted out, and listed by hashes only.
    journey = Journey.objects.get(lead=ana)
    assert journey.whatsapp_opted_out and journey.email_opted_out
    hashed = Suppression.objects.filter(tenant=tenant, source="erasure")
    assert {row.kind for row in hashed} == {"erased"}
    assert set(hashed.values_list("digest", flat=True)) == {
        digest("phone", ANA["phone"]),
        digest("email", ANA["email"]),
    }
    assert is_suppressed(tenant, phone=ANA["phone"]) and is_suppressed(tenant, email=ANA["email"])
    # The domain entry a person added stays (it names a company), its reason redacted.
    assert Suppression.objects.get(domain="ferma-example.ro").reason == "[erased]'s farm"
    # The audit row: who, how, why, what was blanked.
    assert (erasure.requested_by, erasure.via, erasure.reason) == (admin, "page", REASON)
    assert erasure.scrubbed["messages"] == 3 and erasure.scrubbed["lead"] == 1
    assert Propagation.objects.get(erasure=erasure, provider="cerniq").state == "done"


def test_an_erasure_needs_a_reason_and_happens_once(tenant):
    ana = make_lead(tenant, phone="+40722111222")
    admin = make_user(tenant, role="ADMIN")
    with pytest.raises(ErasureRefused, match="at least 15 characters"):
        erase_person(ana, by=admin, reason="  she asked ", via="page")
    assert Lead.objects.get(pk=ana.pk).phone == "+40722111222"
    assert not Erasure.objects.exists()
    erase_person(ana, by=admin, reason=REASON, via="page")
    with pytest.raises(ErasureRefused, match="already erased"):
        erase_person(ana, by=admin, reason=REASON, via="page")
    assert Erasure.objects.count() == 1


def test_an_erased_person_is_never_imported_or_given_to_a_lead_again(tenant):
    ana = make_lead(tenant, phone="+40722111222", email="ana@ferma-example.ro")
    erase_person(ana, by=make_user(tenant, role="ADMIN"), reason=REASON, via="page")
    report = import_csv(
        tenant,
        io.BytesIO(
            b"name,phone,email\n"
            b"Ferma Ana,0722 111 222,\n"
            b"Ferma Ana bis,,ANA@ferma-example.ro\n"
            b"Agro Ion,0733444555,ion@agro-example.ro\n"
        ),
    )
    assert report.created == 1
    refused = {error.line: reasons.render(error.reason) for error in report.rejected}
    assert set(refused) == {2, 3}
    assert "erased on request" in refused[2] and "phone" in refused[2]
    assert "email" in refused[3]
    assert not Lead.objects.filter(phone="+40722111222").exists()
    with pytest.raises(LeadInvalid) as refused_create:
        create_lead(tenant, {"name": "Ana", "phone": "0722111222"})
    assert "erased on request" in refused_create.value.fields["phone"][0]
    ion = Lead.objects.get(phone="+40733444555")
    with pytest.raises(LeadInvalid) as refused_update:
        update_lead(ion, {"email": "ana@ferma-example.ro"})
    assert list(refused_update.value.fields) == ["email"]
    with pytest.raises(LeadInvalid):
        update_lead(Lead.objects.get(pk=ana.pk), {"phone": "0744000111"})
    # Another workspace never erased her: its import is untouched.
    from tests.factories import make_tenant

    other = make_tenant(name="Other", slug="other-erasure")
    assert import_csv(other, io.BytesIO(b"name,phone\nFerma Ana,0722111222\n")).created == 1


def test_the_ledger_erases_a_restored_database_again(tenant):
    ana = make_lead(tenant, **ANA)
    newer = make_lead(tenant, phone="+40744555666", email="maria@example.ro", name="Maria")
    admin = make_user(tenant, username="dpo", role="ADMIN")
    from django.test import TestCase

    with TestCase.captureOnCommitCallbacks(execute=True):
        first = erase_person(ana, by=admin, reason=REASON, via="api")
    (entry,) = list(erasure_ledger.entries())
    assert entry["lead_id"] == ana.pk and entry["tenant"] == tenant.slug
    assert set(entry["hashes"].values()) == {
        digest("phone", ANA["phone"]),
        digest("email", ANA["email"]),
    }
    assert "Vlădescu" not in json.dumps(entry) and "722111222" not in json.dumps(entry)

    # A restore from before the erasure: Ana is back, whole, and the hashes are gone.
    Lead.objects.filter(pk=ana.pk).update(erased_at=None, **ANA)
    Suppression.objects.filter(source="erasure").delete()
    Erasure.objects.all().delete()
    # An id the ledger names, held by somebody else (a newer lead): never erased by id alone.
    entry_for_maria = {**entry, "lead_id": newer.pk, "erasure_id": first.pk + 1}
    erasure_ledger._storage().save(
        "erasure-ledger/zz-maria.json", ContentFile(json.dumps(entry_for_maria).encode())
    )

    done = reapply()
    assert (done.read, done.erased_again, done.hashes_listed) == (2, 1, 2)
    ana.refresh_from_db()
    assert ana.erased_at is not None and ana.phone == "" and ana.name == "[erased]"
    again = Erasure.objects.get()
    assert (again.via, again.requested_by) == ("restore", admin)
    assert f"Erasure #{first.pk}" in again.reason
    newer.refresh_from_db()
    assert newer.erased_at is None and newer.phone == "+40744555666"
    assert reapply().erased_again == 0  # once is enough


def test_migrate_applies_the_ledger(tenant):
    """`migrate` after a restore erases again (the post_migrate hook)."""
    ana = make_lead(tenant, phone="+40722111222", email="")
    from django.test import TestCase

    with TestCase.captureOnCommitCallbacks(execute=True):
        erase_person(ana, by=make_user(tenant, role="ADMIN"), reason=REASON, via="command")
    Lead.objects.filter(pk=ana.pk).update(erased_at=None, phone="+40722111222")
    call_command("migrate", "outreach", verbosity=0)
    assert Lead.objects.get(pk=ana.pk).phone == ""


def test_the_list_shows_an_erased_person_as_a_hash_nobody_adds_or_takes_off(client, tenant):
    from rest_framework.test import APIClient

    from cerniq import api_keys
    from outreach import suppression_list

    ana = make_lead(tenant, phone="+40722111222", email="")
    admin = make_user(tenant, role="ADMIN")
    erase_person(ana, by=admin, reason=REASON, via="page")
    entry = Suppression.objects.get(source="erasure")
    client.force_login(admin)
    page = client.get("/outreach/settings/do-not-contact/").content.decode()
    assert f'data-suppression="{entry.pk}" data-kind="erased"' in page
    assert entry.digest[:12] in page and "+40722111222" not in page
    assert "An erased person: never taken off." in page
    assert "erased on request (erasure #" in page
    # Not in the CSV (the ledger keeps it), not addable by hand or over the API.
    assert entry.digest not in suppression_list.export_csv(tenant)
    with pytest.raises(suppression_list.EntryInvalid):
        suppression_list.add_entry(tenant, kind="erased", value=entry.digest, reason="x" * 20)
    _, key = api_keys.create_key(tenant, name="k", scope="write", user=admin)
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Api-Key {key}")
    answer = api.post(
        "/api/v1/suppressions/",
        {"kind": "erased", "value": entry.digest, "reason": "x"},
        format="json",
    )
    assert answer.status_code == 400 and "kind" in answer.json()["error"]["fields"]
    listed = api.get("/api/v1/suppressions/", {"kind": "erased"}).json()["results"]
    assert [(row["kind"], row["value"], row["removable"]) for row in listed] == [
        ("erased", entry.digest, False)
    ]
    assert (
        api.post(f"/api/v1/suppressions/{entry.pk}/remove/", {"reason": "x" * 20}).status_code
        == 409
    )
