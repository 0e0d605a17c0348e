"""Admin for the human review queue and its deadlines."""

from __future__ import annotations

from django.contrib import admin

from cerniq import reasons
from hitl.models import (
    ChatBackfill,
    ConversationState,
    Note,
    ReplyResponse,
    ReplyTriage,
    ReviewItem,
    ReviewSLA,
)
from outreach.admin import AuditRowAdmin


@admin.register(ReviewItem)
class ReviewItemAdmin(admin.ModelAdmin):
    list_display = (
        "sla_due_at",
        "priority",
        "status",
        "kind",
        "lead",
        "reason_text",
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
    readonly_fields = ("reason_text", "sla_breached_at", "created_at")

    @admin.display(description="Reason", ordering="reason")
    def reason_text(self, item: ReviewItem) -> str:
        """The stored reason in the reader's language (cerniq.reasons)."""
        return reasons.render(item.reason)


@admin.register(ReviewSLA)
class ReviewSLAAdmin(admin.ModelAdmin):
    """A tenant's review deadlines (tenant admins set them on /settings/review/)."""

    list_display = (
        "tenant",
        "urgent_minutes",
        "high_minutes",
        "medium_minutes",
        "low_minutes",
        "updated_by",
        "updated_at",
    )
    list_select_related = ("tenant", "updated_by")
    readonly_fields = ("updated_by", "updated_at")


@admin.register(ReplyTriage)
class ReplyTriageAdmin(AuditRowAdmin):
    """Each reply's triage in the workers (hitl.triage_jobs): what is still being analysed,
    what failed and why. Written by the workers only."""

    list_display = ("created_at", "state", "attempts", "triaged_at", "lead", "error", "tenant")
    list_select_related = ("lead", "tenant")
    list_filter = ("state", "tenant")
    raw_id_fields = ("message", "lead")
    date_hierarchy = "created_at"


@admin.register(ReplyResponse)
class ReplyResponseAdmin(AuditRowAdmin):
    """Each reply and its first human response (hitl.responses; docs/response-times.md).
    Written by the hooks and `manage.py rebuild_reply_responses` only."""

    list_display = (
        "received_at",
        "lead",
        "channel",
        "kind",
        "responder",
        "responded_at",
        "working_seconds",
        "tenant",
    )
    list_select_related = ("lead", "responder", "tenant")
    list_filter = ("kind", "channel", "tenant")
    raw_id_fields = ("reply", "answer", "lead", "responder")
    date_hierarchy = "received_at"


@admin.register(Note)
class NoteAdmin(AuditRowAdmin):
    """Team notes on a conversation (the inbox): written and read there, shown here."""

    list_display = ("created_at", "lead", "author", "tenant")
    list_select_related = ("lead", "author", "tenant")
    list_filter = ("tenant",)
    raw_id_fields = ("lead", "author")
    date_hierarchy = "created_at"


@admin.register(ConversationState)
class ConversationStateAdmin(AuditRowAdmin):
    """Each operator's read and closed marks on a conversation (the inbox)."""

    list_display = ("updated_at", "user", "lead", "last_read_at", "closed_at", "tenant")
    list_select_related = ("user", "lead", "tenant")
    list_filter = ("tenant",)
    raw_id_fields = ("user", "lead")


@admin.register(ChatBackfill)
class ChatBackfillAdmin(AuditRowAdmin):
    """Each WhatsApp chat's history fetch (hitl.chat_backfill; docs/chat-history.md): where
    it stands, what it stored, why it failed. Written by the fetch and the lead page only."""

    list_display = (
        "requested_at",
        "lead",
        "chat_id",
        "status",
        "trigger",
        "pages",
        "stored",
        "end",
        "error_text",
        "tenant",
    )
    list_select_related = ("lead", "tenant")
    list_filter = ("status", "trigger", "provider", "tenant")
    raw_id_fields = ("lead", "phone", "requested_by")
    date_hierarchy = "requested_at"

    @admin.display(description="Error", ordering="error")
    def error_text(self, row: ChatBackfill) -> str:
        """The stored reason in the reader's language (cerniq.reasons)."""
        return reasons.render(row.error) if row.error else ""
