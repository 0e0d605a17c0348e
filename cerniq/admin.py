"""Admin for tenants, memberships, raw webhook intake, alerts and their channels."""

from __future__ import annotations

import json
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.utils import flatten
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.html import format_html
from django.utils.safestring import SafeString
from rest_framework_api_key.admin import APIKeyModelAdmin
from rest_framework_api_key.models import AbstractAPIKey

from cerniq import alert_channels, alerts, notifications, reasons, webhooks
from cerniq.forms import AlertChannelForm
from cerniq.models import (
    WEEKDAYS,
    Alert,
    AlertChannel,
    Membership,
    Tenant,
    TenantAPIKey,
    WebhookDelivery,
    WebhookEndpoint,
    WebhookEvent,
)
from cerniq.outbound import delivery as outbound_delivery
from cerniq.outbound import endpoints as outbound_endpoints
from cerniq.outbound.forms import WebhookEndpointForm
from cerniq.tenancy import AuthenticatedHttpRequest

PAYLOAD_DISPLAY_LIMIT = 100_000  # characters; bigger payloads are cut in the admin page
_SECRET_HEADER_PARTS = ("authorization", "cookie", "token", "secret", "api-key", "apikey")


def reason_column(field_name: str, description: str):
    """An admin column (or read-only field) showing the stored reason in `field_name` in
    the reader's language (cerniq.reasons); legacy text shows as it is."""

    @admin.display(description=description, ordering=field_name)
    def column(self, obj) -> str:
        return reasons.render(getattr(obj, field_name))

    return column


def pretty_payload(value: object) -> SafeString | str:
    """Provider data as an escaped <pre> block, pretty-printed when it is JSON."""
    if value is None or value in (b"", ""):
        return "-"
    if isinstance(value, bytes | bytearray | memoryview):
        value = bytes(value).decode("utf-8", errors="replace")
    if isinstance(value, str):
        try:
            parsed = json.loads(value)
        except (ValueError, RecursionError):
            text = value
        else:
            text = json.dumps(parsed, indent=2, ensure_ascii=False, sort_keys=True)
    else:
        text = json.dumps(value, indent=2, ensure_ascii=False, sort_keys=True, default=str)
    if len(text) > PAYLOAD_DISPLAY_LIMIT:
        text = text[:PAYLOAD_DISPLAY_LIMIT] + "\n… (truncated)"
    return format_html("<pre>{}</pre>", text)


def masked_headers(headers: object) -> object:
    """Headers with credentials (Authorization, cookies, tokens) replaced by a mask."""
    if not isinstance(headers, dict):
        return headers
    return {
        name: "********" if any(p in str(name).lower() for p in _SECRET_HEADER_PARTS) else value
        for name, value in headers.items()
    }


class MembershipInline(admin.TabularInline):
    model = Membership
    extra = 0
    autocomplete_fields = ("user",)
    readonly_fields = ("created_at",)


