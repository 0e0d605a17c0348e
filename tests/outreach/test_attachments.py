"""Files sent with an email (issue #11 §5): checked before they are stored (size, type, a
PDF that opens), kept with the message, handed to the email backend, shown in the
conversation; a refusal says which file and why, and stores nothing."""

from __future__ import annotations

import io

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from pypdf import PdfWriter

from cerniq.providers import get_backend
from outreach import attachments
from outreach.models import Channel, Lead, Message, MessageAttachment
from outreach.sending import send_message
from tests.factories import make_lead

pytestmark = pytest.mark.django_db


def pdf_bytes() -> bytes:
    writer = PdfWriter()
    writer.add_blank_page(width=595, height=842)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


@pytest.fixture(autouse=True)
def media(settings, tmp_path):
    settings.MEDIA_ROOT = str(tmp_path)
    settings.PROVIDERS = {
        **settings.PROVIDERS,
        "email.resend": {"BACKEND": "tests.fakes.FakeEmail"},
    }


@pytest.fixture
def lead(tenant):
    return make_lead(tenant, email="ion@agro.ro", email_status=Lead.EmailStatus.VALID)


@pytest.fixture
def logged_in(client, operator):
    client.force_login(operator)
    return client


def post(client, lead, *files):
    data = {"channel": "EMAIL_WARM", "subject": "Proforma", "text": "Vă trimit proforma."}
    data["attachments"] = list(files)
    return client.post(f"/outreach/leads/{lead.pk}/send/", data, follow=True)


def test_a_proforma_goes_with_the_email_and_shows_in_the_conversation(logged_in, lead):
    proforma = SimpleUploadedFile("Proforma 12.pdf", pdf_bytes(), "application/pdf")
    page = post(logged_in, lead, proforma).content.decode()
    assert "Email queued." in page and "Proforma 12.pdf" in page
    message = Message.objects.get(channel=Channel.EMAIL_WARM)
    (stored,) = message.attachments.all()
    assert (stored.filename, stored.content_type) == ("Proforma 12.pdf", "application/pdf")
    assert send_message(message.pk).kind == "sent"
    (email,) = get_backend("email.resend").emails
    (attached,) = email.attachments
    assert (attached.filename, attached.content) == ("Proforma 12.pdf", pdf_bytes())


@pytest.mark.parametrize(
    ("upload", "error"),
    [
        (
            SimpleUploadedFile("oferta.pdf", b"not a pdf at all", "application/pdf"),
            "is not a PDF that opens",
        ),
        (
            SimpleUploadedFile("virus.exe", b"MZ...", "application/octet-stream"),
            "send a PDF, a Word",
        ),
        (SimpleUploadedFile("gol.docx", b"", "application/msword"), "is empty"),
        (
            SimpleUploadedFile("mare.png", b"x" * (attachments.MAX_FILE_BYTES + 1), "image/png"),
            "is larger than 10 MB",
        ),
    ],
    ids=["broken-pdf", "exe", "empty", "too-large"],
)
def test_a_refused_file_is_named_and_nothing_is_stored(logged_in, lead, upload, error):
    page = post(logged_in, lead, upload).content.decode()
    assert error in page and upload.name in page
    assert not Message.objects.exists() and not MessageAttachment.objects.exists()
    assert "Vă trimit proforma.</textarea>" in page  # the typed text is kept


def test_files_cannot_go_by_whatsapp(logged_in, lead):
    data = {
        "channel": "WHATSAPP",
        "text": "Salut",
        "attachments": [SimpleUploadedFile("a.pdf", pdf_bytes())],
    }
    page = logged_in.post(f"/outreach/leads/{lead.pk}/send/", data, follow=True).content.decode()
    assert "Files can only be sent by email." in page
    assert not Message.objects.exists()
