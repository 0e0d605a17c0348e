"""Settings → Mailchimp (/outreach/settings/mailchimp/): the tenant's audience sync, its
"sync now" button and its state (members synced, the last error, every lead not synced and
why). Tenant admins only (403 for others), like the other settings pages."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.db.models import Count, Q
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from cerniq.tenancy import AuthenticatedHttpRequest, TenantScope, scope_for
from integrations.mailchimp import audience as settings_of
from integrations.mailchimp import config
from integrations.mailchimp.models import MailchimpAudience, MailchimpMember
from outreach.models import Stage

SHOWN = 100  # leads not synced listed on the page, latest first
State = MailchimpMember.State


def _admin_scope(request: AuthenticatedHttpRequest) -> TenantScope:
    scope = scope_for(request)
    if not (scope.is_admin or request.user.is_superuser):
        raise PermissionDenied(_("Only the workspace's admins change the Mailchimp sync."))
    return scope


@login_required
@require_http_methods(["GET", "POST"])
def mailchimp_settings(request: AuthenticatedHttpRequest) -> HttpResponse:
    tenant = _admin_scope(request).tenant
    audience = settings_of.audience_of(tenant)
    error, field = "", ""
    if request.method == "POST":
        try:
            audience, queued = settings_of.save_settings(tenant, request.POST)
        except settings_of.SettingsRefused as refused:
            error, field = str(refused), refused.field
            audience = _as_typed(audience, request.POST)
        else:
            said = _("Mailchimp settings saved.")
            if queued:
                said += " " + _("The audience is being brought up to date.")
            messages.success(request, said)
            return redirect("outreach:mailchimp_settings")
    return render(
        request,
        "mailchimp/settings.html",
        _context(tenant, audience, error, field),
        status=400 if error else 200,
    )


@login_required
@require_POST
def mailchimp_sync_now(request: AuthenticatedHttpRequest) -> HttpResponse:
    tenant = _admin_scope(request).tenant
    audience = settings_of.audience_of(tenant)
    if audience.pk is None or not audience.enabled:
        messages.error(request, _("Turn the sync on first."))
    else:
        settings_of.request_backfill(audience)
        messages.success(request, _("Sync started: the audience is being brought up to date."))
    return redirect("outreach:mailchimp_settings")


def _as_typed(audience: MailchimpAudience, data) -> MailchimpAudience:
    """The settings as the admin typed them (shown again after a refusal, never lost)."""
    audience.enabled = data.get("enabled") == "on"
    audience.list_id = str(data.get("list_id") or "")[:32]
    audience.stages = [s for s in data.getlist("stages") if s in Stage.values]
    audience.status_if_new = str(data.get("status_if_new") or audience.status_if_new)
    for name in ("tag_stage", "tag_county", "tag_crop"):
        setattr(audience, name, data.get(name) == "on")
    audience.crop_field = str(data.get("crop_field") or "")[:64]
    return audience


def _context(tenant, audience: MailchimpAudience, error: str, field: str) -> dict:
    records = MailchimpMember.objects.filter(tenant=tenant)
    counts = {
        row["state"]: row["n"] for row in records.values("state").annotate(n=Count("pk")).order_by()
    }
    not_synced = (
        records.filter(Q(state__in=[State.NOT_SYNCED, State.FAILED]) | ~Q(note=""))
        .select_related("lead")
        .order_by("-updated_at", "-pk")[:SHOWN]
    )
    base = (settings.PUBLIC_BASE_URL or "").rstrip("/")
    return {
        "settings_tab": "mailchimp",
        "audience": audience,
        "error": error,
        "error_field": field,
        "stage_choices": Stage.choices,
        "status_choices": MailchimpAudience.StatusIfNew.choices,
        "server_problem": config.problem(),
        "counts": {state: counts.get(state, 0) for state in State.values},
        "state_labels": dict(State.choices),
        "not_synced": list(not_synced),
        "webhook_url": f"{base}/webhooks/mailchimp/{tenant.webhook_token}/",
    }
