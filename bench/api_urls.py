"""The URLconf of bench/api.py: every real URL (cerniq.urls), plus two bare DRF lists that
the leads endpoints are measured against in the same run. Never used by the app.

`/bench/bare/` (`BareListView`) is the least a DRF list endpoint can do: a ListAPIView over
a small fixed table (django.contrib.auth's permissions, a few hundred rows), three plain
fields, the API's own cursor pagination (api.pagination.Cursor: 50 rows a page, newest pk
first), the API's renderers and content negotiation; no authentication, no permission
check, no throttle, no filters.

`/bench/bare-auth/` (`BareAuthListView`) is the same list behind the API's default
authentication, permission and throttle classes (REST_FRAMEWORK in cerniq.settings): the
difference between the two is what an API key costs a request.

`/bench/floor/` (`floor_page`) is the least an operator page can do: signed in through the
same middleware, session and authentication as every page, a one-line template, no query of
its own (bench/pages.py's ceiling).

`/bench/what-if/leads/` (`NestedJourneyLeadViewSet`, measured with `--what-if`) is not the
app's code: the API's leads list with `LeadSerializer.journey` declared as a nested
`JourneySerializer(allow_null=True)` instead of a method field that builds a new
JourneySerializer (and its fields) for every lead. Same queries, same JSON (the bench
checks it).
"""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import Permission
from django.http import HttpRequest, HttpResponse
from django.template import engines
from django.urls import include, path
from rest_framework import generics, serializers
from rest_framework.permissions import AllowAny

from api import serializers as api_serializers
from api.pagination import Cursor
from api.views.leads import LeadViewSet


class PermissionRowSerializer(serializers.ModelSerializer):
    class Meta:
        model = Permission
        fields = ["id", "codename", "name"]


class BareAuthListView(generics.ListAPIView):
    """GET /bench/bare-auth/: the bare list with the API's auth, permission and throttle."""

    queryset = Permission.objects.all()
    serializer_class = PermissionRowSerializer
    pagination_class = Cursor
    filter_backends: list = []
    schema = None


class BareListView(BareAuthListView):
    """GET /bench/bare/: the bare list, open (the floor of a DRF list endpoint)."""

    authentication_classes: list = []
    permission_classes = [AllowAny]
    throttle_classes: list = []


class NestedJourneyLeadSerializer(api_serializers.LeadSerializer):
    """The leads list's serializer with the journey's fields built once per list."""

    journey = api_serializers.JourneySerializer(read_only=True, allow_null=True)


class NestedJourneyLeadViewSet(LeadViewSet):
    """GET /bench/what-if/leads/: the leads list with NestedJourneyLeadSerializer."""

    schema = None

    def get_serializer_class(self):
        return NestedJourneyLeadSerializer


_FLOOR = engines["django"].from_string("<!doctype html><p>{{ request.user.username }}</p>")


@login_required
def floor_page(request: HttpRequest) -> HttpResponse:
    """GET /bench/floor/: the least an operator page costs (bench/pages.py's ceiling)."""
    return HttpResponse(_FLOOR.render({}, request))


urlpatterns = [
    path("bench/floor/", floor_page, name="bench-floor"),
    path(
        "bench/what-if/leads/",
        NestedJourneyLeadViewSet.as_view({"get": "list"}),
        name="bench-what-if-leads",
    ),
    path("bench/bare/", BareListView.as_view(), name="bench-bare"),
    path("bench/bare-auth/", BareAuthListView.as_view(), name="bench-bare-auth"),
    path("", include("cerniq.urls")),
]
