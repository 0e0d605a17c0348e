"""Admin for leads, journeys, messages, sequences, templates and daily stats."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any

from django.contrib import admin, messages
from django.db import models
from django.db.models import Model, Q, QuerySet
from django.forms import BaseInlineFormSet, ModelForm
from django.http import HttpRequest
from django.template.defaultfilters import pluralize
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString
from django.utils.translation import gettext_lazy as _

from cerniq import reasons
from cerniq.admin import pretty_payload, reason_column
from cerniq.models import Tenant
from cerniq.tenancy import AuthenticatedHttpRequest
from outreach import companies, deadletters, stages
from outreach.admin_step_conditions import ConditionsInWords, SequenceStepForm, conditions_in_words
from outreach.analytics import DAILY_FIELDS
from outreach.company_admin import LeadAdminForm
from outreach.lead_filters import search_match
from outreach.models import (
    Brochure,
    ContactBasis,
    DailyStats,
    Enrollment,
    Erasure,
    ImportJob,
    Journey,
    Lead,
    Message,
    MessageAttachment,
    OptOutLift,
    OptOutRecord,
    Propagation,
    QuickReply,
    Sequence,
    SequenceStep,
    StageTransition,
    Suppression,
    SuppressionRemoval,
    Template,
    TemplateDailyStats,
    TemplateVersion,
)
from outreach.reasons import STAGE_PAUSED_IN_ADMIN, STAGE_RESUMED_IN_ADMIN

SKIPPED_SHOWN = 20  # reasons listed in the "skipped" message; the rest are counted


def _move_journeys(
    model_admin: admin.ModelAdmin,
    request: HttpRequest,
    journeys: Iterable[tuple[Lead, Journey | None]],
    move: Callable[..., None],
    verb: str,
) -> None:
    """Pause or resume each journey through the stage machine; report moved and skipped."""
    moved, skipped = 0, []
    for lead, journey in journeys:
        if journey is None:
            skipped.append(f"{lead}: the lead has no journey.")
            continue
        try:
            said = STAGE_PAUSED_IN_ADMIN if verb == "paused" else STAGE_RESUMED_IN_ADMIN
            move(journey, reason=reasons.code(said), by_user=request.user)
        except stages.IllegalTransition as exc:
            skipped.append(f"{lead}: {exc}")
        else:
            moved += 1
    if moved:
        model_admin.message_user(
            request, f"{verb.capitalize()} {moved} lead{pluralize(moved)}.", messages.SUCCESS
        )
    if skipped:
        more = len(skipped) - SKIPPED_SHOWN
        text = " ".join(skipped[:SKIPPED_SHOWN]) + (f" …and {more} more." if more > 0 else "")
        model_admin.message_user(
            request,
            f"{verb.capitalize()} {moved}, skipped {len(skipped)} lead{pluralize(len(skipped))}: "
            f"{text}",
            messages.WARNING,
        )


class TenantFromParentAdmin(admin.ModelAdmin):
    """Inline rows (steps, versions) take the tenant of the object they are edited on."""

    def save_formset(
        self, request: HttpRequest, form: ModelForm, formset: BaseInlineFormSet, change: bool
    ) -> None:
        for inline_form in formset.forms:
            if hasattr(inline_form.instance, "tenant_id"):
                inline_form.instance.tenant_id = form.instance.tenant_id
        super().save_formset(request, form, formset, change)


@admin.register(Lead)
class LeadAdmin(admin.ModelAdmin):
    form = LeadAdminForm
    list_display = (
        *("name", "company", "cui", "county", "phone", "email", "email_status", "stage"),
        "tenant",
    )
    list_select_related = ("tenant", "journey", "company")
    list_filter = ("tenant", "journey__stage", "email_status", "phone_reachable")
    search_fields = ("name", "cui", "phone", "email", "contact_name", "locality")
    date_hierarchy = "created_at"
    # The firm's fields are the company's copies (outreach.companies): edit the company.
    readonly_fields = (*companies.FIRM_FIELDS, "created_at", "updated_at")
    autocomplete_fields = ("company",)
    actions = ("pause_leads", "resume_leads")

    def save_model(self, request: HttpRequest, obj: Lead, form: Any, change: bool) -> None:
        companies.attach(obj, obj.company)  # the company's fields, copied
        super().save_model(request, obj, form, change)

    def get_search_results(
        self, request: HttpRequest, queryset: QuerySet[Lead], search_term: str
    ) -> tuple[QuerySet[Lead], bool]:
        """The leads page's search (diacritics folded, a CUI or phone however written),
        plus the locality."""
        term = search_term.replace("\x00", "").strip()
        if not term:
            return queryset, False
        return queryset.filter(search_match(term) | Q(locality__icontains=term)), False

    @admin.display(description="stage", ordering="journey__stage")
    def stage(self, obj: Lead) -> str:
        journey = getattr(obj, "journey", None)
        return journey.get_stage_display() if journey else "-"

    @admin.action(description="Pause selected leads")
    def pause_leads(self, request: HttpRequest, queryset: QuerySet[Lead]) -> None:
        rows = (
            (lead, getattr(lead, "journey", None)) for lead in queryset.select_related("journey")
        )
        _move_journeys(self, request, rows, stages.pause, "paused")

    @admin.action(description="Resume selected leads")
    def resume_leads(self, request: HttpRequest, queryset: QuerySet[Lead]) -> None:
        rows = (
            (lead, getattr(lead, "journey", None)) for lead in queryset.select_related("journey")
        )
        _move_journeys(self, request, rows, stages.resume, "resumed")


class StageTransitionInline(admin.TabularInline):
    model = StageTransition
    fields = ("created_at", "from_stage", "to_stage", "reason_text", "by_user", "by_system")
    readonly_fields = fields
    ordering = ("-created_at",)
    extra = 0
    can_delete = False

    def get_queryset(self, request: HttpRequest) -> QuerySet[StageTransition]:
        return super().get_queryset(request).select_related("by_user")

    @admin.display(description="Reason")
    def reason_text(self, row: StageTransition) -> str:
        return reasons.render(row.reason)

    def has_add_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False


@admin.register(Journey)
class JourneyAdmin(admin.ModelAdmin):
    list_display = (
        "lead",
        "stage",
        "assigned_phone",
        "next_action_at",
        "requires_human_review",
        "review_priority",
        "whatsapp_opted_out",
        "email_opted_out",
        "last_contact_at",
        "tenant",
    )
    list_select_related = ("lead", "assigned_phone", "tenant")
    list_filter = (
        "tenant",
        "stage",
        "requires_human_review",
        "review_priority",
        "whatsapp_opted_out",
        "email_opted_out",
        "last_channel",
    )
    search_fields = ("lead__name", "lead__cui", "lead__phone", "lead__email")
    autocomplete_fields = (
        "lead",
        "assigned_phone",
        "current_sequence",
        "taken_over_by",
        "operator",
    )
    date_hierarchy = "created_at"
    # Stage and consent only change through outreach.stages and the opt-out handling.
    readonly_fields = (
        "stage",
        "previous_stage",
        "stage_changed_at",
        "whatsapp_opted_out",
        "whatsapp_opted_out_at",
        "email_opted_out",
        "email_opted_out_at",
        "first_contact_at",
        "last_contact_at",
        "last_reply_at",
        "reply_count",
        "created_at",
        "updated_at",
    )
    inlines = (StageTransitionInline,)
    actions = ("pause_leads", "resume_leads")

    @admin.action(description="Pause selected leads")
    def pause_leads(self, request: HttpRequest, queryset: QuerySet[Journey]) -> None:
        rows = ((j.lead, j) for j in queryset.select_related("lead"))
        _move_journeys(self, request, rows, stages.pause, "paused")

    @admin.action(description="Resume selected leads")
    def resume_leads(self, request: HttpRequest, queryset: QuerySet[Journey]) -> None:
        rows = ((j.lead, j) for j in queryset.select_related("lead"))
        _move_journeys(self, request, rows, stages.resume, "resumed")


class AuditRowAdmin(admin.ModelAdmin):
    """An audit row: written only by the service that owns it, never by hand here."""

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(StageTransition)
class StageTransitionAdmin(AuditRowAdmin):
    """Audit trail: view only."""

    list_display = (
        "created_at",
        "journey",
        "from_stage",
        "to_stage",
        "reason_text",
        "by_user",
        "by_system",
        "tenant",
    )
    list_select_related = ("journey__lead", "by_user", "tenant")
    list_filter = ("tenant", "to_stage", "from_stage", "by_system")
    search_fields = ("journey__lead__name", "journey__lead__cui", "reason", "by_user__username")
    date_hierarchy = "created_at"
    show_full_result_count = False

    @admin.display(description="Reason", ordering="reason")
    def reason_text(self, row: StageTransition) -> str:
        return reasons.render(row.reason)


@admin.register(Message)
class MessageAdmin(admin.ModelAdmin):
    list_display = (
        "created_at",
        "direction",
        "channel",
        "status",
        "lead",
        "counterpart",
        "phone",
        "is_manual",
        "attempts",
        "provider_message_id",
        "tenant",
    )
    list_select_related = ("lead", "phone", "tenant")
    list_filter = ("tenant", "direction", "channel", "status", "is_manual")
    search_fields = (
        "counterpart",
        "provider_message_id",
        "provider_thread_id",
        "idempotency_key",
        "lead__name",
        "lead__cui",
    )
    date_hierarchy = "created_at"
    show_full_result_count = False
    autocomplete_fields = ("lead", "phone", "sequence", "sent_by")
    raw_id_fields = ("template_version", "step")
    exclude = ("raw_request", "raw_response", "channel_reason")
    formfield_overrides = {models.URLField: {"assume_scheme": "https"}}
    readonly_fields = (
        "channel_reason_text",
        "pretty_raw_request",
        "pretty_raw_response",
        "created_at",
        "updated_at",
    )

    @admin.display(description=_("channel chosen because"))
    def channel_reason_text(self, obj: Message) -> str:
        return reasons.render(obj.channel_reason)

    @admin.display(description="raw request")
    def pretty_raw_request(self, obj: Message) -> SafeString | str:
        return pretty_payload(obj.raw_request)

    @admin.display(description="raw response")
    def pretty_raw_response(self, obj: Message) -> SafeString | str:
        return pretty_payload(obj.raw_response)

    # Dead letters (retried or discarded from the pages or the admin): the rules are
    # outreach.deadletters', applied per tenant; other selected rows are left alone.
    actions = ("retry_dead_letters", "discard_dead_letters")

    @admin.action(description="Retry dead letters (send them again)", permissions=["change"])
    def retry_dead_letters(self, request: HttpRequest, queryset: QuerySet[Message]) -> None:
        self._on_dead_letters(request, queryset, deadletters.retry, "queued to be sent again")

    @admin.action(description="Discard dead letters (re-plan their leads)", permissions=["change"])
    def discard_dead_letters(
        self, request: AuthenticatedHttpRequest, queryset: QuerySet[Message]
    ) -> None:
        def discard(tenant: Tenant, ids: list[int]) -> deadletters.Result:
            return deadletters.discard(tenant, ids, by_user=request.user)

        self._on_dead_letters(request, queryset, discard, "discarded, their leads re-planned")

    def _on_dead_letters(
        self,
        request: HttpRequest,
        queryset: QuerySet[Message],
        act: Callable[[Tenant, list[int]], deadletters.Result],
        done_text: str,
    ) -> None:
        by_tenant: dict[int, list[int]] = {}
        for tenant_id, pk in queryset.order_by().values_list("tenant_id", "pk"):
            by_tenant.setdefault(tenant_id, []).append(pk)
        done, skipped = 0, Counter[str]()
        for tenant in Tenant.objects.filter(pk__in=by_tenant):
            result = act(tenant, by_tenant[tenant.pk])
            done += result.done
            skipped.update(result.skipped)
        self.message_user(request, f"{done} dead letter(s) {done_text}.", messages.SUCCESS)
        if skipped:
            detail = "; ".join(f"{why}: {n}" for why, n in sorted(skipped.items()))
            self.message_user(request, f"Not changed — {detail}", messages.WARNING)


class SequenceStepInline(ConditionsInWords, admin.TabularInline):
    """Steps of the current version; read-only once leads run on it (edits would change
    their journey mid-way: outreach.sequences.replace_steps makes a new version instead)."""

    model = SequenceStep
    form = SequenceStepForm
    exclude = ("tenant",)
    readonly_fields = ("conditions_text",)
    autocomplete_fields = ("template",)
    extra = 0

    def get_queryset(self, request: HttpRequest) -> QuerySet[SequenceStep]:
        return super().get_queryset(request).select_related("sequence", "template")

    def _in_use(self, obj: Model | None) -> bool:
        """`obj` (the inline's parent, a sequence) runs leads on its current version."""
        return isinstance(obj, Sequence) and (
            obj.enrollments.filter(sequence_version=obj.version).exists()
        )

    def has_change_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return not self._in_use(obj) and super().has_change_permission(request, obj)

    def has_add_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return not self._in_use(obj) and super().has_add_permission(request, obj)

    def has_delete_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return not self._in_use(obj) and super().has_delete_permission(request, obj)


@admin.register(Sequence)
class SequenceAdmin(TenantFromParentAdmin):
    list_display = (
        "name",
        "tenant",
        "is_active",
        "stop_on_reply",
        "company_reply",
        "version",
        "updated_at",
    )
    list_select_related = ("tenant",)
    list_filter = ("tenant", "is_active", "stop_on_reply", "company_reply")
    search_fields = ("name", "description")
    readonly_fields = ("created_at", "updated_at")
    inlines = (SequenceStepInline,)


@admin.register(SequenceStep)
class SequenceStepAdmin(ConditionsInWords, admin.ModelAdmin):
    form = SequenceStepForm
    list_display = (
        "sequence",
        "sequence_version",
        "position",
        "channel",
        "delay_value",
        "delay_unit",
        "template",
        conditions_in_words,
        "tenant",
    )
    readonly_fields = ("conditions_text",)
    list_select_related = ("sequence", "template", "tenant")
    list_filter = ("tenant", "channel", "delay_unit")
    search_fields = ("sequence__name", "template__name")
    autocomplete_fields = ("sequence", "template")


@admin.register(Enrollment)
class EnrollmentAdmin(admin.ModelAdmin):
    list_display = (
        "lead",
        "sequence",
        "sequence_version",
        "status",
        "current_step",
        "next_run_at",
        "started_at",
        "tenant",
    )
    list_select_related = ("lead", "sequence", "tenant")
    list_filter = ("tenant", "status")
    search_fields = ("lead__name", "lead__cui", "lead__phone", "sequence__name", "stop_reason")
    autocomplete_fields = ("lead", "sequence")
    date_hierarchy = "started_at"
    # Reasons are stored as codes (cerniq.reasons): shown in the admin user's language.
    # The stop reason stays editable (a stopped enrollment needs one); dispatch owns the stall.
    exclude = ("stalled_reason",)
    readonly_fields = ("started_at", "stop_reason_text", "stalled_reason_text")

    @admin.display(description=_("stop reason (as shown)"))
    def stop_reason_text(self, enrollment: Enrollment) -> str:
        return reasons.render(enrollment.stop_reason)

    @admin.display(description=_("stalled because"))
    def stalled_reason_text(self, enrollment: Enrollment) -> str:
        return reasons.render(enrollment.stalled_reason)


class TemplateVersionInline(admin.StackedInline):
    model = TemplateVersion
    exclude = ("tenant",)
    # A draft is approved on the template page (outreach.template_versions.approve).
    readonly_fields = ("sent_count", "reply_count", "positive_reply_count", "draft", "brochure")
    extra = 0


@admin.register(Template)
class TemplateAdmin(TenantFromParentAdmin):
    list_display = ("name", "tenant", "channel", "language", "is_active", "ab_mode", "updated_at")
    list_select_related = ("tenant",)
    list_filter = ("tenant", "channel", "language", "is_active", "ab_mode")
    search_fields = ("name",)
    # The A/B mode is set on the template's page or by the API (ab_winners.set_mode, which
    # withdraws a waiting suggestion when it is turned off).
    readonly_fields = ("ab_mode", "created_at", "updated_at")
    inlines = (TemplateVersionInline,)


@admin.register(TemplateVersion)
class TemplateVersionAdmin(admin.ModelAdmin):
    list_display = (
        "template",
        "version",
        "subject",
        "weight",
        "is_active",
        "sent_count",
        "reply_count",
        "positive_reply_count",
        "tenant",
    )
    list_select_related = ("template", "tenant")
    list_filter = ("tenant", "is_active", "draft", "template__channel")
    search_fields = ("template__name", "subject", "body")
    autocomplete_fields = ("template",)
    readonly_fields = (
        "sent_count",
        "reply_count",
        "positive_reply_count",
        "created_at",
        "draft",
        "brochure",
    )


@admin.register(DailyStats)
class DailyStatsAdmin(admin.ModelAdmin):
    """Pre-aggregated counts, written by the stats job: view only."""

    list_display = ("day", "tenant", "channel", "phone", *DAILY_FIELDS)
    list_select_related = ("tenant", "phone")
    list_filter = ("tenant", "channel")
    search_fields = ("phone__number", "phone__label", "tenant__name")
    date_hierarchy = "day"

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(TemplateDailyStats)
class TemplateDailyStatsAdmin(admin.ModelAdmin):
    """Per-version results, written by `rollup_stats`: view only."""

    list_display = (
        "day",
        "tenant",
        "template_version",
        "channel",
        "sent",
        "replies",
        "positive_replies",
    )
    list_select_related = ("tenant", "template_version__template")
    list_filter = ("tenant", "channel")
    search_fields = ("template_version__template__name", "tenant__name")
    date_hierarchy = "day"

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(ImportJob)
class ImportJobAdmin(admin.ModelAdmin):
    """Background CSV imports started from the leads page: view only (the upload is not shown)."""

    list_display = (
        "file_name",
        "tenant",
        "status",
        "dry_run",
        "processed_rows",
        "total_rows",
        "created",
        "updated",
        "unchanged",
        "created_at",
        "finished_at",
    )
    list_select_related = ("tenant",)
    list_filter = ("tenant", "status", "dry_run")
    search_fields = ("file_name", "tenant__name")
    # Reasons are stored as codes (cerniq.reasons): shown in the admin user's language.
    exclude = ("content", "rejected", "error")
    readonly_fields = ("error_text", "rejected_lines")

    @admin.display(description=_("error"))
    def error_text(self, job: ImportJob) -> str:
        return reasons.render(job.error)

    @admin.display(description=_("rejected lines"))
    def rejected_lines(self, job: ImportJob) -> SafeString | str:
        rows = job.rejected or []
        if not rows:
            return "-"
        return format_html(
            "<ul>{}</ul>",
            format_html_join(
                "",
                "<li>{}</li>",
                (
                    (
                        _("line %(line)s: %(reason)s")
                        % {"line": row.get("line"), "reason": reasons.render(row.get("reason"))},
                    )
                    for row in rows
                ),
            ),
        )

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Brochure)
class BrochureAdmin(admin.ModelAdmin):
    """Brochures uploaded to draft templates from (outreach.brochures): view only."""

    list_display = ("file_name", "tenant", "status", "pages", "backend", "created_at")
    list_select_related = ("tenant",)
    list_filter = ("tenant", "status")
    search_fields = ("file_name", "tenant__name")
    # Reasons are stored as codes (cerniq.reasons): shown in the admin user's language.
    exclude = ("error", "fallback_reason")
    readonly_fields = ("error_text", "fallback_text")

    @admin.display(description=_("error"))
    def error_text(self, brochure: Brochure) -> str:
        return reasons.render(brochure.error)

    @admin.display(description=_("why the offline drafts"))
    def fallback_text(self, brochure: Brochure) -> str:
        return reasons.render(brochure.fallback_reason)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Suppression)
