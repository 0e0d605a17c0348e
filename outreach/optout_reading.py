"""How the opt-out check reads a reply before the vocabulary (outreach/optout_vocabulary.py)
is matched: older spellings read as the letters they stand for, and a mail client's legal
boilerplate left out. `outreach.optout.asks_to_stop` applies both."""

from __future__ import annotations

import re

# Spellings of older phones and keyboards, read as the letters they stand for: "tz" for ț
# ("trimitetzi"), "tsi" ("contactatsi"), "sh" for ș before t ("shtergeti"), and a clitic
# glued to a verb of leaving or removing ("lasatima", "stergetine").
RESPELL: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"tz"), "t"),
    (re.compile(r"(?<=[a-z]{3})tsi\b"), "ti"),
    (re.compile(r"\bsh(?=t)|\bsh(?=i\b)"), "s"),
    (
        re.compile(
            r"\b(lasati|lasa|stergeti|sterge|scoateti|scoate|eliminati|elimina|dezabonati|"
            r"dezaboneaza|uitati|scutiti|slabiti|opriti)(ma|ne|mi|l)\b"
        ),
        r"\1 \2",
    ),
)

# Boilerplate a sender's mail client adds, addressed to whoever receives it: a legal
# disclaimer ("dacă ați primit acest mesaj din greșeală, vă rugăm să-l ștergeți", "if you
# are not the intended recipient, delete it") and a data-protection notice ("aveți dreptul
# de acces, de rectificare, de a solicita ștergerea datelor"). From its first words to the
# end of its sentence it is not a request to us, unless it speaks of the writer's own
# number or data or says "any more"; what comes before it in the sentence is still read.
# It is read on the normalised text, punctuation and all: a space in the pattern is any
# run of characters that separates two words of one sentence.
_WORDS_APART = r"[^\w.!?]+"
BOILERPLATE = re.compile(
    (
        r"\b(?:daca (\w+ ){0,5}(primit|receptionat) (\w+ ){0,4}(din greseala|eronat|gresit|in mod "
        r"eronat)|(if|in case) (you|u) (\w+ ){0,3}received (\w+ ){0,4}(in error|by mistake|by "
        r"error|mistakenly)|(if|in case) (you|u) (are|were) not (the|an) (intended|named|"
        r"addressee)|destinat\w* (\w+ )?(exclusiv|numai|doar) (\w+ ){0,2}(destinatar\w*|"
        r"persoan\w*|entitat\w*)|"
        r"intended (only |solely |exclusively )?for the (\w+ )?(addressee|recipient|use)|"
        r"(?<!nu\s)(aveti|ai) (\w+ )?dreptul (de|la) (acces|informare|rectificare|portabilitate)|"
        r"(sunt|vor fi|fi|este|sint) prelucrate (\w+ ){0,2}(conform|in conformitate|potrivit)|"
        r"you have the right (of|to) (access|rectification|object)|confidentiality notice|"
        r"this (e\W?mail|message) (and any|is confidential|may contain))"
    ).replace(" ", _WORDS_APART)
)
# What no disclaimer says: the writer's own number or data, "any more", "again".
NOT_BOILERPLATE = re.compile(
    r"\b(?:numarul (meu|nostru)|datele (mele|noastre)|adresa (mea|noastra)|(my|our) (number|"
    r"data|details|address|e ?mail)|mai|again|anymore|any more)\b"
)
SENTENCE_END = re.compile(r"[.!?]+(?=\s|$)")
