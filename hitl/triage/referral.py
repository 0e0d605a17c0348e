"""The person a referral points to: "vorbiți cu colegul meu Ion Popescu, 0722 123 456",
"contact my colleague John at john@x.ro", "nu eu mă ocup, ci fratele meu" — the name (when
the text spells one with capitals, as names are written), a phone number and an email
address, read from the original text (names keep their letters and diacritics)."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from hitl.triage import rules
from hitl.triage.proposed_time import WEEKDAY_NAMES

# Words after which a name follows: relations, honorifics, "vorbiți cu", "talk to".
_TRIGGER = re.compile(
    r"\b(?:colegul|colega|colegei|colegului|fratele|fratelui|sora|surorii|fiul|fiului|fiica|"
    r"fiicei|sotul|sotului|sotia|sotiei|ginerele|nora|nepotul|nepoata|seful|sefa|directorul|"
    r"directoarea|administratorul|administratoarea|contabilul|contabila|agronomul|inginerul|"
    r"partenerul|asociatul|patronul|managerul|responsabilul|domnul|domnului|doamna|doamnei|"
    r"dl|dna|d-l|d-na|colleague|brother|sister|son|daughter|wife|husband|boss|partner|"
    r"manager|accountant|agronomist|mrs|mr|ms|cu|pe|to|contact|contactati|contactati-l|"
    r"contactati-o|ask for|numele|name is|se numeste|il cheama|o cheama|called|named)\b\.?"
    r"(?:\s+(?:meu|mea|nostru|noastra|my|our|his|her))?"
    r"(?:\s*,)?(?:\s+(?:domnul|doamna|dl|dna|d-l|d-na|mrs|mr|ms|ing|dr)\b\.?)?"
)
# A name written before what the person does: "Ion Popescu se ocupă de achiziții".
_DOES = re.compile(
    r"\s(?:se ocupa|raspunde|este responsabil|e responsabil|decide|handles|is in charge|"
    r"is responsible|takes care|deals with)\b"
)
_TOKEN = re.compile(r"\s*,?\s*([^\W\d_][\w'-]*)")
# Romanian numbers: 0 and nine digits, or +40 / 0040 and the nine without the 0.
PHONE = re.compile(r"(?<![\d+])(?:\+40|0040|0)\s?[237](?:[\s.-]?\d){8}(?!\d)")
# Anchored at the start of the address, so a long word without "@" is read once.
EMAIL = re.compile(r"(?<![\w.+-])[\w.+-]{1,64}@[\w-]{1,63}(?:\.[\w-]{1,63})+")

_STOP = (
    rules.RO_WORDS
    | rules.EN_WORDS
    | {name for names in WEEKDAY_NAMES.values() for name in names}
    | frozenset(
        """la pe cu se ocupa raspunde el ea numar telefon tel mobil email mail whatsapp zoom
        teams skype at by he she him her who which de din asta acesta aceasta ing dr srl sa
        sc pfa ii if agro firma ferma office manager colleague colegul colega fratele domnul
        doamna mr mrs ms contact numele name sunati suna scrieti contactati va multumesc
        mersi thanks regards cu stima toate o zi buna ok okay""".split()  # noqa: SIM905
    )
)


@dataclass(frozen=True)
class Referral:
    """Who to talk to instead: a name, a phone, an email (each "" when not given)."""

    name: str = ""
    phone: str = ""
    email: str = ""

    @property
    def reachable(self) -> bool:
        """A way to reach the person was given (a name alone is not one)."""
        return bool(self.phone or self.email)


def _fold(text: str) -> str:
    """Lowercase without diacritics, one character for one: positions match the original."""
    out = []
    for char in text:
        base = unicodedata.normalize("NFKD", char)
        kept = "".join(c for c in base if not unicodedata.combining(c)) or char
        out.append(kept.lower()[0])
    return "".join(out)


def _capitalised(token: str) -> bool:
    return token[0].isupper() and len(token) > 1 and _fold(token) not in _STOP


def _name_after(text: str, start: int) -> str:
    words: list[str] = []
    position = start
    while len(words) < 3:
        match = _TOKEN.match(text, position)
        if match is None or not _capitalised(match[1]) or (words and "," in match[0]):
            break
        words.append(match[1])
        position = match.end()
    return " ".join(word if not word.isupper() else word.title() for word in words)


def find_name(text: str) -> str:
    """The name of the person the text points to, "" when it names nobody in capitals."""
    folded = _fold(text)
    for match in _TRIGGER.finditer(folded):
        name = _name_after(text, match.end())
        if name:
            return name
    for match in _DOES.finditer(folded):
        words = text[max(0, match.start() - 80) : match.start()].split()[-3:]
        kept: list[str] = []
        for word in reversed(words):  # the capitalised words right before the verb
            if not re.fullmatch(r"[^\W\d_][\w'-]*", word) or not _capitalised(word):
                break
            kept.insert(0, word)
        if kept:
            return " ".join(w if not w.isupper() else w.title() for w in kept)
    return ""


def find_referral(text: str) -> Referral:
    """The name, phone and email the referral gives ("" for each one it does not)."""
    phone = PHONE.search(text)
    email = EMAIL.search(text)
    return Referral(
        name=find_name(text),
        phone=" ".join(phone[0].split()) if phone else "",
        email=email[0].rstrip(".") if email else "",
    )
