"""Routes of the leads pages (included by outreach/urls.py)."""

from django.urls import path

from outreach.views import lead_detail, leads

urlpatterns = [
    path("leads/", leads.lead_list, name="leads"),
    path("leads/bulk/", leads.lead_bulk, name="lead_bulk"),
    path("leads/import/", leads.lead_import, name="lead_import"),
    path("leads/<int:pk>/", lead_detail.lead_detail, name="lead"),
    path("leads/<int:pk>/<str:action>/", lead_detail.lead_action, name="lead_action"),
]
