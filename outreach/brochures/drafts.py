"""The drafts of one brochure: what they are, the rules every one must pass, where they go.

Four drafts: a first WhatsApp message, two WhatsApp follow-ups and a cold email (subject
and body). Each must pass `outreach.spintax.validate` for its channel with the built-in
variables only (a lead's custom fields differ from lead to lead; a draft may not count on
one), and the first WhatsApp message as a first message (no links). Whoever drafts (the
model or the offline rules), the same check says whether the text may be saved.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.translation import gettext_lazy as _

from outreach import spintax
from outreach.models import Channel


@dataclass(frozen=True)
class Kind:
    """One draft: its field in the model's answer, its channel, how its template is named."""

    field: str
    channel: str
    label: object  # a lazy translation: "WhatsApp, first message"
    first_message: bool = False


KINDS = (
    Kind("whatsapp_first", Channel.WHATSAPP, _("WhatsApp, first message"), first_message=True),
    Kind("whatsapp_followup_1", Channel.WHATSAPP, _("WhatsApp, follow-up 1")),
    Kind("whatsapp_followup_2", Channel.WHATSAPP, _("WhatsApp, follow-up 2")),
    Kind("email_body", Channel.EMAIL_COLD, _("cold email")),
)
SUBJECT_FIELD = "email_subject"
FIELDS = (*(kind.field for kind in KINDS[:3]), SUBJECT_FIELD, KINDS[3].field)
MAX_SUBJECT_CHARS = 200  # TemplateVersion.subject holds 255; a subject is short


@dataclass(frozen=True)
class Drafts:
    """The texts, spintax and {{variables}} included, in Romanian."""

    whatsapp_first: str
    whatsapp_followup_1: str
    whatsapp_followup_2: str
    email_subject: str
    email_body: str

    def body(self, kind: Kind) -> str:
        return str(getattr(self, kind.field))

    def subject(self, kind: Kind) -> str:
        return self.email_subject if kind.channel != Channel.WHATSAPP else ""


def problems(drafts: Drafts) -> dict[str, list[str]]:
    """Every draft's problems by field ({} when each may be saved)."""
    found: dict[str, list[str]] = {}
    for kind in KINDS:
        text = drafts.body(kind)
        listed = [str(_("it is empty"))] if not text.strip() else []
        listed += spintax.validate(text, channel=kind.channel, first_message=kind.first_message)
        if listed:
            found[kind.field] = listed
    subject = drafts.email_subject
    listed = [str(_("it is empty"))] if not subject.strip() else []
    if "\n" in subject.strip():
        listed.append(str(_("a subject is one line")))
    if len(subject) > MAX_SUBJECT_CHARS:
        listed.append(str(_("at most %(limit)d characters")) % {"limit": MAX_SUBJECT_CHARS})
    listed += spintax.validate(subject, channel=Channel.EMAIL_COLD)
    if listed:
        found[SUBJECT_FIELD] = listed
    return found
