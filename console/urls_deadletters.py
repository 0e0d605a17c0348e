"""Routes of the operations pages: dead letters and the queue view (included by
console/urls.py)."""

from django.urls import path

from console.views import dead_letters, queues

urlpatterns = [
    path("dead-letters/", dead_letters.dead_letter_list, name="dead_letters"),
    path("dead-letters/messages/", dead_letters.message_bulk, name="dead_letter_bulk"),
    path(
        "dead-letters/messages/<int:pk>/<str:action>/",
        dead_letters.message_one,
        name="dead_letter_action",
    ),
    path("dead-letters/events/", dead_letters.event_bulk, name="failed_event_bulk"),
    path(
        "dead-letters/events/<int:pk>/<str:action>/",
        dead_letters.event_one,
        name="failed_event_action",
    ),
    path("queues/", queues.queue_view, name="queues"),
]
