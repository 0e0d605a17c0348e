"""Leads, their journeys through the stages, messages, sequences, templates, stats."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.db.models.functions import Coalesce, Greatest, Upper
from django.utils.translation import gettext_lazy as _

from cerniq.collation import NAME_COLLATION
from cerniq.models import E164_REGEX, Tenant
from outreach.lead_search import LeadQuerySet, search_text_of, writes_sources


class Stage(models.TextChoices):
    COLD = "COLD", _("Cold")
    CONTACTED_WA = "CONTACTED_WA", _("Contacted (WhatsApp)")
    CONTACTED_EMAIL = "CONTACTED_EMAIL", _("Contacted (email)")
    WARM_REPLY = "WARM_REPLY", _("Warm reply")
    NEGOTIATION = "NEGOTIATION", _("Negotiation")
    CONVERTED = "CONVERTED", _("Converted")
    PAUSED = "PAUSED", _("Paused")
    DEAD = "DEAD", _("Dead")


class Channel(models.TextChoices):
    WHATSAPP = "WHATSAPP", _("WhatsApp")
    EMAIL_COLD = "EMAIL_COLD", _("Cold email")
    EMAIL_WARM = "EMAIL_WARM", _("Warm email")


class Priority(models.TextChoices):
    URGENT = "URGENT", _("Urgent")
    HIGH = "HIGH", _("High")
    MEDIUM = "MEDIUM", _("Medium")
    LOW = "LOW", _("Low")


# A reply the triage scores at this sentiment or above is positive: the analytics count it
# so, and routing answers it with an AI reply (docs/design.md, "sentiment ≥ 50").
POSITIVE_SENTIMENT = 50


class Lead(models.Model):
    """A person to contact at a company (`company`; outreach.companies)."""

    class EmailStatus(models.TextChoices):
        VALID = "valid", _("Valid")
        RISKY = "risky", _("Risky / catch-all")
        INVALID = "invalid", _("Invalid")
        UNKNOWN = "unknown", _("Unknown")
        # Learnt from the email providers (outreach.email_events): never sent to again.
        BOUNCED = "bounced", _("Bounced")
        UNSUBSCRIBED = "unsubscribed", _("Unsubscribed")
        COMPLAINED = "complained", _("Complained (spam)")

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="leads")
    # The firm this person works for (outreach.company_models); several leads may share it.
    company = models.ForeignKey(
        "outreach.Company", on_delete=models.RESTRICT, related_name="contacts"
    )
    # Read copies of the company's fields, written only by outreach.companies (the list
    # sorts, filters and searches them on the lead's own indexes).
    # Romanian order on PostgreSQL (ICU) and SQLite (cerniq.collation): Ș after S, Ț after T.
    name = models.CharField("company name", max_length=255, db_collation=NAME_COLLATION)
    cui = models.CharField("CUI", max_length=12, blank=True, help_text="Romanian tax id, digits")
    county = models.CharField(max_length=64, blank=True, db_collation=NAME_COLLATION)
    locality = models.CharField(max_length=128, blank=True, db_collation=NAME_COLLATION)
    contact_name = models.CharField(max_length=200, blank=True, db_collation=NAME_COLLATION)
    phone = models.CharField(max_length=16, blank=True, help_text="E.164")
    # None: nobody has checked the number yet; True: a WhatsApp message reached it; False:
    # not on WhatsApp (the provider said so, or the import's check did). outreach.readiness.
    phone_reachable = models.BooleanField(null=True, blank=True, default=None)
    whatsapp_user_id = models.CharField(
        max_length=160,
        blank=True,
        default="",
        db_default="",
        help_text="WhatsApp's business-scoped user id (BSUID), learnt from the provider; "
        "finds the lead when a message carries no phone number",
    )
    email = models.EmailField(blank=True)
    email_status = models.CharField(
        max_length=16, choices=EmailStatus.choices, default=EmailStatus.UNKNOWN
    )
    custom_fields = models.JSONField(default=dict, blank=True)
    source = models.CharField(max_length=64, blank=True)
    tags = models.JSONField(default=list, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    # Folded name, contact, email and phone: what the leads search matches (lead_search).
    search_text = models.TextField(editable=False, blank=True, default="")
    # The person asked to be erased (outreach.erasure): personal fields blanked, counts kept.
    erased_at = models.DateTimeField(null=True, blank=True, editable=False)

    objects = LeadQuerySet.as_manager()

    class Meta:
        ordering = ["name"]
        constraints = [
            # No unique CUI: a company's contacts share it (Company's is unique).
            models.CheckConstraint(
                condition=Q(phone="") | Q(phone__regex=E164_REGEX), name="lead_phone_e164"
            ),
            models.CheckConstraint(
                condition=Q(cui="") | Q(cui__regex=r"^[0-9]{2,10}$"), name="lead_cui_digits"
            ),
        ]
        indexes = [
            models.Index(fields=["tenant", "phone"], name="lead_tenant_phone_idx"),
            models.Index(fields=["tenant", "email"], name="lead_tenant_email_idx"),
            models.Index(fields=["tenant", "whatsapp_user_id"], name="lead_tenant_wa_user_idx"),
            models.Index(fields=["tenant", "county"], name="lead_tenant_county_idx"),
            # A CUI searched whole (outreach.lead_filters): the dropped unique constraint's
            # index, kept.
            models.Index(
                fields=["tenant", "cui"], condition=~Q(cui=""), name="lead_tenant_cui_idx"
            ),
            # The leads page: its default order, newest-first order, county filter (iexact).
            # Its search (LIKE on search_text) uses a trigram GIN index on PostgreSQL,
            # created in migration 0014_lead_search_text (not declared here: SQLite has no
            # GIN).
            models.Index(fields=["tenant", "name", "id"], name="lead_tenant_name_idx"),
            models.Index(fields=["tenant", "created_at", "id"], name="lead_tenant_created_idx"),
            models.Index(F("tenant"), Upper("county"), name="lead_tenant_county_upper_idx"),
        ]

    def __str__(self) -> str:
        return self.name

    def save(self, *args, **kwargs) -> None:
        """Every save that writes a source field rewrites the search text with it."""
        update_fields = kwargs.get("update_fields")
        if writes_sources(update_fields):
            self.search_text = search_text_of(self)
            if update_fields is not None:
                kwargs["update_fields"] = {*update_fields, "search_text"}
        super().save(*args, **kwargs)


def _last_activity() -> Greatest:
    """A conversation's last activity, as the inbox orders by it (hitl.inbox.activity):
    the later of the last reply and the last contact, whichever is set."""
    return Greatest(
        Coalesce("last_reply_at", "last_contact_at"),
        Coalesce("last_contact_at", "last_reply_at"),
    )


class Journey(models.Model):
    """Where a lead stands: stage, assigned phone, sequence position, opt-outs, review."""

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="journeys")
    lead = models.OneToOneField(Lead, on_delete=models.CASCADE, related_name="journey")
    stage = models.CharField(max_length=20, choices=Stage.choices, default=Stage.COLD)
    previous_stage = models.CharField(max_length=20, choices=Stage.choices, blank=True)
    stage_changed_at = models.DateTimeField(null=True, blank=True)

    assigned_phone = models.ForeignKey(
        "whatsapp.Phone", on_delete=models.SET_NULL, null=True, blank=True, related_name="journeys"
    )
    assigned_at = models.DateTimeField(null=True, blank=True)
    current_sequence = models.ForeignKey(
        "Sequence", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    sequence_step = models.PositiveIntegerField(default=0)
    next_action_at = models.DateTimeField(null=True, blank=True)

    requires_human_review = models.BooleanField(default=False)
    review_reason = models.CharField(max_length=255, blank=True)
    review_priority = models.CharField(max_length=8, choices=Priority.choices, blank=True)
    taken_over_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    taken_over_at = models.DateTimeField(null=True, blank=True)
    # The colleague the lead is given to (a lead rule): told of its hot replies when nobody
    # has taken it over or holds its review item (hitl.hot_replies.owner_of).
    operator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    # The person asked to be contacted (a form's "contact me", outreach.lead_rules): their
    # first message goes first and costs no cold new-contact quota (docs/lead-rules.md).
    contact_requested_at = models.DateTimeField(null=True, blank=True)

    whatsapp_opted_out = models.BooleanField(default=False)
    whatsapp_opted_out_at = models.DateTimeField(null=True, blank=True)
    email_opted_out = models.BooleanField(default=False)
    email_opted_out_at = models.DateTimeField(null=True, blank=True)

    last_channel = models.CharField(max_length=16, choices=Channel.choices, blank=True)
    first_contact_at = models.DateTimeField(null=True, blank=True)
    last_contact_at = models.DateTimeField(null=True, blank=True)
    last_reply_at = models.DateTimeField(null=True, blank=True)
    # The triage's intent of the lead's latest reply, "" until it is triaged (or when it
    # has none): kept by hitl.reply_intent, read by the inbox's "Hot" view and counts.
    # `db_default` too: a row inserted by SQL that does not name it (a bulk fill) gets "".
    last_reply_intent = models.CharField(max_length=40, blank=True, default="", db_default="")
    reply_count = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.CheckConstraint(condition=Q(stage__in=Stage.values), name="journey_stage_valid"),
            models.CheckConstraint(
                condition=Q(previous_stage="") | Q(previous_stage__in=Stage.values),
                name="journey_previous_stage_valid",
            ),
            models.CheckConstraint(
                condition=Q(requires_human_review=False) | ~Q(review_priority=""),
                name="journey_review_has_priority",
            ),
        ]
        indexes = [
            # The due-lead query: tenant + stage + next_action_at.
            models.Index(fields=["tenant", "stage", "next_action_at"], name="journey_due_idx"),
            # Dispatch takes first the few who asked to be contacted and wait for it.
            models.Index(
                fields=["tenant", "next_action_at"],
                condition=Q(contact_requested_at__isnull=False, first_contact_at__isnull=True),
                name="journey_asked_due_idx",
            ),
            models.Index(fields=["assigned_phone", "stage"], name="journey_phone_idx"),
            # The leads page sorted by stage / last contact (the lead id breaks ties).
            models.Index(fields=["stage", "lead"], name="journey_stage_lead_idx"),
            models.Index(fields=["last_contact_at", "lead"], name="journey_last_contact_idx"),
            # The whole list sorted by stage or phone, read from journeys alone, however
            # deep the page (console.views.lead_order).
            models.Index(fields=["tenant", "stage", "lead"], name="journey_tenant_stage_idx"),
            models.Index(
                fields=["tenant", "assigned_phone", "lead"], name="journey_tenant_phone_idx"
            ),
            # The leads page's "needs review" and "opted out" filters pick a few journeys.
            models.Index(
                fields=["lead"],
                condition=Q(requires_human_review=True),
                name="journey_needs_review_idx",
            ),
            models.Index(
                fields=["lead"],
                condition=Q(whatsapp_opted_out=True) | Q(email_opted_out=True),
                name="journey_opted_out_idx",
            ),
            # The inbox's unread badge on every page, its unread counts and its "anything
            # new?" stamp: the tenant's journeys that have a reply, with the columns the
            # counts test, so the counts read this index alone (hitl.inbox.unread_summary;
            # `include` is PostgreSQL's, SQLite indexes the two fields).
            models.Index(
                fields=["tenant", "last_reply_at"],
                include=[
                    *("lead", "assigned_phone", "requires_human_review", "taken_over_by"),
                    "last_reply_intent",
                ],
                condition=Q(last_reply_at__isnull=False),
                name="journey_replied_idx",
            ),
            # The inbox's stamp: the latest take-over and how many are taken over.
            models.Index(
                fields=["tenant", "taken_over_at"],
                condition=Q(taken_over_by__isnull=False),
                name="journey_taken_idx",
            ),
            # The inbox list's order, "last activity" (the later of the last reply and the
            # last contact), as an expression index: the send and reply paths already keep
            # both columns, so nothing else has to be kept in step (hitl.inbox.activity()).
            models.Index(
                F("tenant"),
                _last_activity().desc(),
                F("lead").desc(),
                name="journey_activity_idx",
            ),
            # The inbox's views of replied conversations ("Hot", "Unread") in the same
            # order: the walk skips the journeys only written to.
            models.Index(
                F("tenant"),
                _last_activity().desc(),
                F("lead").desc(),
                condition=Q(last_reply_at__isnull=False),
                name="journey_replied_activity_idx",
            ),
            # The inbox's "needs review" view in the same order (a few journeys).
            models.Index(
                F("tenant"),
                _last_activity().desc(),
                F("lead").desc(),
                condition=Q(requires_human_review=True),
                name="journey_review_activity_idx",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.lead} [{self.stage}]"


class StageTransition(models.Model):
    """Audit row for every stage change (written only by outreach.stages)."""

    # Who changed the stage when no person did (`by_system`), in the reader's words.
    SYSTEM_ACTORS = {
        "send": _("automatic send"),
        "inbound": _("the lead's reply"),
        "instantly": _("Instantly"),
        "api": _("API"),
        "withdrawal": _("withdrawal from a campaign"),
    }

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="+")
    journey = models.ForeignKey(Journey, on_delete=models.CASCADE, related_name="transitions")
    from_stage = models.CharField(max_length=20, choices=Stage.choices)
    to_stage = models.CharField(max_length=20, choices=Stage.choices)
    reason = models.CharField(max_length=255)
    by_user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    by_system = models.CharField(max_length=64, blank=True, help_text="e.g. dispatch, inbound")
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.CheckConstraint(
                condition=~Q(from_stage=F("to_stage")), name="transition_changes_stage"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.from_stage} → {self.to_stage}"

    @property
    def by_system_label(self) -> str:
        """`by_system` in the reader's language (an unknown value as it is)."""
        return str(self.SYSTEM_ACTORS.get(self.by_system, self.by_system))


