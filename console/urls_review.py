"""Operator pages of the review queue (mounted at /outreach/review/)."""

from django.urls import path

from console.views import analysing, review_bulk
from console.views import review as views

app_name = "hitl"
urlpatterns = [
    path("", views.review_queue, name="review"),
    path("analysing/", analysing.analysing, name="analysing"),
    path("analysing/<int:pk>/", analysing.analysing_one, name="analysing_one"),
    path("bulk/", review_bulk.bulk, name="bulk"),
    path("<int:pk>/assign/", views.assign_to_me, name="assign"),
    path("<int:pk>/approve/", views.approve, name="approve"),
    path("<int:pk>/send/", views.edit_and_send, name="send"),
    path("<int:pk>/reject/", views.reject, name="reject"),
    path("<int:pk>/take-over/", views.take_over, name="take-over"),
    path("<int:pk>/resolve/", views.resolve, name="resolve"),
]
