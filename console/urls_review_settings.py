"""Route of the review deadlines page (included by console/urls.py)."""

from django.urls import path

from console.views import review_settings

urlpatterns = [
    path("settings/review/", review_settings.review_settings, name="review_settings"),
]
