"""Routes of the REST API: /api/v1/... and the schema with its offline docs.

Included by dotted path from cerniq.urls under /api/. The two documentation pages relax the
site's Content-Security-Policy for themselves only (api.renderers.DOCS_POLICY); their
scripts still come from our static files (Swagger UI's start-up script from its own URL:
drf-spectacular's "split" view).
"""

from csp.decorators import csp_update
from django.http import HttpRequest, JsonResponse
from django.urls import include, path, re_path
from django.utils.translation import gettext as _
from django.views.decorators.csrf import csrf_exempt
from drf_spectacular.views import (
    SpectacularAPIView,
    SpectacularRedocView,
    SpectacularSwaggerSplitView,
)
from rest_framework.routers import DefaultRouter

from api import schema  # noqa: F401 (the API key scheme for drf-spectacular; web processes only)
from api.errors import error_body
from api.renderers import DOCS_POLICY
from api.views.analytics import AnalyticsViewSet
from api.views.companies import CompanyViewSet
from api.views.erasure import EraseView
from api.views.imports import ImportJobViewSet
from api.views.lawful_basis import LeadBasisView
from api.views.lead_rules import LeadRuleViewSet
from api.views.leads import LeadViewSet
from api.views.messages import MessageViewSet
from api.views.person_data import PersonExportView
from api.views.phones import PhoneViewSet
from api.views.plan import PlanPreviewView
from api.views.quick_replies import QuickReplyViewSet
from api.views.reviews import ReviewViewSet
from api.views.sending_window import SendingWindowView
from api.views.sequence_stats import SequenceStatsView
from api.views.sequences import SequenceViewSet
from api.views.suppressions import SuppressionViewSet
from api.views.templates import TemplateViewSet
from api.views.webhooks import WebhookDeliveryViewSet, WebhookEndpointViewSet

router = DefaultRouter(trailing_slash=True)
router.include_root_view = False
router.register("leads", LeadViewSet, basename="lead")
router.register("companies", CompanyViewSet, basename="company")
router.register("imports", ImportJobViewSet, basename="import")
router.register("phones", PhoneViewSet, basename="phone")
router.register("reviews", ReviewViewSet, basename="review")
router.register("messages", MessageViewSet, basename="message")
router.register("analytics", AnalyticsViewSet, basename="analytics")
router.register("sequences", SequenceViewSet, basename="sequence")
router.register("templates", TemplateViewSet, basename="template")
router.register("quick-replies", QuickReplyViewSet, basename="quick-reply")
router.register("lead-rules", LeadRuleViewSet, basename="lead-rule")
router.register("suppressions", SuppressionViewSet, basename="suppression")
router.register("webhooks", WebhookEndpointViewSet, basename="webhook")
router.register("webhook-deliveries", WebhookDeliveryViewSet, basename="webhook-delivery")


@csrf_exempt
def not_found(request: HttpRequest, rest: str = "") -> JsonResponse:
    """Any other /api/v1/ address: a 404 in the API's error shape, not the HTML page
    (addresses end with a slash: /api/v1/leads/). CSRF-exempt, as the API's views are: it
    changes nothing, and a POST to a mistyped address must say 404, not CSRF's HTML 403."""
    return JsonResponse(error_body("not_found", _("No such API endpoint.")), status=404)


urlpatterns = [
    path("v1/", include(router.urls)),
    path("v1/sending-window/", SendingWindowView.as_view(), name="sending-window"),
    path("v1/plan/", PlanPreviewView.as_view(), name="plan-preview"),
    path("v1/sequences/<int:pk>/stats/", SequenceStatsView.as_view(), name="sequence-stats"),
    path("v1/leads/<int:pk>/export/", PersonExportView.as_view(), name="lead-export"),
    path("v1/leads/<int:pk>/erase/", EraseView.as_view(), name="lead-erase"),
    path("v1/leads/<int:pk>/basis/", LeadBasisView.as_view(), name="lead-basis"),
    path("schema/", SpectacularAPIView.as_view(), name="api-schema"),
    # HTML pages: OPTIONS has no description to render as a page there (a 405, not a 500).
    path(
        "docs/",
        csp_update(DOCS_POLICY)(
            SpectacularSwaggerSplitView.as_view(url_name="api-schema", metadata_class=None)
        ),
        name="api-docs",
    ),
    path(
        "redoc/",
        csp_update(DOCS_POLICY)(
            SpectacularRedocView.as_view(url_name="api-schema", metadata_class=None)
        ),
        name="api-redoc",
    ),
    re_path(r"^v1/(?P<rest>.*)$", not_found),
]
