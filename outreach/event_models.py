"""What automation decided for a lead's sequence without sending anything. Loaded with
the app's models (outreach.models imports it); written by dispatch (a step's condition,
outreach.step_conditions) and by a reply (its company's other contacts,
outreach.company_stop; a nurture sequence going on, hitl.reply_holds), shown on the
lead's page so that no step disappears without a reason.
"""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _

from cerniq.models import Tenant


class SequenceEvent(models.Model):
    """One decision about one lead's sequence; `reason` is a stored reason code
    (cerniq.reasons) saying why."""

    class Kind(models.TextChoices):
        STEP_SKIPPED = "step_skipped", _("Step skipped")
        COMPANY_STOPPED = "company_stopped", _("Stopped: a colleague replied")
        COMPANY_PAUSED = "company_paused", _("Paused: a colleague replied")
        COMPANY_CONTINUED = "company_continued", _("Continued: a colleague replied")
        CONTINUED = "continued", _("Continued after a reply")

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="+")
    lead = models.ForeignKey(
        "outreach.Lead", on_delete=models.CASCADE, related_name="sequence_events"
    )
    enrollment = models.ForeignKey(
        "outreach.Enrollment", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    step = models.ForeignKey(
        "outreach.SequenceStep",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    kind = models.CharField(max_length=24, choices=Kind.choices)
    reason = models.CharField(max_length=255, blank=True)
    created_at = models.DateTimeField()

    class Meta:
        ordering = ["-created_at", "-pk"]
        indexes = [models.Index(fields=["lead", "created_at"], name="seqevent_lead_idx")]

    def __str__(self) -> str:
        return f"{self.kind} ({self.lead_id})"
