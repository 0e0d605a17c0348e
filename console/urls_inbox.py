"""Routes of the inbox (included by console/urls.py): conversations as chat threads."""

from django.urls import path

from console.views import attachments, inbox, inbox_actions, media
from console.views.inbox_composer import quick_reply as composer_quick_reply
from console.views.inbox_composer import send as composer_send

urlpatterns = [
    path("inbox/", inbox.inbox, name="inbox"),
    path("inbox/list/", inbox.list_partial, name="inbox_list"),
    path("inbox/<int:pk>/", inbox.thread, name="inbox_thread"),
    path("inbox/<int:pk>/send/", composer_send, name="inbox_send"),
    path(
        "inbox/<int:pk>/quick-replies/<int:reply_pk>/",
        composer_quick_reply,
        name="inbox_quick_reply",
    ),
    path("inbox/<int:pk>/timeline/", inbox.timeline_partial, name="inbox_timeline"),
    path("inbox/<int:pk>/notes/", inbox_actions.add_note, name="inbox_note"),
    path("attachments/<int:pk>/", attachments.download, name="attachment"),
    path("media/<int:pk>/", media.media_file, name="media_file"),
    path(
        "inbox/<int:pk>/<str:action>/",
        inbox_actions.conversation_action,
        name="inbox_action",
    ),
]