class Template(models.Model):
    class Language(models.TextChoices):
        RO = "ro", "Română"
        EN = "en", _("English")

    class ABMode(models.TextChoices):
        """Whether the A/B rule only shows its figures, suggests, or applies its winners."""

        OFF = "off", _("Off: show the figures, change nothing")
        SUGGEST = "suggest", _("Suggest: a person confirms each winner")
        AUTO = "auto", _("Automatic: apply each winner at once")

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="templates")
    name = models.CharField(max_length=200)
    channel = models.CharField(max_length=16, choices=Channel.choices)
    language = models.CharField(max_length=2, choices=Language.choices, default=Language.RO)
    is_active = models.BooleanField(default=True)
    # What the A/B rule may do with the versions' weights (outreach.ab_winners).
    ab_mode = models.CharField(
        max_length=8, choices=ABMode.choices, default=ABMode.SUGGEST, db_default=ABMode.SUGGEST
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name"]
        constraints = [
            models.UniqueConstraint(fields=["tenant", "name"], name="template_unique_name"),
            models.CheckConstraint(
                condition=Q(ab_mode__in=["off", "suggest", "auto"]), name="template_ab_mode_known"
            ),
        ]

    def __str__(self) -> str:
        return self.name


class TemplateVersion(models.Model):
    """One A/B variant of a template: spintax body, weight, and its results."""

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="+")
    template = models.ForeignKey(Template, on_delete=models.CASCADE, related_name="versions")
    version = models.PositiveIntegerField()
    subject = models.CharField(max_length=255, blank=True)
    body = models.TextField()
    weight = models.PositiveIntegerField(default=100)
    is_active = models.BooleanField(default=True)
    sent_count = models.PositiveIntegerField(default=0)
    reply_count = models.PositiveIntegerField(default=0)
    positive_reply_count = models.PositiveIntegerField(default=0)
    # A draft (drafted from a brochure, outreach.brochures) is never active: dispatch and
    # the send path use active versions only, so a draft goes out once a person approves
    # it (outreach.template_versions.approve), and is an ordinary version from then on.
    draft = models.BooleanField(default=False, db_default=False)
    brochure = models.ForeignKey(
        "outreach.Brochure",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="versions",
        help_text=_("the brochure this version was drafted from"),
    )
    # An image or PDF sent with a WhatsApp message of this version (outreach.media).
    media = models.ForeignKey(
        "outreach.MediaFile", on_delete=models.RESTRICT, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["template", "version"]
        constraints = [
            models.UniqueConstraint(fields=["template", "version"], name="templateversion_unique"),
            models.CheckConstraint(
                condition=Q(version__gte=1), name="templateversion_version_positive"
            ),
            models.CheckConstraint(
                condition=Q(weight__lte=1000), name="templateversion_weight_bounded"
            ),
            models.CheckConstraint(
                condition=Q(reply_count__lte=F("sent_count"))
                & Q(positive_reply_count__lte=F("reply_count")),
                name="templateversion_counts_consistent",
            ),
            models.CheckConstraint(
                condition=Q(draft=False) | Q(is_active=False),
                name="templateversion_draft_inactive",
                violation_error_message=_(
                    "A draft stays off until a person approves it on the template's page."
                ),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.template} v{self.version}"

    def clean(self) -> None:
        """Refuse a body or subject that cannot render (forms call this; dispatch re-checks)."""
        from django.core.exceptions import ValidationError

        from outreach import spintax

        if not self.template_id:
            return
        custom = known_custom_fields(self.template.tenant_id)
        errors = {}
        for field in ("body", "subject"):
            text = getattr(self, field)
            if text:
                problems = spintax.validate(
                    text, channel=self.template.channel, custom_fields=custom
                )
                if problems:
                    errors[field] = problems
        if errors:
            raise ValidationError(errors)


def known_custom_fields(tenant_id: int, sample: int = 500) -> set[str]:
    """Custom field names seen on the tenant's leads (a sample), for template validation."""
    names: set[str] = set()
    for fields in Lead.objects.filter(tenant_id=tenant_id).values_list("custom_fields", flat=True)[
        :sample
    ]:
        names.update(fields or {})
    return names


class Sequence(models.Model):
    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="sequences")
    name = models.CharField(max_length=200)
    description = models.TextField(blank=True, max_length=2000)
    is_active = models.BooleanField(default=True)
    # False: a nurture sequence, going on after a reply unless it is negative or an
    # opt-out (hitl.reply_holds).
    stop_on_reply = models.BooleanField(default=True)

    class CompanyReply(models.TextChoices):
        STOP = "stop", _("Stop the other contacts")
        PAUSE = "pause", _("Pause the other contacts for some days")
        CONTINUE = "continue", _("Continue with the other contacts")

    # What a reply from one contact does to the other contacts of its company in this
    # sequence (outreach.company_stop).
    company_reply = models.CharField(
        max_length=8, choices=CompanyReply.choices, default=CompanyReply.STOP, db_default="stop"
    )
    company_pause_days = models.PositiveSmallIntegerField(default=14, db_default=14)
    fallback_sequence = models.ForeignKey(
        "self",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        help_text=_("used for leads this sequence's channel cannot reach (e.g. no WhatsApp)"),
    )
    # Editing steps bumps the version; enrollments keep the version they started with.
    version = models.PositiveIntegerField(default=1)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name"]
        constraints = [
            models.UniqueConstraint(fields=["tenant", "name"], name="sequence_unique_name"),
            models.CheckConstraint(condition=Q(version__gte=1), name="sequence_version_positive"),
        ]

    def __str__(self) -> str:
        return self.name


class SequenceStep(models.Model):
    class DelayUnit(models.TextChoices):
        MINUTES = "MINUTES", _("Minutes (inside the sending window)")
        HOURS = "HOURS", _("Hours (inside the sending window)")
        WORKING_DAYS = "WORKING_DAYS", _("Working days")

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="+")
    sequence = models.ForeignKey(Sequence, on_delete=models.CASCADE, related_name="steps")
    sequence_version = models.PositiveIntegerField(default=1)
    position = models.PositiveIntegerField()
    channel = models.CharField(max_length=16, choices=Channel.choices)
    delay_value = models.PositiveIntegerField(default=0)
    delay_unit = models.CharField(
        max_length=16, choices=DelayUnit.choices, default=DelayUnit.WORKING_DAYS
    )
    # RESTRICT, not PROTECT: a used template cannot be deleted alone, but a tenant can be.
    template = models.ForeignKey(Template, on_delete=models.RESTRICT, related_name="steps")
    conditions = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["sequence", "sequence_version", "position"]
        constraints = [
            models.UniqueConstraint(
                fields=["sequence", "sequence_version", "position"], name="sequencestep_unique"
            ),
            models.CheckConstraint(condition=Q(position__gte=1), name="sequencestep_position"),
            models.CheckConstraint(
                condition=Q(delay_value__lte=10000), name="sequencestep_delay_bounded"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.sequence} #{self.position} ({self.channel})"

    def clean(self) -> None:
        """A first WhatsApp message may not carry links (anti-spam); its channel must match."""
        from django.core.exceptions import ValidationError

        from outreach import spintax

        if not self.template_id:
            return
        if (self.template.channel == Channel.WHATSAPP) != (self.channel == Channel.WHATSAPP):
            raise ValidationError(
                {
                    "template": _(
                        "A %(channel)s step needs a template for that channel; "
                        "%(template)s is %(template_channel)s."
                    )
                    % {
                        "channel": self.get_channel_display(),
                        "template": self.template,
                        "template_channel": self.template.get_channel_display(),
                    }
                }
            )
        if self.position == 1 and self.channel == Channel.WHATSAPP:
            problems = [
                f"v{version.version}: {problem}"
                for version in self.template.versions.filter(is_active=True)
                for problem in spintax.validate(
                    version.body,
                    channel=self.channel,
                    first_message=True,
                    custom_fields=known_custom_fields(self.tenant_id),
                )
            ]
            if problems:
                raise ValidationError({"template": problems})


class Enrollment(models.Model):
    class Status(models.TextChoices):
        ACTIVE = "ACTIVE", _("Active")
        PAUSED = "PAUSED", _("Paused")
        COMPLETED = "COMPLETED", _("Completed")
        STOPPED = "STOPPED", _("Stopped")

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="+")
    lead = models.ForeignKey(Lead, on_delete=models.CASCADE, related_name="enrollments")
    sequence = models.ForeignKey(Sequence, on_delete=models.CASCADE, related_name="enrollments")
    sequence_version = models.PositiveIntegerField(default=1)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.ACTIVE)
    current_step = models.PositiveIntegerField(default=0, help_text="last step sent; 0 = none")
    next_run_at = models.DateTimeField(null=True, blank=True)
    stop_reason = models.CharField(max_length=64, blank=True)
    # Dispatch could not move this enrollment on (a reason code, cerniq.reasons) and since
    # when; cleared when a step is queued again (outreach.dispatch).
    stalled_reason = models.CharField(max_length=255, blank=True)
    stalled_since = models.DateTimeField(null=True, blank=True)
    started_at = models.DateTimeField(auto_now_add=True)
    completed_at = models.DateTimeField(null=True, blank=True)
    stopped_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-started_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["lead"],
                condition=Q(status__in=["ACTIVE", "PAUSED"]),
                name="enrollment_one_active_per_lead",
            ),
            models.CheckConstraint(
                condition=~Q(status="STOPPED") | ~Q(stop_reason=""),
                name="enrollment_stopped_has_reason",
            ),
        ]
        indexes = [
            models.Index(fields=["status", "next_run_at"], name="enrollment_due_idx"),
            # The leads list's "stalled" filter and the dashboard's count pick a few.
            models.Index(
                fields=["lead"],
                condition=Q(stalled_since__isnull=False),
                name="enrollment_stalled_idx",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.lead} in {self.sequence} [{self.status}]"


class Message(models.Model):
    """Every message in or out, on any channel (the communication log)."""

    class Direction(models.TextChoices):
        OUTBOUND = "OUT", _("Outbound")
        INBOUND = "IN", _("Inbound")

    class Status(models.TextChoices):
        QUEUED = "QUEUED", _("Queued")
        SENDING = "SENDING", _("Sending")
        SENT = "SENT", _("Sent")
        DELIVERED = "DELIVERED", _("Delivered")
        READ = "READ", _("Read")
        FAILED = "FAILED", _("Failed")
        BOUNCED = "BOUNCED", _("Bounced")
        CANCELLED = "CANCELLED", _("Cancelled")
        DEAD_LETTER = "DEAD_LETTER", _("Dead letter")
        RECEIVED = "RECEIVED", _("Received")

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="messages")
    lead = models.ForeignKey(
        Lead,
        on_delete=models.CASCADE,
        related_name="messages",
        null=True,
        blank=True,
        help_text="empty for inbound messages from unknown senders",
    )
    channel = models.CharField(max_length=16, choices=Channel.choices)
    direction = models.CharField(max_length=3, choices=Direction.choices)
    status = models.CharField(max_length=16, choices=Status.choices)
    subject = models.CharField(max_length=255, blank=True)
    body = models.TextField(blank=True)
    template_version = models.ForeignKey(
        TemplateVersion, on_delete=models.SET_NULL, null=True, blank=True, related_name="messages"
    )
    variant_hash = models.CharField(max_length=64, blank=True)
    # The image or PDF sent with this WhatsApp message (its template version's, or the one a
    # person attached; outreach.media). RESTRICT: kept while a message shows it.
    media = models.ForeignKey(
        "outreach.MediaFile", on_delete=models.RESTRICT, null=True, blank=True, related_name="+"
    )
    phone = models.ForeignKey(
        "whatsapp.Phone", on_delete=models.SET_NULL, null=True, blank=True, related_name="messages"
    )
    counterpart = models.CharField(
        max_length=254, blank=True, help_text="the lead's phone (E.164) or email address"
    )
    provider_message_id = models.CharField(max_length=255, blank=True)
    provider_thread_id = models.CharField(
        max_length=255, blank=True, help_text="WhatsApp chat id or email thread id"
    )
    provider_url = models.URLField(max_length=500, blank=True)
    quota_cost = models.PositiveSmallIntegerField(default=0)
    # A first message the person asked for (Journey.contact_requested_at): quota_cost 0,
    # yet a first contact in the figures; pacing sends it before other automated work.
    solicited = models.BooleanField(default=False, db_default=False)
    quota_day = models.DateField(
        null=True, blank=True, help_text="the local day whose new-contact quota this used"
    )
    sequence = models.ForeignKey(
        Sequence, on_delete=models.SET_NULL, null=True, blank=True, related_name="messages"
    )
    step = models.ForeignKey(
        SequenceStep, on_delete=models.SET_NULL, null=True, blank=True, related_name="messages"
    )
    idempotency_key = models.CharField(max_length=200, null=True, blank=True)
    is_manual = models.BooleanField(default=False)
    sent_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    # An answer the AI drafted (hitl.triage.drafts): sent automatically (sent_by empty) or
    # approved by `sent_by`; `ai_draft_edited` when that person changed the text first.
    ai_drafted = models.BooleanField(default=False)
    ai_draft_edited = models.BooleanField(default=False)
    channel_reason = models.CharField(max_length=255, blank=True)
    attempts = models.PositiveIntegerField(default=0)
    attempt_started_at = models.DateTimeField(null=True, blank=True)
    # An attempt ended without knowing whether the provider took it (timeout, some 5xx):
    # look for it at the provider before sending again.
    needs_reconcile = models.BooleanField(default=False)
    # Failures so far per class of the retry table ({"timeout": 2, "rate_limited": 1}):
    # each class has its own budget (cerniq.retry).
    retries = models.JSONField(default=dict, blank=True)
    # Inbound replies: the AI triage and the routing decision, with its reason.
    analysis = models.JSONField(null=True, blank=True)
    error = models.TextField(blank=True)
    raw_request = models.JSONField(null=True, blank=True)
    raw_response = models.JSONField(null=True, blank=True)
    # A first message on its channel: the lawful basis it went out under (a ContactBasis
    # basis), or "missing" when the workspace's policy warned (outreach.lawful_basis).
    # `db_default` too: a row inserted by SQL that does not name it (a bulk fill) gets "".
    basis = models.CharField(max_length=24, blank=True, default="", db_default="")
    # When the retention job blanked its text (outreach.retention); None: as written.
    anonymised_at = models.DateTimeField(null=True, blank=True)
    scheduled_for = models.DateTimeField(null=True, blank=True)
    sent_at = models.DateTimeField(null=True, blank=True)
    delivered_at = models.DateTimeField(null=True, blank=True)
    read_at = models.DateTimeField(null=True, blank=True)
    failed_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["idempotency_key"], name="message_unique_idempotency_key"
            ),
            models.UniqueConstraint(
                fields=["channel", "provider_message_id"],
                condition=~Q(provider_message_id=""),
                name="message_unique_provider_id",
            ),
            models.CheckConstraint(
                condition=Q(quota_cost__lte=1), name="message_quota_cost_0_or_1"
            ),
            models.CheckConstraint(
                condition=(Q(direction="IN") & Q(status="RECEIVED"))
                | (Q(direction="OUT") & ~Q(status="RECEIVED")),
                name="message_status_matches_direction",
            ),
            models.CheckConstraint(
                condition=Q(direction="IN") | Q(is_manual=True) | Q(idempotency_key__isnull=False),
                name="message_automated_outbound_has_key",
            ),
            models.CheckConstraint(
                condition=Q(ai_draft_edited=False) | Q(ai_drafted=True),
                name="message_edited_draft_is_ai_drafted",
            ),
        ]
        indexes = [
            models.Index(fields=["lead", "created_at"], name="message_conversation_idx"),
            # The inbox's "hot" view and count: each conversation's latest reply (its
            # intent), one index entry away instead of a sort of the lead's messages.
            models.Index(
                fields=["lead", "-created_at", "-id"],
                condition=Q(direction="IN"),
                name="message_lead_reply_idx",
            ),
            models.Index(fields=["tenant", "provider_thread_id"], name="message_thread_idx"),
            models.Index(fields=["tenant", "counterpart"], name="message_counterpart_idx"),
            models.Index(fields=["status", "scheduled_for"], name="message_status_idx"),
            # A phone's pending sends, for its planned runs (outreach.pacing).
            models.Index(
                fields=["phone", "scheduled_for"],
                condition=Q(status__in=["QUEUED", "SENDING"]),
                name="message_phone_pending_idx",
            ),
            models.Index(fields=["tenant", "created_at"], name="message_tenant_created_idx"),
            # The dashboard's counts: outbound by sent_at, inbound by created_at, each read
            # from the index alone (the columns the counts test are included).
            models.Index(
                fields=["tenant", "direction", "sent_at"],
                include=["channel", "status", "quota_cost", "is_manual", "step"],
                name="message_tenant_sent_idx",
            ),
            models.Index(
                fields=["tenant", "direction", "created_at"],
                include=["channel"],
                name="message_tenant_dir_created_idx",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.direction} {self.channel} {self.status} #{self.pk}"


# An outbound message that left us (whatever the provider reported after).
SENT_STATUSES = (Message.Status.SENT, Message.Status.DELIVERED, Message.Status.READ)


class DailyStats(models.Model):
    """Pre-aggregated counts per tenant/day/channel (and phone, or all phones when empty)."""

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="daily_stats")
    day = models.DateField()
    channel = models.CharField(max_length=16, choices=Channel.choices)
    phone = models.ForeignKey(
        "whatsapp.Phone", on_delete=models.CASCADE, null=True, blank=True, related_name="+"
    )
    sent = models.PositiveIntegerField(default=0)
    new_contacts = models.PositiveIntegerField(default=0)
    follow_ups = models.PositiveIntegerField(default=0)
    delivered = models.PositiveIntegerField(default=0)
    read = models.PositiveIntegerField(default=0)
    replies = models.PositiveIntegerField(default=0)
    positive_replies = models.PositiveIntegerField(default=0)
    bounces = models.PositiveIntegerField(default=0)
    opt_outs = models.PositiveIntegerField(default=0)
    failed = models.PositiveIntegerField(default=0)

    class Meta:
        verbose_name_plural = "daily stats"
        ordering = ["-day"]
        constraints = [
            models.UniqueConstraint(
                fields=["tenant", "day", "channel", "phone"],
                condition=Q(phone__isnull=False),
                name="dailystats_unique_per_phone",
            ),
            models.UniqueConstraint(
                fields=["tenant", "day", "channel"],
                condition=Q(phone__isnull=True),
                name="dailystats_unique_per_channel",
            ),
            models.CheckConstraint(
                condition=Q(positive_replies__lte=F("replies")),
                name="dailystats_positive_within_replies",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.tenant} {self.day} {self.channel}"


class TemplateDailyStats(models.Model):
    """Results of one template version on one day: sends, and the replies they drew.

    A reply counts for the version of the last automated message the lead received
    before it; `rollup_stats` recomputes these rows, so they can be rebuilt at any time.
    """

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="+")
    day = models.DateField()
    template_version = models.ForeignKey(
        TemplateVersion, on_delete=models.CASCADE, related_name="daily_stats"
    )
    channel = models.CharField(max_length=16, choices=Channel.choices)
    sent = models.PositiveIntegerField(default=0)
    replies = models.PositiveIntegerField(default=0)
    positive_replies = models.PositiveIntegerField(default=0)

    class Meta:
        verbose_name_plural = "template daily stats"
        ordering = ["-day"]
        constraints = [
            models.UniqueConstraint(
                fields=["template_version", "day"], name="templatedailystats_unique"
            ),
            models.CheckConstraint(
                condition=Q(positive_replies__lte=F("replies")),
                name="templatedailystats_positive_within_replies",
            ),
        ]
        indexes = [models.Index(fields=["tenant", "day"], name="templatedailystats_day")]

    def __str__(self) -> str:
        return f"{self.template_version} {self.day}"


