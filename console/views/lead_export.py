"""The lead page's data-subject export: everything held about the person as a JSON file
(outreach.person_data; the API and `manage.py export_person` give the same document)."""

from __future__ import annotations

from zoneinfo import ZoneInfo

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.utils import timezone
from django.views.decorators.http import require_GET

from cerniq.tenancy import scope_for
from outreach.models import Lead
from outreach.person_data import export_json


@login_required
@require_GET
def lead_export(request: HttpRequest, pk: int) -> HttpResponse:
    scope = scope_for(request)
    lead = scope.get_or_404(Lead.objects.select_related("tenant"), pk=pk)
    day = timezone.localdate(timezone.now(), ZoneInfo(scope.tenant.time_zone)).isoformat()
    response = HttpResponse(export_json(lead), content_type="application/json; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="lead-{lead.pk}-{day}.json"'
    return response
