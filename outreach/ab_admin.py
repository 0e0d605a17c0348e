"""Admin for the A/B decisions (imported by outreach.admin): read-only history. Decisions
are made by the rule and confirmed or dismissed on the template's page, or by the API."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from outreach.models import ABDecision


@admin.register(ABDecision)
class ABDecisionAdmin(admin.ModelAdmin):
    list_display = ("created_at", "template", "winner", "status", "automatic", "tenant")
    list_select_related = ("tenant", "template", "winner__template")
    list_filter = ("tenant", "status", "automatic")
    search_fields = ("template__name",)
    readonly_fields = ("decided_at", "created_at", "updated_at")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
