"""A brochure or price list uploaded to draft templates from (outreach.brochures).

Loaded with the app's models (outreach.models imports it). The row is the job: the page
follows its status while a worker reads the PDF and drafts; what the drafts were made
from (the text read, the prompt, the backend, why the offline drafts were used) stays on
it, and each drafted template version points back to it (TemplateVersion.brochure).
"""

from __future__ import annotations

import uuid
from datetime import timedelta

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from cerniq.models import Tenant


def _brochure_path(instance: Brochure, filename: str) -> str:
    """Under the tenant's own folder, in a folder of its own (two uploads of one name)."""
    return f"brochures/{instance.tenant_id}/{uuid.uuid4().hex}/{filename}"


class Brochure(models.Model):
    """An uploaded PDF and the job that reads it and drafts templates from it."""

    class Status(models.TextChoices):
        QUEUED = "queued", _("Waiting for a worker")
        EXTRACTING = "extracting", _("Reading the PDF")
        DRAFTING = "drafting", _("Drafting the templates")
        DONE = "done", _("Drafts ready")
        FAILED = "failed", _("Failed")

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="brochures")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    file = models.FileField(upload_to=_brochure_path, max_length=300)
    file_name = models.CharField(max_length=200)
    size = models.PositiveIntegerField()
    pages = models.PositiveIntegerField(default=0)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.QUEUED)
    # Why the job failed: a reason code (outreach.brochures.reasons), shown translated.
    error = models.CharField(max_length=255, blank=True)
    # What was read: the text layer (bounded), its headings and its priced products.
    text = models.TextField(blank=True)
    headings = models.JSONField(default=list, blank=True)
    products = models.JSONField(default=list, blank=True)
    # How the drafts were made: "openai_compatible" (and its model) or "offline"; the
    # messages sent to the model ("" when none was sent); why the offline drafts were used.
    backend = models.CharField(max_length=100, blank=True)
    prompt = models.TextField(blank=True)
    fallback_reason = models.CharField(max_length=255, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        indexes = [models.Index(fields=["tenant", "-created_at"], name="brochure_tenant_recent")]

    def __str__(self) -> str:
        return f"{self.file_name} ({self.status})"

    STEPS = (Status.QUEUED, Status.EXTRACTING, Status.DRAFTING, Status.DONE)
    # A job still running this long after it was queued or started lost its worker (or
    # its broker message): it may be run again (the actor's time limit is well under it).
    STALE_AFTER = timedelta(minutes=15)

    @property
    def steps(self) -> list[tuple[str, str]]:
        """Each step's label and state ("done", "current", "todo") for the job's page."""
        at = self.STEPS.index(self.status) if self.status in self.STEPS else -1
        finished = self.status == self.Status.DONE
        return [
            (str(step.label), "done" if i < at or finished else "current" if i == at else "todo")
            for i, step in enumerate(self.STEPS)
        ]

    @property
    def model_name(self) -> str:
        """The AI model that drafted ("" for the offline rules)."""
        return self.backend.partition(":")[2] if self.backend.startswith("ai") else ""

    @property
    def running(self) -> bool:
        return self.status in (self.Status.QUEUED, self.Status.EXTRACTING, self.Status.DRAFTING)

    @property
    def stale(self) -> bool:
        since = self.started_at or self.created_at
        return self.running and since is not None and since < timezone.now() - self.STALE_AFTER

    @property
    def offline(self) -> bool:
        """The drafts were built by our rules, not by a model."""
        return self.backend == "offline"
