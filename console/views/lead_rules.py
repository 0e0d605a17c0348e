"""Settings → Lead rules (/outreach/settings/lead-rules/): what happens to a lead the moment
it is created. Admins add, change, reorder, switch on and off and delete rules; everyone in
the workspace may read them. outreach.lead_rules.editing checks and saves (a bad value is a
form error on its field); the edit page previews the latest leads under the rule as typed."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from cerniq.tenancy import AuthenticatedHttpRequest, TenantScope, scope_for
from console.forms_lead_rules import LeadRuleForm
from console.views.alerts import is_channel_admin
from outreach.lead_rules import editing
from outreach.models import LeadRule

TAB = "lead_rules"


def _admin_only(request: AuthenticatedHttpRequest, scope: TenantScope) -> None:
    if not is_channel_admin(request, scope):
        raise PermissionDenied(_("Only the workspace's admins change the lead rules."))


def _sources(rule: LeadRule) -> str:
    return rule.get_source_display() if rule.source else ""


def rule_rows(scope: TenantScope) -> list[dict]:
    """Each rule as the list shows it: what it asks, what it does, leads taken lately."""
    rules = list(
        scope.queryset(LeadRule)
        .select_related("sequence", "operator", "phone")
        .order_by("position", "pk")
    )
    taken = editing.taken_counts(scope.tenant)
    rows = []
    for rule in rules:
        asks = [
            _sources(rule),
            _("form %(id)s") % {"id": rule.form_id} if rule.form_id else "",
            _("county %(county)s") % {"county": rule.county} if rule.county else "",
            _("tag %(tags)s") % {"tags": " / ".join(rule.tags)} if rule.tags else "",
            _("phone: %(has)s") % {"has": rule.get_has_phone_display()} if rule.has_phone else "",
            _("email: %(has)s") % {"has": rule.get_has_email_display()} if rule.has_email else "",
        ]
        who = rule.operator.get_full_name() or rule.operator.get_username() if rule.operator else ""
        does = [
            _("enroll in %(name)s") % {"name": rule.sequence.name} if rule.sequence else "",
            _("give to %(who)s") % {"who": who} if who else "",
            _("number %(phone)s") % {"phone": rule.phone} if rule.phone else "",
            _("add tags %(tags)s") % {"tags": ", ".join(rule.add_tags)} if rule.add_tags else "",
        ]
        rows.append(
            {
                "rule": rule,
                "asks": [a for a in asks if a] or [_("every new lead")],
                "does": [d for d in does if d] or [_("nothing (stops the rules below)")],
                "taken": taken.get(rule.pk, 0),
            }
        )
    return rows


@login_required
@require_GET
def lead_rule_list(request: AuthenticatedHttpRequest) -> HttpResponse:
    scope = scope_for(request)
    context = {
        "rows": rule_rows(scope),
        "may_edit": is_channel_admin(request, scope),
        "settings_tab": TAB,
        "taken_days": editing.TAKEN_DAYS,
    }
    return render(request, "outreach/lead_rules.html", context)


@login_required
@require_http_methods(["GET", "POST"])
def lead_rule_edit(request: AuthenticatedHttpRequest, pk: int | None = None) -> HttpResponse:
    """New or existing rule. POST "preview" shows the latest leads under the values typed
    without saving; POST "save" saves (admins only)."""
    scope = scope_for(request)
    rule = scope.get_or_404(LeadRule, pk=pk) if pk is not None else None
    may_edit = is_channel_admin(request, scope)
    if request.method == "POST":
        _admin_only(request, scope)
    initial = LeadRuleForm.initial_of(rule) if rule else {"enabled": True}
    form = LeadRuleForm(request.POST or None, tenant=scope.tenant, instance=rule, initial=initial)
    if not may_edit:
        form.disable()
    candidate = rule
    if request.method == "POST" and form.is_valid():
        data = form.data_to_save()
        if "preview" not in request.POST:
            try:
                saved = editing.save(scope.tenant, data, user=request.user, instance=rule)
            except editing.RuleInvalid as refused:
                for field, problems in refused.problems.items():
                    for problem in problems:
                        form.add_error(field, problem)
            else:
                messages.success(
                    request,
                    _("Lead rule %(name)s saved: it applies to leads created from now on.")
                    % {"name": saved.name},
                )
                return redirect("outreach:lead_rules")
        candidate = editing.draft(scope.tenant, data, instance=rule)
    elif request.method == "POST":
        messages.error(request, _("Nothing was saved: correct the fields marked below."))
    context = {
        "form": form,
        "rule": rule,
        "may_edit": may_edit,
        "settings_tab": TAB,
        "preview": editing.preview(scope.tenant, candidate) if candidate is not None else None,
        "preview_size": editing.PREVIEW_LEADS,
    }
    status = 400 if form.is_bound and form.errors else 200
    return render(request, "outreach/lead_rule_form.html", context, status=status)


@login_required
@require_POST
def lead_rule_action(request: AuthenticatedHttpRequest, pk: int, action: str) -> HttpResponse:
    """up, down, enable, disable, delete."""
    scope = scope_for(request)
    _admin_only(request, scope)
    rule = scope.get_or_404(LeadRule, pk=pk)
    if action in ("up", "down"):
        editing.move(rule, -1 if action == "up" else 1)
    elif action in ("enable", "disable"):
        editing.set_enabled(rule, action == "enable")
        said = _("%(name)s is on.") if rule.enabled else _("%(name)s is off.")
        messages.success(request, said % {"name": rule.name})
    elif action == "delete":
        editing.delete(rule)
        messages.success(request, _("Lead rule %(name)s deleted.") % {"name": rule.name})
    else:
        raise Http404("no such action")
    return redirect("outreach:lead_rules")