class ImportJob(models.Model):
    """A CSV upload imported in the background, so the page can show progress and errors."""

    class Status(models.TextChoices):
        QUEUED = "queued", _("Queued")
        RUNNING = "running", _("Running")
        DONE = "done", _("Done")
        FAILED = "failed", _("Failed")

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="import_jobs")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    file_name = models.CharField(max_length=255)
    content = models.BinaryField(help_text="The uploaded bytes, kept until the import is done.")
    dry_run = models.BooleanField(default=False)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.QUEUED)
    total_rows = models.PositiveIntegerField(default=0)
    processed_rows = models.PositiveIntegerField(default=0)
    created = models.PositiveIntegerField(default=0)
    updated = models.PositiveIntegerField(default=0)
    unchanged = models.PositiveIntegerField(default=0)
    rejected = models.JSONField(default=list, blank=True)
    # Rows imported but worth a look: a phone or address a contact of another company
    # already has ({"line", "reason"}, as `rejected`; outreach.importing.matching).
    flagged = models.JSONField(default=list, blank=True)
    # The new leads by contact readiness (outreach.readiness.Tally.as_json): how many can
    # be reached, how many only once their number or address is checked, how many not at
    # all, per reason code. Empty for a dry run.
    contact_readiness = models.JSONField(default=dict, blank=True)
    error = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # The API's repeat guard (outreach.import_jobs.start_or_reuse_import): the client's
    # Idempotency-Key, else "sha256:<content hash>"; empty for uploads from the page.
    idempotency_key = models.CharField(max_length=255, blank=True)
    content_hash = models.CharField(max_length=64, blank=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.CheckConstraint(
                condition=Q(processed_rows__lte=F("total_rows")),
                name="importjob_processed_within_total",
            ),
        ]
        indexes = [
            models.Index(
                fields=["tenant", "idempotency_key", "created_at"],
                name="importjob_idempotency",
                condition=~Q(idempotency_key=""),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.file_name} ({self.status})"

    @property
    def readiness(self):
        """The new leads' readiness (outreach.readiness.Tally), None when not counted."""
        from outreach.readiness import Tally

        return Tally.from_json(self.contact_readiness)

    @property
    def percent(self) -> int:
        if self.status == self.Status.DONE:
            return 100
        if not self.total_rows:
            return 0
        return min(99, 100 * self.processed_rows // self.total_rows)


class Suppression(models.Model):
    """A do-not-contact entry: a phone number, an email address, a whole email domain or a
    company (CUI), whoever carries it.

    Journey flags stop one lead; this stops the address or company itself: a "stop" from
    someone who is not a lead, a lead deleted and imported again, two leads sharing a
    number, a company that asked to hear from nobody. Readiness (and so dispatch and the
    pages), manual sends and the send path honour all four kinds (outreach.suppression);
    people manage the list on its page, over the API and by CSV (outreach.suppression_list).
    Exactly one of the four address fields is set."""

    class Kind(models.TextChoices):
        PHONE = "phone", _("Phone number")
        EMAIL = "email", _("Email address")
        DOMAIN = "domain", _("Email domain")
        CUI = "cui", _("Company (CUI)")
        # A person erased (outreach.erasure): a one-way hash of their phone or address,
        # so they are never imported or written to again, and nothing readable is kept.
        ERASED = "erased", _("Erased person (one-way hash)")

    # What people may add by hand, by CSV or over the API (an erased person's hash is the
    # erasure's alone).
    ADDABLE_KINDS = (Kind.PHONE, Kind.EMAIL, Kind.DOMAIN, Kind.CUI)

    class Source(models.TextChoices):
        OPT_OUT = "opt_out", _("Opt-out")
        UNSUBSCRIBE = "unsubscribe", _("Unsubscribe")
        BOUNCE = "bounce", _("Hard bounce")
        COMPLAINT = "complaint", _("Spam complaint")
        MANUAL = "manual", _("Added by a person")
        IMPORT = "import", _("CSV import")
        API = "api", _("API")
        ERASURE = "erasure", _("Erasure request")

    # Entries a person added may be taken off by a person (with a reason, audited); the
    # others record what the recipient did and are lifted on the lead's page only.
    REMOVABLE_SOURCES = frozenset({Source.MANUAL, Source.IMPORT, Source.API})

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="suppressions")
    phone = models.CharField(max_length=16, blank=True, help_text="E.164")
    email = models.EmailField(blank=True)
    domain = models.CharField(max_length=253, blank=True, help_text="lowercase, without @")
    cui = models.CharField("CUI", max_length=12, blank=True, help_text="digits")
    digest = models.CharField(
        max_length=64,
        blank=True,
        default="",
        db_default="",
        help_text="HMAC-SHA256 of an erased phone or address, hex",
    )
    reason = models.CharField(max_length=255)
    source = models.CharField(max_length=16, choices=Source.choices, default=Source.OPT_OUT)
    source_message = models.ForeignKey(
        Message, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.CheckConstraint(
                condition=(
                    (~Q(phone="") & Q(email="") & Q(domain="") & Q(cui="") & Q(digest=""))
                    | (Q(phone="") & ~Q(email="") & Q(domain="") & Q(cui="") & Q(digest=""))
                    | (Q(phone="") & Q(email="") & ~Q(domain="") & Q(cui="") & Q(digest=""))
                    | (Q(phone="") & Q(email="") & Q(domain="") & ~Q(cui="") & Q(digest=""))
                    | (Q(phone="") & Q(email="") & Q(domain="") & Q(cui="") & ~Q(digest=""))
                ),
                name="suppression_one_address",
            ),
            models.CheckConstraint(
                condition=Q(phone="") | Q(phone__regex=E164_REGEX), name="suppression_phone_e164"
            ),
            models.CheckConstraint(
                condition=Q(cui="") | Q(cui__regex=r"^[0-9]{2,10}$"), name="suppression_cui_digits"
            ),
            models.UniqueConstraint(
                fields=["tenant", "phone"], condition=~Q(phone=""), name="suppression_unique_phone"
            ),
            models.UniqueConstraint(
                fields=["tenant", "email"], condition=~Q(email=""), name="suppression_unique_email"
            ),
            models.UniqueConstraint(
                fields=["tenant", "domain"],
                condition=~Q(domain=""),
                name="suppression_unique_domain",
            ),
            models.UniqueConstraint(
                fields=["tenant", "cui"], condition=~Q(cui=""), name="suppression_unique_cui"
            ),
            models.UniqueConstraint(
                fields=["tenant", "digest"],
                condition=~Q(digest=""),
                name="suppression_unique_digest",
            ),
        ]

    def __str__(self) -> str:
        return self.value

    def save(self, *args, **kwargs) -> None:
        self.email = self.email.strip().lower()  # compared lowercased everywhere
        self.domain = self.domain.strip().lower()
        super().save(*args, **kwargs)

    @property
    def kind(self) -> str:
        if self.digest:
            return self.Kind.ERASED.value
        for kind in self.ADDABLE_KINDS:
            if getattr(self, kind.value):
                return kind.value
        return ""

    @property
    def value(self) -> str:
        return self.phone or self.email or self.domain or self.cui or self.digest

    @property
    def removable(self) -> bool:
        return self.source in self.REMOVABLE_SOURCES


class SuppressionRemoval(models.Model):
    """Audit row: a person took a do-not-contact entry off the list, and why (the only
    writer: outreach.suppression_list.remove_entry). What the entry was is copied here, as
    the entry itself is gone."""

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="+")
    kind = models.CharField(max_length=8, choices=Suppression.Kind.choices)
    value = models.CharField(max_length=254)
    entry_reason = models.CharField(max_length=255)
    entry_source = models.CharField(max_length=16, choices=Suppression.Source.choices)
    entry_created_at = models.DateTimeField()
    reason = models.TextField()
    by_user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.CheckConstraint(condition=~Q(reason=""), name="suppressionremoval_has_reason"),
        ]

    def __str__(self) -> str:
        return f"{self.value} taken off the list by {self.by_user_id}"


