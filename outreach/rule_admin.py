"""Admin for the lead rules and their firings (imported by outreach.admin). Rules are kept
on Settings → Lead rules, where their choices are checked against the workspace; here they
are read-only, like the firings, which only outreach.lead_rules writes."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from cerniq import reasons
from outreach.models import LeadRule, RuleFiring


class _ReadOnly(admin.ModelAdmin):
    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(LeadRule)
class LeadRuleAdmin(_ReadOnly):
    """A workspace's lead rules in their order (edited on Settings → Lead rules)."""

    list_display = ("name", "position", "enabled", "source", "sequence", "operator", "tenant")
    list_select_related = ("tenant", "sequence", "operator")
    list_filter = ("tenant", "enabled", "source")
    search_fields = ("name",)


@admin.register(RuleFiring)
class RuleFiringAdmin(_ReadOnly):
    """Which rule took which new lead, what it did and what it was refused."""

    list_display = ("created_at", "rule_name", "lead", "source", "done_text", "tenant")
    list_select_related = ("tenant", "lead")
    list_filter = ("tenant", "source")
    search_fields = ("rule_name", "lead__name")

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    @admin.display(description="done")
    def done_text(self, obj: RuleFiring) -> str:
        return "; ".join(reasons.render(code) for code in [*obj.done, *obj.refused])
