"""What every cold first message must carry (issue #22 §1): who is writing and how to stop.

A template version is checked when it is saved (the template page shows what it lacks)
and, when the workspace asks (`Tenant.first_templates_must_comply`), dispatch does not use
one that lacks either for a first message (outreach.dispatch_plan holds the enrollment,
with the reason).

- Who is writing: the workspace's name (or without its legal form, or its first word as a
  brand), with or without diacritics and case.
- How to stop: a sentence or link that says how not to get more messages, in Romanian or
  English ("Răspundeți STOP", "dezabonare", "nu mai doriți să primiți", "unsubscribe",
  "opt out"...). Every email also carries a one-click unsubscribe header; a cold email's
  text must still say it, as a WhatsApp message must.
"""

from __future__ import annotations

import re
import unicodedata

from django.utils.translation import gettext_lazy as _

from cerniq.models import Tenant

IDENTITY = "identity"
OPT_OUT = "opt_out"
MISSING_LABELS = {IDENTITY: _("who is writing"), OPT_OUT: _("how to stop receiving messages")}

_STOP_PATTERNS = re.compile(
    r"\bstop\b|dezabon|unsubscribe|opt[- ]?out|nu (mai )?(doriti|vreti|doresti|vrei)"
    r"|sa nu mai (primiti|primesti|fiti contactat)|no longer (wish|want)"
    r"|don'?t want (to hear|more|further)|\{\{\s*unsubscribe_url\s*\}\}",
    re.IGNORECASE,
)


def _folded(text: str) -> str:
    """Lowercase, without diacritics (ș/ş→s, ț/ţ→t, ă/â→a, î→i), spaces squeezed."""
    decomposed = unicodedata.normalize("NFKD", text or "")
    plain = "".join(c for c in decomposed if not unicodedata.combining(c))
    return " ".join(plain.casefold().split())


_LEGAL_FORMS = re.compile(r"\b(srl|s\.r\.l\.|sa|s\.a\.|pfa|ii|if|srl-d)\b\.?", re.IGNORECASE)


def names_of(tenant: Tenant) -> list[str]:
    """How a message may name the workspace (folded): its name, the name without its legal
    form ("Agro Semințe" for "Agro Semințe SRL"), and its first word when that is a brand
    of at least 4 letters ("Cerniq" for "Cerniq Demo Agro")."""
    name = _folded(tenant.name)
    plain = " ".join(_LEGAL_FORMS.sub(" ", name).split())
    forms = [f for f in (name, plain) if f]
    first = plain.split(" ", 1)[0] if plain else ""
    if len(first) >= 4:
        forms.append(first)
    return list(dict.fromkeys(forms))


def missing(tenant: Tenant, *, body: str, subject: str = "") -> list[str]:
    """What the text lacks, in order: IDENTITY, OPT_OUT (empty: it carries both)."""
    text = _folded(f"{subject}\n{body}")
    lacks = []
    if not any(re.search(rf"\b{re.escape(form)}\b", text) for form in names_of(tenant)):
        lacks.append(IDENTITY)
    if not _STOP_PATTERNS.search(text):
        lacks.append(OPT_OUT)
    return lacks


def said(lacks: list[str]) -> str:
    """ "who is writing and how to stop receiving messages", for people."""
    return str(_(" and ")).join(str(MISSING_LABELS.get(item, item)) for item in lacks)
