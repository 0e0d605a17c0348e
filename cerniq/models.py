"""Platform tables: tenants and their members, raw webhook intake, alerts."""

from __future__ import annotations

import secrets
from datetime import time
from typing import ClassVar

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MinValueValidator
from django.db import models
from django.db.models import F, Q
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy
from rest_framework_api_key.models import AbstractAPIKey, APIKeyManager

from cerniq import integrations

# A phone number in E.164 form (+40…): leads, sending numbers.
E164_REGEX = r"^\+[1-9][0-9]{6,14}$"


# The days of the week as datetime.weekday() numbers them (working_days holds these).
WEEKDAYS = [
    (0, _("Monday")),
    (1, _("Tuesday")),
    (2, _("Wednesday")),
    (3, _("Thursday")),
    (4, _("Friday")),
    (5, _("Saturday")),
    (6, _("Sunday")),
]


def default_working_days() -> list[int]:
    return [0, 1, 2, 3, 4]  # Monday..Friday, as datetime.weekday()


def new_webhook_token() -> str:
    return secrets.token_urlsafe(32)


BASIS_CHANNELS = ("whatsapp", "email")
BASIS_MODES = ("off", "warn", "require")


def validate_basis_policy(value: object) -> None:
    """{"whatsapp"|"email": {"RO"|"*"|<ISO country>: "off"|"warn"|"require"}}."""
    if not isinstance(value, dict):
        raise ValidationError(_("The policy is an object by channel."))
    for channel, countries in value.items():
        if channel not in BASIS_CHANNELS:
            raise ValidationError(
                _("Unknown channel %(channel)s: whatsapp or email.") % {"channel": channel}
            )
        if not isinstance(countries, dict):
            raise ValidationError(_("Each channel maps countries to off, warn or require."))
        for country, mode in countries.items():
            if not (
                country == "*" or (len(country) == 2 and country.isalpha() and country.isupper())
            ):
                raise ValidationError(
                    _("%(country)s is not a country code (RO, DE, or * for the rest).")
                    % {"country": country}
                )
            if mode not in BASIS_MODES:
                raise ValidationError(
                    _("%(mode)s is not a mode: off, warn or require.") % {"mode": mode}
                )


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

    # The answer a drafted reply gives to a price question (hitl.triage.drafts): a link to
    # the price list and/or a text with template variables ({{contact_name}}, ...). With
    # neither, the draft says a colleague sends the prices and the review item says why.
    price_list_url = models.URLField(
        _("price list link"),
        max_length=500,
        blank=True,
        help_text=_(
            "A page or a file with your prices; drafted replies to price questions link it."
        ),
    )
    price_list_answer = models.TextField(
        _("answer to price questions"),
        blank=True,
        help_text=_(
            "The text drafted replies give to a price question; variables such as "
            "{{contact_name}} or {{company_name}} are filled in for each lead."
        ),
    )

    # Contact policy (outreach.readiness): are numbers and addresses nobody has checked yet
    # contacted? WhatsApp: the provider's answer to the first message checks the number (a
    # "not on WhatsApp" answer marks it and the lead falls back to email). Email: the
    # bounce shield (email_channels.shield) watches the bounces. Never a bulk number check.
    contact_unverified_whatsapp = models.BooleanField(
        _("contact unchecked WhatsApp numbers"),
        default=True,
        help_text=_(
            "Send to numbers nobody has checked yet: the first message checks the number; "
            "a number that is not on WhatsApp is marked and the lead gets email instead."
        ),
    )
    contact_unverified_email = models.BooleanField(
        _("contact unchecked email addresses"),
        default=True,
        help_text=_(
            "Send to addresses nobody has checked yet; the bounce shield pauses sending "
            "when too many bounce."
        ),
    )

    # Retention (outreach.retention): message texts older than this many days are blanked by
    # a nightly job (what was sent, when, to whom and how it went is kept: the figures).
    message_retention_days = models.PositiveIntegerField(
        _("keep message texts for (days)"),
        null=True,
        blank=True,
        validators=[MinValueValidator(30)],
        help_text=_(
            "Blank the text of messages older than this many days (at least 30); empty: keep "
            "them. Counts, dates and statuses stay."
        ),
    )

    # Lawful basis (outreach.lawful_basis): what a first message needs, per channel and
    # recipient country: "off", "warn" (sent, and marked) or "require" (held until a basis
    # is recorded). Missing entries take the defaults (Romania: warn on both channels;
    # any other country: off); "*" names every other country.
    basis_policy = models.JSONField(
        _("lawful basis policy"),
        default=dict,
        blank=True,
        validators=[validate_basis_policy],
        help_text=_(
            'Per channel and country, e.g. {"email": {"RO": "require", "*": "warn"}, '
            '"whatsapp": {"RO": "warn"}}: off, warn or require. Empty: warn for Romania.'
        ),
    )
    # A template used for first messages must say who writes and how to stop: flagged when
    # saved; with this on, one without them is not used for a first message.
    first_templates_must_comply = models.BooleanField(
        _("first messages only from compliant templates"),
        default=False,
        db_default=False,
        help_text=_(
            "Hold a first message whose template does not say who is writing and how to stop."
        ),
    )

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
    """Something an operator must know about; one open alert per (tenant, kind, subject).

    Notification bookkeeping (cerniq.notifications): `notified_at` is when the opening notice
    first reached a channel, `reminded_at` the last reminder, `resolved_notified_at` the
    "resolved" notice. A notice that reached only some channels stays owed to the others:
    `notice_pending` names it, `notice_sent_to` lists the channels that have it.
    `notify_after` is both the claim (a worker sending holds it for a few minutes) and the
    back-off after a failed channel."""

    class Kind(models.TextChoices):
        PHONE_OFFLINE = "PHONE_OFFLINE", _("Phone offline")
        PHONE_BANNED = "PHONE_BANNED", _("Phone banned")
        PHONE_HEALTH = "PHONE_HEALTH", _("Phone health degraded")
        QUOTA_EXHAUSTED = "QUOTA_EXHAUSTED", _("Quota nearly exhausted")
        SLA_BREACH = "SLA_BREACH", _("SLA breach")
        BOUNCE_RATE = "BOUNCE_RATE", _("Bounce rate")
        DEAD_LETTERS = "DEAD_LETTERS", _("Dead letters")
        PROVIDER_AUTH = "PROVIDER_AUTH", _("Provider authentication failure")
        SENDER_ACCOUNT = "SENDER_ACCOUNT", _("Email sending account error")
        WEBHOOK_FAILURE = "WEBHOOK_FAILURE", _("Webhook failure")
        WORKER_DOWN = "WORKER_DOWN", _("Worker down")
        HOT_REPLY = "HOT_REPLY", _("Hot reply")
        OTHER = "OTHER", _("Other")

    class Severity(models.TextChoices):
        INFO = "INFO", _("Info")
        WARNING = "WARNING", _("Warning")
        CRITICAL = "CRITICAL", _("Critical")

    class Notice(models.TextChoices):
        OPENED = "OPENED", pgettext_lazy("alert notice", "Opened")
        REMINDER = "REMINDER", pgettext_lazy("alert notice", "Reminder")
        RESOLVED = "RESOLVED", pgettext_lazy("alert notice", "Resolved")

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
    resolved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        related_name="+",
        null=True,
        blank=True,
        help_text="Who resolved it by hand (empty when the condition cleared by itself).",
    )
    acknowledged_at = models.DateTimeField(null=True, blank=True)
    acknowledged_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, related_name="+", null=True, blank=True
    )
    notified_at = models.DateTimeField(null=True, blank=True)
    reminded_at = models.DateTimeField(null=True, blank=True)
    resolved_notified_at = models.DateTimeField(null=True, blank=True)
    notice_pending = models.CharField(max_length=16, choices=Notice.choices, blank=True)
    notice_sent_to = models.JSONField(default=list, blank=True)
    notice_attempts = models.PositiveIntegerField(default=0)
    notify_after = models.DateTimeField(null=True, blank=True)

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
        # The page and the top bar's badge read a tenant's open alerts through the partial
        # unique index above (tenant first, resolved_at IS NULL).

    def __str__(self) -> str:
        return f"[{self.severity}] {self.kind} {self.subject}"


