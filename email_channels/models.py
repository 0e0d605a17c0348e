"""Cold-email campaigns on the provider side (Instantly) and their deliverability."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.utils.translation import gettext_lazy as _

from cerniq import integrations
from cerniq.models import Tenant


class EmailCampaign(models.Model):
    class Status(models.TextChoices):
        # Being set up at the provider: created there (external_id) but not started yet,
        # or not created yet (external_id blank).
        DRAFT = "DRAFT", _("Draft")
        ACTIVE = "ACTIVE", _("Active")
        PAUSED = "PAUSED", _("Paused")
        COMPLETED = "COMPLETED", _("Completed")

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="email_campaigns")
    name = models.CharField(max_length=200)
    provider = models.CharField(
        max_length=16, choices=integrations.email_provider_choices, default=integrations.SANDBOX
    )
    external_id = models.CharField(
        max_length=128,
        blank=True,
        help_text="the provider's campaign id (blank until it is created there)",
    )
    sequence = models.ForeignKey(
        "outreach.Sequence", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.ACTIVE)
    status_reason = models.CharField(max_length=255, blank=True)
    hourly_limit = models.PositiveIntegerField(default=100)
    bounce_threshold_percent = models.DecimalField(max_digits=5, decimal_places=2, default=3)
    sent = models.PositiveIntegerField(default=0)
    bounced = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]
        constraints = [
            models.UniqueConstraint(
                fields=["tenant", "provider", "external_id"],
                condition=~Q(external_id=""),
                name="emailcampaign_unique_external",
            ),
            # One provider campaign per sequence: two pushers never create two of them
            # (integrations.instantly.campaign_sync).
            models.UniqueConstraint(
                fields=["tenant", "provider", "sequence"],
                condition=Q(sequence__isnull=False),
                name="emailcampaign_one_per_sequence",
            ),
            models.CheckConstraint(
                condition=Q(bounced__lte=F("sent")), name="emailcampaign_bounces_within_sent"
            ),
            models.CheckConstraint(
                condition=Q(bounce_threshold_percent__gte=0) & Q(bounce_threshold_percent__lte=100),
                name="emailcampaign_threshold_percent",
            ),
        ]

    def __str__(self) -> str:
        return self.name


class CampaignDailyStats(models.Model):
    """One campaign's day at its provider (issue #11 §4), for the analytics page.

    sent / opened / replied / clicked come from the provider's daily analytics (Instantly
    sends the emails; its counts are the truth), refreshed by a periodic sync; bounced and
    unsubscribed are counted here as their webhooks arrive (Instantly's daily analytics
    has no per-day bounces), so a sync never overwrites them."""

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="+")
    campaign = models.ForeignKey(EmailCampaign, on_delete=models.CASCADE, related_name="days")
    day = models.DateField()
    sent = models.PositiveIntegerField(default=0)
    opened = models.PositiveIntegerField(default=0)
    replied = models.PositiveIntegerField(default=0)
    clicked = models.PositiveIntegerField(default=0)
    bounced = models.PositiveIntegerField(default=0)
    unsubscribed = models.PositiveIntegerField(default=0)
    synced_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-day"]
        constraints = [
            models.UniqueConstraint(
                fields=["campaign", "day"], name="campaigndailystats_unique_day"
            )
        ]
        indexes = [models.Index(fields=["tenant", "day"], name="campaigndaily_tenant_day_idx")]

    def __str__(self) -> str:
        return f"{self.campaign_id} {self.day}"


class SenderAccount(models.Model):
    """A sending mailbox at a cold-email provider (Instantly's `email_account`), with the
    sends and bounces its webhooks reported: the bounce shield judges each account as well
    as each campaign, since one burnt mailbox spoils every campaign it sends for."""

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="+")
    provider = models.CharField(max_length=16)
    address = models.EmailField()
    sent = models.PositiveIntegerField(default=0)
    bounced = models.PositiveIntegerField(default=0)
    flagged_at = models.DateTimeField(
        null=True, blank=True, help_text="bounce rate over the threshold"
    )
    flag_reason = models.CharField(max_length=255, blank=True)

    class Meta:
        ordering = ["address"]
        constraints = [
            models.UniqueConstraint(
                fields=["tenant", "provider", "address"], name="senderaccount_unique_address"
            ),
            models.CheckConstraint(
                condition=Q(bounced__lte=F("sent")), name="senderaccount_bounces_within_sent"
            ),
        ]

    def __str__(self) -> str:
        return self.address


class SenderDay(models.Model):
    """One sending address's day at one provider: sent, hard-bounced, complained. The
    reputation guard reads a rolling window of them per address and per domain
    (email_channels.reputation)."""

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="+")
    provider = models.CharField(max_length=16)
    address = models.EmailField(help_text="the sending address, lowercased")
    domain = models.CharField(max_length=253)
    day = models.DateField()
    sent = models.PositiveIntegerField(default=0)
    bounced = models.PositiveIntegerField(default=0)
    complained = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["-day", "address"]
        constraints = [
            models.UniqueConstraint(
                fields=["tenant", "provider", "address", "day"], name="senderday_unique"
            ),
        ]
        indexes = [
            models.Index(
                fields=["tenant", "provider", "domain", "day"], name="senderday_domain_idx"
            )
        ]

    def __str__(self) -> str:
        return f"{self.address} {self.day}: {self.sent} sent"


class SenderPause(models.Model):
    """A sending address or a whole domain the reputation guard stopped (a complaint rate
    or a bounce rate over its limit), until a person lifts it with a reason."""

    class Scope(models.TextChoices):
        ADDRESS = "address", _("Sending address")
        DOMAIN = "domain", _("Sending domain")

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="+")
    provider = models.CharField(max_length=16)
    scope = models.CharField(max_length=8, choices=Scope.choices)
    value = models.CharField(max_length=254, help_text="the address or the domain")
    reason = models.CharField(max_length=255)
    created_at = models.DateTimeField(auto_now_add=True)
    lifted_at = models.DateTimeField(null=True, blank=True)
    lifted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    lift_reason = models.TextField(blank=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["tenant", "provider", "scope", "value"],
                condition=Q(lifted_at__isnull=True),
                name="senderpause_one_open",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.value} paused"


class SenderCheck(models.Model):
    """Whether one of our senders is ready to send, as its provider last said (Resend: the
    sending domain's verification and DNS records; Instantly: each account's status and
    warm-up). A sender that is not ready is not used (email_channels.readiness)."""

    provider = models.CharField(max_length=16)
    sender = models.CharField(max_length=254, help_text="a sending domain or a mailbox")
    ready = models.BooleanField()
    reason = models.CharField(max_length=1000, blank=True, help_text="why not (reason codes)")
    details = models.JSONField(default=dict, blank=True, help_text="what the provider said")
    checked_at = models.DateTimeField()
    changed_at = models.DateTimeField()

    class Meta:
        ordering = ["provider", "sender"]
        constraints = [
            models.UniqueConstraint(fields=["provider", "sender"], name="sendercheck_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.provider} {self.sender}: {'ready' if self.ready else 'not ready'}"
