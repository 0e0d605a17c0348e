"""Settings → WhatsApp Cloud API (Meta), mounted at /outreach/settings/meta/ (console.urls,
from the integration's `settings_urls`)."""

from django.urls import path

from integrations.meta import views

urlpatterns = [
    path("", views.meta_settings, name="meta_settings"),
    path("limit/", views.save_limit, name="meta_limit"),
    path("templates/", views.save_template, name="meta_template"),
    path("templates/<int:pk>/delete/", views.delete_template, name="meta_template_delete"),
    path("forms/", views.save_form, name="meta_form"),
    path("forms/<int:pk>/delete/", views.delete_form, name="meta_form_delete"),
]
