"""Admin for WhatsApp sending phones and their daily new-contact quota."""

from __future__ import annotations

from datetime import date, timedelta

from django.contrib import admin, messages
from django.db.models import Prefetch, QuerySet
from django.http import HttpRequest
from django.template.defaultfilters import pluralize
from django.utils import timezone

from cerniq.admin import reason_column
from whatsapp.models import Phone, PhoneStatusChange, QuotaUsage, WarmupPlan
from whatsapp.quota import day_limits, quota_day


def tenant_today(phone: Phone) -> date:
    """Today's quota day for the phone (the day QuotaUsage rows use)."""
    return quota_day(phone.tenant)


@admin.register(Phone)
class PhoneAdmin(admin.ModelAdmin):
    list_display = (
        "number",
        "label",
        "tenant",
        "provider",
        "status",
        "health",
        "health_score",
        "why",
        "warmup_started_at",
        "is_enabled",
        "used_today",
        "next_send_at",
        "last_sent_at",
        "last_health_check_at",
    )
    list_select_related = ("tenant",)
    list_filter = ("tenant", "provider", "status", "health", "is_enabled")
    search_fields = ("number", "label", "account_id")
    exclude = ("status_reason", "health_reason")  # shown in the reader's language instead
    readonly_fields = (
        "status_changed_at",
        "total_sent",
        "total_new_contacts",
        "next_send_at",
        "last_sent_at",
        "last_health_check_at",
        "connected_at",
        "created_at",
        "health_score",
        "health",
        "status_why",
        "health_why",
        "health_changed_at",
        "health_scored_at",
        "health_hold_until",
    )
    actions = ("enable_phones", "disable_phones")
    status_why = reason_column("status_reason", "status reason")
    health_why = reason_column("health_reason", "health reason")

    @admin.display(description="why")
    def why(self, phone: Phone) -> str:
        return self.health_why(phone) or self.status_why(phone)

    def get_queryset(self, request: HttpRequest) -> QuerySet[Phone]:
        # One extra query for the whole page: the quota rows around today (any time zone).
        today = timezone.localdate()
        recent = QuotaUsage.objects.filter(day__range=(today - timedelta(1), today + timedelta(1)))
        prefetch = Prefetch("quota_usage", queryset=recent, to_attr="recent_quota")
        return super().get_queryset(request).prefetch_related(prefetch)

    @admin.display(description="used today")
    def used_today(self, obj: Phone) -> str:
        today = tenant_today(obj)
        for quota in getattr(obj, "recent_quota", ()):
            if quota.day == today:
                return f"{quota.used}/{quota.limit}"
        # No row yet today: the limit the day will get (a query only for a warming phone).
        return f"0/{day_limits([obj], today)[obj.pk].limit}"

    @admin.action(description="Enable selected phones")
    def enable_phones(self, request: HttpRequest, queryset: QuerySet[Phone]) -> None:
        count = queryset.update(is_enabled=True)
        self.message_user(request, f"Enabled {count} phone{pluralize(count)}.", messages.SUCCESS)

    @admin.action(description="Disable selected phones")
    def disable_phones(self, request: HttpRequest, queryset: QuerySet[Phone]) -> None:
        count = queryset.update(is_enabled=False)
        self.message_user(request, f"Disabled {count} phone{pluralize(count)}.", messages.SUCCESS)


@admin.register(QuotaUsage)
class QuotaUsageAdmin(admin.ModelAdmin):
    list_display = ("day", "phone", "used", "limit", "remaining", "tenant", "updated_at")
    list_select_related = ("phone", "tenant")
    list_filter = ("tenant",)
    search_fields = ("phone__number", "phone__label")
    autocomplete_fields = ("phone",)
    date_hierarchy = "day"
    readonly_fields = ("used", "updated_at")

    @admin.display(description="remaining")
    def remaining(self, obj: QuotaUsage) -> int:
        return obj.remaining


@admin.register(PhoneStatusChange)
class PhoneStatusChangeAdmin(admin.ModelAdmin):
    """The status history whatsapp.phones writes: read only."""

    list_display = ("at", "phone", "status", "reason_shown", "tenant")
    reason_shown = reason_column("reason", "reason")
    list_select_related = ("phone", "tenant")
    list_filter = ("tenant", "status")
    search_fields = ("phone__number", "reason")
    date_hierarchy = "at"

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return False


@admin.register(WarmupPlan)
class WarmupPlanAdmin(admin.ModelAdmin):
    """Tenants' warm-up ramps: edited (and validated) on the phones page, read here."""

    list_display = ("tenant", "steps", "updated_at")
    list_select_related = ("tenant",)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return False
