"""The templates pages: list with each version's results, the editor (where a drafted
version is approved), the live preview."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Prefetch
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from cerniq.models import Tenant
from cerniq.params import parse_id
from cerniq.tenancy import scope_for
from console.forms import TemplateForm, VersionFormSet
from console.views import template_media
from console.views.template_ab import ab_context, changes_text
from outreach import media, sequences, spintax, template_compliance, template_versions
from outreach.ab_winners import decisions
from outreach.analytics import rate
from outreach.models import (
    ABDecision,
    Channel,
    Template,
    TemplateVersion,
    known_custom_fields,
)
from outreach.template_preview import preview_template
from outreach.template_versions import TooManyVersions


def reply_rate(version: TemplateVersion) -> float | None:
    return rate(version.reply_count, version.sent_count)


@login_required
@require_GET
def template_list(request: HttpRequest) -> HttpResponse:
    scope = scope_for(request)
    waiting = ABDecision.objects.filter(status=ABDecision.Status.SUGGESTED)
    templates = list(
        scope.queryset(Template)
        .prefetch_related(
            Prefetch("versions", queryset=TemplateVersion.objects.order_by("version")),
            Prefetch("ab_decisions", queryset=waiting, to_attr="ab_waiting"),
        )
        .order_by("name")
    )
    for template in templates:
        for version in template.versions.all():
            version.reply_rate = reply_rate(version)
    return render(request, "outreach/templates.html", {"templates": templates})


def _version_initial(template: Template) -> list[dict]:
    return [
        {
            "id": v.pk,
            "subject": v.subject,
            "body": v.body,
            "weight": v.weight,
            "is_active": v.is_active,
        }
        for v in template.versions.order_by("version")
    ]


@login_required
@require_http_methods(["GET", "POST"])
def template_edit(request: HttpRequest, pk: int | None = None) -> HttpResponse:
    scope = scope_for(request)
    tenant = scope.tenant
    template = scope.get_or_404(Template, pk=pk) if pk is not None else Template(tenant=tenant)
    existing = (
        {v.pk: v for v in template.versions.select_related("brochure", "media")}
        if pk is not None
        else {}
    )
    custom = known_custom_fields(tenant.pk)
    if request.method == "POST":
        form = TemplateForm(request.POST, instance=template, tenant=tenant)
        channel = request.POST.get("channel") or template.channel or Channel.WHATSAPP
        versions = VersionFormSet(
            request.POST,
            prefix="versions",
            form_kwargs={"channel": channel, "custom_fields": custom},
        )
        stale = _decided_since(template, request.POST.get("ab_seen"))
        files = None
        if stale:
            form.add_error(None, stale)
        elif form.is_valid() and versions.is_valid():
            files = template_media.posted(request, versions, channel)
        if files is not None:
            try:
                with transaction.atomic():
                    saved = form.save()
                    if form.cleaned_data["ab_mode"] != saved.ab_mode:
                        decisions.set_mode(saved, form.cleaned_data["ab_mode"])
                    sequences.save_versions(
                        saved,
                        [
                            sequences.VersionSpec(
                                id=data.get("id") or None,
                                subject=data["subject"],
                                body=data["body"],
                                weight=data["weight"],
                                is_active=data["is_active"],
                                media_id=template_media.media_id(file, tenant.pk, request.user),
                            )
                            for data, file in zip(versions.filled(), files, strict=True)
                        ],
                    )
            except TooManyVersions as refused:
                versions._non_form_errors = versions.error_class([str(refused)])
            else:
                messages.success(request, _("Template %(name)s saved.") % {"name": saved.name})
                if approving := parse_id(request.POST.get("approve") or ""):
                    _approve(request, saved, approving)
                if warning := _compliance_warning(tenant, saved):
                    messages.warning(request, warning)
                return redirect("outreach:template", pk=saved.pk)
    else:
        form = TemplateForm(instance=template, tenant=tenant)
        versions = VersionFormSet(
            prefix="versions",
            initial=_version_initial(template) if pk is not None else None,
            form_kwargs={"channel": template.channel or Channel.WHATSAPP, "custom_fields": custom},
        )
    rows = []
    for version_form in versions:
        stored = existing.get(version_form.initial.get("id") or 0)
        if stored is None and version_form.is_bound:
            raw = version_form.data.get(version_form.add_prefix("id")) or ""
            stored = existing.get(parse_id(raw) or 0)
        if stored is not None:
            stored.reply_rate = reply_rate(stored)
        body = version_form["body"].value() or ""
        preview_channel = form["channel"].value() or Channel.WHATSAPP
        preview = preview_context(body, preview_channel, custom) if body.strip() else None
        lacks = (
            template_compliance.missing(
                tenant, body=body, subject=version_form["subject"].value() or ""
            )
            if body.strip()
            else []
        )
        rows.append(
            {
                "form": version_form,
                "version": stored,
                "preview": preview,
                "lacks": template_compliance.said(lacks) if lacks else "",
            }
        )
    context = {
        "form": form,
        "versions": versions,
        "rows": rows,
        "template": template if pk is not None else None,
        "has_draft": any(v.draft for v in existing.values()),
        # One image or PDF per version, WhatsApp only (console.views.template_media).
        "whatsapp": (form["channel"].value() or Channel.WHATSAPP) == Channel.WHATSAPP,
        "media_accept": media.ACCEPT,
        **(ab_context(template) if pk is not None else {}),
    }
    return render(request, "outreach/template_form.html", context)


def _decided_since(template: Template, seen: str | None) -> str:
    """Why the editor's post is refused when an A/B decision changed the weights after the
    page was opened (saving its weights would undo it); "" when none did. A post without
    `ab_seen` (an older page) is not checked."""
    if template.pk is None or seen is None:
        return ""
    latest = (
        template.ab_decisions.filter(status=ABDecision.Status.APPLIED, pk__gt=parse_id(seen) or 0)
        .order_by("-pk")
        .first()
    )
    if latest is None:
        return ""
    return _(
        "An A/B decision changed this template's versions while you were editing "
        "(%(changes)s). Save again to keep the values below anyway, which undoes it, or "
        "open the template again to start from the new ones."
    ) % {"changes": changes_text(latest.changes)}


def _approve(request: HttpRequest, template: Template, pk: int) -> None:
    """The person approved a draft (after saving their edits): it is sent from now on."""
    version = template.versions.filter(pk=pk, draft=True).first()
    if version is None:
        return
    try:
        approved = template_versions.approve(version)
    except ValidationError as refused:
        messages.error(
            request,
            _("v%(version)d is still a draft: %(problems)s")
            % {"version": version.version, "problems": " ".join(refused.messages)},
        )
        return
    messages.success(
        request,
        _(
            "v%(version)d approved: it is an ordinary version now, sent in the template's "
            "A/B split by its weight (%(weight)d) with the other active versions."
        )
        % {"version": approved.version, "weight": approved.weight},
    )


def _compliance_warning(tenant: Tenant, template: Template) -> str:
    """What the saved template's active versions lack for a cold first message, if any
    (outreach.template_compliance): said on save, as the workspace may hold them."""
    lacking = []
    for version in template.versions.filter(is_active=True).order_by("version"):
        lacks = template_compliance.missing(tenant, body=version.body, subject=version.subject)
        if lacks:
            lacking.append(f"v{version.version}: {template_compliance.said(lacks)}")
    if not lacking:
        return ""
    held = (
        _("The workspace holds first messages from such templates.")
        if tenant.first_templates_must_comply
        else _("Fine for follow-ups; a cold first message should say both.")
    )
    return _("Who is writing and how to stop, not said in %(versions)s. %(held)s") % {
        "versions": "; ".join(lacking),
        "held": held,
    }


def preview_context(body: str, channel: str, custom: set[str]) -> dict:
    """The live preview's context (outreach.template_preview owns what it shows)."""
    shown = preview_template(body, channel, custom)
    return {
        "variants": shown.variants,
        "total": shown.total,
        "more": spintax.number(shown.total) if shown.more else "",  # "more than 1,000,000,000"
        "problems": shown.problems,
        "body": body,
    }


@login_required
@require_POST
def template_preview(request: HttpRequest) -> HttpResponse:
    body = request.POST.get("body")
    if body is None:  # a formset textarea posts itself as versions-N-body
        body = next((request.POST[key] for key in request.POST if key.endswith("-body")), "")
    channel = request.POST.get("channel") or Channel.WHATSAPP
    custom = known_custom_fields(scope_for(request).tenant.pk)
    context = preview_context(body, channel, custom)
    return render(request, "outreach/_template_preview.html", context)