class SuppressionAdmin(admin.ModelAdmin):
    """Do-not-contact entries (phones, addresses, domains, companies). People manage them on
    the list's page; here they are read, and one added here is a person's entry like any."""

    list_display = ("__str__", "tenant", "source", "reason_shown", "created_by", "created_at")
    reason_shown = reason_column("reason", "reason")
    list_select_related = ("tenant", "created_by")
    list_filter = ("tenant", "source")
    search_fields = ("phone", "email", "domain", "cui", "reason")
    readonly_fields = ("source", "source_message", "created_by", "created_at")

    def save_model(self, request: HttpRequest, obj: Suppression, form: Any, change: bool) -> None:
        obj.source = Suppression.Source.MANUAL
        obj.created_by = request.user if request.user.is_authenticated else None
        super().save_model(request, obj, form, change)

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # an address is listed or not; a new reason is a new row

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        # Taking an entry off the list asks for a reason and is audited: on the list's page
        # (outreach.suppression_list.remove_entry) or, for an opt-out, on the lead's page.
        return False


@admin.register(SuppressionRemoval)
class SuppressionRemovalAdmin(admin.ModelAdmin):
    """The audit of entries taken off the do-not-contact list (read only)."""

    list_display = ("value", "kind", "tenant", "by_user", "created_at")
    list_select_related = ("tenant", "by_user")
    list_filter = ("tenant", "kind")
    search_fields = ("value", "reason")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Erasure)
