"""What the Meta integration keeps: the approved WhatsApp templates our template versions
send as, the sends Meta confirmed (to reconcile a lost answer), the portfolio's messaging
limit, and the Lead Ads forms and leads."""

from __future__ import annotations

import re

from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from cerniq.models import Tenant

PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z0-9_]+)\s*\}\}")


class ApprovedTemplate(models.Model):
    """A template version of ours as a template Meta approved: outside the 24-hour
    customer-service window the Cloud API sends only these. Spintax cannot vary an approved
    text, so A/B testing on the Cloud API is between versions, each approved on its own."""

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="+")
    template_version = models.OneToOneField(
        "outreach.TemplateVersion", on_delete=models.CASCADE, related_name="approved_template"
    )
    name = models.CharField(
        max_length=512, help_text="The template's name in WhatsApp Manager, e.g. intro_ferma_ro"
    )
    language = models.CharField(max_length=15, default="ro", help_text="e.g. ro, en_US")
    # Our variables, in the order of the template's {{1}}, {{2}}, … (or its named
    # parameters, when `named`).
    parameters = models.JSONField(default=list, blank=True)
    named = models.BooleanField(default=False, help_text="The template uses named parameters")
    text = models.TextField(help_text="The approved body, with {{1}}… where the values go")

    class Header(models.TextChoices):
        NONE = "", _("No media header")
        IMAGE = "image", _("An image header")
        DOCUMENT = "document", _("A document (PDF) header")

    # A media header carries the version's image or PDF outside the 24-hour window
    # (integrations.meta.cloud): its kind must be the file's.
    header = models.CharField(
        max_length=8, choices=Header.choices, blank=True, default="", db_default=""
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.CheckConstraint(condition=~Q(name=""), name="meta_template_named"),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.language})"

    def render(self, values: list[str]) -> str:
        """The approved text as the person reads it."""
        by_key = {
            (name if self.named else str(index)): value
            for index, (name, value) in enumerate(zip(self.parameters, values, strict=False), 1)
        }
        return PLACEHOLDER.sub(lambda m: by_key.get(m.group(1), m.group(0)), self.text)


class SeenSend(models.Model):
    """A send Meta reported (a status webhook), by the reference we gave it
    (`biz_opaque_callback_data` = our idempotency key): how a send whose answer was lost is
    found again, the Cloud API having no idempotency key and no list of sent messages."""

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="+")
    reference = models.CharField(max_length=512)
    wamid = models.CharField(max_length=255)
    recipient = models.CharField(max_length=160, blank=True)
    seen_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["tenant", "reference"], name="meta_seen_once"),
        ]

    def __str__(self) -> str:
        return self.wamid


class MessagingLimit(models.Model):
    """The business portfolio's messaging limit: how many people outside a customer-service
    window all its numbers together may start a conversation with in a moving 24 hours
    (250, 2,000, 10,000, 100,000; None: unlimited). Set by an admin, and updated by Meta's
    `business_capability_update` webhook."""

    tenant = models.OneToOneField(Tenant, on_delete=models.CASCADE, related_name="+")
    unique_users_per_day = models.PositiveIntegerField(null=True, blank=True, default=250)
    source = models.CharField(max_length=32, default="default")
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return str(self.unique_users_per_day or "unlimited")


class LeadForm(models.Model):
    """A Lead Ads form we take leads from, and how its questions map to a lead."""

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="+")
    page_id = models.CharField(max_length=32)
    form_id = models.CharField(max_length=32)
    name = models.CharField(max_length=200, blank=True)
    # Our lead field → the form's question key ({"phone": "phone_number", "email": "email",
    # "contact_name": "full_name", "name": "company_name", "cui": "cui", "county": "judet"}).
    field_map = models.JSONField(default=dict, blank=True)
    requires_cui = models.BooleanField(default=False)
    # The person asked to be contacted by submitting the form: the first message goes out
    # fast and is not a cold contact (outreach.lead_rules).
    asks_for_contact = models.BooleanField(default=True)
    # The consent text the form showed, kept as the evidence of the lawful basis.
    consent_text = models.TextField(blank=True)
    is_enabled = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["tenant", "form_id"], name="meta_form_once"),
            models.CheckConstraint(
                condition=Q(form_id__regex=r"^[0-9]{1,32}$") & Q(page_id__regex=r"^[0-9]{1,32}$"),
                name="meta_form_ids_numeric",
            ),
        ]

    def __str__(self) -> str:
        return self.name or self.form_id


class LeadAd(models.Model):
    """One Lead Ads submission: notified (ids only), fetched from the Graph API, made a
    lead, or refused with the reason."""

    class Status(models.TextChoices):
        NOTIFIED = "notified", _("being read")
        CREATED = "created", _("lead created")
        MERGED = "merged", _("matched an existing lead")
        REFUSED = "refused", _("refused")
        FAILED = "failed", _("could not be read")

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="+")
    leadgen_id = models.CharField(max_length=32)
    page_id = models.CharField(max_length=32)
    form_id = models.CharField(max_length=32)
    ad_id = models.CharField(max_length=32, blank=True)
    created_time = models.DateTimeField(null=True, blank=True)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.NOTIFIED)
    reason = models.CharField(max_length=500, blank=True)
    lead = models.ForeignKey(
        "outreach.Lead", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    answers = models.JSONField(default=dict, blank=True)  # field_data as fetched
    attempts = models.PositiveIntegerField(default=0)
    received_at = models.DateTimeField(auto_now_add=True)
    fetched_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["tenant", "leadgen_id"], name="meta_leadgen_once"),
        ]
        indexes = [models.Index(fields=["tenant", "status"], name="meta_leadad_status_idx")]

    def __str__(self) -> str:
        return self.leadgen_id
