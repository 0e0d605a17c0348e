"""Reason codes of cold-email campaigns (cerniq.reasons): why a campaign was paused,
resumed or completed, and the bounce shield's alerts; shown in the reader's language."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

from cerniq import reasons

PAUSED_BY = reasons.define("campaign.paused_by", _("Paused by %(user)s"))
RESUMED_BY = reasons.define("campaign.resumed_by", _("Resumed by %(user)s"))
PAUSED_IN_ADMIN = reasons.define("campaign.paused_in_admin", _("Paused by %(user)s (admin)"))
RESUMED_IN_ADMIN = reasons.define("campaign.resumed_in_admin", _("Resumed by %(user)s (admin)"))
COMPLETED = reasons.define("campaign.completed", _("Completed at %(provider)s"))
SHIELD_PAUSED = reasons.define(
    "campaign.shield_paused",
    _(
        "Paused by the bounce shield: %(rate)s%% bounced (%(bounced)s of %(sent)s sent), "
        "over %(threshold)s%%"
    ),
)
SHIELD_PAUSED_SENDER = reasons.define(
    "campaign.shield_paused_sender",
    _(
        "Paused by the bounce shield: sender %(sender)s bounced %(rate)s%% (%(bounced)s of "
        "%(sent)s sent), over %(threshold)s%%"
    ),
)
ALERT_CAMPAIGN_PAUSED = reasons.define(
    "campaign.alert_paused",
    _(
        "Campaign “%(name)s” paused at %(provider)s: %(rate)s%% bounced (%(bounced)s of "
        "%(sent)s sent), over %(threshold)s%%. Clean the list, then resume it from the "
        "campaigns page."
    ),
)
ALERT_SENDER_BOUNCES = reasons.define(
    "campaign.alert_sender_bounces",
    _(
        "Sending account %(sender)s bounces too much: %(rate)s%% (%(bounced)s of %(sent)s "
        "sent), over %(threshold)s%%. Check the mailbox and the lists it sends to at "
        "%(provider)s."
    ),
)
ALERT_SENDER_ACCOUNT = reasons.define(
    "campaign.alert_sender_account",
    _("%(provider)s reports an error on sending account %(account)s: %(detail)s"),
)
ALERT_SENDER_ACCOUNT_IN = reasons.define(
    "campaign.alert_sender_account_in",
    _(
        "%(provider)s reports an error on sending account %(account)s (campaign "
        "%(campaign)s): %(detail)s"
    ),
)

# --- the reputation guard of our own senders (email_channels.reputation) -----------------
SENDER_COMPLAINTS = reasons.define(
    "sender.complaints",
    _(
        "%(rate)s%% spam complaints (%(complained)s of %(sent)s sent in %(days)s days), over "
        "%(limit)s%%"
    ),
)
SENDER_BOUNCES = reasons.define(
    "sender.bounces",
    _("%(rate)s%% hard bounces (%(bounced)s of %(sent)s sent in %(days)s days), over %(limit)s%%"),
)
ALERT_SENDER_PAUSED = reasons.define(
    "sender.alert_paused",
    _(
        "%(provider)s sender %(sender)s paused: %(why)s. Its automated email waits until a "
        "person lifts the pause on the senders page."
    ),
    why=lambda stored: reasons.render(str(stored or "")),
)
