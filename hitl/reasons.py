"""Reason codes of the reply path and the review queue (cerniq.reasons): what a review item,
a journey's review flag, a triage fallback or a stage change says, in the reader's language.

Several people add codes here: keep each topic in its own block.
"""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

from cerniq import reasons
from cerniq.formats import moment_label
from hitl.triage.base import Intent
from outreach.models import Channel, Priority

# --- routing a triaged reply: why a review item exists and how urgent it is ------------
# (hitl.routing.route; the table is in docs/review-queue.md)


def _each(stored: list) -> str:
    """Several routing reasons, each in the reader's language."""
    return "; ".join(reasons.render(str(one)) for one in stored or [])


ROUTE_SEVERAL = reasons.define("hitl.route.several", _("%(reasons)s"), reasons=_each)
ROUTE_COMPLAINT = reasons.define(
    "hitl.route.complaint", _("Complaint or legal threat: a person answers it")
)
ROUTE_INTERESTED = reasons.define("hitl.route.interested", _("Interested: answer quickly"))
ROUTE_MEETING = reasons.define(
    "hitl.route.meeting", _("Asks for a meeting or a call: answer quickly")
)
ROUTE_MEETING_TIME = reasons.define(
    "hitl.route.meeting_time", _("Proposes a meeting time: a person confirms it")
)
ROUTE_PRICE = reasons.define("hitl.route.price", _("Asks for a price"))
ROUTE_QUESTION = reasons.define("hitl.route.question", _("Asks a concrete question"))
ROUTE_DECLINE = reasons.define(
    "hitl.route.decline", _("Declines: confirm the lead is closed, or reopen it")
)
ROUTE_DEFERRAL = reasons.define(
    "hitl.route.deferral", _("Not now, maybe later: agree when to come back")
)
ROUTE_REFERRAL = reasons.define("hitl.route.referral", _("Points to another person"))
# A price question whose draft cannot give prices: the tenant set no price list (Settings →
# Replies), so the draft says a colleague sends them (hitl.triage.drafts).
ROUTE_PRICE_LIST_MISSING = reasons.define(
    "hitl.route.price_list_missing",
    _("Price list not configured: the draft only says a colleague will send the prices"),
)
ROUTE_WRONG_PERSON = reasons.define("hitl.route.wrong_person", _("Wrong person or number"))
ROUTE_OTHER = reasons.define("hitl.route.other", _("Needs a person to read it"))
ROUTE_KEYWORDS = reasons.define("hitl.route.keywords", _("Mentions: %(keywords)s"))
ROUTE_SARCASM = reasons.define(
    "hitl.route.sarcasm", _("Sounds ironic: never answered automatically")
)
ROUTE_AUTO_REPLY = reasons.define(
    "hitl.route.auto_reply", _("%(intent)s: answered automatically"), intent=Intent
)
ROUTE_AUTO_REPLY_REFUSED = reasons.define(
    "hitl.route.auto_reply_refused",
    _("The automatic answer could not be sent (%(why)s): approve the draft"),
)
# Why a draft waits for approval (named after the reply's own reason).
ROUTE_APPROVAL_OFF = reasons.define(
    "hitl.route.approval_off", _("Automatic answers are off: approve the draft")
)
ROUTE_APPROVAL_INTENT = reasons.define(
    "hitl.route.approval_intent",
    _("Automatic answers to “%(intent)s” are not allowed: approve the draft"),
    intent=Intent,
)
ROUTE_APPROVAL_UNCERTAIN = reasons.define(
    "hitl.route.approval_uncertain", _("The reading is uncertain: approve the draft")
)
ROUTE_APPROVAL_CONFIDENCE = reasons.define(
    "hitl.route.approval_confidence",
    _("The reading is not sure enough (%(confidence)s): approve the draft"),
)
OPT_OUT_COMPLAINT = reasons.define(
    "hitl.route.opt_out_complaint",
    _("Asked to stop and complains: opted out, a person answers the complaint"),
)
TRIAGE_FALLBACK = reasons.define(
    "hitl.triage.fallback",
    _("The AI model could not be used (%(detail)s): read by the built-in rules"),
)
TRIAGE_RATE_LIMIT = reasons.define(
    "hitl.triage.rate_limit",
    _("The AI reading limit (%(limit)s a minute) was reached: read by the built-in rules"),
)

