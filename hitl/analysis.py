"""An inbound message's AI analysis as the pages show it: the lead page's timeline and the
inbox's thread read it from here, so both say the same thing in the same words."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _

from cerniq import reasons
from hitl.reasons import DECISION_PENDING
from hitl.triage.base import intent_label
from outreach.models import POSITIVE_SENTIMENT, Message

NEGATIVE_SENTIMENT = -30  # at or below: the reply reads as negative


def analysis_of(message: Message) -> dict[str, Any] | None:
    """decision / intent / sentiment / confidence from the stored analysis of an inbound
    message (hitl.replies writes it), or None when there is nothing to say."""
    return reading(message.analysis)


def reading(data: object) -> dict[str, Any] | None:
    """`analysis_of` from a message's stored `analysis` value itself."""
    if not isinstance(data, dict) or not data:
        return None
    triage = data.get("triage")
    if not isinstance(triage, dict):
        triage = {}
    decision = data.get("decision") or ""
    if reasons.is_code(decision, DECISION_PENDING):
        decision = ""  # said by the "being analysed" badge
    found = {
        "decision": decision,
        "intent": intent_label(data.get("intent") or triage.get("intent") or ""),
        "sentiment": data.get("sentiment", triage.get("sentiment")),
        "confidence": data.get("confidence", triage.get("confidence")),
        # Stored, not triaged yet (hitl.triage_jobs): the page polls until it is.
        "pending": bool(data.get("pending")),
    }
    return found if any(v not in (None, "", False) for v in found.values()) else None


def tone(sentiment: object) -> str:
    """The sentiment score (-100..100) as a word an operator reads at a glance."""
    if not isinstance(sentiment, int | float):
        return ""
    if sentiment >= POSITIVE_SENTIMENT:
        return _("positive")
    if sentiment <= NEGATIVE_SENTIMENT:
        return _("negative")
    return _("neutral")


def certainty(confidence: object) -> str:
    """The model's confidence (0..1) as words: how much to trust the reading."""
    if not isinstance(confidence, int | float):
        return ""
    percent = round(confidence * 100) if confidence <= 1 else round(confidence)
    if percent >= 80:
        return _("sure (%(percent)s%%)") % {"percent": percent}
    if percent >= 50:
        return _("fairly sure (%(percent)s%%)") % {"percent": percent}
    return _("unsure (%(percent)s%%)") % {"percent": percent}


def in_words(message: Message) -> dict[str, Any] | None:
    """The analysis for the inbox's thread: the intent, the tone and how sure the model
    is as words, and the decision (a stored reason, rendered by the page's `reason`)."""
    return words(message.analysis)


def words(data: object) -> dict[str, Any] | None:
    """`in_words` from a message's stored `analysis` value itself."""
    found = reading(data)
    if found is None:
        return None
    return {
        **found,
        "tone": tone(found["sentiment"]),
        "certainty": certainty(found["confidence"]),
    }
