"""Routes of the REST API: /api/v1/... and the schema with its offline docs.

Included by dotted path from cerniq.urls under /api/.
"""

from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerView
from rest_framework.routers import DefaultRouter

from api.views.analytics import AnalyticsViewSet
from api.views.leads import LeadViewSet
from api.views.messages import MessageViewSet
from api.views.phones import PhoneViewSet
from api.views.reviews import ReviewViewSet

router = DefaultRouter(trailing_slash=True)
router.include_root_view = False
router.register("leads", LeadViewSet, basename="lead")
router.register("phones", PhoneViewSet, basename="phone")
router.register("reviews", ReviewViewSet, basename="review")
router.register("messages", MessageViewSet, basename="message")
router.register("analytics", AnalyticsViewSet, basename="analytics")

urlpatterns = [
    path("v1/", include(router.urls)),
    path("schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("docs/", SpectacularSwaggerView.as_view(url_name="api-schema"), name="api-docs"),
    path("redoc/", SpectacularRedocView.as_view(url_name="api-schema"), name="api-redoc"),
]
