"""A message's attachment is downloaded from the inbox thread and the lead page: the
workspace's own files only, always as a download under its own name."""

from __future__ import annotations

import pytest
from django.core.files.base import ContentFile

from outreach.models import Channel, MessageAttachment
from tests.factories import make_lead, make_message

pytestmark = pytest.mark.django_db

PDF = b"%PDF-1.4 oferta de pret\n%%EOF\n"


@pytest.fixture(autouse=True)
def media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path


def attached(tenant, filename="Ofertă preț 2026.pdf", content=PDF):
    lead = make_lead(tenant, name="Ferma Atașament")
    message = make_message(lead, channel=Channel.EMAIL_WARM, status="SENT", body="Vă trimit oferta")
    attachment = MessageAttachment(
        message=message, filename=filename, content_type="application/pdf", size=len(content)
    )
    attachment.file.save("oferta.pdf", ContentFile(content), save=True)
    return lead, attachment


def test_the_thread_and_the_lead_page_link_to_the_file_and_it_downloads(logged_in, tenant):
    lead, attachment = attached(tenant)
    url = f"/outreach/attachments/{attachment.pk}/"
    for page in (f"/outreach/inbox/{lead.pk}/", f"/outreach/leads/{lead.pk}/"):
        html = logged_in.get(page).content.decode()
        assert f'href="{url}" download>Ofertă preț 2026.pdf</a>' in html, page
    response = logged_in.get(url)
    assert response.status_code == 200
    assert b"".join(response.streaming_content) == PDF
    assert response["Content-Disposition"].startswith("attachment;")
    assert "filename*=utf-8''Ofert%C4%83%20pre%C8%9B%202026.pdf" in response["Content-Disposition"]
    assert response["X-Content-Type-Options"] == "nosniff"


def test_a_stored_page_is_never_shown_as_ours(logged_in, tenant):
    _, attachment = attached(tenant, filename="pagina.html", content=b"<script>alert(1)</script>")
    response = logged_in.get(f"/outreach/attachments/{attachment.pk}/")
    assert response["Content-Disposition"].startswith("attachment;")


def test_another_workspaces_file_is_not_found(logged_in, other_tenant):
    _, theirs = attached(other_tenant)
    assert logged_in.get(f"/outreach/attachments/{theirs.pk}/").status_code == 404


def test_signed_out_goes_to_the_login_page(client, tenant):
    _, attachment = attached(tenant)
    response = client.get(f"/outreach/attachments/{attachment.pk}/")
    assert response.status_code == 302 and "/login/" in response["Location"]


def test_a_file_gone_from_storage_is_a_404_not_an_error(logged_in, tenant):
    _, attachment = attached(tenant)
    attachment.file.storage.delete(attachment.file.name)
    assert logged_in.get(f"/outreach/attachments/{attachment.pk}/").status_code == 404
