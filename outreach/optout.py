"""Opt-out: the words that mean "stop", and what stopping does (permanent, per channel).

Detection is deterministic and runs before any AI, so a model's mistake can never keep
messaging someone who asked us to stop.
"""

from __future__ import annotations

import re
import unicodedata

from django.db import transaction
from django.utils import timezone

from cerniq import reasons
from cerniq.outbound.events import emit
from outreach import optout_reading as reading
from outreach import optout_vocabulary as vocabulary
from outreach import propagation, sequences
from outreach import reasons as codes
from outreach.models import Channel, Journey, Lead, Message
from outreach.suppression import suppress

# Typographic quotes and dashes to ASCII, and the Romanian letters of legacy code pages
# (ş ţ typed as º þ, ă as ã), before diacritics are stripped.
_PUNCTUATION = str.maketrans(
    {
        "\u2019": "'",
        "\u2018": "'",
        "`": "'",
        "\u00b4": "'",
        "\u2013": "-",
        "\u2014": "-",
        "\u00ba": "s",
        "\u00aa": "S",
        "\u00fe": "t",
        "\u00de": "T",
    }
)
CLAUSE_SPLIT = re.compile(r"[.!?;:\n()]+|,|\s-\s|\b(?:dar|insa|but|however|though)\b")
TOKEN = re.compile(r"[a-z0-9]+")

# How much of a long text the opt-out check reads: all of a text up to twice OPT_OUT_WINDOW
# characters (a long email, a reply above a quoted thread, a forward), else its first and
# its last OPT_OUT_WINDOW characters (a stop is written at the top of a reply, or at the
# very end of a long one). About 0.15 s for each window.
OPT_OUT_WINDOW = 16_000

# The vocabulary itself (what "stop" is written as) lives in outreach/optout_vocabulary.py.
STOP_PATTERNS = vocabulary.STOP_PATTERNS

# UTF-8 read as Windows-1252 by an old mail client or a forward: "È™" is "ș", "Äƒ" is
# "ă", "Ã®" is "î", "ðŸ›‘" is "🛑". A Romanian letter is two bytes in UTF-8, an emoji four:
# a lead byte (as Windows-1252 shows it) and its continuation bytes are read back first.
# Each byte as Windows-1252 shows it, and as Latin-1 does (its C1 controls).
_CHAR_BYTE = {chr(b): b for b in range(0x80, 0x100)} | {
    bytes([b]).decode("cp1252"): b
    for b in range(0x80, 0x100)
    if b not in (0x81, 0x8D, 0x8F, 0x90, 0x9D)
}


def _shown(first: int, last: int) -> str:
    return "".join(re.escape(char) for char, b in _CHAR_BYTE.items() if first <= b <= last)


_MOJIBAKE = re.compile(
    f"[{_shown(0xF0, 0xF4)}][{_shown(0x80, 0xBF)}]{{3}}"  # four bytes: emoji
    f"|[{_shown(0xE0, 0xEF)}][{_shown(0x80, 0xBF)}]{{2}}"  # three: quotes, dashes, symbols
    f"|[{_shown(0xC2, 0xDF)}][{_shown(0x80, 0xBF)}]"  # two: every Romanian letter
)
# Invisible format characters copied from web pages and PDFs (zero-width space and joiners,
# soft hyphen, word joiner, byte-order mark, direction marks): they sit inside words.
_INVISIBLE = dict.fromkeys(
    [0x00AD, 0x061C, 0x180E, *range(0x200B, 0x2010), *range(0x202A, 0x202F)]
    + [*range(0x2060, 0x2070), 0xFEFF],
    None,
)
# A dot between two letters ("nu.mai.trimiteti") separates words, not clauses.
_DOTTED = re.compile(r"(?<=[a-z])\.(?=[a-z])")

CONFIRMATION = {
    "ro": "Am înțeles. Nu vă vom mai contacta pe WhatsApp. Vă mulțumim și o zi bună!",
    "en": "Understood. We will not contact you on WhatsApp again. Thank you and have a good day!",
}
_ENGLISH = re.compile(r"\b(unsubscribe|remove me|opt out|don'?t|do not|please|thanks)\b")