def default_alert_language() -> str:
    return settings.LANGUAGE_CODE


class AlertChannel(models.Model):
    """Where a tenant's alerts are sent: one apprise URL (mailto://, slack://, tgram://,
    json://…) or `env://ALERTS_…`, the name of an environment variable holding it.

    The URL carries a secret (a Slack webhook, a bot token): it is stored because the tenant
    configures it, never logged and never shown back in full (cerniq.alert_channels.masked).
    """

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="alert_channels")
    name = models.CharField(_("name"), max_length=100)
    url = models.CharField(_("URL"), max_length=2000)
    kinds = models.JSONField(
        _("kinds"), default=list, blank=True, help_text=_("Empty: every kind of alert.")
    )
    min_severity = models.CharField(
        _("lowest severity"),
        max_length=16,
        choices=Alert.Severity.choices,
        default=Alert.Severity.INFO,
    )
    language = models.CharField(
        _("language"), max_length=8, choices=settings.LANGUAGES, default=default_alert_language
    )
    enabled = models.BooleanField(_("enabled"), default=True)
    created_at = models.DateTimeField(auto_now_add=True)
    last_sent_at = models.DateTimeField(null=True, blank=True)
    last_error = models.CharField(max_length=500, blank=True)
    last_error_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["name", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["tenant", "name"], name="alertchannel_unique_name"),
        ]

    def __str__(self) -> str:
        return self.name