class OptOutLift(models.Model):
    """Audit row: a person lifted a lead's opt-out, and why (the only writer:
    outreach.optout_manual.lift_opt_out). An opt-out is permanent for automation; only this
    undoes it."""

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="+")
    lead = models.ForeignKey(Lead, on_delete=models.CASCADE, related_name="opt_out_lifts")
    by_user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    reason = models.TextField()
    # What was lifted, as it stood: the channels and the addresses taken off the list.
    whatsapp_opted_out_at = models.DateTimeField(null=True, blank=True)
    email_opted_out_at = models.DateTimeField(null=True, blank=True)
    email_status_before = models.CharField(max_length=16, blank=True)
    unsuppressed = models.JSONField(default=list, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.CheckConstraint(condition=~Q(reason=""), name="optoutlift_has_reason"),
        ]

    def __str__(self) -> str:
        return f"opt-out of {self.lead_id} lifted by {self.by_user_id}"


class OptOutRecord(models.Model):
    """Audit row: a person recorded a lead's opt-out asked outside our channels' own paths (a
    phone call, a letter, an email to a colleague): outreach.optout_manual.record_opt_out, the
    only writer. What the opt-out does is opt_out's rule (every channel stops); this keeps who
    recorded it, when, where the lead asked, and why."""

    class AskedOn(models.TextChoices):
        WHATSAPP = "whatsapp", _("On WhatsApp")
        EMAIL = "email", _("By email")
        ALL = "all", _("Another way (a phone call, in person)")

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="+")
    lead = models.ForeignKey(Lead, on_delete=models.CASCADE, related_name="opt_out_records")
    by_user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    asked_on = models.CharField(max_length=16, choices=AskedOn.choices)
    reason = models.TextField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.CheckConstraint(condition=~Q(reason=""), name="optoutrecord_has_reason"),
            models.CheckConstraint(
                condition=Q(asked_on__in=["whatsapp", "email", "all"]),
                name="optoutrecord_asked_on_known",
            ),
        ]

    def __str__(self) -> str:
        return f"opt-out of {self.lead_id} recorded by {self.by_user_id}"


