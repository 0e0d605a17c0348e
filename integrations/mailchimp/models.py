"""A tenant's Mailchimp audience sync and one record per lead synced (or not, and why)."""

from __future__ import annotations

from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from cerniq.models import Tenant
from outreach.models import Lead, Stage


def default_stages() -> list[str]:
    """A lead that answered with interest, or bought: the people a newsletter is for."""
    return [Stage.WARM_REPLY, Stage.CONVERTED]


class MailchimpAudience(models.Model):
    """The tenant's audience and what goes into it (Settings → Mailchimp, admins only), and
    the state of its last backfill. One per tenant."""

    class StatusIfNew(models.TextChoices):
        # No "pending": Mailchimp mails a confirmation to a pending address, which for a
        # person who unsubscribed once would be asking them to subscribe again.
        SUBSCRIBED = "subscribed", _("Subscribed (receives your campaigns)")
        TRANSACTIONAL = "transactional", _("Non-subscribed (a contact, no campaigns)")

    tenant = models.OneToOneField(Tenant, on_delete=models.CASCADE, related_name="+")
    enabled = models.BooleanField(default=False)
    list_id = models.CharField("audience ID", max_length=32, blank=True)
    # The stages whose leads are added (outreach.models.Stage values).
    stages = models.JSONField(default=default_stages, blank=True)
    status_if_new = models.CharField(
        max_length=16, choices=StatusIfNew.choices, default=StatusIfNew.SUBSCRIBED
    )
    tag_stage = models.BooleanField(default=True)
    tag_county = models.BooleanField(default=True)
    tag_crop = models.BooleanField(default=False)
    # The lead's custom field holding its main crop (the imports' column).
    crop_field = models.CharField(max_length=64, blank=True, default="cultura_principala")
    # The audience's merge tags (FNAME, LNAME, PHONE, COMPANY …), read when saved: only
    # those are sent.
    merge_fields = models.JSONField(default=list, blank=True)
    backfill_requested_at = models.DateTimeField(null=True, blank=True)
    backfill_finished_at = models.DateTimeField(null=True, blank=True)
    last_error = models.CharField(max_length=500, blank=True)
    last_error_at = models.DateTimeField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(status_if_new__in=["subscribed", "transactional"]),
                name="mailchimpaudience_status_known",
            ),
            models.CheckConstraint(
                condition=Q(enabled=False) | ~Q(list_id=""),
                name="mailchimpaudience_enabled_has_list",
            ),
        ]

    def __str__(self) -> str:
        return f"Mailchimp audience {self.list_id or '-'} of tenant {self.tenant_id}"


class MailchimpMember(models.Model):
    """One lead's place in the audience: what was last sent (its hash and a digest, so an
    unchanged lead costs no call), what Mailchimp says of the address, and, when it is not
    there, why (`reason`, a code of integrations/mailchimp/reasons.py; `detail`: Mailchimp's
    own text)."""

    class State(models.TextChoices):
        QUEUED = "queued", _("Waiting")
        SYNCED = "synced", _("Synced")
        NOT_SYNCED = "not_synced", _("Not synced")
        FAILED = "failed", _("Failed")

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="+")
    lead = models.OneToOneField(Lead, on_delete=models.CASCADE, related_name="+")
    list_id = models.CharField(max_length=32)
    subscriber_hash = models.CharField(max_length=32, blank=True)  # md5 of the address
    digest = models.CharField(max_length=64, blank=True)  # of the member body last sent
    sent_tags = models.JSONField(default=list, blank=True)
    # What Mailchimp last said of the address: subscribed, unsubscribed, cleaned,
    # transactional, pending, archived, forgotten ("" when it never said).
    mailchimp_status = models.CharField(max_length=16, blank=True)
    state = models.CharField(max_length=12, choices=State.choices, default=State.QUEUED)
    reason = models.CharField(max_length=255, blank=True)
    detail = models.CharField(max_length=500, blank=True)
    # The last thing Mailchimp told us that we did not apply (a refused address change).
    note = models.CharField(max_length=255, blank=True)
    # Provider errors so far, per class of the retry table (cerniq.retry).
    failures = models.JSONField(default=dict, blank=True)
    synced_at = models.DateTimeField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        indexes = [models.Index(fields=["tenant", "state"], name="mailchimpmember_state_idx")]
        constraints = [
            models.CheckConstraint(
                condition=Q(state__in=["queued", "synced", "not_synced", "failed"]),
                name="mailchimpmember_state_known",
            ),
        ]

    def __str__(self) -> str:
        return f"Mailchimp member of lead {self.lead_id} ({self.state})"