class TenantAPIKeyManager(APIKeyManager):
    def get_usable_keys(self) -> models.QuerySet:
        return super().get_usable_keys().select_related("tenant", "created_by")


class TenantAPIKey(AbstractAPIKey):
    """An integrator's key for the REST API: bound to one tenant, read or write.

    Only a hash is stored (djangorestframework-api-key); the full key is shown once, when it
    is created (cerniq.api_keys.create_key). It lives in the platform so both the operator
    page that manages keys (console) and the API that checks them (api) can use it.
    """

    class Scope(models.TextChoices):
        READ = "read", _("Read only")
        WRITE = "write", _("Read and write")

    objects: ClassVar[TenantAPIKeyManager] = TenantAPIKeyManager()

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="api_keys")
    scope = models.CharField(_("scope"), max_length=8, choices=Scope.choices, default=Scope.READ)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    last_used_at = models.DateTimeField(null=True, blank=True)

    class Meta(AbstractAPIKey.Meta):
        verbose_name = "API key"
        verbose_name_plural = "API keys"
        indexes = [models.Index(fields=["tenant", "revoked"], name="apikey_tenant_revoked")]

    @property
    def can_write(self) -> bool:
        return self.scope == self.Scope.WRITE


class WebhookEndpoint(models.Model):
    """An integrator's URL that receives the tenant's events (cerniq.outbound).

    The secret signs every delivery (Standard Webhooks, `whsec_<base64>`): it is made here,
    shown once when created or rotated, and kept in the clear because signing needs it."""

    class DisabledBy(models.TextChoices):
        """Why deliveries stopped: stored as a code, shown in the reader's language."""

        OPERATOR = "operator", _("disabled by an operator")
        GONE = "gone", _("the receiver answered 410 Gone")

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="webhook_endpoints")
    url = models.CharField(_("URL"), max_length=2000)
    description = models.CharField(_("description"), max_length=200, blank=True)
    events = models.JSONField(_("events"), default=list)
    secret = models.CharField(max_length=100, editable=False)
    enabled = models.BooleanField(_("enabled"), default=True)
    disabled_reason = models.CharField(max_length=255, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    last_success_at = models.DateTimeField(null=True, blank=True)
    last_failure_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["created_at", "pk"]

    def __str__(self) -> str:
        return self.description or self.url

    @property
    def disabled_reason_text(self) -> str:
        """The reason in the reader's language (rows from before the codes show as stored)."""
        try:
            return str(self.DisabledBy(self.disabled_reason).label)
        except ValueError:
            return self.disabled_reason


class WebhookDelivery(models.Model):
    """One event owed to one endpoint: the durable outbox row, and what its receiver said.

    `event_id` (the `webhook-id` header) is the same on every attempt and for every endpoint
    of one event, so receivers drop duplicates. `next_attempt_at` is when it is due, and
    while DELIVERING the end of the claim of the worker sending it."""

    class Status(models.TextChoices):
        PENDING = "PENDING", _("Pending")
        DELIVERING = "DELIVERING", _("Delivering")
        DELIVERED = "DELIVERED", _("Delivered")
        FAILED = "FAILED", _("Failed")

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="+")
    endpoint = models.ForeignKey(
        WebhookEndpoint, on_delete=models.CASCADE, related_name="deliveries"
    )
    event_id = models.CharField(max_length=64)
    event_type = models.CharField(max_length=64)
    payload = models.JSONField()
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    attempts = models.PositiveIntegerField(default=0)
    next_attempt_at = models.DateTimeField(null=True, blank=True)
    last_attempt_at = models.DateTimeField(null=True, blank=True)
    last_status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    last_response_excerpt = models.CharField(max_length=500, blank=True)
    last_error = models.CharField(max_length=500, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    delivered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["endpoint", "event_id"], name="webhookdelivery_unique_event"
            ),
        ]
        indexes = [
            # The periodic catch-up: due rows, oldest first.
            models.Index(fields=["status", "next_attempt_at"], name="webhookdelivery_due_idx"),
            # The page: a tenant's recent deliveries.
            models.Index(fields=["tenant", "-created_at"], name="webhookdelivery_tenant_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.event_type} {self.event_id} → {self.endpoint_id} ({self.status})"
