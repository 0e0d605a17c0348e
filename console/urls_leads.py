"""Routes of the leads pages (included by outreach/urls.py)."""

from django.urls import path

from console.views import (
    chat_history,
    lead_add,
    lead_basis,
    lead_detail,
    lead_erase,
    lead_export,
    lead_import,
    lead_optout,
    leads,
)

urlpatterns = [
    path("leads/", leads.lead_list, name="leads"),
    path("leads/bulk/", leads.lead_bulk, name="lead_bulk"),
    path("leads/add/", lead_add.lead_add, name="lead_add"),
    path("leads/import/", lead_import.lead_import, name="lead_import"),
    path("leads/import/<int:pk>/", lead_import.import_job, name="lead_import_job"),
    path(
        "leads/import/<int:pk>/status/",
        lead_import.import_job_status,
        name="lead_import_job_status",
    ),
    path("leads/<int:pk>/", lead_detail.lead_detail, name="lead"),
    path(
        "leads/<int:pk>/record-opt-out/",
        lead_optout.record_opt_out,
        name="lead_record_opt_out",
    ),
    path("leads/<int:pk>/export.json", lead_export.lead_export, name="lead_export"),
    path("leads/<int:pk>/erase/", lead_erase.lead_erase, name="lead_erase"),
    path("leads/<int:pk>/basis/", lead_basis.record_basis, name="lead_record_basis"),
    path(
        "leads/<int:pk>/chat-history/",
        chat_history.lead_chat_history,
        name="lead_chat_history",
    ),
    path("leads/<int:pk>/<str:action>/", lead_detail.lead_action, name="lead_action"),
]
