"""Reason codes of the outreach app (cerniq.reasons): stored as codes, shown in the reader's
language. Each topic keeps its codes in one block."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

from cerniq import reasons
from outreach.models import Channel, Lead, Stage
from whatsapp.models import Phone

# --- contact readiness (outreach.readiness) ----------------------------------------------
# Why a channel cannot reach a lead, or why it is not checked yet.
OPTED_OUT = reasons.define("readiness.opted_out", _("opted out"))
SUPPRESSED = reasons.define("readiness.suppressed", _("the address is on the do-not-contact list"))
STAGE_CLOSED = reasons.define("readiness.stage_closed", _("the lead is %(stage)s"), stage=Stage)
TAKEN_OVER = reasons.define("readiness.taken_over", _("a colleague took the conversation over"))
NO_PHONE = reasons.define("readiness.no_phone", _("no phone number"))
NOT_ON_WHATSAPP = reasons.define("readiness.not_on_whatsapp", _("the number is not on WhatsApp"))
PHONE_UNCHECKED = reasons.define(
    "readiness.phone_unchecked", _("nobody has checked yet that the number is on WhatsApp")
)
NO_EMAIL = reasons.define("readiness.no_email", _("no email address"))
EMAIL_INVALID = reasons.define("readiness.email_invalid", _("the email address is invalid"))
EMAIL_BOUNCED = reasons.define("readiness.email_bounced", _("emails to this address bounced"))
EMAIL_UNSUBSCRIBED = reasons.define(
    "readiness.email_unsubscribed", _("unsubscribed from our emails")
)
EMAIL_COMPLAINED = reasons.define("readiness.email_complained", _("marked our email as spam"))
EMAIL_UNCHECKED = reasons.define(
    "readiness.email_unchecked", _("nobody has checked the email address yet")
)
EMAIL_RISKY = reasons.define(
    "readiness.email_risky", _("the mail server accepts any address, so it cannot be checked")
)

# --- dispatch: why an enrollment did not move (Enrollment.stalled_reason) -----------------
NOT_ENROLLED = reasons.define("dispatch.not_enrolled", _("not enrolled in a sequence"))
NO_FURTHER_STEP = reasons.define("dispatch.no_further_step", _("the sequence has no further step"))
NO_CHANNEL = reasons.define(
    "dispatch.no_channel",
    _("no channel can reach the lead (WhatsApp: %(whatsapp)s; email: %(email)s)"),
    whatsapp=reasons.render,
    email=reasons.render,
)
NO_FALLBACK = reasons.define(
    "dispatch.no_fallback",
    _("only %(channel)s can reach the lead and the sequence has no fallback sequence for it"),
    channel=Channel,
)
TEMPLATE_INACTIVE = reasons.define(
    "dispatch.template_inactive", _("the step's template has no active version")
)
TEMPLATE_ERROR = reasons.define(
    "dispatch.template_error", _("the step's template cannot be filled in for this lead")
)
TOO_LONG = reasons.define(
    "dispatch.too_long", _("the message is too long for %(channel)s"), channel=Channel
)
NO_SENDING_PHONE = reasons.define(
    "dispatch.no_sending_phone", _("no WhatsApp number of the workspace can send now")
)
QUOTA_EXHAUSTED = reasons.define(
    "dispatch.quota_exhausted", _("today's WhatsApp limit is reached; tried again tomorrow")
)
OUTSIDE_WINDOW = reasons.define(
    "dispatch.outside_window", _("outside the sending window; due at its next opening")
)
ALREADY_QUEUED = reasons.define("dispatch.already_queued", _("the step is already queued or sent"))
CHANNEL_FALLBACK = reasons.define(
    "dispatch.channel_fallback", _("moved to the fallback sequence for another channel")
)
# Message.channel_reason: why this channel was chosen.
CHOSE_STEP_CHANNEL = reasons.define(
    "dispatch.step_channel", _("the step's channel (%(channel)s)"), channel=Channel
)
CHOSE_FALLBACK = reasons.define(
    "dispatch.fallback_channel",
    _("%(channel)s instead of the step's channel: %(why)s"),
    channel=Channel,
    why=reasons.render,
)

# --- enrollment refusals (outreach.sequences.enroll_many) ---------------------------------
ENROLL_OTHER_TENANT = reasons.define("enroll.not_in_workspace", _("not in this workspace"))
ENROLL_BUSY = reasons.define("enroll.already_in_sequence", _("already in a sequence"))
ENROLL_STAGE = reasons.define("enroll.stage", _("the lead is %(stage)s"), stage=Stage)
ENROLL_OPTED_OUT = reasons.define("enroll.opted_out", _("opted out"))
ENROLL_SUPPRESSED = reasons.define(
    "enroll.suppressed", _("the lead's addresses are on the do-not-contact list")
)
ENROLL_UNREACHABLE = reasons.define(
    "enroll.unreachable",
    _("no channel can reach the lead (WhatsApp: %(whatsapp)s; email: %(email)s)"),
    whatsapp=reasons.render,
    email=reasons.render,
)
ENROLL_TAKEN_OVER = reasons.define("enroll.taken_over", _("a colleague took the conversation over"))

# --- stage changes written by outreach.stages' callers (the lead's history) -------------
# (a reason an operator types stays their own words; these are the ones the product writes)
STAGE_SENT = reasons.define("stage.sent", _("First message sent on %(channel)s"), channel=Channel)
STAGE_PAUSED_BY_OPERATOR = reasons.define("stage.paused_by_operator", _("Paused by an operator"))
STAGE_RESUMED_BY_OPERATOR = reasons.define("stage.resumed_by_operator", _("Resumed by an operator"))
STAGE_CHANGED_BY_OPERATOR = reasons.define("stage.changed_by_operator", _("Changed by an operator"))
STAGE_PAUSED_IN_ADMIN = reasons.define("stage.paused_in_admin", _("Paused in the administration"))
STAGE_RESUMED_IN_ADMIN = reasons.define(
    "stage.resumed_in_admin", _("Resumed in the administration")
)
STAGE_PAUSED_BY_API = reasons.define("stage.paused_by_api", _("Paused through the API (%(key)s)"))
STAGE_RESUMED_BY_API = reasons.define(
    "stage.resumed_by_api", _("Resumed through the API (%(key)s)")
)
STAGE_CHANGED_BY_API = reasons.define(
    "stage.changed_by_api", _("Changed through the API (%(key)s)")
)
STAGE_HANDED_BACK = reasons.define("stage.handed_back", _("Handed back by the operator"))
STAGE_DEAD_LETTER = reasons.define(
    "stage.dead_letter_discarded", _("Paused: a message that could not be sent was discarded")
)
STAGE_EMAIL_EVENT = reasons.define("stage.email_event", _("Cold email provider event: %(event)s"))

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
