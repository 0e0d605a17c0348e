"""Routes of the REST API: /api/v1/... and the schema with its offline docs.

Included by dotted path from cerniq.urls under /api/.
"""

from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerView
from rest_framework.routers import DefaultRouter

from api import schema  # noqa: F401 (the API key scheme for drf-spectacular; web processes only)
from api.views.imports import ImportJobViewSet
from api.views.leads import LeadViewSet
from api.views.sequences import SequenceViewSet
from api.views.templates import TemplateViewSet

router = DefaultRouter(trailing_slash=True)
router.include_root_view = False
router.register("leads", LeadViewSet, basename="lead")
router.register("imports", ImportJobViewSet, basename="import")
router.register("sequences", SequenceViewSet, basename="sequence")
router.register("templates", TemplateViewSet, basename="template")

urlpatterns = [
    path("v1/", include(router.urls)),
    path("schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("docs/", SpectacularSwaggerView.as_view(url_name="api-schema"), name="api-docs"),
    path("redoc/", SpectacularRedocView.as_view(url_name="api-schema"), name="api-redoc"),
]