class ErasureAdmin(AuditRowAdmin):
    """Who had a person erased, how and why (outreach.erasure writes it; view only)."""

    list_display = ("created_at", "lead_ref", "via", "requested_by", "tenant")
    list_select_related = ("tenant", "requested_by")
    list_filter = ("tenant", "via")


@admin.register(ContactBasis)
class ContactBasisAdmin(AuditRowAdmin):
    """The lawful basis recorded per lead and channel, with its evidence (view only: it is
    recorded on the lead page, by import, over the API and from replies)."""

    list_display = ("created_at", "lead", "channel", "basis", "source", "recorded_by", "tenant")
    list_select_related = ("lead", "recorded_by", "tenant")
    list_filter = ("basis", "channel", "source", "tenant")


@admin.register(Propagation)
class PropagationAdmin(AuditRowAdmin):
    """Receipts: each provider told of an opt-out or an erasure (outreach.propagation)."""

    list_display = (
        "requested_at",
        "cause",
        "provider",
        "action",
        "state",
        "attempts",
        "applied_at",
        "lead",
        "tenant",
    )
    list_select_related = ("tenant", "lead")
    list_filter = ("state", "cause", "provider", "tenant")


@admin.register(MessageAttachment)
class MessageAttachmentAdmin(admin.ModelAdmin):
    """Files sent with emails (outreach.attachments checks them; added from the lead page)."""

    list_display = ("filename", "message", "content_type", "size", "created_at")
    list_select_related = ("message",)
    search_fields = ("filename",)
    readonly_fields = ("message", "file", "filename", "content_type", "size", "created_at")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False


