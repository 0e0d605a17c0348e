"""Admin for the human review queue."""

from __future__ import annotations

from django.contrib import admin

from hitl.models import ReviewItem


@admin.register(ReviewItem)
class ReviewItemAdmin(admin.ModelAdmin):
    list_display = (
        "sla_due_at",
        "priority",
        "status",
        "kind",
        "lead",
        "reason",
        "intent",
        "sentiment_score",
        "assignee",
        "sla_breached_at",
        "tenant",
    )
    list_select_related = ("lead", "assignee", "tenant")
    list_filter = ("tenant", "status", "priority", "kind", "intent")
    search_fields = ("lead__name", "lead__cui", "lead__phone", "reason", "assignee__username")
    autocomplete_fields = ("lead", "assignee", "resolved_by")
    raw_id_fields = ("message",)
    date_hierarchy = "created_at"
    readonly_fields = ("sla_breached_at", "created_at")
