"""Routes of the company pages (included by console/urls.py)."""

from django.urls import path

from console.views import companies

urlpatterns = [
    path("companies/<int:pk>/", companies.company_detail, name="company"),
]
