"""The queue view: the tenant's outbound work per channel and per WhatsApp phone, from the
database (outreach.backlog), and, for staff, what the broker holds per Dramatiq queue
(cerniq.queues).

The broker section is for staff only: the queues are shared by every tenant, so their
numbers mix all customers' work (one tenant's operators would read the others' volume),
and they are of use to the people who run the workers. An operator's own backlog, the
part they can act on, is read from the database, which is the truth anyway."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.views.decorators.http import require_GET

from cerniq import failed_events, queues
from cerniq.tenancy import scope_for
from outreach.backlog import channel_backlogs, phone_backlogs


@login_required
@require_GET
def queue_view(request: HttpRequest) -> HttpResponse:
    tenant = scope_for(request).tenant
    now = timezone.now()
    channels = channel_backlogs(tenant, now)
    context = {
        "channels": channels,
        "dead_count": sum(c.dead for c in channels) + failed_events.failed(tenant).count(),
        "phones": phone_backlogs(tenant, now),
        "broker": queues.snapshot() if request.user.is_staff else None,
        "now": now,
    }
    return render(request, "outreach/queues.html", context)