def _attachment_path(instance: MessageAttachment, filename: str) -> str:
    return f"attachments/{instance.message.tenant_id}/{instance.message_id}/{filename}"


class MessageAttachment(models.Model):
    """A file sent with an email (a proforma, a datasheet), kept with its message
    (outreach.attachments checks it before it is stored)."""

    message = models.ForeignKey(Message, on_delete=models.CASCADE, related_name="attachments")
    file = models.FileField(upload_to=_attachment_path, max_length=300)
    filename = models.CharField(max_length=200)
    content_type = models.CharField(max_length=100)
    size = models.PositiveIntegerField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["pk"]

    def __str__(self) -> str:
        return self.filename


class QuickReply(models.Model):
    """A canned answer an operator inserts in the inbox's composer, with the same
    {{variables}} and spintax as templates (outreach.quick_replies renders it for a lead)."""

    class ChannelChoice(models.TextChoices):
        ANY = "", _("Any channel")
        WHATSAPP = "WHATSAPP", _("WhatsApp")
        EMAIL = "EMAIL_WARM", _("Email")

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="quick_replies")
    name = models.CharField(max_length=60)
    channel = models.CharField(max_length=16, choices=ChannelChoice.choices, blank=True)
    language = models.CharField(max_length=2, choices=Template.Language.choices, default="ro")
    subject = models.CharField(max_length=255, blank=True)
    body = models.TextField()
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name"]
        constraints = [
            models.UniqueConstraint(fields=["tenant", "name"], name="quickreply_unique_name"),
        ]

    def __str__(self) -> str:
        return self.name


# The A/B decisions, companies, sequence events, WhatsApp media, an erasure's audit row and
# the receipts of what providers were told, the brochures templates are drafted from, and
# the lead rules (modules of their own, loaded with the app's models).
from outreach.ab_models import ABDecision as ABDecision  # noqa: E402
from outreach.brochure_models import Brochure as Brochure  # noqa: E402
from outreach.company_models import Company as Company  # noqa: E402
from outreach.event_models import SequenceEvent as SequenceEvent  # noqa: E402
from outreach.media_models import MediaFile as MediaFile  # noqa: E402
from outreach.media_models import MediaUpload as MediaUpload  # noqa: E402
from outreach.privacy_models import ContactBasis as ContactBasis  # noqa: E402
from outreach.privacy_models import Erasure as Erasure  # noqa: E402
from outreach.privacy_models import Propagation as Propagation  # noqa: E402
from outreach.rule_models import LeadRule as LeadRule  # noqa: E402
from outreach.rule_models import RuleFiring as RuleFiring  # noqa: E402
