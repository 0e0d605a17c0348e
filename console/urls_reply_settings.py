"""Route of the replies settings page (included by console/urls.py)."""

from django.urls import path

from console.views import reply_settings

urlpatterns = [
    path("settings/replies/", reply_settings.reply_settings, name="reply_settings"),
]
