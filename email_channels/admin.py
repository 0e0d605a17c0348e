"""Admin for cold-email campaigns on the provider side."""

from __future__ import annotations

from django.contrib import admin, messages
from django.http import HttpRequest

from cerniq import reasons
from email_channels import campaigns
from email_channels import reasons as codes
from email_channels.models import (
    CampaignDailyStats,
    EmailCampaign,
    SenderAccount,
    SenderCheck,
    SenderDay,
    SenderPause,
)


@admin.register(EmailCampaign)
class EmailCampaignAdmin(admin.ModelAdmin):
    list_display = (
        "name",
        "tenant",
        "provider",
        "external_id",
        "status",
        "why",
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
    actions = ["pause_at_provider", "resume_at_provider"]

    def _act(self, request: HttpRequest, queryset, act, done: str) -> None:
        changed = 0
        why = codes.PAUSED_IN_ADMIN if act is campaigns.pause else codes.RESUMED_IN_ADMIN
        for campaign in queryset:
            try:
                act(campaign, reason=reasons.code(why, user=request.user.get_username()))
                changed += 1
            except campaigns.CampaignError as refused:
                self.message_user(request, str(refused), messages.ERROR)
        if changed:
            self.message_user(request, f"{changed} campaign(s) {done}.", messages.SUCCESS)

    @admin.action(description="Pause at the provider", permissions=["change"])
    def pause_at_provider(self, request: HttpRequest, queryset) -> None:
        self._act(request, queryset, campaigns.pause, "paused")

    @admin.action(description="Resume at the provider", permissions=["change"])
    def resume_at_provider(self, request: HttpRequest, queryset) -> None:
        self._act(request, queryset, campaigns.resume, "resumed")

    @admin.display(description="why")
    def why(self, obj: EmailCampaign) -> str:
        return reasons.render(obj.status_reason)

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


class ViewOnlyAdmin(admin.ModelAdmin):
    """Rows the product writes; people read them here."""

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False


@admin.register(SenderDay)
class SenderDayAdmin(ViewOnlyAdmin):
    """Our senders' days (email_channels.reputation counts them; view only)."""

    list_display = ("day", "address", "provider", "sent", "bounced", "complained", "tenant")
    list_filter = ("tenant", "provider")
    search_fields = ("address", "domain")


@admin.register(SenderPause)
class SenderPauseAdmin(ViewOnlyAdmin):
    """What the reputation guard paused (lifted on the senders page, with a reason)."""

    list_display = ("value", "scope", "provider", "created_at", "lifted_at", "tenant")
    list_filter = ("tenant", "provider", "scope")


@admin.register(SenderCheck)
class SenderCheckAdmin(ViewOnlyAdmin):
    """Our senders' readiness as their providers last said (email_channels.readiness)."""

    list_display = ("sender", "provider", "ready", "checked_at", "changed_at")
    list_filter = ("provider", "ready")
