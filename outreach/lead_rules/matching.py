"""Which rule takes a lead: every condition a rule sets must hold, and the first enabled
rule in the tenant's order that matches wins. Pure: reads no row, so the firing, the page's
preview and the tests share it."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from outreach.lead_search import fold
from outreach.models import Lead, LeadRule

Source = LeadRule.Source
# Lead.source as the creating paths write it → the rule's source (anything else: an import).
SOURCE_OF_LEAD = {"api": Source.API, "page": Source.PAGE, "lead_ads": Source.LEAD_ADS}


@dataclass(frozen=True)
class Intake:
    """What the creating path says of a new lead, besides the lead itself."""

    source: str
    form_id: str = ""
    requested_contact: bool = False


def source_of(lead: Lead) -> str:
    """The rule source of an existing lead (the preview), from its stored `source`."""
    return SOURCE_OF_LEAD.get(lead.source, Source.IMPORT)


def clean_tags(tags: Iterable[object]) -> list[str]:
    """Tags as compared and stored: trimmed, lower case, each once, in the given order."""
    seen: dict[str, None] = {}
    for tag in tags:
        text = str(tag).strip().lower()
        if text:
            seen.setdefault(text, None)
    return list(seen)


def _has(wanted: str, value: str) -> bool:
    if wanted == LeadRule.Has.YES:
        return bool(value)
    if wanted == LeadRule.Has.NO:
        return not value
    return True


def matches(rule: LeadRule, lead: Lead, intake: Intake) -> bool:
    """True when every condition the rule sets holds for this lead."""
    if rule.source and rule.source != intake.source:
        return False
    if rule.form_id and rule.form_id != intake.form_id:
        return False
    if rule.county and fold(rule.county) != fold(lead.county or ""):
        return False
    if rule.tags and not set(clean_tags(rule.tags)) & set(clean_tags(lead.tags or [])):
        return False
    return _has(rule.has_phone, lead.phone) and _has(rule.has_email, lead.email)


def winner(rules: Sequence[LeadRule], lead: Lead, intake: Intake) -> LeadRule | None:
    """The first enabled rule (in the order given) that matches, or None."""
    return next((r for r in rules if r.enabled and matches(r, lead, intake)), None)


def has_action(rule: LeadRule) -> bool:
    return bool(rule.sequence_id or rule.operator_id or rule.phone_id or rule.add_tags)
