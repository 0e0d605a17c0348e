"""The triage contract: intents, the result, the backend interface, text normalisation."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from datetime import date
from typing import TYPE_CHECKING

from django.db.models import TextChoices
from django.utils.translation import gettext_lazy as _

from outreach import optout

if TYPE_CHECKING:
    from hitl.triage.facts import DraftContext


class Intent(TextChoices):
    """What a reply wants; the labels are what operators read (never the raw value)."""

    INTERESTED = "interested", _("Interested")
    MEETING_REQUEST = "meeting_request", _("Asks for a meeting or a call")
    PRICE_REQUEST = "price_request", _("Asks for a price")
    QUESTION = "question", _("Asks a question")
    NOT_INTERESTED = "not_interested", _("Declines")
    UNSUBSCRIBE = "unsubscribe", _("Asks to stop")
    OUT_OF_OFFICE = "out_of_office", _("Out of office")
    WRONG_PERSON = "wrong_person", _("Wrong person")
    COMPLAINT = "complaint", _("Complaint")
    REFERRAL = "referral", _("Points to someone else")
    OTHER = "other", _("Other")


INTENTS: tuple[str, ...] = tuple(Intent.values)
LANGUAGES = ("ro", "en")


@dataclass(frozen=True)
class TriageResult:
    sentiment: int  # -100..100
    intent: str  # one of INTENTS
    confidence: float  # 0..1
    language: str  # "ro" | "en"
    draft: str  # a short reply in the lead's language ("" for unsubscribe)
    backend: str  # "offline" | "openai_compatible"
    fell_back: bool = False  # True when openai_compatible failed and offline answered
    fallback_reason: str = ""
    return_date: date | None = None  # out_of_office: the date the person is back, if given
    keywords: tuple[str, ...] = ()  # trigger keywords found (normalised), e.g. "pret"
    # What routing must know besides the intent, found locally whatever the backend:
    # "complaint" (the reply complains, even when its intent is an opt-out), "sarcasm"
    # (never answered automatically), "meeting_time" (proposes a concrete day or hour),
    # "deferral" (a decline for now only: "poate la toamnă");
    # offline only, "uncertain" (the intent model overruled the rules: a person approves).
    signals: tuple[str, ...] = ()


class TriageBackend(ABC):
    """The interface of an `ai.triage` backend (the offline rules, an OpenAI-compatible
    model): the one method the reply path calls."""

    needs_credentials: bool = True
    is_sandbox: bool = False

    @abstractmethod
    def analyse(
        self,
        text: str,
        *,
        contact_name: str = "",
        company_name: str = "",
        today: date | None = None,
        context: DraftContext | None = None,
    ) -> TriageResult:
        """Intent, sentiment, language, keywords and a draft reply for one inbound text.
        `context`: what the draft may use besides the text (hitl.triage.facts)."""


# One normalisation of reply text for opt-out detection and triage alike.
normalise = optout.normalise

# How much of a reply the triage reads: the whole text is stored, its first MAX_TRIAGE_CHARS
# characters are analysed (the opt-out check reads its start and its end, see
# outreach.optout.bounded).
MAX_TRIAGE_CHARS = 4_000


def prefix(text: str, limit: int = MAX_TRIAGE_CHARS) -> str:
    """The part of a reply the triage analyses: its first `limit` characters, cut at a space
    so that no word is cut into another one."""
    if len(text) <= limit:
        return text
    head = text[:limit]
    cut = head.rfind(" ")
    return head[:cut] if cut > limit // 2 else head


def intent_label(value: str) -> str:
    """An intent in the reader's language (an unknown value as it is)."""
    try:
        return str(Intent(value).label)
    except ValueError:
        return value