def _utf8_again(match: re.Match[str]) -> str:
    try:
        return bytes(_CHAR_BYTE[char] for char in match.group()).decode("utf-8")
    except UnicodeError:  # not the bytes of one UTF-8 character: left as it is
        return match.group()


def normalise(text: str) -> str:
    """Lowercase, no diacritics (ș/ş→s, ț/ţ→t, ă/â→a, î→i), single spaces, stripped: the
    one normalisation of reply text (opt-out, triage, keywords).

    NFKD splits both the comma-below (ș U+0219) and the cedilla (ş U+015F) forms into a base
    letter plus a combining mark (U+0326, U+0327), and the marks are dropped; fullwidth
    letters and no-break spaces become plain ones; emoji are kept. Invisible characters
    (zero-width, soft hyphen) are dropped and text that went through Windows-1252 as UTF-8
    ("È™tergeÈ›i") is read back first; ş ţ ă of the cp1250 code page seen as Windows-1252
    (º þ ã) are read as s t a.
    """
    text = _MOJIBAKE.sub(_utf8_again, text.translate(_INVISIBLE))
    decomposed = unicodedata.normalize("NFKD", text.translate(_PUNCTUATION).lower())
    stripped = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return " ".join(stripped.split())


def one_edit_apart(a: str, b: str) -> bool:
    """True when a and b are at most one edit apart (substitution, insertion, deletion or
    swap of neighbours)."""
    if a == b:
        return True
    la, lb = len(a), len(b)
    if abs(la - lb) > 1:
        return False
    if la == lb:
        diff = [i for i in range(la) if a[i] != b[i]]
        return len(diff) == 1 or (
            len(diff) == 2
            and diff[1] == diff[0] + 1
            and a[diff[0]] == b[diff[1]]
            and a[diff[1]] == b[diff[0]]
        )
    if la > lb:
        a, b = b, a
    i = 0
    while i < len(a) and a[i] == b[i]:
        i += 1
    return a[i:] == b[i + 1 :]


def _stop_token(token: str) -> str:
    """A token one typo away from a word of the vocabulary ("contcatati") is that word."""
    if len(token) < 8:
        return token
    for word in vocabulary.FUZZY_STOP_WORDS:
        if one_edit_apart(token, word):
            return word
    return token


def clause_lines(norm: str) -> list[str]:
    """Normalised text → its clauses, each as tokens joined by one space ("don't" → "dont")."""
    lines = []
    for clause in CLAUSE_SPLIT.split(_DOTTED.sub(" ", norm)):
        tokens: list[str] = []
        for raw in TOKEN.findall(clause):
            if raw == "t" and tokens and tokens[-1].endswith("n"):
                tokens[-1] += "t"
            else:
                tokens.append(raw)
        if tokens:
            lines.append(" ".join(tokens))
    return lines


def bounded(text: str, window: int = OPT_OUT_WINDOW) -> list[str]:
    """The parts of a text that are read: all of it, or its first and last `window`
    characters when it is longer than two windows (each cut at a space, so no word is
    split into a new one)."""
    if len(text) <= 2 * window:
        return [text]
    head, tail = text[:window], text[-window:]
    head = head[: head.rfind(" ")] if " " in head else head
    tail = tail[tail.find(" ") + 1 :] if " " in tail else tail
    return [head, tail]


def readable(norm: str) -> str:
    """A normalised text as the vocabulary reads it: a mail client's legal boilerplate left
    out (`optout_reading.BOILERPLATE`, "if you received this in error, delete it"), older
    spellings read as the letters they stand for ("shtergetzi" → "stergeti")."""
    start = 0
    while match := reading.BOILERPLATE.search(norm, start):
        end = reading.SENTENCE_END.search(norm, match.end())
        stop = end.end() if end else len(norm)
        if reading.NOT_BOILERPLATE.search(norm, match.start(), stop):
            start = match.end()
        else:
            norm, start = norm[: match.start()] + " " + norm[stop:], match.start() + 1
    for pattern, spelt in reading.RESPELL:
        norm = pattern.sub(spelt, norm)
    return norm


