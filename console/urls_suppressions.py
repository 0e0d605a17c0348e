"""Routes of the do-not-contact list's page and the senders page (included by
console/urls.py)."""

from django.urls import path

from console.views import senders, suppressions

urlpatterns = [
    path("settings/do-not-contact/", suppressions.suppression_list, name="suppressions"),
    path("settings/do-not-contact/add/", suppressions.suppression_add, name="suppression_add"),
    path(
        "settings/do-not-contact/import/",
        suppressions.suppression_import,
        name="suppression_import",
    ),
    path(
        "settings/do-not-contact/export/",
        suppressions.suppression_export,
        name="suppression_export",
    ),
    path("settings/senders/", senders.sender_list, name="senders"),
    path("settings/senders/<int:pk>/lift/", senders.sender_lift, name="sender_lift"),
    path(
        "settings/do-not-contact/<int:pk>/remove/",
        suppressions.suppression_remove,
        name="suppression_remove",
    ),
]