@admin.register(OptOutRecord)
class OptOutRecordAdmin(AuditRowAdmin):
    """Who recorded which opt-out, where the lead asked, and why. Written only by
    optout_manual.record_opt_out (the lead page, the leads list, the API)."""

    list_display = ("lead", "asked_on", "by_user", "created_at", "tenant")
    list_select_related = ("lead", "by_user", "tenant")
    list_filter = ("tenant", "asked_on")
    search_fields = ("lead__name", "reason")


@admin.register(OptOutLift)
class OptOutLiftAdmin(AuditRowAdmin):
    """Who lifted which opt-out, and why. Written only by optout_manual.lift_opt_out."""

    list_display = ("lead", "by_user", "created_at", "tenant")
    list_select_related = ("lead", "by_user", "tenant")
    list_filter = ("tenant",)
    search_fields = ("lead__name", "reason")


@admin.register(QuickReply)
class QuickReplyAdmin(AuditRowAdmin):
    """Canned answers of the inbox's composer. Edited on Settings → Quick replies (or the
    API), where their variables are checked; shown here read-only."""

    list_display = ("name", "channel", "language", "updated_at", "tenant")
    list_select_related = ("tenant",)
    list_filter = ("tenant", "channel")
    search_fields = ("name", "body")


# The A/B decisions', WhatsApp media's and the lead rules' admins live with them (modules
# of their own).
from outreach import ab_admin as _ab_admin  # noqa: E402,F401
from outreach import event_admin as _event_admin  # noqa: E402,F401
from outreach import media_admin as _media_admin  # noqa: E402,F401
from outreach import rule_admin as _rule_admin  # noqa: E402,F401
