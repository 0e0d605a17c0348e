"""The triage contract: intents, the result, the backend interface, text normalisation."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from datetime import date

from outreach import optout

INTENTS = (
    "interested",
    "meeting_request",
    "price_request",
    "question",
    "not_interested",
    "unsubscribe",
    "out_of_office",
    "wrong_person",
    "complaint",
    "referral",
    "other",
)
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
    ) -> TriageResult:
        """Intent, sentiment, language, keywords and a draft reply for one inbound text."""


# One normalisation of reply text for opt-out detection and triage alike.
normalise = optout.normalise
