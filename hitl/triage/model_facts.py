"""The rules' facts as the model reads them, and the check that the model's draft used them:
a model draft that leaves out the tenant's price-list link or answer, the hour the lead
proposed or the name of the person a referral gives is replaced by the rules' draft for the
model's intent, so that whichever backend answers, the draft says the same things."""

from __future__ import annotations

import re
from typing import Any

from hitl.triage.base import normalise
from hitl.triage.drafts import CALL_INTENTS, draft_reply, say_slot, say_time
from hitl.triage.facts import DraftFacts


def facts_for_model(facts: DraftFacts, text: str) -> dict[str, Any]:
    """JSON-ready facts: each time both as data and as the drafts say it ("said")."""
    proposed = facts.proposed_time
    referral = facts.referral
    said: dict[str, str | None] = {"ro": None, "en": None}
    if proposed is not None:
        said = {lang: say_time(proposed, lang, facts.today) for lang in ("ro", "en")}
    return {
        "proposed_time": None
        if proposed is None
        else {
            "day": proposed.day.isoformat() if proposed.day else None,
            "time": f"{proposed.at:%H:%M}" if proposed.at else None,
            "relation": proposed.relation,
            "until": f"{proposed.until:%H:%M}" if proposed.until else None,
            "part_of_day": proposed.part or None,
            "said": said,
        },
        "call_slots": [
            {
                "at": slot.isoformat(timespec="minutes"),
                "said": {lang: say_slot(slot, lang, facts.today) for lang in ("ro", "en")},
            }
            for slot in facts.slots
        ],
        "referral": {
            "name": referral.name or None,
            "phone": referral.phone or None,
            "email": referral.email or None,
        },
        "price_list": {
            "url": facts.price_list.url or None,
            "answer": facts.price_list.answer or None,
        },
        "asks_price": facts.asks_price,
    }


def _said_hour(draft: str, facts: DraftFacts) -> bool:
    proposed = facts.proposed_time
    if proposed is None or proposed.day is None or proposed.at is None:
        return True
    hour = proposed.at
    shown = {f"{hour:%H:%M}", f"{hour:%H.%M}", f"{hour.hour}:{hour.minute:02d}"}
    if any(clock in draft for clock in shown):
        return True
    twelve = hour.hour % 12 or 12
    return bool(re.search(rf"\b({hour.hour}|{twelve})\b", draft)) and not hour.minute


def _misses_facts(draft: str, intent: str, facts: DraftFacts) -> bool:
    flat = " ".join(draft.split())
    prices = facts.price_list
    if intent == "price_request" or (facts.asks_price and intent in CALL_INTENTS):
        if prices.url.strip() and prices.url.strip() not in flat:
            return True
        answer = " ".join(prices.answer.split())
        if answer and normalise(answer) not in normalise(flat):
            return True
    if intent in ("interested", "meeting_request") and not _said_hour(flat, facts):
        return True
    referral = facts.referral
    return bool(
        intent == "referral"
        and referral.reachable
        and referral.name
        and normalise(referral.name) not in normalise(flat)
    )


def agreed_draft(
    draft: str,
    intent: str,
    language: str,
    facts: DraftFacts,
    *,
    contact_name: str,
    company_name: str,
) -> str:
    """The model's draft, or the rules' draft for its intent when it left a fact out."""
    if intent == "unsubscribe" or not _misses_facts(draft, intent, facts):
        return draft
    return draft_reply(
        intent, language, contact_name=contact_name, company_name=company_name, facts=facts
    )
