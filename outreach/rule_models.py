"""Lead rules: what to do with a lead the moment it is created (outreach.lead_rules), and
the record of each rule that took a lead. Loaded with the app's models (outreach.models
imports it).

A rule's conditions are all optional and must all hold; its actions are all optional (a
rule with none takes the lead and does nothing, which stops the rules after it). The
tenant's enabled rules are tried in `position` order and the first that matches wins.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from cerniq.models import Tenant

MAX_TAGS = 20  # tags a rule tests or adds
MAX_TAG = 40  # characters of one tag


class LeadRule(models.Model):
    """One automation rule of a workspace, applied to each lead created after it is saved."""

    class Source(models.TextChoices):
        """How the lead came in (what `lead_created` is told; not Lead.source, which keeps
        the import's own words such as "csv")."""

        IMPORT = "import", _("Import (CSV file or the import API)")
        API = "api", _("API (one lead)")
        PAGE = "page", _("Added by hand on the leads page")
        LEAD_ADS = "lead_ads", _("Meta Lead Ads form")

    class Has(models.TextChoices):
        """A yes/no condition that may also be left out."""

        ANY = "", _("Either")
        YES = "yes", _("Yes")
        NO = "no", _("No")

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="lead_rules")
    name = models.CharField(max_length=100)
    position = models.PositiveIntegerField(default=1)
    enabled = models.BooleanField(default=True)
    # --- conditions (empty: any) ---
    source = models.CharField(max_length=16, choices=Source.choices, blank=True)
    form_id = models.CharField(max_length=64, blank=True, help_text="a Meta Lead Ads form id")
    county = models.CharField(max_length=64, blank=True)
    tags = models.JSONField(default=list, blank=True, help_text="any of these tags")
    has_phone = models.CharField(max_length=3, choices=Has.choices, blank=True)
    has_email = models.CharField(max_length=3, choices=Has.choices, blank=True)
    # --- actions (empty: none) ---
    # A sequence or phone a rule uses cannot be deleted alone (RESTRICT); a colleague who
    # leaves is simply no longer assigned.
    sequence = models.ForeignKey(
        "outreach.Sequence", on_delete=models.RESTRICT, null=True, blank=True, related_name="+"
    )
    operator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    phone = models.ForeignKey(
        "whatsapp.Phone", on_delete=models.RESTRICT, null=True, blank=True, related_name="+"
    )
    add_tags = models.JSONField(default=list, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["position", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["tenant", "name"], name="leadrule_unique_name"),
            models.CheckConstraint(
                condition=Q(source__in=["", "import", "api", "page", "lead_ads"]),
                name="leadrule_source_known",
            ),
            models.CheckConstraint(
                condition=Q(has_phone__in=["", "yes", "no"]) & Q(has_email__in=["", "yes", "no"]),
                name="leadrule_has_known",
            ),
        ]
        indexes = [models.Index(fields=["tenant", "position"], name="leadrule_tenant_order_idx")]

    def __str__(self) -> str:
        return self.name


class RuleFiring(models.Model):
    """A rule took a lead: what it did and what it was refused, as reason codes (shown on
    the lead's page in the reader's language). A lead no rule took has no row."""

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="+")
    lead = models.ForeignKey("outreach.Lead", on_delete=models.CASCADE, related_name="rule_firings")
    rule = models.ForeignKey(
        LeadRule, on_delete=models.SET_NULL, null=True, blank=True, related_name="firings"
    )
    rule_name = models.CharField(max_length=100, help_text="the rule's name when it fired")
    source = models.CharField(max_length=16, choices=LeadRule.Source.choices)
    form_id = models.CharField(max_length=64, blank=True)
    requested_contact = models.BooleanField(default=False)
    # Stored reason codes (outreach.lead_rules.reasons): done, and refused with the reason.
    done = models.JSONField(default=list, blank=True)
    refused = models.JSONField(default=list, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        indexes = [
            # The rules page: leads each rule took in the last 7 days.
            models.Index(fields=["tenant", "rule", "created_at"], name="rulefiring_rule_idx"),
            models.Index(fields=["lead", "created_at"], name="rulefiring_lead_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.rule_name} took lead {self.lead_id}"
