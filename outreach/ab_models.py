"""A/B decisions: what the rule (outreach.ab_winners.rule) decided about a template's
versions, on which figures, and what became of it. Loaded with the app's models
(outreach.models imports it).

A row is written when the rule finds a winner: a suggestion waiting for a person
(`SUGGESTED`, at most one per template), or applied at once in automatic mode. It is kept
as history whatever happens next: applied (by whom, or by the automation), dismissed (by
whom), or withdrawn (`SUPERSEDED`: the figures or the versions changed before anyone
acted, or A/B decisions were turned off).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from cerniq.models import Tenant


class ABDecision(models.Model):
    """One decision of the A/B rule on one template."""

    class Status(models.TextChoices):
        SUGGESTED = "suggested", _("Waiting for a person to confirm")
        APPLIED = "applied", _("Applied")
        DISMISSED = "dismissed", _("Dismissed")
        SUPERSEDED = "superseded", _("Withdrawn")

    class Withdrawn(models.TextChoices):
        """Why a suggestion was withdrawn before anyone acted on it."""

        NONE = "", _("(not withdrawn)")
        FIGURES = "figures", _("the figures no longer show this winner")
        VERSIONS = "versions", _("the versions it compared changed")
        OFF = "off", _("A/B decisions were turned off for the template")

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="+")
    template = models.ForeignKey(
        "outreach.Template", on_delete=models.CASCADE, related_name="ab_decisions"
    )
    winner = models.ForeignKey(
        "outreach.TemplateVersion", on_delete=models.CASCADE, related_name="+"
    )
    # The ids of the versions it retires (the figures below name every version compared).
    losers = models.JSONField(default=list)
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.SUGGESTED)
    withdrawn_because = models.CharField(
        max_length=12, choices=Withdrawn.choices, blank=True, default=""
    )
    # The rule and its thresholds (outreach.ab_winners.rule.Rule.as_dict), each version's
    # figures (Standing.as_dict) and the changes (Change.as_dict): planned while suggested,
    # as made once applied.
    rule = models.JSONField(default=dict)
    figures = models.JSONField(default=list)
    changes = models.JSONField(default=list)
    automatic = models.BooleanField(default=False, help_text="applied by the automation")
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    decided_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField()
    updated_at = models.DateTimeField(help_text="when its figures were last counted")

    class Meta:
        ordering = ["-created_at", "-pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["template"],
                condition=Q(status="suggested"),
                name="abdecision_one_open_per_template",
            ),
            models.CheckConstraint(
                condition=Q(status__in=["suggested", "applied", "dismissed", "superseded"]),
                name="abdecision_status_known",
            ),
            models.CheckConstraint(
                condition=Q(status="suggested", decided_at__isnull=True)
                | (~Q(status="suggested") & Q(decided_at__isnull=False)),
                name="abdecision_decided_when_closed",
            ),
        ]
        indexes = [
            models.Index(fields=["template", "created_at"], name="abdecision_template_idx"),
            models.Index(fields=["tenant", "status"], name="abdecision_tenant_status_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.template_id}: {self.get_status_display()} ({self.created_at:%Y-%m-%d})"

    @property
    def key(self) -> tuple[int, tuple[int, ...]]:
        """Its winner and losers: two decisions with the same key decide the same thing."""
        return self.winner_id, tuple(sorted(self.losers))
