"""Opt-out: the words that mean "stop", and what stopping does (permanent, per channel).

Detection is deterministic and runs before any AI, so a model's mistake can never keep
messaging someone who asked us to stop.
"""

from __future__ import annotations

import re
import unicodedata

from django.db import transaction
from django.utils import timezone

from outreach import sequences
from outreach.models import Channel, Journey, Lead, Message

# Phrases after normalising (lowercase, no diacritics, single spaces).
_PHRASES = (
    r"\bstop\b",
    r"\bdezabon\w*",
    r"\bunsubscribe\b",
    r"\bopt[ -]?out\b",
    r"\bremove me\b",
    r"\bdo not (contact|message|text|write to) me\b",
    r"\bdon'?t (contact|message|text|write to) me\b",
    # "mai" (any more) is what makes it a stop: "nu mă sunați, scrieți-mi" is not one.
    r"\bnu ma mai (contactati|contacta|suna|sunati|scrieti|deranjati)\b",
    r"\bnu (imi )?mai (trimiteti|trimite|scrieti|contactati)\b",
    r"\bnu mai vreau (mesaje|sa primesc|sa fiu contactat)\b",
    r"\bstergeti-?ma\b|\bsterge-?ma\b|\bstergeti numarul\b",
    r"\bscoateti-?ma\b|\bscoate-?ma\b",
    r"\bopriti mesajele\b",
)
_OPT_OUT = re.compile("|".join(_PHRASES))

CONFIRMATION = {
    "ro": "Am înțeles. Nu vă vom mai contacta pe WhatsApp. Vă mulțumim și o zi bună!",
    "en": "Understood. We will not contact you on WhatsApp again. Thank you and have a good day!",
}
_ENGLISH = re.compile(r"\b(unsubscribe|remove me|opt out|don'?t|do not|please|thanks)\b")


def normalise(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text.lower())
    stripped = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return " ".join(stripped.split())


def is_opt_out(text: str) -> bool:
    return bool(_OPT_OUT.search(normalise(text or "")))


def confirmation_for(text: str) -> str:
    return CONFIRMATION["en" if _ENGLISH.search(normalise(text)) else "ro"]


@transaction.atomic
def opt_out(lead: Lead, channel: str, *, trigger: Message | None = None) -> bool:
    """Opt the lead out of `channel` for good and stop everything automated for it.
    Returns True the first time (when a confirmation is due), False if already out."""
    now = timezone.now()
    journey = Journey.objects.select_for_update().get(lead=lead)
    if channel == Channel.WHATSAPP:
        first = not journey.whatsapp_opted_out
        journey.whatsapp_opted_out, journey.whatsapp_opted_out_at = True, now
        fields = ["whatsapp_opted_out", "whatsapp_opted_out_at"]
    else:
        first = not journey.email_opted_out
        journey.email_opted_out, journey.email_opted_out_at = True, now
        fields = ["email_opted_out", "email_opted_out_at"]
    journey.save(update_fields=[*fields, "updated_at"])
    sequences.stop(lead.pk, "opt-out")
    return first
