"""Brochure drafts on the pages and in the send path: the upload page and the job's page
(progress, failure with its reason, the drafts), approval on the template page, drafts
never picked by dispatch (nor shown as active by the API) before a person approves them,
and one workspace never sees another's brochure or drafts."""

from __future__ import annotations

from datetime import timedelta

import pytest
import time_machine
from django.core.files.base import ContentFile
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import IntegrityError, transaction

from cerniq import api_keys, reasons
from cerniq.models import TenantAPIKey
from outreach import pacing
from outreach import reasons as codes
from outreach.brochures import jobs
from outreach.brochures import reasons as why
from outreach.brochures.reading import MAX_UPLOAD_BYTES
from outreach.dispatch import dispatch_due
from outreach.models import Brochure, Enrollment, Journey, Message, SequenceStep, TemplateVersion
from outreach.template_versions import VersionSpec, approve, save_versions
from tests.api.conftest import key_client
from tests.factories import make_outreach_world, make_tenant, make_user
from tests.outreach.brochures.pdfs import brochure_pdf, encrypted_pdf, scanned_pdf
from tests.outreach.brochures.setup import drafted, drafts_of, templates_of

pytestmark = pytest.mark.django_db

UPLOAD = "/outreach/templates/brochures/"


@pytest.fixture
def logged_in(client, operator):
    client.force_login(operator)
    return client


def pdf_upload(content: bytes, name: str = "catalog-toamna.pdf") -> SimpleUploadedFile:
    return SimpleUploadedFile(name, content, content_type="application/pdf")


# --- upload and the job's page ----------------------------------------------------------------


