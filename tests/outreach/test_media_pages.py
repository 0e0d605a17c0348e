"""WhatsApp media on the pages (issue #24 §4): the template editor attaches one image or PDF
to a version (shown with its name and size, refused with the reason, removable), the inbox
composer and the lead page attach one to a WhatsApp message, and the lead's timeline and
the inbox thread show a message's file (an image as a thumbnail, a PDF as a link with its
name and size). The API's part: tests/api/test_template_media.py."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest
import time_machine
from django.core.files.uploadedfile import SimpleUploadedFile

from outreach import media
from outreach.models import Channel, Lead, MediaFile, Message, Template, TemplateVersion
from tests.factories import make_lead, make_message, make_phone, make_template
from tests.outreach.test_pages_sequences import template_post

pytestmark = pytest.mark.django_db

OPEN = datetime(2026, 11, 24, 10, 0, tzinfo=ZoneInfo("Europe/Bucharest"))
HTMX = {"HTTP_HX_REQUEST": "true"}
EN = {"HTTP_ACCEPT_LANGUAGE": "en"}
PDF = b"%PDF-1.7\n% oferta\n%%EOF\n"
PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + b"\x00" * 32
HTML = b"<html><script>alert(1)</script></html>"


@pytest.fixture(autouse=True)
def open_window_and_media(settings, tmp_path):
    settings.MEDIA_ROOT = str(tmp_path)
    with time_machine.travel(OPEN, tick=False):
        yield


@pytest.fixture
def logged_in(client, operator):
    client.force_login(operator)
    return client


@pytest.fixture
def lead(tenant):
    make_phone(tenant)
    return make_lead(
        tenant, name="Ferma Știubei SRL", email="stefan@ferma.ro", phone="+40722333444"
    )


def png(name: str = "parcela.png") -> SimpleUploadedFile:
    return SimpleUploadedFile(name, PNG, "image/png")


def pdf(name: str = "Ofertă toamnă.pdf") -> SimpleUploadedFile:
    return SimpleUploadedFile(name, PDF, "application/pdf")


# --- the template editor -------------------------------------------------------------------


def test_a_version_gets_an_image_shown_with_its_name_and_size(logged_in, tenant):
    data = template_post("Cu poză", [{"body": "Salut {{company_name}}", "weight": "100"}])
    data["versions-0-media"] = png()
    response = logged_in.post("/outreach/templates/new/", data, **EN)
    assert response.status_code == 302, response.content.decode()
    version = TemplateVersion.objects.get(template__name="Cu poză")
    assert version.media.filename == "parcela.png" and version.media.tenant_id == tenant.pk
    page = logged_in.get(f"/outreach/templates/{version.template_id}/", **EN).content.decode()
    url = f"/outreach/media/{version.media_id}/"
    assert f'<img class="media-thumb" src="{url}" alt="parcela.png">' in page
    assert f"parcela.png <small>({len(PNG)}" in page
    assert 'name="versions-0-media_remove"' in page
    assert 'enctype="multipart/form-data"' in page


def test_a_pdf_replaces_it_and_remove_takes_it_off(logged_in, tenant):
    template = make_template(tenant, name="Oferta")
    version = template.versions.get()
    data = template_post(
        "Oferta", [{"id": str(version.pk), "body": version.body, "weight": "100"}], initial=1
    )
    data["versions-0-media"] = pdf()
    assert logged_in.post(f"/outreach/templates/{template.pk}/", data, **EN).status_code == 302
    version.refresh_from_db()
    assert version.media.content_type == "application/pdf"
    page = logged_in.get(f"/outreach/templates/{template.pk}/", **EN).content.decode()
    url = f"/outreach/media/{version.media_id}/"
    assert f'▤ <a href="{url}" download>Ofertă toamnă.pdf</a>' in page
    # Saved again without a file: kept. With "Remove": gone (unsent, so in place).
    del data["versions-0-media"]
    assert logged_in.post(f"/outreach/templates/{template.pk}/", data, **EN).status_code == 302
    version.refresh_from_db()
    assert version.media_id is not None
    data["versions-0-media_remove"] = "1"
    assert logged_in.post(f"/outreach/templates/{template.pk}/", data, **EN).status_code == 302
    version.refresh_from_db()
    assert version.media_id is None and template.versions.count() == 1


def test_a_file_that_is_no_image_or_pdf_is_refused_with_the_reason(logged_in, tenant):
    data = template_post("Fals", [{"body": "Salut {{company_name}}", "weight": "100"}])
    data["versions-0-media"] = SimpleUploadedFile("poza.png", HTML, "image/png")
    response = logged_in.post("/outreach/templates/new/", data, **EN)
    assert response.status_code == 200
    assert "poza.png is not a JPEG, PNG or PDF file" in response.content.decode()
    assert not Template.objects.filter(name="Fals").exists()
    assert not MediaFile.objects.exists()


def test_an_email_template_takes_no_image(logged_in, tenant):
    data = template_post("Email", [{"body": "Salut {{company_name}}", "weight": "100"}])
    data["channel"] = Channel.EMAIL_WARM
    data["versions-0-subject"] = "Oferta"
    data["versions-0-media"] = png()
    response = logged_in.post("/outreach/templates/new/", data, **EN)
    assert response.status_code == 200
    assert "An image or PDF goes with a WhatsApp template only." in response.content.decode()
    assert not Template.objects.filter(name="Email").exists()


# --- the composer and the lead page ----------------------------------------------------------


def test_the_composer_sends_a_pdf_with_a_whatsapp_message_and_the_thread_shows_it(logged_in, lead):
    page = logged_in.get(f"/outreach/inbox/{lead.pk}/").content.decode()
    assert 'name="media"' in page and "data-whatsapp-only" in page
    response = logged_in.post(
        f"/outreach/inbox/{lead.pk}/send/",
        {"channel": "WHATSAPP", "text": "Vă trimit oferta.", "media": pdf()},
        **HTMX,
    )
    assert response["HX-Trigger"] == "cerniq:sent"
    message = Message.objects.get(lead=lead)
    assert message.channel == Channel.WHATSAPP and message.body == "Vă trimit oferta."
    assert message.media.filename == "Ofertă toamnă.pdf"
    assert media.read(message.media) == PDF
    url = f"/outreach/media/{message.media_id}/"
    expected = f'▤ <a href="{url}" download>Ofertă toamnă.pdf</a> <small>({len(PDF)}'
    for page_url in (f"/outreach/inbox/{lead.pk}/", f"/outreach/leads/{lead.pk}/"):
        assert expected in logged_in.get(page_url).content.decode(), page_url


def test_the_composer_refuses_a_file_that_is_not_an_image_or_pdf(logged_in, lead):
    response = logged_in.post(
        f"/outreach/inbox/{lead.pk}/send/",
        {
            "channel": "WHATSAPP",
            "text": "Poza",
            "media": SimpleUploadedFile("poza.jpg", HTML, "image/jpeg"),
        },
        **HTMX,
    )
    body = response.content.decode()
    assert "poza.jpg is not a JPEG, PNG or PDF file" in body
    assert "Nothing was sent: choose the files again." in body
    assert not Message.objects.filter(lead=lead).exists()


def test_the_lead_page_sends_an_image_and_its_timeline_shows_a_thumbnail(logged_in, lead):
    response = logged_in.post(
        f"/outreach/leads/{lead.pk}/send/",
        {"channel": "WHATSAPP", "text": "Parcela de care vorbeam.", "media": png()},
        follow=True,
    )
    assert response.status_code == 200
    message = Message.objects.get(lead=lead)
    url = f"/outreach/media/{message.media_id}/"
    page = response.content.decode()
    assert f'<a href="{url}" target="_blank" rel="noopener"><img class="media-thumb"' in page
    assert 'data-media="image"' in page
    thread = logged_in.get(f"/outreach/inbox/{lead.pk}/").content.decode()
    assert f'<img class="media-thumb" src="{url}" alt="parcela.png"' in thread


def test_a_templates_file_shows_on_the_message_it_went_with(logged_in, tenant, lead):
    stored = media.store(tenant.pk, pdf("Lista.pdf"))
    make_message(lead, status="SENT", media=stored, body="Lista de prețuri")
    page = logged_in.get(f"/outreach/leads/{lead.pk}/").content.decode()
    assert f'<a href="/outreach/media/{stored.pk}/" download>Lista.pdf</a>' in page


def test_a_lead_without_a_phone_gets_no_file_field(logged_in, tenant):
    lead = make_lead(tenant, phone="", email="x@ferma.ro", email_status=Lead.EmailStatus.VALID)
    page = logged_in.get(f"/outreach/leads/{lead.pk}/").content.decode()
    assert "Image or PDF with the WhatsApp message" not in page