# --- the stage a reply moves a lead to (hitl.replies) ----------------------------------
STAGE_REPLY = reasons.define("hitl.stage.reply", _("Replied on %(channel)s"), channel=Channel)
STAGE_DECLINE = reasons.define("hitl.stage.decline", _("Declined on %(channel)s"), channel=Channel)
STAGE_REVIEW = reasons.define("hitl.stage.review", _("Review closed: %(note)s"))
STAGE_REVIEW_CLOSED = reasons.define("hitl.stage.review_closed", _("Review closed"))

# --- what the reply path decided, shown on a lead's conversation (hitl.replies) --------


def _rendered(stored: str) -> str:
    return reasons.render(str(stored or ""))


DECISION_REVIEW = reasons.define(
    "hitl.decision.review",
    _("For a person (%(priority)s): %(why)s"),
    priority=Priority,
    why=_rendered,
)
DECISION_AUTO_REPLY = reasons.define(
    "hitl.decision.auto_reply", _("Answered automatically: %(why)s"), why=_rendered
)
DECISION_OPT_OUT = reasons.define("hitl.decision.opt_out", _("Asked to stop: opted out"))
DECISION_OPT_OUT_COMPLAINT = reasons.define(
    "hitl.decision.opt_out_complaint",
    _("Asked to stop and complains: opted out, for a person (Urgent)"),
)
DECISION_OUT_OF_OFFICE = reasons.define(
    "hitl.decision.out_of_office", _("Out of office: the sequence continues")
)
DECISION_OUT_OF_OFFICE_UNTIL = reasons.define(
    "hitl.decision.out_of_office_until",
    _("Out of office until %(back)s: the next step waits until then"),
    back=moment_label,
)

# --- a reply's triage in the workers (hitl.triage_jobs) -------------------------------
DECISION_PENDING = reasons.define("hitl.decision.pending", _("Being analysed"))
ROUTE_TRIAGE_FAILED = reasons.define(
    "hitl.route.triage_failed",
    _("The reply could not be analysed (%(error)s): a person reads it"),
)

# --- a hot reply's notice (hitl.hot_replies) -------------------------------------------
INTENT = reasons.define("hitl.intent", _("%(intent)s"), intent=Intent)
HOT_REPLY_ALERT = reasons.define(
    "hitl.hot_reply",
    _("%(lead)s replied: %(intent)s. Answer quickly (the conversation is on the lead's page)."),
    intent=Intent,
)

# --- the review queue's deadlines (hitl.review.check_sla) ------------------------------


def _priority(value: str) -> str:
    return str(Priority(value).label) if value in Priority.values else value


SLA_MISSED = reasons.define(
    "hitl.sla_missed",
    _("The review of %(lead)s (%(why)s) missed its %(missed)s deadline; now %(now)s, due %(due)s."),
    why=_rendered,
    missed=_priority,
    now=_priority,
    due=moment_label,
)

# --- a WhatsApp chat's history, fetched from its provider (hitl.chat_backfill) ----------
BACKFILL_FAILED = reasons.define(
    "hitl.backfill.failed", _("The provider could not give the history: %(error)s")
)
BACKFILL_RETRYING = reasons.define("hitl.backfill.retrying", _("The provider answered: %(error)s"))
BACKFILL_ERASED = reasons.define(
    "hitl.backfill.erased", _("The person was erased: their history is not fetched")
)
BACKFILL_UNSUPPORTED = reasons.define(
    "hitl.backfill.unsupported", _("%(provider)s cannot give a chat's earlier messages")
)
