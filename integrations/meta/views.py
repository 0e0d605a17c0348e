"""Settings → WhatsApp Cloud API (Meta): the portfolio's messaging limit and how much of it
the last 24 hours used, each template version's approved WhatsApp template, the Lead Ads
forms with their field maps, and the latest Lead Ads submissions with what became of each.
Workspace admins only (403 for others)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from cerniq.models import Tenant
from cerniq.tenancy import AuthenticatedHttpRequest, scope_for
from integrations.meta import config, limits
from integrations.meta.forms import ApprovedTemplateForm, LeadFormForm, LimitForm
from integrations.meta.models import ApprovedTemplate, LeadAd, LeadForm, MessagingLimit
from outreach import shared_limits
from outreach.models import Channel, TemplateVersion
from whatsapp.models import Phone

SHOWN_SUBMISSIONS = 50


def _tenant(request: AuthenticatedHttpRequest) -> Tenant:
    scope = scope_for(request)
    if not (scope.is_admin or request.user.is_superuser):
        raise PermissionDenied(_("Only the workspace's admins change the Cloud API settings."))
    return scope.tenant


def _page(
    request: AuthenticatedHttpRequest, tenant: Tenant, status: int = 200, **forms: Any
) -> HttpResponse:
    limit = limits.portfolio_limit(tenant.pk)
    used = next(
        (c for c in shared_limits.limits(tenant.pk, timezone.now()) if c.provider == "meta"), None
    )
    versions = TemplateVersion.objects.filter(
        tenant=tenant, template__channel=Channel.WHATSAPP, template__is_active=True
    ).select_related("template", "approved_template")
    base = (settings.PUBLIC_BASE_URL or "").rstrip("/")
    context = {
        "settings_tab": "meta",
        "webhook_url": f"{base}/webhooks/meta/{tenant.webhook_token}/",
        "server_problems": config.problems(),
        "limit": limit,
        "limit_source": getattr(MessagingLimit.objects.filter(tenant=tenant).first(), "source", ""),
        "used": (used.limit - used.left) if used else 0,
        "cloud_phones": Phone.objects.filter(tenant=tenant, provider="meta"),
        "versions": versions,
        "unmapped": [v for v in versions if not hasattr(v, "approved_template")],
        "approved": ApprovedTemplate.objects.filter(tenant=tenant).select_related(
            "template_version__template"
        ),
        "lead_forms": LeadForm.objects.filter(tenant=tenant).order_by("name", "form_id"),
        "submissions": LeadAd.objects.filter(tenant=tenant)
        .select_related("lead")
        .order_by("-received_at")[:SHOWN_SUBMISSIONS],
        "limit_form": forms.get("limit_form")
        or LimitForm(initial={"limit": limit if limit is not None else "unlimited"}),
        "template_form": forms.get("template_form") or ApprovedTemplateForm(tenant=tenant),
        "lead_form_form": forms.get("lead_form_form") or LeadFormForm(),
    }
    return render(request, "meta/settings.html", context, status=status)


@login_required
@require_GET
def meta_settings(request: AuthenticatedHttpRequest) -> HttpResponse:
    return _page(request, _tenant(request))


@login_required
@require_POST
def save_limit(request: AuthenticatedHttpRequest) -> HttpResponse:
    tenant = _tenant(request)
    form = LimitForm(request.POST)
    if not form.is_valid():
        return _page(request, tenant, 400, limit_form=form)
    MessagingLimit.objects.update_or_create(
        tenant=tenant,
        defaults={"unique_users_per_day": form.cleaned_data["limit"], "source": "admin"},
    )
    messages.success(request, _("Messaging limit saved."))
    return redirect("outreach:meta_settings")


@login_required
@require_POST
def save_template(request: AuthenticatedHttpRequest) -> HttpResponse:
    tenant = _tenant(request)
    form = ApprovedTemplateForm(request.POST, tenant=tenant)
    if not form.is_valid():
        return _page(request, tenant, 400, template_form=form)
    approved = form.save()
    messages.success(
        request,
        _("%(version)s now goes out as the approved template %(name)s.")
        % {"version": approved.template_version, "name": approved.name},
    )
    return redirect("outreach:meta_settings")


@login_required
@require_POST
def delete_template(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    tenant = _tenant(request)
    get_object_or_404(ApprovedTemplate, tenant=tenant, pk=pk).delete()
    messages.success(request, _("The mapping is removed."))
    return redirect("outreach:meta_settings")


@login_required
@require_POST
def save_form(request: AuthenticatedHttpRequest) -> HttpResponse:
    tenant = _tenant(request)
    form = LeadFormForm(request.POST)
    if not form.is_valid():
        return _page(request, tenant, 400, lead_form_form=form)
    data = form.cleaned_data
    LeadForm.objects.update_or_create(
        tenant=tenant,
        form_id=data["form_id"],
        defaults={
            "name": data["name"],
            "page_id": data["page_id"],
            "field_map": data["field_map"],
            "requires_cui": data["requires_cui"],
            "asks_for_contact": data["asks_for_contact"],
            "consent_text": data["consent_text"],
        },
    )
    messages.success(request, _("Lead Ads form saved."))
    return redirect("outreach:meta_settings")


@login_required
@require_POST
def delete_form(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    tenant = _tenant(request)
    get_object_or_404(LeadForm, tenant=tenant, pk=pk).delete()
    messages.success(request, _("The form is removed; its leads stay."))
    return redirect("outreach:meta_settings")
