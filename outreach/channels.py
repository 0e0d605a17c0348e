"""Channel selection (seed worker B#8): which channel reaches this lead for this step, and why."""

from __future__ import annotations

from dataclasses import dataclass

from outreach.models import Channel, Journey, Lead, Stage


@dataclass(frozen=True)
class ChannelChoice:
    channel: str | None
    reason: str
    fallback: bool = False  # True when the step's own channel cannot reach the lead


def whatsapp_blocker(lead: Lead, journey: Journey) -> str:
    """Why WhatsApp cannot reach this lead ("" when it can)."""
    if journey.whatsapp_opted_out:
        return "opted out of WhatsApp"
    if not lead.phone:
        return "no phone number"
    if not lead.phone_reachable:
        return "phone not reachable on WhatsApp"
    return ""


def email_blocker(lead: Lead, journey: Journey) -> str:
    """Why email cannot reach this lead ("" when it can)."""
    if journey.email_opted_out:
        return "opted out of email"
    if not lead.email:
        return "no email address"
    if lead.email_status != Lead.EmailStatus.VALID:
        return f"email status {lead.email_status}"
    return ""


def email_kind(journey: Journey) -> str:
    """Cold email for a lead nobody has talked to yet, warm email otherwise (seed rule)."""
    return Channel.EMAIL_COLD if journey.stage == Stage.COLD else Channel.EMAIL_WARM


def choose_channel(lead: Lead, journey: Journey, step_channel: str) -> ChannelChoice:
    """WhatsApp when the step asks for it and the lead is reachable there, else email."""
    wa_blocked = whatsapp_blocker(lead, journey)
    mail_blocked = email_blocker(lead, journey)
    if step_channel == Channel.WHATSAPP:
        if not wa_blocked:
            return ChannelChoice(Channel.WHATSAPP, "WhatsApp step; phone reachable")
        if not mail_blocked:
            kind = email_kind(journey)
            return ChannelChoice(kind, f"{wa_blocked}; email is valid", fallback=True)
        return ChannelChoice(None, f"no usable channel: {wa_blocked}; {mail_blocked}")
    if not mail_blocked:
        kind = email_kind(journey)
        label = "cold" if kind == Channel.EMAIL_COLD else "warm"
        return ChannelChoice(kind, f"email step; {label} email for stage {journey.stage}")
    if not wa_blocked:
        return ChannelChoice(Channel.WHATSAPP, f"{mail_blocked}; phone reachable", fallback=True)
    return ChannelChoice(None, f"no usable channel: {mail_blocked}; {wa_blocked}")


SUBJECT_FROM_BODY_MAX = 78  # characters: what mail clients show of a subject line


def email_subject(subject: str, body: str) -> str:
    """The subject of an email step: the template's, or, when the template has none (a
    WhatsApp text reused by a fallback), the body's first line cut at a word, because an
    email without a subject is refused by Instantly and looks like spam anywhere else."""
    subject = " ".join(subject.split())
    if subject:
        return subject
    first = " ".join((body.strip().splitlines() or [""])[0].split())
    if len(first) <= SUBJECT_FROM_BODY_MAX:
        return first
    return first[:SUBJECT_FROM_BODY_MAX].rsplit(" ", 1)[0].rstrip(",;:") + "…"
