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
from outreach.suppression import channel_address, suppress

# Typographic quotes and dashes to ASCII, before diacritics are stripped.
_PUNCTUATION = str.maketrans(
    {"\u2019": "'", "\u2018": "'", "`": "'", "\u00b4": "'", "\u2013": "-", "\u2014": "-"}
)
CLAUSE_SPLIT = re.compile(r"[.!?;:\n()]+|,|\s-\s|\b(?:dar|insa|but|however|though)\b")
TOKEN = re.compile(r"[a-z0-9]+")

# The opt-out vocabulary (the one list): what people write when they mean "stop", as
# regexes over a clause's tokens joined by single spaces ("Ștergeți-mă!" → "stergeti ma",
# "don't" → "dont"). The offline triage scores its "unsubscribe" intent with the same list.
# "mai" (any more) is what makes the Romanian ones a stop: "nu mă sunați, scrieți-mi" is not.
STOP_PATTERNS: tuple[str, ...] = (
    (r"dezabon\w*|unsubscribe|unsubscribed|unsub|optout|opt (me )?out"),
    (
        r"(nu|n) (ma |ne |mi |imi )?mai (trimiteti|trimite|scrieti|scrie|sunati|suna|"
        r"contactati|contacta|deranjati|deranja|spamati)"
    ),
    (r"(nu|n) (ma|ne) (contactati|deranjati)"),
    (
        r"(nu|n) (mai )?(vreau|vrem|doresc|dorim) (sa (mai )?)?(primesc|primim|"
        r"fiu contactat\w*|fiu sunat\w*|mesaje|sms|emailuri|e mailuri|oferte)"
    ),
    (
        r"(stergeti|sterge|scoateti|scoate|eliminati) (ma|ne|mi|numarul|datele|adresa)|"
        r"(ma|ne) (stergeti|scoateti|eliminati) (din|de pe|de la)"
    ),
    (
        r"(remove|delete|take) (me|us|my (number|email|details|data|contact))|(do not|"
        r"dont|never) (contact|message|text|email|call|write to) (me|us)|"
        r"no more (messages|emails|texts|calls)|leave (me|us) alone|lasati (ma|"
        r"ne) in pace|stop (spam|mesaje|mesajele|mesajelor|sms|messages|messaging|"
        r"texting|emailing|emails|contacting|sending|writing)|(opriti|oprire|opreste|"
        r"opriti va cu) (\w+ )?(mesaje|mesajele|mesajelor|trimiterea|sms|spam|spamul|"
        r"notificarile|apelurile)|ajunge cu (mesajele|mesaje|sms|spam|apelurile)|(dont|"
        r"do not|no longer) (want|wish) (to )?(receive |get )?(any )?(more )?(messages|"
        r"emails|texts|sms|calls)|(retrag|retrageti|retragem|revoc|"
        r"revocati) (\w+ ){0,2}(consimtamantul|acordul)|withdraw (my |our )?consent"
    ),
)
_STOP = re.compile(rf"\b(?:{'|'.join(STOP_PATTERNS)})\b")
# A bare "STOP" (the word itself, as SMS taught everyone) anywhere in the text.
_STOP_WORD = re.compile(r"\bstop\b")

CONFIRMATION = {
    "ro": "Am înțeles. Nu vă vom mai contacta pe WhatsApp. Vă mulțumim și o zi bună!",
    "en": "Understood. We will not contact you on WhatsApp again. Thank you and have a good day!",
}
_ENGLISH = re.compile(r"\b(unsubscribe|remove me|opt out|don'?t|do not|please|thanks)\b")


def normalise(text: str) -> str:
    """Lowercase, no diacritics (ș/ş→s, ț/ţ→t, ă/â→a, î→i), single spaces, stripped: the
    one normalisation of reply text (opt-out, triage, keywords).

    NFKD splits both the comma-below (ș U+0219) and the cedilla (ş U+015F) forms into a base
    letter plus a combining mark, and the marks are dropped; emoji are kept.
    """
    decomposed = unicodedata.normalize("NFKD", text.translate(_PUNCTUATION).lower())
    stripped = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return " ".join(stripped.split())


def clause_lines(norm: str) -> list[str]:
    """Normalised text → its clauses, each as tokens joined by one space ("don't" → "dont")."""
    lines = []
    for clause in CLAUSE_SPLIT.split(norm):
        tokens: list[str] = []
        for raw in TOKEN.findall(clause):
            if raw == "t" and tokens and tokens[-1].endswith("n"):
                tokens[-1] += "t"
            else:
                tokens.append(raw)
        if tokens:
            lines.append(" ".join(tokens))
    return lines


def is_opt_out(text: str) -> bool:
    norm = normalise(text or "")
    return bool(_STOP_WORD.search(norm)) or any(_STOP.search(line) for line in clause_lines(norm))


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
    address = channel_address(channel, phone=lead.phone, email=lead.email)
    if any(address.values()):  # the address itself: no other lead carrying it is contacted
        suppress(lead.tenant_id, **address, reason=f"opt-out of lead {lead.pk}", message=trigger)
    return first
