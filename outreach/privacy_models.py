"""What was done for a person's rights: an erasure (who asked, when, what was blanked) and
a receipt per provider told of an opt-out or an erasure (outreach.erasure,
outreach.propagation). Loaded with the app's models (outreach.models imports it)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from cerniq.models import Tenant


class Erasure(models.Model):
    """Audit row of one erasure (GDPR art. 17): who asked, when, why, through what, and how
    many rows of each kind were blanked. It names nobody: the lead row it points to holds
    no personal field any more, and the provider answers are its receipts
    (`Propagation.erasure`)."""

    class Via(models.TextChoices):
        PAGE = "page", _("Lead page")
        API = "api", _("API")
        COMMAND = "command", _("Command line")
        RESTORE = "restore", _("Applied again after a restore")

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="+")
    lead = models.ForeignKey(
        "outreach.Lead", on_delete=models.SET_NULL, null=True, related_name="erasures"
    )
    lead_ref = models.PositiveBigIntegerField(help_text="the lead's id, kept if it is deleted")
    # Empty only for an erasure applied again after a restore whose user is gone.
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, related_name="+"
    )
    via = models.CharField(max_length=8, choices=Via.choices)
    reason = models.TextField()
    scrubbed = models.JSONField(default=dict, blank=True, help_text="rows blanked, by kind")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.CheckConstraint(condition=~Q(reason=""), name="erasure_has_reason"),
        ]

    def __str__(self) -> str:
        return f"erasure of lead {self.lead_ref}"


class Propagation(models.Model):
    """A receipt: one provider (or our own queues) told of one opt-out or erasure, with when
    it was asked, every attempt, the provider's answer and when it was applied. Pending and
    refused receipts are retried until done (outreach.propagation); a provider that keeps
    refusing raises an alert."""

    class Cause(models.TextChoices):
        OPT_OUT = "opt_out", _("Opt-out")
        ERASURE = "erasure", _("Erasure")

    class State(models.TextChoices):
        PENDING = "pending", _("Being applied")
        DONE = "done", _("Applied")
        REFUSED = "refused", _("Refused, retrying")

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="+")
    lead = models.ForeignKey(
        "outreach.Lead", on_delete=models.SET_NULL, null=True, related_name="propagations"
    )
    erasure = models.ForeignKey(
        Erasure, on_delete=models.CASCADE, null=True, blank=True, related_name="receipts"
    )
    cause = models.CharField(max_length=8, choices=Cause.choices)
    provider = models.CharField(max_length=32, help_text="an integration's key, or cerniq")
    action = models.CharField(max_length=32)
    # What to act on at the provider (its ids; an address to look up while pending).
    target = models.JSONField(default=dict, blank=True)
    state = models.CharField(max_length=8, choices=State.choices, default=State.PENDING)
    attempts = models.PositiveIntegerField(default=0)
    answer = models.JSONField(default=dict, blank=True, help_text="what the provider said")
    last_error = models.CharField(max_length=300, blank=True)
    requested_at = models.DateTimeField(help_text="when the person opted out or was erased")
    next_attempt_at = models.DateTimeField(null=True, blank=True)
    applied_at = models.DateTimeField(null=True, blank=True)
    alerted_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["pk"]
        constraints = [
            models.CheckConstraint(
                condition=Q(state="done", applied_at__isnull=False)
                | (~Q(state="done") & Q(applied_at__isnull=True)),
                name="propagation_applied_when_done",
            ),
        ]
        indexes = [
            # The sweep: what is due again.
            models.Index(
                fields=["next_attempt_at"],
                condition=~Q(state="done"),
                name="propagation_due_idx",
            ),
            models.Index(fields=["lead", "created_at"], name="propagation_lead_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.cause} → {self.provider} {self.action}: {self.state}"


class ContactBasis(models.Model):
    """The lawful basis for writing to a lead on a channel, with its evidence (issue #22
    §1; outreach.lawful_basis). Each recording is a new row: the newest per lead and
    channel is the current one, the older ones its history."""

    class Channel(models.TextChoices):
        WHATSAPP = "whatsapp", _("WhatsApp")
        EMAIL = "email", _("Email")

    class Basis(models.TextChoices):
        CONSENT = "consent", _("Consent")
        CUSTOMER = "customer", _("Existing customer (soft opt-in)")
        LEGITIMATE_INTEREST = "legitimate_interest", _("Legitimate interest")
        NONE = "none", _("None")

    class Source(models.TextChoices):
        PAGE = "page", _("Recorded on the lead page")
        IMPORT = "import", _("Import file")
        API = "api", _("API")
        FORM = "form", _("Web form")
        LEAD_ADS = "lead_ads", _("Lead Ads form")
        REPLY = "reply", _("The lead's reply")

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="+")
    lead = models.ForeignKey("outreach.Lead", on_delete=models.CASCADE, related_name="bases")
    channel = models.CharField(max_length=8, choices=Channel.choices)
    basis = models.CharField(max_length=20, choices=Basis.choices)
    source = models.CharField(max_length=8, choices=Source.choices)
    # Where exactly: "leads.csv, line 12", an API key's name, "reply #812", a form's id.
    source_detail = models.CharField(max_length=255, blank=True)
    # The consent's wording or the URL of the page it was given on, the contract's number.
    evidence = models.TextField(blank=True)
    given_at = models.DateTimeField(null=True, blank=True, help_text="when it was given")
    recorded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        indexes = [
            models.Index(fields=["lead", "channel", "-created_at"], name="basis_current_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.channel}: {self.basis}"

    @property
    def lawful(self) -> bool:
        return self.basis != self.Basis.NONE