def test_an_upload_is_stored_queued_and_followed_until_its_drafts_show(
    logged_in, tenant, operator, offline, sent, media, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        response = logged_in.post(UPLOAD, {"file": pdf_upload(brochure_pdf())})

    brochure = Brochure.objects.get()
    assert response.status_code == 302
    assert response["Location"] == f"{UPLOAD}{brochure.pk}/"
    assert sent == [brochure.pk]  # the worker reads it, not the request
    assert (brochure.tenant, brochure.created_by, brochure.status) == (tenant, operator, "queued")
    assert brochure.file.name.startswith(f"brochures/{tenant.pk}/")
    assert (media / brochure.file.name).read_bytes() == brochure_pdf()
    assert templates_of(tenant) == []

    page = logged_in.get(response["Location"]).content.decode()
    assert 'data-brochure-status="queued"' in page and "Waiting for a worker" in page
    assert f'hx-get="{UPLOAD}{brochure.pk}/status/"' in page  # it keeps polling

    jobs.run(brochure.pk)

    status = logged_in.get(f"{UPLOAD}{brochure.pk}/status/").content.decode()
    assert 'data-brochure-status="done"' in status and "hx-get" not in status
    assert "data-automatic-draft" in status
    assert "no AI model is configured" in status
    assert status.count("data-draft=") == 4
    assert status.count("draft, not sent until approved") == 4
    assert "Azotat de amoniu 34,4% N" in status  # what was read, shown
    assert "None: no AI model was asked." in status
    assert "A/B split by its weight" in status
    listing = logged_in.get(UPLOAD).content.decode()
    assert f'data-brochure="{brochure.pk}"' in listing and "Automatic draft (our rules)" in listing
    assert logged_in.get(f"{UPLOAD}{brochure.pk}/file/").getvalue() == brochure_pdf()


@pytest.mark.parametrize(
    ("name", "content", "said"),
    [
        ("oferta.pdf", b"", "The file is empty."),
        ("lista.xlsx", b"PK\x03\x04 a spreadsheet", "lista.xlsx: This is not a PDF"),
        ("oferta.pdf", encrypted_pdf(), "oferta.pdf: The PDF is protected by a password"),
        ("scan.pdf", scanned_pdf(), "scan.pdf: The PDF has no text to read"),
        ("mare.pdf", b"%PDF-1.4\n" + b"0" * MAX_UPLOAD_BYTES, "mare.pdf: The file is larger"),
    ],
    ids=["empty", "not-pdf", "password", "scan", "too-big"],
)
def test_a_bad_upload_is_a_form_error_on_the_file_and_nothing_is_stored(
    logged_in, media, sent, name, content, said
):
    response = logged_in.post(UPLOAD, {"file": pdf_upload(content, name)})

    assert response.status_code == 200
    errors = response.context["form"].errors
    assert list(errors) == ["file"] and said in " ".join(errors["file"])
    assert 'data-errors="file"' in response.content.decode()
    assert not Brochure.objects.exists() and sent == []
    assert not (media / "brochures").exists()


def test_a_job_that_fails_says_why_and_can_run_again(logged_in, tenant, offline, sent):
    brochure = Brochure(tenant=tenant, file_name="scan.pdf", size=10)
    brochure.file.save("scan.pdf", ContentFile(scanned_pdf()))

    failed = jobs.run(brochure.pk)

    assert failed is not None and failed.status == Brochure.Status.FAILED
    assert reasons.parse(failed.error) == (why.NO_TEXT, {})
    page = logged_in.get(f"{UPLOAD}{brochure.pk}/").content.decode()
    assert "data-brochure-error" in page and "The PDF has no text to read" in page
    assert "Try again" in page and "hx-get" not in page

    response = logged_in.post(f"{UPLOAD}{brochure.pk}/retry/")
    assert response.status_code == 302
    assert Brochure.objects.get().status == Brochure.Status.QUEUED
    assert jobs.run(brochure.pk) is not None  # queued again: a worker takes it


def test_a_job_whose_worker_was_lost_can_be_queued_again_not_one_still_running(
    logged_in, tenant, at_a_fixed_moment, sent
):
    brochure = jobs.start(tenant, file_name="catalog.pdf", content=brochure_pdf())
    assert jobs.retry(brochure) is False  # queued just now: a worker will take it
    assert "data-brochure-stale" not in logged_in.get(f"{UPLOAD}{brochure.pk}/").content.decode()

    with time_machine.travel(at_a_fixed_moment + timedelta(minutes=20), tick=False):
        page = logged_in.get(f"{UPLOAD}{brochure.pk}/").content.decode()
        assert "data-brochure-stale" in page and "the worker may have stopped" in page
        assert logged_in.post(f"{UPLOAD}{brochure.pk}/retry/").status_code == 302
    assert Brochure.objects.get().status == Brochure.Status.QUEUED
    assert jobs.run(brochure.pk) is not None


def test_a_stored_file_gone_missing_fails_the_job(tenant, offline, media):
    brochure = jobs.start(tenant, file_name="catalog.pdf", content=brochure_pdf())
    (media / brochure.file.name).unlink()
    failed = jobs.run(brochure.pk)
    assert failed is not None and reasons.parse(failed.error) == (why.MISSING_FILE, {})
    assert jobs.run(brochure.pk) is None  # a finished job is not run again by a duplicate


# --- approval ---------------------------------------------------------------------------------


def version_form(version: TemplateVersion, **changes: object) -> dict:
    template = version.template
    data = {
        "name": template.name,
        "channel": template.channel,
        "language": template.language,
        "is_active": "on",
        "versions-TOTAL_FORMS": "1",
        "versions-INITIAL_FORMS": "1",
        "versions-MIN_NUM_FORMS": "1",
        "versions-MAX_NUM_FORMS": "50",
        "versions-0-id": str(version.pk),
        "versions-0-subject": version.subject,
        "versions-0-body": version.body,
        "versions-0-weight": "100",
    }
    data.update({f"versions-0-{k}": v for k, v in changes.items()})
    return data


def test_a_person_edits_a_draft_then_approves_it_on_the_template_page(logged_in, tenant, offline):
    first = drafts_of(drafted(tenant))["whatsapp_first"]
    url = f"/outreach/templates/{first.template_id}/"

    page = logged_in.get(url).content.decode()
    assert f'data-draft-version="{first.pk}"' in page and "Automatic draft" in page
    assert f'name="approve" value="{first.pk}"' in page
    # Enter in a field submits the form's first button: a plain save, never the approval.
    assert page.index("data-default-submit") < page.index('name="approve"')
    assert "sent in this template's A/B split by its weight" in page

    edited = first.body.replace("Dacă nu doriți", "Dacă nu mai doriți")
    saved = logged_in.post(url, version_form(first, body=edited, is_active="on"))
    assert saved.status_code == 302
    first.refresh_from_db()
    assert (first.draft, first.is_active, first.body) == (True, False, edited)  # saved, not on

    approved = logged_in.post(url, {**version_form(first), "approve": str(first.pk)}, follow=True)
    first.refresh_from_db()
    assert (first.draft, first.is_active, first.version) == (False, True, 1)
    assert "v1 approved: it is an ordinary version now" in approved.content.decode()
    assert TemplateVersion.objects.get(pk=first.pk).brochure_id is not None  # still traced


def test_a_draft_with_a_broken_edit_is_not_approved(logged_in, tenant, offline):
    first = drafts_of(drafted(tenant))["whatsapp_first"]
    url = f"/outreach/templates/{first.template_id}/"
    response = logged_in.post(
        url, {**version_form(first, body="{Bună ziua|Salut"), "approve": str(first.pk)}
    )
    assert response.status_code == 200 and "unclosed" in response.content.decode()
    first.refresh_from_db()
    assert first.draft and not first.is_active


# --- never picked before approval -------------------------------------------------------------


def test_dispatch_never_picks_a_draft_before_approval_and_does_after(tenant, offline, monkeypatch):
    monkeypatch.setattr(pacing, "_enqueue_run", lambda phone_id, at: None)
    first = drafts_of(drafted(tenant))["whatsapp_first"]
    world = make_outreach_world(tenant, leads=3, steps=1)
    SequenceStep.objects.filter(sequence=world["sequence"]).update(template=first.template)

    before = dispatch_due(tenant)

    assert not Message.objects.exists()
    assert before.skipped[codes.TEMPLATE_INACTIVE] == 3
    assert set(Enrollment.objects.values_list("stalled_reason", flat=True)) == {
        codes.TEMPLATE_INACTIVE
    }

    approve(first)
    assert not Journey.objects.filter(tenant=tenant, next_action_at__isnull=True).exists()
    after = dispatch_due(tenant)

    assert after.dispatched == {"WHATSAPP": 3}
    queued = Message.objects.all()
    assert {m.template_version_id for m in queued} == {first.pk}
    assert all("Agro Demo" in m.body and "{" not in m.body for m in queued)


def test_a_draft_beside_an_active_version_is_never_chosen(tenant, offline, monkeypatch):
    monkeypatch.setattr(pacing, "_enqueue_run", lambda phone_id, at: None)
    world = make_outreach_world(tenant, leads=12, steps=1)
    template = world["sequence"].steps.get().template
    active = template.versions.get()
    TemplateVersion.objects.create(
        tenant=tenant, template=template, version=2, body="Draft {{company_name}}", weight=1000,
        is_active=False, draft=True,
    )  # fmt: skip

    dispatch_due(tenant)

    assert Message.objects.count() == 12
    assert set(Message.objects.values_list("template_version_id", flat=True)) == {active.pk}


def test_a_draft_cannot_be_switched_on_except_by_approval(tenant, offline):
    first = drafts_of(drafted(tenant))["whatsapp_first"]
    with pytest.raises(IntegrityError), transaction.atomic():
        TemplateVersion.objects.filter(pk=first.pk).update(is_active=True)
    save_versions(first.template, [VersionSpec(id=first.pk, body=first.body, is_active=True)])
    first.refresh_from_db()
    assert first.draft and not first.is_active


def test_the_api_shows_a_draft_as_a_draft(tenant, offline):
    first = drafts_of(drafted(tenant))["whatsapp_first"]
    _, key = api_keys.create_key(
        tenant, name="crm", scope=TenantAPIKey.Scope.READ, user=make_user(tenant, role="ADMIN")
    )
    shown = key_client(key).get(f"/api/v1/templates/{first.template_id}/").json()
    assert [(v["draft"], v["is_active"]) for v in shown["versions"]] == [(True, False)]
    approve(first)
    shown = key_client(key).get(f"/api/v1/templates/{first.template_id}/").json()
    assert [(v["draft"], v["is_active"]) for v in shown["versions"]] == [(False, True)]


# --- tenant isolation -------------------------------------------------------------------------


def test_another_workspace_sees_nothing_of_a_brochure_or_its_drafts(client, tenant, offline):
    brochure = drafted(tenant)
    first = drafts_of(brochure)["whatsapp_first"]
    other = make_tenant(name="Alt Agro SRL")
    client.force_login(make_user(other))

    for path in ("", "status/", "file/"):
        assert client.get(f"{UPLOAD}{brochure.pk}/{path}").status_code == 404, path
    assert client.post(f"{UPLOAD}{brochure.pk}/retry/").status_code == 404
    assert f'data-brochure="{brochure.pk}"' not in client.get(UPLOAD).content.decode()
    url = f"/outreach/templates/{first.template_id}/"
    assert client.post(url, {**version_form(first), "approve": str(first.pk)}).status_code == 404
    first.refresh_from_db()
    assert first.draft
    assert templates_of(other) == []

    # Its own brochure of the same name drafts into its own workspace, with the same names.
    mine = drafted(other)
    assert {v.tenant_id for v in mine.versions.all()} == {other.pk}
    assert mine.file.name.startswith(f"brochures/{other.pk}/")
    assert sorted(templates_of(other)) == sorted(templates_of(tenant))


def test_a_second_upload_of_a_brochure_gets_names_of_its_own(tenant, offline):
    drafted(tenant)
    second = drafts_of(drafted(tenant))
    assert second["whatsapp_first"].template.name.endswith("WhatsApp, first message (2)")
    assert len(templates_of(tenant)) == 8
