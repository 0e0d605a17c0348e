"""`{% composer lead %}`: the inbox's composer for one lead, computed from the lead alone
(and the signed-in operator): which channels the operator may write on now and why not,
the channel an answer goes on, the workspace's quick replies, and a draft kept by a
refused plain (non-htmx) send. The send endpoint (console.views.inbox_composer) renders
the same form with `composer_context`."""

from __future__ import annotations

from dataclasses import dataclass, field

from django import template
from django.conf import settings
from django.contrib.auth.models import User
from django.http import HttpRequest

from outreach import attachments, media, quick_replies
from outreach.manual import MAX_EMAIL_SUBJECT, MAX_EMAIL_TEXT, MAX_WHATSAPP_TEXT
from outreach.manual_checks import (
    Latest,
    channel_answers,
    default_channel,
    email_subjects,
    latest,
    window_notice,
)
from outreach.models import Channel, Journey, Lead

register = template.Library()

FORM_TEMPLATE = "outreach/inbox/_composer_form.html"


@dataclass(frozen=True)
class Kept:
    """What the operator typed, shown again after a refused send (files are not kept)."""

    channel: str = ""
    text: str = ""
    subject: str = ""
    error: str = ""
    sent: bool = False  # the form follows a successful send: the browser drops its draft
    extra: dict = field(default_factory=dict)


def draft_key(lead: Lead) -> str:
    return f"composer-draft:{lead.pk}"


def reply_subject(lead: Lead, known: Latest | None = None) -> str:
    """An email answer's subject: "Re: " and the lead's last email subject, as a mail
    client would put it (empty when the lead never wrote by email). `known`: the lead's
    `manual_checks.latest`, when the caller has read it."""
    last = known.subject if known is not None else email_subjects(lead).first()
    if not last:
        return ""
    subject = last if last[:3].lower() == "re:" else f"Re: {last}"
    return subject[:MAX_EMAIL_SUBJECT]


def composer_context(
    request: HttpRequest, lead: Lead, kept: Kept | None = None, journey: Journey | None = None
) -> dict:
    """Everything _composer_form.html shows for `lead`, for the signed-in operator
    (`journey`: the lead's, when the page read it with the lead)."""
    user = request.user if isinstance(request.user, User) else None
    if kept is None:
        stored = request.session.pop(draft_key(lead), None) if hasattr(request, "session") else None
        kept = Kept(**stored) if isinstance(stored, dict) else Kept()
    known = latest(lead)
    answers = channel_answers(lead, user, journey=journey, known=known)
    allowed = [a.channel for a in answers if a.allowed]
    channel = kept.channel if kept.channel in (a.channel for a in answers) else ""
    channel = channel or default_channel(lead, answers, known)
    refusals = {a.refusal for a in answers}
    shared = refusals.pop() if len(refusals) == 1 else ""  # a lead-level one, said once
    return {
        "lead": lead,
        "answers": answers,
        "shared_refusal": shared,
        "reply_subject": reply_subject(lead, known),
        "window_notice": window_notice(lead.tenant),
        "any_allowed": bool(allowed),
        "channel": channel,
        "email_channel": Channel.EMAIL_WARM,
        "kept": kept,
        "quick_replies": quick_replies.for_channel(lead.tenant),
        "max_whatsapp": MAX_WHATSAPP_TEXT,
        "max_email": MAX_EMAIL_TEXT,
        "max_subject": MAX_EMAIL_SUBJECT,
        "accept": ",".join(sorted(attachments.ALLOWED)),
        "max_files": attachments.MAX_FILES,
        "max_file_mb": attachments.MAX_FILE_BYTES // (1024 * 1024),
        "media_accept": media.ACCEPT,
        "media_image_mb": media.MAX_BYTES["image"] // media.MB,
        # A page's whole request is limited too (cerniq.http_errors), below a PDF's limit.
        "media_pdf_mb": min(media.MAX_BYTES["document"], settings.UPLOAD_MAX_REQUEST_BYTES)
        // media.MB,
    }


def _page_journey(lead: Lead) -> Journey | None:
    """The journey the page read with the lead (None when it did not, or there is none)."""
    if not Lead.journey.is_cached(lead):
        return None
    try:
        return lead.journey
    except Journey.DoesNotExist:
        return None


@register.inclusion_tag(FORM_TEMPLATE, takes_context=True)
def composer(context: template.Context, lead: Lead) -> dict:
    found = composer_context(context["request"], lead, journey=_page_journey(lead))
    found["request"] = context["request"]
    return found  # Django passes the page's csrf_token on to an inclusion tag
