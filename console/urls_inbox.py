"""Routes of the inbox (included by console/urls.py): conversations as chat threads."""

from django.urls import path

from console.views import inbox

urlpatterns = [
    path("inbox/", inbox.inbox, name="inbox"),
    path("inbox/<int:pk>/", inbox.thread, name="inbox_thread"),
]
