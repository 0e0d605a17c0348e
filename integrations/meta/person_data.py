"""A person's Meta records in their export and erasure (outreach.person_data): the Lead Ads
submissions that made or matched their lead (the form's answers), and the sends Meta
confirmed to their number."""

from __future__ import annotations

from django.db.models import QuerySet

from integrations.meta.models import LeadAd, SeenSend
from outreach.models import Lead


def lead_ads_of(lead: Lead) -> QuerySet[LeadAd]:
    return LeadAd.objects.filter(tenant_id=lead.tenant_id, lead=lead)


def seen_sends_of(lead: Lead) -> QuerySet[SeenSend]:
    digits = lead.phone.lstrip("+")
    if not digits:
        return SeenSend.objects.none()
    return SeenSend.objects.filter(tenant_id=lead.tenant_id, recipient=digits)


def register_person_data() -> None:
    from outreach.person_data import Section, register
    from outreach.scrubbing import blank

    register(Section("meta_lead_ads", LeadAd, lead_ads_of, blank(answers={}, reason="")))
    register(Section("meta_sends", SeenSend, seen_sends_of, blank(recipient="")))
