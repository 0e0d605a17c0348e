"""Routes of the leads pages (included by outreach/urls.py)."""

from django.urls import path  # noqa: F401

urlpatterns: list = []
