"""Route of the consent settings page (included by console/urls.py)."""

from django.urls import path

from console.views import consent_settings

urlpatterns = [
    path("settings/consent/", consent_settings.consent_settings, name="consent_settings"),
]