class HttpsURLField(forms.URLField):
    """An address typed without a scheme is https (Django 6's default, asked for now)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(assume_scheme="https", **kwargs)


class TenantAdminForm(forms.ModelForm):
    """Working days as checkboxes, not a raw JSON box."""

    working_days = forms.TypedMultipleChoiceField(
        choices=WEEKDAYS,
        coerce=int,
        widget=forms.CheckboxSelectMultiple,
        help_text=(
            "Changing the window here does not re-plan waiting work: the workspace's "
            "Sending hours page does (/outreach/settings/sending/)."
        ),
    )

    class Meta:
        model = Tenant
        fields = "__all__"  # noqa: DJ007 - the admin lists every field of a tenant
        field_classes = {"price_list_url": HttpsURLField}

    def clean_working_days(self) -> list[int]:
        return sorted(set(self.cleaned_data["working_days"]))


@admin.register(Tenant)
class TenantAdmin(admin.ModelAdmin):
    form = TenantAdminForm
    list_display = (
        "name",
        "slug",
        "is_active",
        "time_zone",
        "window_start",
        "window_end",
        "ai_auto_reply_enabled",
        "created_at",
    )
    list_filter = (
        "is_active",
        "ai_auto_reply_enabled",
        "contact_unverified_whatsapp",
        "contact_unverified_email",
        "time_zone",
    )
    search_fields = ("name", "slug")
    prepopulated_fields = {"slug": ("name",)}
    readonly_fields = ("webhook_token", "created_at")
    date_hierarchy = "created_at"
    inlines = (MembershipInline,)


@admin.register(Membership)
class MembershipAdmin(admin.ModelAdmin):
    list_display = ("user", "tenant", "role", "created_at")
    list_select_related = ("user", "tenant")
    list_filter = ("role", "tenant")
    search_fields = ("user__username", "user__email", "tenant__name", "tenant__slug")
    autocomplete_fields = ("user", "tenant")
    readonly_fields = ("created_at",)


@admin.register(WebhookEvent)
class WebhookEventAdmin(admin.ModelAdmin):
    """Read-only: a webhook row is evidence of what a provider sent us."""

    list_display = (
        "received_at",
        "provider",
        "event_type",
        "provider_event_id",
        "tenant",
        "status",
        "verified",
        "attempts",
        "processed_at",
    )
    list_select_related = ("tenant",)
    list_filter = ("provider", "status", "verified", "tenant")
    search_fields = ("provider_event_id", "event_type", "error", "remote_addr")
    date_hierarchy = "received_at"
    show_full_result_count = False
    fields = (
        ("tenant", "provider", "event_type"),
        "provider_event_id",
        ("status", "verified", "attempts"),
        ("received_at", "processed_at", "remote_addr"),
        "error",
        "pretty_headers",
        "pretty_body",
    )
    readonly_fields = flatten(fields)
    actions = ("replay_events",)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: WebhookEvent | None = None) -> bool:
        return False

    def has_replay_permission(self, request: HttpRequest) -> bool:
        # The rows stay read-only; replaying is for those allowed to change them.
        return request.user.has_perm("cerniq.change_webhookevent")

    @admin.action(description="Replay (process again)", permissions=["replay"])
    def replay_events(self, request: HttpRequest, queryset: QuerySet[WebhookEvent]) -> None:
        refused: dict[str, int] = {}
        replayed = 0
        for event in queryset:
            if webhooks.replay(event):
                replayed += 1
            else:
                refused[event.status] = refused.get(event.status, 0) + 1
        if replayed:
            self.message_user(
                request, f"{replayed} event(s) queued to be processed again.", messages.SUCCESS
            )
        malformed = refused.pop(WebhookEvent.Status.MALFORMED, 0)
        if malformed:
            self.message_user(
                request,
                f"{malformed} MALFORMED event(s) not replayed: a body that could not be "
                "understood is never processed, so it cannot be replayed. Fix the sender "
                "and let it deliver again.",
                messages.WARNING,
            )
        if refused:
            detail = ", ".join(f"{count} {status}" for status, count in sorted(refused.items()))
            self.message_user(
                request,
                f"Not replayed ({detail}): already being processed or not verified.",
                messages.WARNING,
            )

    def has_delete_permission(self, request: HttpRequest, obj: WebhookEvent | None = None) -> bool:
        return False

    @admin.display(description="headers")
    def pretty_headers(self, obj: WebhookEvent) -> SafeString | str:
        return pretty_payload(masked_headers(obj.headers))

    @admin.display(description="raw body")
    def pretty_body(self, obj: WebhookEvent) -> SafeString | str:
        return pretty_payload(obj.raw_body)


@admin.register(Alert)
class AlertAdmin(admin.ModelAdmin):
    list_display = (
        "last_seen_at",
        "severity",
        "kind",
        "subject",
        "message_shown",
        "tenant",
        "occurrences",
        "acknowledged_at",
        "resolved_at",
        "notified_at",
    )
    list_select_related = ("tenant",)
    list_filter = (
        "severity",
        "kind",
        ("resolved_at", admin.EmptyFieldListFilter),
        ("acknowledged_at", admin.EmptyFieldListFilter),
        "tenant",
    )
    search_fields = ("subject", "message")
    date_hierarchy = "last_seen_at"
    raw_id_fields = ("acknowledged_by", "resolved_by")
    message_shown = reason_column("message", "message")
    readonly_fields = (
        "message_shown",
        "occurrences",
        "first_seen_at",
        "last_seen_at",
        "acknowledged_at",
        "acknowledged_by",
        "resolved_by",
        "notified_at",
        "reminded_at",
        "resolved_notified_at",
        "notice_pending",
        "notice_sent_to",
        "notice_attempts",
        "notify_after",
    )
    actions = ("acknowledge", "resolve")

    @admin.action(description="Acknowledge (no more reminders)")
    def acknowledge(self, request: AuthenticatedHttpRequest, queryset: QuerySet[Alert]) -> None:
        done = alerts.acknowledge(queryset, request.user)
        self.message_user(request, f"{done} alert(s) acknowledged.", messages.SUCCESS)

    @admin.action(description="Resolve")
    def resolve(self, request: AuthenticatedHttpRequest, queryset: QuerySet[Alert]) -> None:
        done = alerts.resolve_by_hand(queryset, request.user)
        self.message_user(request, f"{done} alert(s) resolved.", messages.SUCCESS)


class AdminAlertChannelForm(AlertChannelForm):
    class Meta(AlertChannelForm.Meta):
        fields = ["tenant", *AlertChannelForm.Meta.fields]


@admin.register(AlertChannel)
class AlertChannelAdmin(admin.ModelAdmin):
    """The URL is write-only here too: shown masked, never in full."""

    form = AdminAlertChannelForm
    list_display = (
        "name",
        "tenant",
        "masked_url",
        "min_severity",
        "enabled",
        "last_sent_at",
        "last_error_at",
    )
    list_select_related = ("tenant",)
    list_filter = ("enabled", "min_severity", "tenant")
    search_fields = ("name", "tenant__name")
    autocomplete_fields = ("tenant",)
    readonly_fields = (
        "masked_url",
        "created_at",
        "last_sent_at",
        "last_error_text",
        "last_error_at",
    )
    actions = ("send_test",)

    @admin.display(description="URL")
    def masked_url(self, obj: AlertChannel) -> str:
        return alert_channels.masked(obj.url)

    @admin.display(description="last error")
    def last_error_text(self, obj: AlertChannel) -> str:
        return reasons.render(obj.last_error)

    @admin.action(description="Send a test notification")
    def send_test(self, request: HttpRequest, queryset: QuerySet[AlertChannel]) -> None:
        for channel in queryset.select_related("tenant"):
            problem = notifications.send_test(channel)
            if problem:
                self.message_user(request, f"{channel}: {problem}", messages.ERROR)
            else:
                self.message_user(request, f"{channel}: test notification sent.", messages.SUCCESS)


@admin.register(TenantAPIKey)
class TenantAPIKeyAdmin(APIKeyModelAdmin):
    """Create (the key is shown once, in a message) and revoke API keys of any tenant."""

    # The library's own columns are inferred as tuples of their exact length.
    list_display = ("prefix", "name", "tenant", "scope", "created", "last_used_at", "revoked")  # type: ignore[assignment]
    list_filter = ("tenant", "scope", "revoked")  # type: ignore[assignment]
    list_select_related = ("tenant",)
    raw_id_fields = ("created_by",)

    def get_readonly_fields(self, request: HttpRequest, obj=None) -> tuple[str, ...]:
        return (*super().get_readonly_fields(request, obj), "last_used_at")

    def save_model(
        self, request: HttpRequest, obj: AbstractAPIKey, form: Any = None, change: bool = False
    ) -> None:
        user = request.user  # the admin site lets only signed-in staff in
        if not change and isinstance(obj, TenantAPIKey) and obj.created_by_id is None:
            obj.created_by = user if user.is_authenticated else None
        super().save_model(request, obj, form, change)


# --- Outgoing webhooks (cerniq.outbound) ------------------------------------------------


class AdminWebhookEndpointForm(WebhookEndpointForm):
    class Meta(WebhookEndpointForm.Meta):
        fields = ["tenant", *WebhookEndpointForm.Meta.fields]


@admin.register(WebhookEndpoint)
class WebhookEndpointAdmin(admin.ModelAdmin):
    """The secret is never shown here (the page shows it once); "rotate" makes a new one
    that the operator page shows."""

    form = AdminWebhookEndpointForm
    list_display = ("url", "tenant", "enabled", "last_success_at", "last_failure_at")
    list_select_related = ("tenant",)
    list_filter = ("enabled", "tenant")
    search_fields = ("url", "description", "tenant__name")
    autocomplete_fields = ("tenant",)
    readonly_fields = (
        "masked_secret",
        "disabled_reason_text",
        "created_at",
        "last_success_at",
        "last_failure_at",
    )

    @admin.display(description="Secret")
    def masked_secret(self, obj: WebhookEndpoint) -> str:
        return outbound_endpoints.masked_secret(obj.secret)

    @admin.display(description="Disabled because")
    def disabled_reason_text(self, obj: WebhookEndpoint) -> str:
        return obj.disabled_reason_text


@admin.register(WebhookDelivery)
class WebhookDeliveryAdmin(admin.ModelAdmin):
    list_display = (
        "event_type",
        "event_id",
        "tenant",
        "status",
        "attempts",
        "last_status_code",
        "next_attempt_at",
        "created_at",
    )
    list_select_related = ("tenant",)
    list_filter = ("status", "event_type", "tenant")
    search_fields = ("event_id", "event_type")
    readonly_fields = [
        "last_error_text" if f.name == "last_error" else f.name
        for f in WebhookDelivery._meta.fields
    ]
    exclude = ("last_error",)  # shown rendered, as last_error_text
    actions = ("redeliver",)

    @admin.display(description="last error")
    def last_error_text(self, obj: WebhookDelivery) -> str:
        return reasons.render(obj.last_error)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    @admin.action(description="Deliver again (same event id)")
    def redeliver(self, request: HttpRequest, queryset: QuerySet[WebhookDelivery]) -> None:
        for row in queryset:
            outbound_delivery.redeliver(row)
        self.message_user(request, f"{queryset.count()} delivery(ies) due again.", messages.SUCCESS)


from cerniq import admin_users  # noqa: E402, F401 (the user admin and its unlock action)
