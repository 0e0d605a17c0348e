"""Routes of the lead rules settings page (included by console/urls.py)."""

from django.urls import path

from console.views import lead_rules

urlpatterns = [
    path("settings/lead-rules/", lead_rules.lead_rule_list, name="lead_rules"),
    path("settings/lead-rules/new/", lead_rules.lead_rule_edit, name="lead_rule_new"),
    path("settings/lead-rules/<int:pk>/", lead_rules.lead_rule_edit, name="lead_rule_edit"),
    path(
        "settings/lead-rules/<int:pk>/<str:action>/",
        lead_rules.lead_rule_action,
        name="lead_rule_action",
    ),
]
