"""Reason codes of the outreach engine (cerniq.reasons), shown in the reader's language.

Several topics keep their codes here, each in a block of its own."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

from cerniq import reasons
from outreach.models import Channel
from whatsapp.models import Phone

# --- the suppression list (outreach.optout, outreach.email_events) -----------------------
SUPPRESSED_OPT_OUT = reasons.define(
    "suppression.opt_out", _("%(lead)s opted out on %(channel)s"), channel=Channel
)
SUPPRESSED_HARD_BOUNCE = reasons.define(
    "suppression.hard_bounce", _("The address bounced for good: %(detail)s")
)
SUPPRESSED_COMPLAINT = reasons.define(
    "suppression.complaint", _("The recipient marked an email as spam")
)
SUPPRESSED_UNSUBSCRIBED = reasons.define("suppression.unsubscribed", _("Unsubscribed (%(source)s)"))

# --- queued work moved off a phone that went down (outreach.replanning) ------------------
REPLANNED = reasons.define(
    "message.replanned",
    _("Phone %(phone)s (%(status)s): re-planned on another phone or channel"),
    status=Phone.Status,
)

# --- alerts raised by the send path and the dead letters (outreach.sending, deadletters) ---
ALERT_PROVIDER_AUTH = reasons.define(
    "alert.provider_auth", _("%(provider)s rejected our credentials: %(detail)s")
)
ALERT_DEAD_LETTERS = reasons.define(
    "alert.dead_letters",
    _(
        "%(count)s dead letters are waiting (alert above %(threshold)s): retry or discard "
        "them on the Dead letters page."
    ),
)
