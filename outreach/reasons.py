"""Reason codes of the outreach app (cerniq.reasons): stored as codes, shown in the reader's
language. Each topic keeps its codes in one block."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

from cerniq import reasons
from outreach import template_compliance
from outreach.models import Channel, Lead, Stage
from whatsapp.models import Phone

# --- contact readiness (outreach.readiness) ----------------------------------------------
# Why a channel cannot reach a lead, or why it is not checked yet. Short: an operator
# scans them next to the channel's name ("Email: bounced").
OPTED_OUT = reasons.define("readiness.opted_out", _("opted out"))
SUPPRESSED = reasons.define("readiness.suppressed", _("on the do-not-contact list"))
DOMAIN_SUPPRESSED = reasons.define(
    "readiness.domain_suppressed", _("its email domain is on the do-not-contact list")
)
COMPANY_SUPPRESSED = reasons.define(
    "readiness.company_suppressed", _("its company (CUI) is on the do-not-contact list")
)
STAGE_CLOSED = reasons.define("readiness.stage_closed", _("the lead is %(stage)s"), stage=Stage)
TAKEN_OVER = reasons.define("readiness.taken_over", _("taken over by a colleague"))
NO_PHONE = reasons.define("readiness.no_phone", _("no phone number"))
NOT_ON_WHATSAPP = reasons.define("readiness.not_on_whatsapp", _("number not on WhatsApp"))
PHONE_UNCHECKED = reasons.define("readiness.phone_unchecked", _("number not checked yet"))
NO_EMAIL = reasons.define("readiness.no_email", _("no email address"))
EMAIL_INVALID = reasons.define("readiness.email_invalid", _("invalid address"))
EMAIL_BOUNCED = reasons.define("readiness.email_bounced", _("bounced"))
EMAIL_UNSUBSCRIBED = reasons.define("readiness.email_unsubscribed", _("unsubscribed"))
EMAIL_COMPLAINED = reasons.define("readiness.email_complained", _("marked us as spam"))
EMAIL_UNCHECKED = reasons.define("readiness.email_unchecked", _("address not checked yet"))
EMAIL_RISKY = reasons.define(
    "readiness.email_risky", _("address cannot be checked (the server accepts any)")
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
NO_BASIS = reasons.define(
    "dispatch.no_basis",
    _(
        "the first %(channel)s message needs a lawful basis for this recipient (%(country)s: "
        "the workspace requires one) and none is recorded"
    ),
    channel={"whatsapp": _("WhatsApp"), "email": _("email")}.get,
)
TEMPLATE_NOT_COMPLIANT = reasons.define(
    "dispatch.template_not_compliant",
    _(
        "the template of this first message does not say %(missing)s, and the workspace "
        "uses only templates that do"
    ),
    missing=lambda lacks: template_compliance.said(
        [str(item) for item in lacks] if isinstance(lacks, list) else [str(lacks)]
    ),
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
SHARED_LIMIT = reasons.define(
    "dispatch.shared_limit",
    _(
        "the messaging limit %(provider)s sets for all its numbers together (%(limit)s people "
        "in 24 hours) is reached; tried again as it frees up"
    ),
)
OUTSIDE_WINDOW = reasons.define(
    "dispatch.outside_window", _("outside the sending window; due at its next opening")
)
ALREADY_QUEUED = reasons.define("dispatch.already_queued", _("the step is already queued or sent"))
CHANNEL_FALLBACK = reasons.define(
    "dispatch.channel_fallback", _("moved to the fallback sequence for another channel")
)
# A step's conditions (outreach.step_conditions): why one did not hold for the lead.
_CONDITION_FAILED = {
    "no_reply": _("the lead has replied, and the step is only for leads who have not"),
    "replied": _("the lead has not replied, and the step is only for leads who have"),
    "whatsapp_not_delivered": _("our last WhatsApp message was delivered"),
    "whatsapp_not_delivered:unknown": _(
        "the step waits for a WhatsApp delivery tick, and that number's provider reports none"
    ),
    "whatsapp_not_read": _("our last WhatsApp message was read"),
    "whatsapp_not_read:unknown": _(
        "the step waits for a WhatsApp read tick, and that number's provider reports none"
    ),
    "email_bounced": _("the lead's email did not bounce"),
    "no_phone": _("the lead has a phone number"),
    "stage_not": _("the lead is at a stage the step skips"),
}
_CONDITION_AWAITED = {
    "whatsapp_not_delivered": _("whether our WhatsApp message is delivered"),
    "whatsapp_not_read": _("whether our WhatsApp message is read"),
}


def _condition_failed(kind: str) -> str:
    return str(_CONDITION_FAILED.get(kind, kind))


def _condition_awaited(kind: str) -> str:
    return str(_CONDITION_AWAITED.get(kind, kind))


STEP_SKIPPED = reasons.define(
    "dispatch.step_skipped",
    _("step %(position)s skipped: %(condition)s"),
    condition=_condition_failed,
)
CONDITION_WAIT = reasons.define(
    "dispatch.condition_wait",
    _("step %(position)s waits until %(until)s to know %(condition)s"),
    condition=_condition_awaited,
    until=reasons.moment,
)
CONDITIONS_INVALID = reasons.define(
    "dispatch.conditions_invalid",
    _("step %(position)s has conditions that cannot be read (%(problem)s); fix the sequence"),
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
SUPPRESSED_ERASED = reasons.define(
    "suppression.erased", _("erased on request (erasure #%(erasure)s)")
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
# A sequence's step is refused with the one rule's `stop.*` codes (outreach.automation);
# TAKEN_OVER, UNDER_REVIEW and ENROLLMENT stay for the rows written before it.
NOT_SENT_NO_JOURNEY = reasons.define("send.no_journey", _("The lead has no journey"))
NOT_SENT_OPTED_OUT = reasons.define(
    "send.opted_out", _("The lead opted out of %(channel)s"), channel=Channel
)
NOT_SENT_SUPPRESSED = reasons.define(
    "send.suppressed", _("The recipient's address is on the suppression list")
)
NOT_SENT_COMPANY_SUPPRESSED = reasons.define(
    "send.company_suppressed", _("The lead's company (CUI) is on the do-not-contact list")
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

# --- a sent message whose delivery cannot be followed (integrations' delivery polls) ------
STATUS_UNKNOWN = reasons.define(
    "delivery.status_unknown",
    _("Delivery not followed: the provider no longer knows this message (HTTP %(status)s)"),
)

# --- lead import: why a row or a file was refused (outreach.importing, outreach.lead_entry)
# Stored in ImportJob.rejected / ImportJob.error; the one-lead API renders them at once.
_FIELD_LABELS = {
    "name": _("company name"),
    "cui": _("CUI"),
    "county": _("county"),
    "locality": _("locality"),
    "contact_name": _("contact name"),
    "phone": _("phone"),
    "phone_reachable": _("phone reachable"),
    "email": _("email"),
    "email_status": _("email status"),
}


def field_label(name: str) -> str:
    """A lead field's name for people, in the active language (the import's column names)."""
    label = _FIELD_LABELS.get(name) or _FIELD_LABELS.get(str(name).lower())
    return str(label) if label is not None else str(name)


_CUI_PROBLEMS = {
    "checksum": _("the check digit is wrong"),
    "format": _("only digits, optionally after RO"),
    "length": _("it must have 2 to 10 digits"),
}
_PHONE_PROBLEMS = {
    "not_a_number": _("not a phone number"),
    "country_code": _("unknown country code"),
    "too_short": _("too short"),
    "too_long": _("too long"),
}


def _cui_problem(key: str) -> str:
    return str(_CUI_PROBLEMS.get(key, _("not a valid CUI")))


def _phone_problem(key: str) -> str:
    return str(_PHONE_PROBLEMS.get(key, _("not a valid number")))


def _several(stored: list[str]) -> str:
    return "; ".join(reasons.render(item) for item in stored)


def _none_if_empty(value: str) -> str:
    return value or str(_("none"))


IMPORT_NUL = reasons.define("import.nul_character", _("contains a NUL character"))
IMPORT_NO_NAME = reasons.define("import.no_name", _("empty company name"))
IMPORT_NO_CONTACT = reasons.define("import.no_contact", _("no phone or email to contact"))
IMPORT_TOO_LONG = reasons.define(
    "import.too_long", _("%(field)s longer than %(max)s characters"), field=field_label
)
IMPORT_BASIS = reasons.define(
    "import.basis",
    _("basis “%(value)s” is not consent, customer, legitimate_interest or none"),
)
IMPORT_BASIS_CHANNEL = reasons.define(
    "import.basis_channel",
    _("basis_channel “%(value)s” is not whatsapp, email or both"),
)
IMPORT_BASIS_DATE = reasons.define(
    "import.basis_date", _("basis_date “%(value)s” is not a date (2026-11-20 or 20.11.2026)")
)
IMPORT_TOO_MANY_CUSTOM = reasons.define(
    "import.too_many_custom", _("more than %(max)s custom fields")
)
IMPORT_CUSTOM_NAME_TOO_LONG = reasons.define(
    "import.custom_name_too_long",
    _("custom field name '%(value)s' longer than %(max)s characters"),
)
IMPORT_CUI_INVALID = reasons.define(
    "import.cui_invalid", _("invalid CUI '%(value)s': %(why)s"), why=_cui_problem
)
IMPORT_PHONE_INVALID = reasons.define(
    "import.phone_invalid", _("invalid phone '%(value)s': %(why)s"), why=_phone_problem
)
IMPORT_EMAIL_INVALID = reasons.define("import.email_invalid", _("invalid email '%(value)s'"))
IMPORT_REACHABLE_UNKNOWN = reasons.define(
    "import.reachable_unknown",
    _("unknown phone reachable value '%(value)s' (use true/false, da/nu)"),
)
IMPORT_EMAIL_STATUS_UNKNOWN = reasons.define(
    "import.email_status_unknown",
    _("unknown email status '%(value)s' (use valid, invalid, risky, catch-all, unknown)"),
)
IMPORT_MORE_CELLS = reasons.define("import.more_cells", _("more fields than the header"))
IMPORT_FEWER_CELLS = reasons.define("import.fewer_cells", _("fewer fields than the header"))
IMPORT_CELL_COUNT = reasons.define(
    "import.cell_count", _("expected %(expected)s fields, found %(found)s")
)
IMPORT_ERASED = reasons.define(
    "import.erased",
    _(
        "this person was erased on request (their %(key)s is on the do-not-contact list as "
        "a one-way hash): not imported"
    ),
    key=field_label,
)
IMPORT_DUPLICATE = reasons.define(
    "import.duplicate", _("duplicate of line %(line)s (same %(key)s)"), key=field_label
)
# Imported, but worth a look (outreach.importing.matching): never merged across companies.
IMPORT_HELD_BY_ANOTHER_COMPANY = reasons.define(
    "import.held_by_another_company",
    _("imported; its %(key)s is also a contact's of %(company)s"),
    key=field_label,
)
# A row with several problems: the stored problems, and how many more did not fit.
IMPORT_SEVERAL = reasons.define("import.several", _("%(problems)s"), problems=_several)
IMPORT_SEVERAL_MORE = reasons.define(
    "import.several_more", _("%(problems)s; and %(more)s more problems"), problems=_several
)
# The whole file (ImportJob.error).
IMPORT_EMPTY_FILE = reasons.define("import.empty_file", _("the file is empty"))
IMPORT_NOT_UTF8 = reasons.define(
    "import.not_utf8",
    _(
        "line %(line)s: not valid UTF-8 (byte 0x%(byte)s at byte %(position)s of the line); "
        "export the file as 'CSV UTF-8'"
    ),
)
IMPORT_NOT_UTF8_NEAR = reasons.define(
    "import.not_utf8_near",
    _("line %(line)s or soon after: the file is not valid UTF-8; export it as 'CSV UTF-8'"),
)
IMPORT_UNREADABLE = reasons.define(
    "import.unreadable", _("line %(line)s: the CSV cannot be read here (%(detail)s)")
)
IMPORT_NO_HEADER = reasons.define(
    "import.no_header", _("line %(line)s: no header (the first row has no column names)")
)
IMPORT_SAME_COLUMN = reasons.define(
    "import.same_column",
    _("columns '%(first)s' and '%(second)s' both mean '%(field)s'; keep only one"),
    field=field_label,
)
IMPORT_NO_NAME_COLUMN = reasons.define(
    "import.no_name_column",
    _("missing the company name column (one of: %(accepted)s); columns found: %(found)s"),
    found=_none_if_empty,
)
IMPORT_CRASHED = reasons.define(
    "import.crashed", _("The import stopped on an unexpected error; nothing was saved.")
)

# --- why an enrollment stopped, and why its queued messages were cancelled
# (Enrollment.stop_reason holds 64 characters: keep these short, few parameters) --------
STOP_REPLY = reasons.define("stop.reply", _("the lead replied"))
STOP_STAGE = reasons.define("stop.stage", _("the lead moved to %(stage)s"), stage=Stage)
STOP_OPT_OUT = reasons.define("stop.opt_out", _("the lead opted out"))
STOP_TAKEOVER = reasons.define("stop.takeover", _("a colleague took the conversation over"))
STOP_COMPANY_REPLIED = reasons.define(
    "stop.company_replied", _("another contact of the company replied")
)
STOP_COMPANY_PAUSED = reasons.define(
    "stop.company_paused",
    _("paused until %(until)s: another contact of the company replied"),
    until=reasons.moment,
)
COMPANY_CONTINUED = reasons.define(
    "sequence.company_continued",
    _("another contact of the company replied; this sequence goes on with this contact"),
)
NURTURE_CONTINUED = reasons.define(
    "sequence.nurture_continued",
    _("the lead replied and the reply is not a refusal: this nurture sequence goes on"),
)
STOP_PAUSED = reasons.define("stop.paused", _("the lead was paused"))
STOP_REVIEW = reasons.define("stop.review", _("the lead is held for human review"))
STOP_NOT_RUNNING = reasons.define("stop.not_running", _("the sequence no longer runs for the lead"))

# --- what a provider held and was taken back (outreach.automation, the integrations) ------
# Message.error of a cold email a provider had not sent yet when automation stopped.
WITHDRAWN = reasons.define(
    "withdrawn.before_sent",
    _("Withdrawn from %(provider)s campaign %(campaign)s before it was sent: %(why)s"),
    why=reasons.render,
)
WITHDRAW_FAILED = reasons.define(
    "withdrawn.failed",
    _(
        "Could not withdraw it from %(provider)s campaign %(campaign)s (%(error)s): it may "
        "still be sent although %(why)s"
    ),
    why=reasons.render,
)

# --- the plan preview (outreach.plan_preview): why a lead waits, beyond dispatch's skips --
PLAN_DUE_LATER = reasons.define("plan.due_later", _("its next step is due after that day"))
PLAN_NOTHING_PLANNED = reasons.define(
    "plan.nothing_planned", _("nothing is planned for the lead (waiting for a reply or a send)")
)

# --- brochure drafting: their codes live with it (outreach.brochures.reasons) -------------
from outreach.brochures import reasons as _brochure_reasons  # noqa: E402,F401

# --- lead rules: their codes live with them (outreach.lead_rules.reasons) -----------------
from outreach.lead_rules import reasons as _lead_rule_reasons  # noqa: E402,F401
