"""Settings → Mailchimp, mounted at /outreach/settings/mailchimp/ (console.urls, from the
integration's `settings_urls`)."""

from django.urls import path

from integrations.mailchimp import views

urlpatterns = [
    path("", views.mailchimp_settings, name="mailchimp_settings"),
    path("sync/", views.mailchimp_sync_now, name="mailchimp_sync"),
]
