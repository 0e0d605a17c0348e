"""Admin for WhatsApp media (imported by outreach.admin): read-only. Files are added on the
template editor and the composer (outreach.media checks them); provider ids are written by
the send path (outreach.media.provider_id)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from outreach.models import MediaFile, MediaUpload


class _ReadOnly(admin.ModelAdmin):
    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(MediaFile)
class MediaFileAdmin(_ReadOnly):
    list_display = ("filename", "content_type", "size", "created_at", "tenant")
    list_select_related = ("tenant",)
    list_filter = ("tenant", "content_type")
    search_fields = ("filename", "sha256")


@admin.register(MediaUpload)
class MediaUploadAdmin(_ReadOnly):
    list_display = ("media", "provider", "account", "remote_id", "expires_at")
    list_select_related = ("media",)
    list_filter = ("provider",)
    search_fields = ("media__filename", "remote_id", "account")
