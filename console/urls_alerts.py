"""Routes of the alerts pages (included by console/urls.py)."""

from django.urls import path

from console.views import alert_channels, alerts

urlpatterns = [
    path("alerts/", alerts.alert_list, name="alerts"),
    path("alerts/channels/", alert_channels.channel_list, name="alert_channels"),
    path("alerts/channels/<int:pk>/", alert_channels.channel_list, name="alert_channel"),
    path(
        "alerts/channels/<int:pk>/<str:action>/",
        alert_channels.channel_action,
        name="alert_channel_action",
    ),
    path("alerts/<int:pk>/<str:action>/", alerts.alert_action, name="alert_action"),
    path("alerts/<str:action>/", alerts.alert_action, name="alert_bulk_action"),
]
