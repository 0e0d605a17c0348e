"""Sequence events in the admin (outreach.event_models): view only, with their reasons in
the reader's language. Loaded by outreach.admin."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from cerniq.admin import reason_column
from outreach.event_models import SequenceEvent


@admin.register(SequenceEvent)
class SequenceEventAdmin(admin.ModelAdmin):
    """What automation decided for a lead without sending: a skipped step, a colleague's
    reply, a nurture going on."""

    list_display = ("created_at", "lead", "kind", "reason_shown", "tenant")
    reason_shown = reason_column("reason", "reason")
    list_select_related = ("lead", "tenant")
    list_filter = ("tenant", "kind")
    search_fields = ("lead__name", "lead__contact_name")
    raw_id_fields = ("lead", "enrollment", "step")
    exclude = ("reason",)
    readonly_fields = ("reason_shown",)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
