"""Channel selection (seed worker B#8): which channel reaches this lead for this step, and why.

What a channel can reach is the lead's readiness (outreach.readiness); this only picks."""

from __future__ import annotations

from dataclasses import dataclass

from cerniq import reasons
from outreach import reasons as codes
from outreach.models import Channel, Journey, Stage
from outreach.readiness import Readiness


@dataclass(frozen=True)
class ChannelChoice:
    channel: str | None
    reason: str  # a stored reason code (outreach.reasons): why this channel, or why none
    fallback: bool = False  # True when the step's own channel cannot reach the lead


def email_kind(journey: Journey) -> str:
    """Cold email for a lead nobody has talked to yet, warm email otherwise (seed rule)."""
    return Channel.EMAIL_COLD if journey.stage == Stage.COLD else Channel.EMAIL_WARM


def choose_channel(ready: Readiness, journey: Journey, step_channel: str) -> ChannelChoice:
    """The step's channel when the lead's readiness allows it there (a number or address
    nobody checked counts when the tenant's policy contacts it), else the other channel."""
    wa, mail = ready.whatsapp, ready.email
    none = ChannelChoice(
        None, reasons.code(codes.NO_CHANNEL, whatsapp=wa.reason, email=mail.reason)
    )
    if step_channel == Channel.WHATSAPP:
        if wa.usable:
            return ChannelChoice(
                Channel.WHATSAPP, reasons.code(codes.CHOSE_STEP_CHANNEL, channel=Channel.WHATSAPP)
            )
        if mail.usable:
            kind = email_kind(journey)
            why = reasons.code(codes.CHOSE_FALLBACK, channel=kind, why=wa.reason)
            return ChannelChoice(kind, why, fallback=True)
        return none
    if mail.usable:
        kind = email_kind(journey)
        return ChannelChoice(kind, reasons.code(codes.CHOSE_STEP_CHANNEL, channel=kind))
    if wa.usable:
        why = reasons.code(codes.CHOSE_FALLBACK, channel=Channel.WHATSAPP, why=mail.reason)
        return ChannelChoice(Channel.WHATSAPP, why, fallback=True)
    return none


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
