"""WhatsApp media: the images and PDFs a tenant sends (a price list, a brochure), stored
once per tenant and uploaded to each provider account once. Loaded with the app's models
(outreach.models imports it); outreach.media checks and stores them.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from cerniq.models import Tenant


def _media_path(instance: MediaFile, filename: str) -> str:
    return f"media/{instance.tenant_id}/{instance.sha256[:2]}/{instance.sha256}/{filename}"


class MediaFile(models.Model):
    """One file of a tenant, by its content: the same bytes uploaded twice are one row."""

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="media_files")
    file = models.FileField(upload_to=_media_path, max_length=300)
    filename = models.CharField(max_length=200)
    content_type = models.CharField(max_length=100)
    size = models.PositiveIntegerField()
    sha256 = models.CharField(max_length=64)
    uploaded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        verbose_name = _("media file")
        constraints = [
            models.UniqueConstraint(fields=["tenant", "sha256"], name="mediafile_unique_content"),
        ]

    def __str__(self) -> str:
        return self.filename


class MediaUpload(models.Model):
    """A provider's id for a media file on one of its accounts (TimelinesAI's `file_uid`,
    the Cloud API's media id), so the bytes go up once; `expires_at` when the provider
    forgets it (the Cloud API keeps media 30 days)."""

    media = models.ForeignKey(MediaFile, on_delete=models.CASCADE, related_name="uploads")
    provider = models.CharField(max_length=32)
    account = models.CharField(max_length=64, blank=True)
    remote_id = models.CharField(max_length=255)
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["media", "provider", "account"], name="mediaupload_unique_account"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.provider}:{self.remote_id}"
