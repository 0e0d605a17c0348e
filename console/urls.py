"""Operator pages under /outreach/."""

from django.urls import include, path

from cerniq import integrations
from console.views import (
    analytics,
    api_keys,
    campaigns,
    dashboard,
    phone_add,
    phones,
    plan,
    sending_settings,
)

app_name = "outreach"

urlpatterns = [
    path("dashboard/", dashboard.dashboard, name="dashboard"),
    path("dashboard/partial/", dashboard.dashboard_partial, name="dashboard_partial"),
    path("phones/", phones.phone_list, name="phones"),
    path("phones/warmup/", phones.warmup_plan, name="phone_warmup"),
    path("phones/add/", phone_add.add_phone, name="phone_add"),
    path("analytics/", analytics.analytics, name="analytics"),
    path("plan/", plan.plan, name="plan"),
    path("phones/<int:pk>/<str:action>/", phones.phone_action, name="phone_action"),
    path("campaigns/", campaigns.campaign_list, name="campaigns"),
    path("campaigns/<int:pk>/<str:action>/", campaigns.campaign_action, name="campaign_action"),
    path("api-keys/", api_keys.key_list, name="api_keys"),
    path("api-keys/<str:prefix>/revoke/", api_keys.key_revoke, name="api_key_revoke"),
    path("settings/sending/", sending_settings.sending_settings, name="sending_settings"),
    path("", include("console.urls_leads")),
    path("", include("console.urls_companies")),
    path("", include("console.urls_inbox")),
    path("", include("console.urls_sequences")),
    path("", include("console.urls_alerts")),
    path("", include("console.urls_deadletters")),
    path("", include("console.urls_webhooks")),
    path("", include("console.urls_review_settings")),
    path("", include("console.urls_quick_replies")),
    path("", include("console.urls_reply_settings")),
    path("", include("console.urls_consent_settings")),
    path("", include("console.urls_lead_rules")),
    path("", include("console.urls_suppressions")),
    # Integrations' own settings pages (their `settings_urls`): outreach:<key>_settings.
    *[
        path(f"settings/{key}/", include(urlconf))
        for key, _label, urlconf in integrations.settings_pages()
    ],
]
