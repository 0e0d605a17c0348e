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


# --- sender readiness at the provider (email_channels.readiness) -------------------------


SENDER_NOT_READY = reasons.define(
    "sender.not_ready",
    _("%(provider)s reports %(sender)s not ready: %(why)s. It is not used until it is."),
    why=reasons.render_all,
)
SENDER_DOMAIN_MISSING = reasons.define(
    "sender.domain_missing", _("the domain %(domain)s is not in the account")
)
SENDER_DOMAIN_STATUS = reasons.define(
    "sender.domain_status", _("the domain %(domain)s is “%(status)s”, not verified")
)
SENDER_SENDING_DISABLED = reasons.define(
    "sender.sending_disabled", _("sending is disabled for %(domain)s")
)
SENDER_DNS_RECORD = reasons.define(
    "sender.dns_record", _("its %(record)s record %(name)s (%(type)s) is “%(status)s”")
)
ACCOUNT_STATES = {
    "2": _("paused"),
    "3": _("paused for maintenance"),
    "-1": _("in a connection error"),
    "-2": _("in a soft bounce error"),
    "-3": _("in a sending error"),
}
WARMUP_STATES = {
    "0": _("paused"),
    "-1": _("banned"),
    "-2": _("spam folder unknown"),
    "-3": _("permanently suspended"),
}
SENDER_ACCOUNT_STATUS = reasons.define(
    "sender.account_status",
    _("the account is %(state)s"),
    state=lambda value: str(ACCOUNT_STATES.get(str(value), value)),
)
SENDER_WARMUP_STATUS = reasons.define(
    "sender.warmup_status",
    _("its warm-up is %(state)s"),
    state=lambda value: str(WARMUP_STATES.get(str(value), value)),
)
SENDER_SETUP_PENDING = reasons.define("sender.setup_pending", _("its setup is not finished"))
SENDER_WARMUP_SCORE = reasons.define(
    "sender.warmup_score", _("its warm-up score is %(score)s, under %(minimum)s")
)
