"""Admin for cold-email campaigns on the provider side."""

from __future__ import annotations

from django.contrib import admin

from email_channels.models import CampaignDailyStats, EmailCampaign, SenderAccount


@admin.register(EmailCampaign)
class EmailCampaignAdmin(admin.ModelAdmin):
    list_display = (
        "name",
        "tenant",
        "provider",
        "external_id",
        "status",
        "sent",
        "bounced",
        "bounce_rate",
        "bounce_threshold_percent",
        "hourly_limit",
    )
    list_select_related = ("tenant",)
    list_filter = ("tenant", "provider", "status")
    search_fields = ("name", "external_id", "status_reason")
    autocomplete_fields = ("sequence",)
    date_hierarchy = "created_at"
    readonly_fields = ("sent", "bounced", "created_at")

    @admin.display(description="bounce %")
    def bounce_rate(self, obj: EmailCampaign) -> str:
        return f"{100 * obj.bounced / obj.sent:.2f}" if obj.sent else "-"


@admin.register(SenderAccount)
class SenderAccountAdmin(admin.ModelAdmin):
    """Sending mailboxes and what their webhooks reported (the bounce shield's counters)."""

    list_display = ("address", "tenant", "provider", "sent", "bounced", "flagged_at")
    list_select_related = ("tenant",)
    list_filter = ("tenant", "provider")
    search_fields = ("address", "flag_reason")
    readonly_fields = ("sent", "bounced", "flagged_at", "flag_reason")


@admin.register(CampaignDailyStats)
class CampaignDailyStatsAdmin(admin.ModelAdmin):
    list_display = ("campaign", "day", "sent", "opened", "replied", "bounced", "unsubscribed")
    list_select_related = ("campaign",)
    list_filter = ("tenant",)
    date_hierarchy = "day"
    readonly_fields = (
        "tenant",
        "campaign",
        "day",
        "sent",
        "opened",
        "replied",
        "clicked",
        "bounced",
        "unsubscribed",
        "synced_at",
    )
