"""WhatsApp sending numbers and their durable daily new-contact quota."""

from __future__ import annotations

from django.db import models
from django.db.models import F, Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from cerniq import integrations
from cerniq.models import E164_REGEX, Tenant
from whatsapp.queues import phone_queue

DEFAULT_DAILY_LIMIT = 200
MAX_DAILY_LIMIT = 1000  # far above what WhatsApp tolerates from one number: a typo guard


class PhoneQuerySet(models.QuerySet):
    def usable(self) -> PhoneQuerySet:
        """Phones that may send now (the one definition: ACTIVE and enabled)."""
        return self.filter(status=Phone.Status.ACTIVE, is_enabled=True)


class Phone(models.Model):
    class Status(models.TextChoices):
        ACTIVE = "ACTIVE", _("Active")
        OFFLINE = "OFFLINE", _("Offline")
        BANNED = "BANNED", _("Banned")
        PAUSED = "PAUSED", _("Paused")

    class Health(models.TextChoices):
        """What the health guard (outreach.phone_health) did to the number."""

        OK = "OK", _("Healthy")
        THROTTLED = "THROTTLED", _("Throttled")
        PAUSED = "PAUSED", _("Paused by the health guard")

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="phones")
    number = models.CharField(max_length=16, help_text="E.164")
    label = models.CharField(max_length=64, blank=True)
    provider = models.CharField(
        max_length=16, choices=integrations.whatsapp_provider_choices, default=integrations.SANDBOX
    )
    account_id = models.CharField(
        max_length=128, blank=True, help_text="TimelinesAI account JID or Cloud API phone id"
    )
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.ACTIVE)
    status_reason = models.CharField(max_length=255, blank=True)
    status_changed_at = models.DateTimeField(null=True, blank=True)
    is_enabled = models.BooleanField(default=True)
    daily_limit = models.PositiveIntegerField(default=DEFAULT_DAILY_LIMIT)

    total_sent = models.PositiveIntegerField(default=0)
    total_new_contacts = models.PositiveIntegerField(default=0)
    # Pacing state (outreach.pacing): a send in flight holds `busy_until` (a lease that
    # expires on its own if the sender dies); `next_send_at` is when the gap after the
    # last send ends.
    busy_until = models.DateTimeField(null=True, blank=True)
    next_send_at = models.DateTimeField(null=True, blank=True)
    # When the phone's next scheduled run (outreach.pacing.run_phone) is due; None when no
    # run is scheduled. Lets many enqueuers share one run instead of each adding one.
    wake_at = models.DateTimeField(null=True, blank=True)
    # A run in progress holds the phone until then (a lease that expires on its own if its
    # worker dies): a second run finds it held and leaves, the reconciler does not wake it.
    run_until = models.DateTimeField(null=True, blank=True)
    last_sent_at = models.DateTimeField(null=True, blank=True)
    last_health_check_at = models.DateTimeField(null=True, blank=True)
    connected_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    # Warm-up (whatsapp.warmup): a number new to outreach, or back from a ban or a long
    # disconnection, ramps up to its daily limit from here. Empty: an established number.
    warmup_started_at = models.DateTimeField(null=True, blank=True, default=timezone.now)
    # The health guard (outreach.phone_health): its last score (0-100, empty before the
    # first run), what it did and why. A throttled number gets a share of its limit
    # (whatsapp.quota.day_limits); after an operator resumes a number the guard paused, the
    # guard does not pause it again before `health_hold_until`.
    health_score = models.PositiveSmallIntegerField(null=True, blank=True)
    health = models.CharField(max_length=16, choices=Health.choices, default=Health.OK)
    health_reason = models.CharField(max_length=255, blank=True)
    health_changed_at = models.DateTimeField(null=True, blank=True)
    health_scored_at = models.DateTimeField(null=True, blank=True)
    health_hold_until = models.DateTimeField(null=True, blank=True)
    # WhatsApp's restriction signs (outreach.restriction_signs): new chats failing while
    # existing ones go, new contacts never delivered, a restriction the provider reports.
    # Until `new_contacts_paused_until` the number starts no new chat (its day limit is 0;
    # follow-ups in its existing chats go on), then it ramps up again from warm-up day 1.
    # `restrictions` counts them: each one rests the number longer.
    new_contacts_paused_until = models.DateTimeField(null=True, blank=True)
    restriction_reason = models.CharField(max_length=255, blank=True, default="", db_default="")
    restrictions = models.PositiveSmallIntegerField(default=0, db_default=0)

    objects = PhoneQuerySet.as_manager()

    class Meta:
        ordering = ["tenant", "number"]
        constraints = [
            models.UniqueConstraint(fields=["tenant", "number"], name="phone_unique_per_tenant"),
            models.CheckConstraint(condition=Q(number__regex=E164_REGEX), name="phone_e164"),
            models.CheckConstraint(
                condition=Q(daily_limit__lte=MAX_DAILY_LIMIT), name="phone_daily_limit_bounded"
            ),
            models.CheckConstraint(
                condition=Q(health_score__isnull=True) | Q(health_score__lte=100),
                name="phone_health_score_0_100",
            ),
        ]
        indexes = [models.Index(fields=["tenant", "status", "is_enabled"], name="phone_usable_idx")]

    def __str__(self) -> str:
        return self.label or self.number

    @property
    def new_contacts_paused(self) -> bool:
        until = self.new_contacts_paused_until
        return until is not None and until > timezone.now()

    @property
    def is_usable(self) -> bool:
        return self.status == self.Status.ACTIVE and self.is_enabled

    @property
    def queue_name(self) -> str:
        """Dramatiq queue of this phone's planned runs (`wa.phone_07`)."""
        return phone_queue(self.pk)


class QuotaUsage(models.Model):
    """New contacts used by a phone on one local calendar day: the durable quota truth."""

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="+")
    phone = models.ForeignKey(Phone, on_delete=models.CASCADE, related_name="quota_usage")
    day = models.DateField(help_text="calendar day in the tenant's time zone")
    used = models.PositiveIntegerField(default=0)
    limit = models.PositiveIntegerField(default=DEFAULT_DAILY_LIMIT)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-day", "phone"]
        constraints = [
            models.UniqueConstraint(fields=["phone", "day"], name="quota_unique_phone_day"),
            models.CheckConstraint(
                condition=Q(used__lte=F("limit")), name="quota_used_within_limit"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.phone} {self.day}: {self.used}/{self.limit}"

    @property
    def remaining(self) -> int:
        return max(self.limit - self.used, 0)


class PhoneStatusChange(models.Model):
    """A phone's status history, written by whatsapp.phones (the one place that changes
    it): the health guard counts recent disconnections from it."""

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="+")
    phone = models.ForeignKey(Phone, on_delete=models.CASCADE, related_name="status_changes")
    status = models.CharField(max_length=16, choices=Phone.Status.choices)
    reason = models.CharField(max_length=255, blank=True)
    at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-at"]
        indexes = [models.Index(fields=["phone", "status", "at"], name="phone_status_change_idx")]

    def __str__(self) -> str:
        return f"{self.phone_id} {self.status} {self.at:%Y-%m-%d %H:%M}"


class WarmupPlan(models.Model):
    """A tenant's warm-up ramp: `steps` is [[from day, new contacts a day], ...] (day 1 is
    the day the ramp starts); without a row the default ramp applies (whatsapp.warmup)."""

    tenant = models.OneToOneField(Tenant, on_delete=models.CASCADE, related_name="warmup_plan")
    steps = models.JSONField()
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"warm-up of {self.tenant}: {self.steps}"
