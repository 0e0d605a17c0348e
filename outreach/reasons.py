"""Reason codes of the outreach engine (cerniq.reasons), shown in the reader's language.

Several topics keep their codes here, each in a block of its own."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

from cerniq import reasons
from outreach.models import Channel, Lead, Stage
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

# --- why a queued message was not sent after all (outreach.sending.why_not_send) ----------
NOT_SENT_NO_JOURNEY = reasons.define("send.no_journey", _("The lead has no journey"))
NOT_SENT_OPTED_OUT = reasons.define(
    "send.opted_out", _("The lead opted out of %(channel)s"), channel=Channel
)
NOT_SENT_SUPPRESSED = reasons.define(
    "send.suppressed", _("The recipient's address is on the suppression list")
)
NOT_SENT_TAKEN_OVER = reasons.define("send.taken_over", _("The lead is taken over by an operator"))
NOT_SENT_UNDER_REVIEW = reasons.define("send.under_review", _("The lead is under human review"))
NOT_SENT_STAGE = reasons.define("send.stage", _("The lead is %(stage)s"), stage=Stage)
NOT_SENT_ENROLLMENT = reasons.define(
    "send.enrollment_stopped", _("The sequence is no longer active for this lead")
)
NOT_SENT_NO_PHONE = reasons.define("send.no_phone", _("No phone is assigned"))
NOT_SENT_EMAIL_STATUS = reasons.define(
    "send.email_status", _("The email address is %(status)s"), status=Lead.EmailStatus
)
