"""Routes of the outgoing webhooks page (included by console/urls.py)."""

from django.urls import path

from console.views import webhooks

urlpatterns = [
    path("webhooks/", webhooks.webhook_list, name="webhooks"),
    path("webhooks/<int:pk>/", webhooks.webhook_list, name="webhook"),
    path("webhooks/<int:pk>/<str:action>/", webhooks.webhook_action, name="webhook_action"),
    path("webhooks/deliveries/<int:pk>/redeliver/", webhooks.redeliver, name="webhook_redeliver"),
]
