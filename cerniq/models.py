"""Platform tables: tenants and their members, raw webhook intake, alerts."""

from __future__ import annotations

import secrets
from datetime import time

from django.conf import settings
from django.db import models
from django.db.models import F, Q

from cerniq import integrations

# A phone number in E.164 form (+40…): leads, sending numbers.
E164_REGEX = r"^\+[1-9][0-9]{6,14}$"


def default_working_days() -> list[int]:
    return [0, 1, 2, 3, 4]  # Monday..Friday, as datetime.weekday()


def new_webhook_token() -> str:
    return secrets.token_urlsafe(32)


class Tenant(models.Model):
    """A customer workspace. Every domain row belongs to exactly one tenant."""

    name = models.CharField(max_length=200)
    slug = models.SlugField(max_length=64, unique=True)
    is_active = models.BooleanField(default=True)

    # Sending window (outreach/hours.py reads these).
    time_zone = models.CharField(max_length=64, default="Europe/Bucharest")
    window_start = models.TimeField(default=time(9, 0))
    window_end = models.TimeField(default=time(18, 0))
    working_days = models.JSONField(default=default_working_days)
    holiday_country = models.CharField(max_length=2, default="RO", blank=True)

    # Pacing between two sends of one phone: min + random(0..jitter) seconds.
    pacing_min_seconds = models.PositiveIntegerField(default=30)
    pacing_jitter_seconds = models.PositiveIntegerField(default=120)

    # AI: send drafted replies automatically (for the listed intents) or hold for approval.
    ai_auto_reply_enabled = models.BooleanField(default=False)
    ai_auto_reply_intents = models.JSONField(default=list, blank=True)

    # Secret in the URL registered with providers that sign nothing (TimelinesAI).
    webhook_token = models.CharField(max_length=64, unique=True, default=new_webhook_token)

    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]
        constraints = [
            models.CheckConstraint(
                condition=Q(window_start__lt=F("window_end")),
                name="tenant_window_start_before_end",
            ),
            models.CheckConstraint(
                condition=Q(pacing_min_seconds__lte=3600) & Q(pacing_jitter_seconds__lte=3600),
                name="tenant_pacing_bounded",
            ),
        ]

    def __str__(self) -> str:
        return self.name


class Membership(models.Model):
    class Role(models.TextChoices):
        OPERATOR = "OPERATOR", "Operator"
        MANAGER = "MANAGER", "Manager"
        ADMIN = "ADMIN", "Admin"

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships"
    )
    role = models.CharField(max_length=16, choices=Role.choices, default=Role.OPERATOR)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["tenant", "user"], name="membership_unique_user"),
        ]

    def __str__(self) -> str:
        return f"{self.user} @ {self.tenant} ({self.role})"


class WebhookEvent(models.Model):
    """A provider callback exactly as received, stored before we answer it."""

    class Status(models.TextChoices):
        RECEIVED = "RECEIVED", "Received"
        PROCESSING = "PROCESSING", "Processing"
        PROCESSED = "PROCESSED", "Processed"
        IGNORED = "IGNORED", "Ignored"
        FAILED = "FAILED", "Failed"
        MALFORMED = "MALFORMED", "Malformed"

    tenant = models.ForeignKey(
        Tenant, on_delete=models.CASCADE, related_name="webhook_events", null=True, blank=True
    )
    provider = models.CharField(max_length=32, choices=integrations.all_provider_choices)
    event_type = models.CharField(max_length=100, blank=True)
    # The provider's natural key for dedupe; empty for malformed bodies, and for bodies
    # refused by the provider's schema (MALFORMED too: never processed, never replayed).
    provider_event_id = models.CharField(max_length=255, blank=True)
    raw_body = models.BinaryField()
    headers = models.JSONField(default=dict, blank=True)
    remote_addr = models.GenericIPAddressField(null=True, blank=True)
    verified = models.BooleanField(default=False)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.RECEIVED)
    error = models.TextField(blank=True)
    attempts = models.PositiveIntegerField(default=0)
    received_at = models.DateTimeField(auto_now_add=True)
    processed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-received_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["provider", "provider_event_id"],
                condition=~Q(provider_event_id=""),
                name="webhookevent_unique_provider_event",
            ),
            models.CheckConstraint(
                condition=~Q(status="PROCESSED") | Q(verified=True),
                name="webhookevent_processed_only_if_verified",
            ),
        ]
        indexes = [
            models.Index(fields=["status", "received_at"], name="webhookevent_status_idx"),
            # A tenant's events of one type (a receiver scoping a dedupe key with the last
            # event of another type: cerniq.webhooks.Receiver.dedupe_key).
            models.Index(fields=["tenant", "event_type"], name="webhookevent_tenant_type_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.provider}:{self.event_type} {self.provider_event_id}"


class Alert(models.Model):
    """Something an operator must know about; one open alert per (tenant, kind, subject)."""

    class Kind(models.TextChoices):
        PHONE_OFFLINE = "PHONE_OFFLINE", "Phone offline"
        PHONE_BANNED = "PHONE_BANNED", "Phone banned"
        PHONE_HEALTH = "PHONE_HEALTH", "Phone health degraded"
        QUOTA_EXHAUSTED = "QUOTA_EXHAUSTED", "Quota nearly exhausted"
        SLA_BREACH = "SLA_BREACH", "SLA breach"
        BOUNCE_RATE = "BOUNCE_RATE", "Bounce rate"
        DEAD_LETTERS = "DEAD_LETTERS", "Dead letters"
        PROVIDER_AUTH = "PROVIDER_AUTH", "Provider authentication failure"
        SENDER_ACCOUNT = "SENDER_ACCOUNT", "Email sending account error"
        WEBHOOK_FAILURE = "WEBHOOK_FAILURE", "Webhook failure"
        WORKER_DOWN = "WORKER_DOWN", "Worker down"
        OTHER = "OTHER", "Other"

    class Severity(models.TextChoices):
        INFO = "INFO", "Info"
        WARNING = "WARNING", "Warning"
        CRITICAL = "CRITICAL", "Critical"

    tenant = models.ForeignKey(
        Tenant, on_delete=models.CASCADE, related_name="alerts", null=True, blank=True
    )
    kind = models.CharField(max_length=32, choices=Kind.choices)
    severity = models.CharField(max_length=16, choices=Severity.choices, default=Severity.WARNING)
    subject = models.CharField(max_length=200, help_text="What it is about, e.g. phone:+4071…")
    message = models.TextField()
    occurrences = models.PositiveIntegerField(default=1)
    first_seen_at = models.DateTimeField(auto_now_add=True)
    last_seen_at = models.DateTimeField(auto_now=True)
    resolved_at = models.DateTimeField(null=True, blank=True)
    notified_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-last_seen_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["tenant", "kind", "subject"],
                condition=Q(resolved_at__isnull=True),
                name="alert_one_open_per_subject",
            ),
            models.CheckConstraint(
                condition=Q(occurrences__gte=1), name="alert_occurrences_positive"
            ),
        ]

    def __str__(self) -> str:
        return f"[{self.severity}] {self.kind} {self.subject}"
