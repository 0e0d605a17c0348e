"""WhatsApp media (issue #24 §4): a file is judged by its bytes (JPEG, PNG, PDF), within the
providers' sizes, stored once per tenant (locally and in S3-compatible storage), served to
its own workspace only, uploaded once per provider account (again when the Cloud API's id
expires), and a version's file counts as part of its message."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.core.files.uploadedfile import SimpleUploadedFile

from cerniq.provider_errors import ProviderUnavailable
from outreach import media
from outreach.models import MediaFile, MediaUpload, TemplateVersion
from outreach.template_versions import KEEP_MEDIA, VersionSpec, save_versions
from tests.cerniq.test_backups import BUCKET, S3_KEYS, s3_client, s3_endpoint  # noqa: F401
from tests.factories import make_lead, make_message, make_template, make_user
from whatsapp.backends import WhatsAppBackend

pytestmark = pytest.mark.django_db

JPEG = b"\xff\xd8\xff\xe0\x00\x10JFIF\x00" + b"\x00" * 64
PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + b"\x00" * 64
PDF = b"%PDF-1.7\n% lista de preturi\n%%EOF\n"
NOW = datetime(2026, 11, 23, 8, 0, tzinfo=UTC)


@pytest.fixture(autouse=True)
def media_root(settings, tmp_path):
    settings.MEDIA_ROOT = str(tmp_path)


def upload(content: bytes, name: str, content_type: str = "application/octet-stream"):
    return SimpleUploadedFile(name, content, content_type)


# --- checked by the bytes ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "name", "content_type", "kind", "filename"),
    [
        (JPEG, "poza ferma.jpg", "image/jpeg", "image", "poza ferma.jpg"),
        (PNG, "harta.png", "image/png", "image", "harta.png"),
        (PDF, "Lista prețuri.pdf", "application/pdf", "document", "Lista prețuri.pdf"),
        # The name (and the browser's type, text/html here) say nothing: the bytes decide,
        # and the name gets the type's extension.
        (PNG, "oferta.pdf", "image/png", "image", "oferta.pdf.png"),
        (PDF, "brosura", "application/pdf", "document", "brosura.pdf"),
    ],
)
def test_the_type_is_judged_by_the_first_bytes(content, name, content_type, kind, filename):
    checked = media.check(upload(content, name, "text/html"))
    assert checked.kind.content_type == content_type
    assert checked.kind.kind == kind
    assert checked.filename == filename
    assert checked.size == len(content)


@pytest.mark.parametrize(
    "content",
    [b"<html><script>alert(1)</script></html>", b"GIF89a....", b"PK\x03\x04 docx", b" %PDF-1.4"],
)
def test_anything_else_is_refused_whatever_its_name(content):
    with pytest.raises(media.MediaRefused) as refused:
        media.check(upload(content, "poza.jpg", "image/jpeg"))
    assert str(refused.value) == (
        "poza.jpg is not a JPEG, PNG or PDF file (judged by its content, not its name)."
    )


def test_an_empty_file_is_refused():
    with pytest.raises(media.MediaRefused, match="gol.pdf is empty"):
        media.check(upload(b"", "gol.pdf"))


def test_images_up_to_5_mb_and_pdfs_up_to_100_mb():
    big_png = upload(PNG + b"\x00" * (5 * media.MB), "mare.png")
    with pytest.raises(media.MediaRefused) as refused:
        media.check(big_png)
    assert str(refused.value).startswith("PNG larger than 5 MB (mare.png is 5.0")
    assert media.check(upload(JPEG + b"\x00" * (5 * media.MB - len(JPEG)), "exact.jpg"))
    six_mb_pdf = upload(PDF + b"\x00" * (6 * media.MB), "catalog.pdf")
    assert media.check(six_mb_pdf).kind.label == "PDF"
    huge = upload(PDF, "uriaș.pdf")
    huge.size = 100 * media.MB + 1  # as Django's upload handlers measured it
    with pytest.raises(media.MediaRefused, match="PDF larger than 100 MB"):
        media.check(huge)


# --- stored once per tenant ----------------------------------------------------------------


def test_the_same_bytes_are_one_row_per_tenant(tenant, other_tenant):
    user = make_user(tenant)
    first = media.store(tenant.pk, upload(PDF, "lista.pdf"), user=user)
    again = media.store(tenant.pk, upload(PDF, "alt nume.pdf"))
    theirs = media.store(other_tenant.pk, upload(PDF, "lista.pdf"))
    assert again.pk == first.pk and again.filename == "lista.pdf"
    assert theirs.pk != first.pk and theirs.tenant_id == other_tenant.pk
    assert MediaFile.objects.filter(tenant=tenant).count() == 1
    assert first.uploaded_by == user and first.size == len(PDF)
    assert first.content_type == "application/pdf"
    assert first.file.name.startswith(f"media/{tenant.pk}/{first.sha256[:2]}/{first.sha256}/")
    assert media.read(first) == PDF


def test_a_store_racing_another_keeps_the_first_row_and_its_file(tenant, monkeypatch):
    """Two uploads of the same bytes at once: the second's insert meets the constraint and
    it answers with the first's row; its own copy of the file is removed, not the first's."""
    first = media.store(tenant.pk, upload(PNG, "harta.png"))
    real = MediaFile.objects.filter

    class Missing:
        def first(self):
            return None  # as if the first insert had not committed when this one looked

    def filter_once(*args, **kwargs):
        monkeypatch.setattr(MediaFile.objects, "filter", real)
        return Missing()

    monkeypatch.setattr(MediaFile.objects, "filter", filter_once)
    raced = media.store(tenant.pk, upload(PNG, "harta.png"))
    assert raced.pk == first.pk
    assert default_storage.exists(first.file.name)
    folder = first.file.name.rsplit("/", 1)[0]
    assert default_storage.listdir(folder)[1] == ["harta.png"]


def test_files_go_to_the_default_storage_also_in_s3(tenant, settings, s3_endpoint):  # noqa: F811
    settings.STORAGES = {
        **settings.STORAGES,
        "default": {
            "BACKEND": "storages.backends.s3.S3Storage",
            "OPTIONS": {
                "bucket_name": BUCKET,
                "endpoint_url": s3_endpoint,
                "region_name": "us-east-1",
                "access_key": S3_KEYS["BACKUP_S3_ACCESS_KEY_ID"],
                "secret_key": S3_KEYS["BACKUP_S3_SECRET_ACCESS_KEY"],
                "default_acl": None,
                "file_overwrite": False,
            },
        },
    }
    stored = media.store(tenant.pk, upload(JPEG, "poza.jpg"))
    assert media.store(tenant.pk, upload(JPEG, "poza.jpg")).pk == stored.pk
    keys = [o["Key"] for o in s3_client(s3_endpoint).list_objects_v2(Bucket=BUCKET)["Contents"]]
    assert keys == [stored.file.name]
    assert media.read(MediaFile.objects.get(pk=stored.pk)) == JPEG


# --- served to its own workspace -----------------------------------------------------------


@pytest.fixture
def logged_in(client, operator):
    client.force_login(operator)
    return client


def test_an_image_is_shown_a_pdf_downloaded_another_workspaces_is_a_404(
    logged_in, tenant, other_tenant
):
    image = media.store(tenant.pk, upload(PNG, "harta.png"))
    pdf = media.store(tenant.pk, upload(PDF, "lista.pdf"))
    theirs = media.store(other_tenant.pk, upload(JPEG, "a lor.jpg"))
    shown = logged_in.get(f"/outreach/media/{image.pk}/")
    assert shown.status_code == 200 and shown["Content-Type"] == "image/png"
    assert shown["Content-Disposition"].startswith("inline")
    assert shown["X-Content-Type-Options"] == "nosniff"
    assert b"".join(shown.streaming_content) == PNG
    downloaded = logged_in.get(f"/outreach/media/{pdf.pk}/")
    assert downloaded["Content-Disposition"].startswith("attachment")
    assert 'filename="lista.pdf"' in downloaded["Content-Disposition"]
    assert logged_in.get(f"/outreach/media/{theirs.pk}/").status_code == 404
    assert logged_in.get("/outreach/media/999999/").status_code == 404


def test_a_file_gone_from_storage_is_a_404(logged_in, tenant):
    image = media.store(tenant.pk, upload(PNG, "harta.png"))
    default_storage.delete(image.file.name)
    assert logged_in.get(f"/outreach/media/{image.pk}/").status_code == 404


def test_signed_out_nobody_gets_a_file(client, tenant):
    image = media.store(tenant.pk, upload(PNG, "harta.png"))
    assert client.get(f"/outreach/media/{image.pk}/").status_code == 302


# --- uploaded once per provider account ----------------------------------------------------


class Uploads(WhatsAppBackend):
    """A backend that counts its uploads (the provider packages' own tests fake HTTP)."""

    media_lifetime = timedelta(days=30)

    def __init__(self, fail: Exception | None = None) -> None:
        self.calls: list[tuple[str, bytes, str, str]] = []
        self.fail = fail
        self.during = lambda: None

    def upload_media(self, *, account_id, content, filename, content_type):
        self.calls.append((account_id, content, filename, content_type))
        self.during()
        if self.fail:
            raise self.fail
        return f"remote-{len(self.calls)}"

    send_to_phone = send_to_chat = find_chat = find_sent = list_accounts = account_status = None


def test_a_file_is_uploaded_once_per_account_and_again_after_it_expires(tenant):
    stored = media.store(tenant.pk, upload(PDF, "lista.pdf"))
    backend = Uploads()
    ids = [
        media.provider_id(stored, backend, provider="meta", account="111", now=NOW),
        media.provider_id(stored, backend, provider="meta", account="111", now=NOW),
        media.provider_id(stored, backend, provider="meta", account="222", now=NOW),
    ]
    assert ids == ["remote-1", "remote-1", "remote-2"]
    assert backend.calls[0] == ("111", PDF, "lista.pdf", "application/pdf")
    row = MediaUpload.objects.get(account="111")
    assert row.expires_at == NOW + timedelta(days=30)
    # A day before Meta forgets it, it goes up again.
    later = NOW + timedelta(days=29, hours=1)
    assert media.provider_id(stored, backend, provider="meta", account="111", now=later) == (
        "remote-3"
    )
    row.refresh_from_db()
    assert row.remote_id == "remote-3" and row.expires_at == later + timedelta(days=30)
    assert MediaUpload.objects.count() == 2


def test_two_sends_uploading_at_once_keep_one_id(tenant):
    stored = media.store(tenant.pk, upload(PNG, "harta.png"))
    backend = Uploads()

    def other_send_finishes_first():
        MediaUpload.objects.create(
            media=stored, provider="timelinesai", account="acc", remote_id="the-first"
        )

    backend.during = other_send_finishes_first
    found = media.provider_id(stored, backend, provider="timelinesai", account="acc", now=NOW)
    assert found == "the-first"
    assert MediaUpload.objects.get().remote_id == "the-first"


def test_a_failed_upload_is_a_provider_error_never_uncertain(tenant):
    stored = media.store(tenant.pk, upload(PNG, "harta.png"))
    backend = Uploads(fail=ProviderUnavailable("502 gateway", status_code=502, uncertain=True))
    with pytest.raises(ProviderUnavailable) as failed:
        media.provider_id(stored, backend, provider="meta", account="111", now=NOW)
    assert failed.value.uncertain is False
    assert not MediaUpload.objects.exists()


# --- a version's file is part of its message -----------------------------------------------


def test_a_sent_versions_file_changed_or_removed_makes_a_new_version(tenant):
    template = make_template(tenant)
    v1 = template.versions.get()
    brochure = media.store(tenant.pk, upload(PDF, "brosura.pdf"))
    save_versions(template, [VersionSpec(body=v1.body, id=v1.pk, media_id=brochure.pk)])
    v1.refresh_from_db()
    assert v1.media_id == brochure.pk and template.versions.count() == 1  # unsent: in place
    make_message(make_lead(tenant), template_version=v1, status="SENT", media=brochure)
    # Text edited, file kept: the new version carries the file on.
    edited = save_versions(template, [VersionSpec(body="Alt text {{company_name}}", id=v1.pk)])
    assert edited[0].pk != v1.pk and edited[0].media_id == brochure.pk
    make_message(make_lead(tenant), template_version=edited[0], status="SENT", media=brochure)
    removed = save_versions(
        template, [VersionSpec(body=edited[0].body, id=edited[0].pk, media_id=None)]
    )
    assert removed[0].pk != edited[0].pk and removed[0].media_id is None
    kept = save_versions(
        template, [VersionSpec(body=removed[0].body, id=removed[0].pk, media_id=KEEP_MEDIA)]
    )
    assert kept[0].pk == removed[0].pk
    assert list(TemplateVersion.objects.filter(template=template).values_list("is_active")) == [
        (False,),
        (False,),
        (True,),
    ]


def test_another_workspaces_file_cannot_go_on_a_version(tenant, other_tenant):
    template = make_template(tenant)
    v1 = template.versions.get()
    theirs = media.store(other_tenant.pk, ContentFile(PNG, name="a lor.png"))
    with pytest.raises(ValueError, match="own workspace"):
        save_versions(template, [VersionSpec(body=v1.body, id=v1.pk, media_id=theirs.pk)])
    v1.refresh_from_db()
    assert v1.media_id is None
