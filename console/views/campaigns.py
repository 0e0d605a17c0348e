"""The campaigns page: cold-email campaigns at their provider, with their bounce rate, and
pause / resume / "why is it not sending" (email_channels.campaigns)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from cerniq import reasons
from cerniq.tenancy import scope_for
from email_channels import campaigns
from email_channels import reasons as codes
from email_channels.models import EmailCampaign
from outreach.analytics.campaigns import campaign_rows


@login_required
@require_GET
def campaign_list(request: HttpRequest) -> HttpResponse:
    rows = campaign_rows(scope_for(request).tenant)
    return render(request, "outreach/campaigns.html", {"rows": rows})


@login_required
@require_POST
def campaign_action(request: HttpRequest, pk: int, action: str) -> HttpResponse:
    campaign = scope_for(request).get_or_404(EmailCampaign, pk=pk)
    who = request.user.get_username()
    try:
        if action == "pause":
            campaigns.pause(campaign, reason=reasons.code(codes.PAUSED_BY, user=who))
            messages.success(request, _("“%(name)s” is paused.") % {"name": campaign.name})
        elif action == "resume":
            campaigns.resume(campaign, reason=reasons.code(codes.RESUMED_BY, user=who))
            messages.success(request, _("“%(name)s” is sending again.") % {"name": campaign.name})
        elif action == "check":
            status = campaigns.check(campaign)
            said = {"name": campaign.name, "status": status}
            messages.info(request, _("“%(name)s”: %(status)s.") % said)
        else:
            raise Http404("unknown action")
    except campaigns.CampaignError as refused:
        messages.error(request, str(refused))
    return redirect("outreach:campaigns")
