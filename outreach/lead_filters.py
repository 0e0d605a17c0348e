"""The leads list's filters and search, shared by the leads page and the REST API.

Values as the page's query string carries them: stage, county, channel (the last one used),
phone (an id or "none"), sequence (an id or "none"), review ("1"/"0"), opted_out
("whatsapp", "email", "any", "none"), email_status, contactable ("true"/"false": can outreach
reach the lead now, outreach.readiness), stalled ("true"/"false": its running enrollment is
stalled, outreach.stalls), q (the search box: `search_match`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.db.models import Q, QuerySet

from cerniq.params import parse_id, text_param
from outreach import readiness, stalls
from outreach.importing.cleaning import cui_in, phone_in
from outreach.lead_search import search_words
from outreach.models import Channel, Lead, Stage

_YES, _NO = ("true", "1", "yes"), ("false", "0", "no")


def _flag(params: Mapping[str, Any], name: str) -> bool | None:
    value = str(params.get(name) or "").strip().lower()
    return True if value in _YES else False if value in _NO else None


def filter_leads(qs: QuerySet[Lead], params: Mapping[str, Any]) -> QuerySet[Lead]:
    """Narrow leads by the filters (unknown values are ignored) and the search text `q`."""
    stage = params.get("stage")
    if stage in Stage.values:
        qs = qs.filter(journey__stage=stage)
    county = text_param(params, "county")
    if county:
        qs = qs.filter(county__iexact=county)
    channel = params.get("channel")
    if channel in Channel.values:
        qs = qs.filter(journey__last_channel=channel)
    phone = params.get("phone")
    if phone == "none":
        qs = qs.filter(journey__assigned_phone__isnull=True)
    elif parse_id(phone) is not None:
        qs = qs.filter(journey__assigned_phone_id=parse_id(phone))
    sequence = params.get("sequence")
    if sequence == "none":
        qs = qs.filter(journey__current_sequence__isnull=True)
    elif parse_id(sequence) is not None:
        qs = qs.filter(journey__current_sequence_id=parse_id(sequence))
    review = params.get("review")
    if review == "1":
        qs = qs.filter(journey__requires_human_review=True)
    elif review == "0":
        qs = qs.filter(journey__requires_human_review=False)
    opted_out = params.get("opted_out")
    if opted_out == "whatsapp":
        qs = qs.filter(journey__whatsapp_opted_out=True)
    elif opted_out == "email":
        qs = qs.filter(journey__email_opted_out=True)
    elif opted_out == "any":
        qs = qs.filter(Q(journey__whatsapp_opted_out=True) | Q(journey__email_opted_out=True))
    elif opted_out == "none":
        qs = qs.filter(journey__whatsapp_opted_out=False, journey__email_opted_out=False)
    email_status = params.get("email_status")
    if email_status in Lead.EmailStatus.values:
        qs = qs.filter(email_status=email_status)
    contactable = _flag(params, "contactable")
    if contactable is not None:
        qs = readiness.contactable(qs, contactable)
    stalled = _flag(params, "stalled")
    if stalled is not None:
        qs = qs.filter(stalls.stalled_q() if stalled else ~stalls.stalled_q())
    q = text_param(params, "q")
    if q:
        qs = qs.filter(search_match(q))
    return qs


def search_match(text: str) -> Q:
    """What the search box finds: leads whose folded name, contact, email or phone
    (`Lead.search_text`, see outreach.lead_search) contains every folded word of `text`,
    so "stirbei", "Ştirbei" and "Știrbei" find the same company; and, when `text` is a
    phone number or a CUI however it is written, the lead with exactly that phone or CUI.
    Text with no letter or digit finds nothing."""
    words = search_words(text)
    match = Q(*(Q(search_text__contains=word) for word in words)) if words else Q(pk__in=[])
    if phone := phone_in(text):
        match |= Q(phone=phone)
    if cui := cui_in(text):
        match |= Q(cui=cui)
    return match