def asks_to_stop(norm: str) -> bool:
    """Whether a normalised text (see `normalise`) asks us to stop writing."""
    norm = readable(norm)
    if vocabulary.STOP_WORD.search(norm) or vocabulary.STOP_SIGNS.match(norm):
        return True
    if vocabulary.SQUEEZED.match("".join(ch for ch in norm if "a" <= ch <= "z")):
        return True
    lines = [" ".join(_stop_token(t) for t in line.split()) for line in clause_lines(norm)]
    if vocabulary.WHOLE.match(" ".join(lines)):
        return True
    absolute = bool(vocabulary.ABSOLUTE.search(norm))
    if any(_clause_stops(line, absolute) for line in lines):
        return True
    return _threatens(lines)


def _clause_stops(line: str, absolute: bool) -> bool:
    """A clause of the vocabulary, unless it asks to be kept ("nu mă scoateți din listă")
    or only restricts when or where ("nu mai sunați pe fix") in a text that does not say
    never or at all."""
    if not vocabulary.STOP.search(line) or vocabulary.KEEP.search(line):
        return False
    return absolute or not vocabulary.QUALIFIED.search(line)


def _threatens(lines: list[str]) -> bool:
    conditional = [line for line in lines if vocabulary.CONDITIONAL.search(line)]
    return bool(conditional) and (
        bool(vocabulary.THREAT.search(" ".join(lines)))
        or any(vocabulary.NUISANCE.search(line) for line in conditional)
    )


def threatens(norm: str) -> bool:
    """Whether a normalised text threatens something if we write again ("dacă mă mai
    contactați, fac plângere"): an opt-out, and a complaint a person must see."""
    lines = clause_lines(readable(norm))
    return _threatens([" ".join(map(_stop_token, line.split())) for line in lines])


def is_opt_out(text: str) -> bool:
    """Whether a reply asks us to stop. Deterministic, and bounded: a long text is read at
    its start and its end (`bounded`)."""
    return any(asks_to_stop(normalise(part)) for part in bounded(text or ""))


def confirmation_for(text: str) -> str:
    """The confirmation in the reply's language, judged on the parts `is_opt_out` reads."""
    english = any(_ENGLISH.search(normalise(part)) for part in bounded(text or ""))
    return CONFIRMATION["en" if english else "ro"]


@transaction.atomic
def opt_out(
    lead: Lead, channel: str, *, trigger: Message | None = None, tell_providers: bool = True
) -> bool:
    """Opt the lead out for good, on every channel (issue #11 §8: a stop, an unsubscribe
    or a complaint on any channel stops them all), and stop everything automated for it;
    the providers holding the lead are told, with a receipt each (outreach.propagation;
    not with `tell_providers=False`: an erasure tells them itself). `channel` is where it
    was asked. Returns True the first time on that channel (when a confirmation is due
    there), False if it was already out of it."""
    now = timezone.now()
    journey = Journey.objects.select_for_update().get(lead=lead)
    first = not (
        journey.whatsapp_opted_out if channel == Channel.WHATSAPP else journey.email_opted_out
    )
    fields = ["updated_at"]
    if not journey.whatsapp_opted_out:
        journey.whatsapp_opted_out, journey.whatsapp_opted_out_at = True, now
        fields += ["whatsapp_opted_out", "whatsapp_opted_out_at"]
    if not journey.email_opted_out:
        journey.email_opted_out, journey.email_opted_out_at = True, now
        fields += ["email_opted_out", "email_opted_out_at"]
    journey.save(update_fields=fields)
    sequences.stop(lead.pk, reasons.code(codes.STOP_OPT_OUT))
    if len(fields) > 1:  # newly out somewhere: providers that write on their own must stop
        if tell_providers:
            propagation.start(lead, cause=propagation.Cause.OPT_OUT, at=now)
        emit(lead.tenant_id, "lead.opted_out", {"lead_id": lead.pk, "channel": channel})
    # The addresses themselves: no other lead carrying them is contacted either.
    reason = reasons.code(codes.SUPPRESSED_OPT_OUT, lead=lead.name, channel=channel)
    if lead.phone:
        suppress(lead.tenant_id, phone=lead.phone, reason=reason, message=trigger)
    if lead.email:
        suppress(lead.tenant_id, email=lead.email, reason=reason, message=trigger)
    return first
