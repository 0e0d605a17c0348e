"""Operating a cold-email campaign (issue #11 §1): pause, resume and "why is it not sending",
asked of its provider through the email backend of that provider (registry alias
`email.<provider>`)."""

from __future__ import annotations

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from cerniq.provider_errors import ProviderError
from cerniq.providers import get_backend
from email_channels.models import EmailCampaign

Status = EmailCampaign.Status


class CampaignError(Exception):
    """The action cannot be done; the text says why, for the operator."""


def _backend(campaign: EmailCampaign):
    return get_backend(f"email.{campaign.provider}")


def _call(campaign: EmailCampaign, method: str) -> str:
    if not campaign.external_id:
        raise CampaignError(
            _("“%(name)s” is not created at the provider yet.") % {"name": campaign.name}
        )
    try:
        return getattr(_backend(campaign), method)(campaign.external_id) or ""
    except NotImplementedError:
        raise CampaignError(
            _("%(provider)s has no campaigns.") % {"provider": campaign.provider}
        ) from None
    except ProviderError as error:
        raise CampaignError(
            _("%(provider)s answered with an error for “%(name)s”: %(error)s")
            % {"provider": campaign.provider, "name": campaign.name, "error": error}
        ) from None


def pause(campaign: EmailCampaign, *, reason: str) -> None:
    if campaign.status != Status.ACTIVE:
        raise CampaignError(_("“%(name)s” is not active.") % {"name": campaign.name})
    _call(campaign, "pause_campaign")
    EmailCampaign.objects.filter(pk=campaign.pk).update(
        status=Status.PAUSED, status_reason=reason[:255]
    )


def resume(campaign: EmailCampaign, *, reason: str) -> None:
    """Resume a paused campaign (also one the bounce shield paused: a person decided)."""
    if campaign.status != Status.PAUSED:
        raise CampaignError(_("“%(name)s” is not paused.") % {"name": campaign.name})
    _call(campaign, "activate_campaign")
    EmailCampaign.objects.filter(pk=campaign.pk).update(
        status=Status.ACTIVE, status_reason=reason[:255]
    )


# Instantly's sending-status reasons (docs/providers.md §2.2), said for an operator.
SENDING_STATUS = {
    "healthy": gettext_lazy("sending normally"),
    "campaign_draft": gettext_lazy("still a draft: activate it"),
    "out_of_schedule": gettext_lazy("outside its sending hours; it goes on at the next window"),
    "waiting_for_leads": gettext_lazy("no leads waiting: everyone pushed has been written to"),
    "daily_limit_met": gettext_lazy("today's sending limit is reached; it goes on tomorrow"),
    "all_accounts_unhealthy": gettext_lazy(
        "every sender account is unhealthy: check them at Instantly"
    ),
    "no_accounts_available": gettext_lazy("no sender account is attached to it"),
    "paused": gettext_lazy("paused"),
}


def check(campaign: EmailCampaign) -> str:
    """Why the campaign is (not) sending, from its provider, said for an operator."""
    answer = _call(campaign, "campaign_status")
    if not answer:
        return _("the provider has no status for it yet")
    return str(SENDING_STATUS.get(answer, answer))
