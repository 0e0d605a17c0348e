"""Reply triage: sentiment, intent and a drafted answer for every reply a lead sends.

    from hitl.triage import triage
    result = triage("Sunt interesat, cât costă?", contact_name="Ion Popescu")

`triage()` uses the backend configured as `settings.PROVIDERS["ai.triage"]`:

* `hitl.triage.OfflineTriage` (default, no key) — Romanian/English keyword and phrase tables
  with negation windows, diacritics-insensitive (ș/ş, ț/ţ, ă, â, î), typo-tolerant for the
  words that matter; parses out-of-office return dates; drafts from per-intent templates.
* `hitl.triage.OpenAICompatibleTriage` — any OpenAI-compatible `/chat/completions` API
  (OpenAI, Ollama, vLLM, LM Studio): strict-JSON answer validated field by field; on any
  failure the offline rules answer, with `fell_back=True` and a `fallback_reason`.

Whatever the backend, trigger `keywords` (urgent, problema, reclamatie, nemultumit, pret,
discount, manager, director, avocat, sef, anulare) are found locally, so keyword routing
never depends on a model.

The sentiment score is what routing reads (seed J: ≥ 50 → AI reply path, 0..49 → review
MEDIUM, < 0 → review URGENT; keywords → review HIGH); that routing lives in the caller.

Rate limiting is the caller's job too: `ai:sentiment:analyze` runs at most 60 calls a
minute per tenant through a Dramatiq rate limiter around `triage()`; this module never
sleeps or retries.
"""

from __future__ import annotations

from datetime import date

from cerniq.providers import get_backend
from hitl.triage.base import INTENTS, TriageBackend, TriageResult, normalise
from hitl.triage.facts import DraftContext
from hitl.triage.offline import OfflineTriage
from hitl.triage.openai_compatible import OpenAICompatibleTriage

__all__ = [
    "INTENTS",
    "DraftContext",
    "OfflineTriage",
    "OpenAICompatibleTriage",
    "TriageBackend",
    "TriageResult",
    "normalise",
    "triage",
]


def triage(
    text: str,
    *,
    contact_name: str = "",
    company_name: str = "",
    today: date | None = None,
    context: DraftContext | None = None,
) -> TriageResult:
    """Triage one reply with the backend configured as PROVIDERS["ai.triage"]. `context`:
    what the draft may use besides the text (the reply's time, the tenant's price list)."""
    backend = get_backend("ai.triage")
    names = {"contact_name": contact_name, "company_name": company_name}
    if context is None:
        return backend.analyse(text, **names, today=today)
    return backend.analyse(text, **names, today=today, context=context)
