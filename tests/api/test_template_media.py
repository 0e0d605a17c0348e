"""The API shows a template version's WhatsApp file (issue #24 §4): `media` with its id and
file name, null for a version without one; read-only (files are set on the pages)."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from outreach import media
from tests.factories import make_template

pytestmark = pytest.mark.django_db

PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + b"\x00" * 32


@pytest.fixture(autouse=True)
def media_root(settings, tmp_path):
    settings.MEDIA_ROOT = str(tmp_path)


def test_the_api_shows_a_versions_file(api, tenant):
    template = make_template(tenant)
    version = template.versions.get()
    version.media = media.store(tenant.pk, SimpleUploadedFile("parcela.png", PNG, "image/png"))
    version.save(update_fields=["media"])
    other = make_template(tenant).versions.get()  # a version without one
    found = api.get("/api/v1/templates/").json()["results"]
    shown = {v["id"]: v["media"] for t in found for v in t["versions"]}
    assert shown[version.pk] == {"id": version.media_id, "filename": "parcela.png"}
    assert shown[other.pk] is None


def test_media_cannot_be_written_through_a_version(api, tenant):
    template = make_template(tenant)
    posted = api.post(
        f"/api/v1/templates/{template.pk}/versions/",
        {"body": "Salut {{company_name}}", "media": {"id": 1, "filename": "x.png"}},
        format="json",
    )
    assert posted.status_code in (201, 400)
    assert template.versions.exclude(media=None).count() == 0
