"""Routes of the quick replies settings page (included by console/urls.py)."""

from django.urls import path

from console.views import quick_replies

urlpatterns = [
    path("settings/quick-replies/", quick_replies.quick_reply_list, name="quick_replies"),
    path("settings/quick-replies/new/", quick_replies.quick_reply_edit, name="quick_reply_new"),
    path(
        "settings/quick-replies/<int:pk>/", quick_replies.quick_reply_edit, name="quick_reply_edit"
    ),
    path(
        "settings/quick-replies/<int:pk>/delete/",
        quick_replies.quick_reply_delete,
        name="quick_reply_delete",
    ),
]
