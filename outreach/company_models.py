"""Companies: the firm several contacts (leads) belong to. Loaded with the app's models
(outreach.models imports it).

A lead is a person at a company; the company holds what is the firm's (its name, CUI,
county, locality, custom fields). The CUI is unique per tenant, so two contacts of one
firm share one row, and a reply from one of them can stop, pause or leave alone the
others' sequences (Sequence.company_reply, outreach.company_stop).
"""

from __future__ import annotations

from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from cerniq.collation import NAME_COLLATION
from cerniq.models import Tenant


class Company(models.Model):
    """A firm of a tenant, with its contacts (`contacts`: leads)."""

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="companies")
    name = models.CharField(_("company name"), max_length=255, db_collation=NAME_COLLATION)
    cui = models.CharField("CUI", max_length=12, blank=True, help_text="Romanian tax id, digits")
    county = models.CharField(max_length=64, blank=True, db_collation=NAME_COLLATION)
    locality = models.CharField(max_length=128, blank=True, db_collation=NAME_COLLATION)
    custom_fields = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name"]
        verbose_name_plural = "companies"
        constraints = [
            models.UniqueConstraint(
                fields=["tenant", "cui"], condition=~Q(cui=""), name="company_unique_cui"
            ),
            models.CheckConstraint(
                condition=Q(cui="") | Q(cui__regex=r"^[0-9]{2,10}$"), name="company_cui_digits"
            ),
        ]
        indexes = [models.Index(fields=["tenant", "name", "id"], name="company_tenant_name_idx")]

    def __str__(self) -> str:
        return self.name
