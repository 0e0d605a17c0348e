"""Drafted replies, one per intent and language (Romanian with comma-below ș/ț), built from
the facts the rules found (hitl.triage.facts):

* a proposed time is confirmed, named back ("joi, 3 decembrie, la ora 10:00"); a day without
  an hour is confirmed and the hour asked for; no time at all: two call slots are offered;
* a price question gets the tenant's price-list answer and/or link, else "a colleague sends
  the prices" (the review item then says the price list is not configured);
* a referral thanks and asks for the person's name and phone/email, or — when given — says
  we will contact them, by name.

Drafts promise no price and no date of their own beyond these: a reviewer approves them, or
the tenant lets the AI reply path send them for the intents it chose.
"""

from __future__ import annotations

from datetime import date, datetime, time

from hitl.triage.dates import EN_MONTHS, RO_MONTHS, format_date
from hitl.triage.facts import DraftFacts
from hitl.triage.proposed_time import ProposedTime
from hitl.triage.referral import Referral

_TEMPLATES: dict[str, dict[str, str]] = {
    "ro": {
        "interested": (
            "Vă mulțumim pentru interes! Vă trimitem în curând detaliile ofertei{for_company}. "
            "Când ați avea 10 minute pentru o scurtă discuție la telefon?"
        ),
        "meeting_request": (
            "Vă mulțumim, cu plăcere! Un coleg vă va suna; dacă aveți o zi și o oră "
            "preferate, ne spuneți aici."
        ),
        "price_request": (
            "Vă mulțumim pentru întrebare! Prețul depinde de cantitate și de livrare, așa că "
            "un coleg vă trimite în cel mai scurt timp o ofertă personalizată{for_company}."
        ),
        "question": (
            "Vă mulțumim pentru întrebare! Un coleg vă răspunde în cel mai scurt timp cu "
            "toate detaliile."
        ),
        "not_interested": (
            "Vă mulțumim pentru răspuns și ne cerem scuze pentru deranj. Dacă vă va fi de "
            "folos pe viitor, ne găsiți oricând aici."
        ),
        "deferral": (
            "Vă mulțumim pentru răspuns! Vă scriem din nou mai încolo, când vă este mai comod."
        ),
        "unsubscribe": "",
        "out_of_office": "Vă mulțumim pentru mesaj. Vă scriem din nou {after}.",
        "wrong_person": "Ne cerem scuze pentru deranj și vă mulțumim că ne-ați anunțat.",
        "complaint": (
            "Ne pare rău pentru neplăcerea creată. Un coleg vă contactează personal cât mai "
            "curând ca să lămurim situația."
        ),
        "referral": ("Vă mulțumim pentru recomandare! Vom lua legătura cu persoana indicată."),
        "other": "Vă mulțumim pentru răspuns! Vă putem ajuta cu ceva anume?",
    },
    "en": {
        "interested": (
            "Thank you for your interest! We will send you the details of our "
            "offer{for_company} shortly. When would you have 10 minutes for a short call?"
        ),
        "meeting_request": (
            "Thank you, with pleasure! A colleague will call you; if you have a preferred day "
            "and time, just let us know here."
        ),
        "price_request": (
            "Thank you for your question! Prices depend on quantity and delivery, so a "
            "colleague will send you a tailored quote{for_company} as soon as possible."
        ),
        "question": (
            "Thank you for your question! A colleague will get back to you shortly with all "
            "the details."
        ),
        "not_interested": (
            "Thank you for your reply, and sorry for the interruption. If it is ever useful "
            "to you, you can always reach us here."
        ),
        "deferral": (
            "Thank you for your reply! We will get back in touch later, at a better time for you."
        ),
        "unsubscribe": "",
        "out_of_office": "Thank you for your message. We will write again {after}.",
        "wrong_person": "We apologise for the interruption and thank you for letting us know.",
        "complaint": (
            "We are sorry for the inconvenience. A colleague will contact you personally as "
            "soon as possible to sort this out."
        ),
        "referral": (
            "Thank you for the referral! We will get in touch with the person you mentioned."
        ),
        "other": "Thank you for your reply! Is there anything specific we can help you with?",
    },
}


RO_WEEKDAYS = ("luni", "marți", "miercuri", "joi", "vineri", "sâmbătă", "duminică")
EN_WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
RO_PARTS = {"morning": "dimineața", "afternoon": "după-amiaza", "evening": "seara"}
EN_PARTS = {
    "morning": "in the morning",
    "afternoon": "in the afternoon",
    "evening": "in the evening",
}
# Intents whose draft is about a call: a proposed time is confirmed, else slots are offered.
CALL_INTENTS = ("interested", "meeting_request")


def greeting(language: str, contact_name: str) -> str:
    name = " ".join(contact_name.split())
    if language == "ro":
        return f"Bună ziua, {name}," if name else "Bună ziua,"
    return f"Hello {name}," if name else "Hello,"


def say_day(day: date, language: str, today: date) -> str:
    """ "mâine, joi, 3 decembrie" / "tomorrow, Thursday 3 December"."""
    if language == "ro":
        named = f"{RO_WEEKDAYS[day.weekday()]}, {day.day} {RO_MONTHS[day.month - 1]}"
        relative = {0: "azi", 1: "mâine", 2: "poimâine"}.get((day - today).days)
    else:
        named = f"{EN_WEEKDAYS[day.weekday()]} {day.day} {EN_MONTHS[day.month - 1]}"
        relative = {0: "today", 1: "tomorrow"}.get((day - today).days)
        named = named if relative else f"on {named}"
    return f"{relative}, {named}" if relative else named


def say_hour(at: time, relation: str, language: str, until: time | None = None) -> str:
    clock = f"{at:%H:%M}"
    if relation == "between" and until is not None:
        if language == "ro":
            return f"între orele {clock} și {until:%H:%M}"
        return f"between {clock} and {until:%H:%M}"
    if language == "ro":
        said = {"after": "după ora", "before": "înainte de ora"}.get(relation, "la ora")
        return f"{said} {clock}"
    return {"after": "after", "before": "before"}.get(relation, "at") + f" {clock}"


def say_time(proposed: ProposedTime, language: str, today: date) -> str:
    """The proposed day and hour as the draft names them back."""
    parts = [say_day(proposed.day, language, today)] if proposed.day else []
    if proposed.at is not None:
        parts.append(say_hour(proposed.at, proposed.relation, language, proposed.until))
    elif proposed.part:
        parts.append((RO_PARTS if language == "ro" else EN_PARTS)[proposed.part])
    return ", ".join(parts) if language == "ro" else " ".join(parts).replace("  ", " ")


def say_slot(slot: datetime, language: str, today: date) -> str:
    return say_time(ProposedTime(day=slot.date(), at=slot.time()), language, today)


def _call_sentence(intent: str, language: str, facts: DraftFacts) -> str:
    """Confirms the lead's time, asks for the hour of its day, or offers two slots."""
    proposed = facts.proposed_time
    ro = language == "ro"
    if proposed is not None and proposed.day is not None and proposed.at is not None:
        when = say_time(proposed, language, facts.today)
        return f"Confirmăm: vă sunăm {when}." if ro else f"Confirmed: we will call you {when}."
    if proposed is not None and proposed.day is not None:
        when = say_time(proposed, language, facts.today)
        when = when[:1].upper() + when[1:]
        if ro:
            return f"{when} ne convine. La ce oră vă putem suna?"
        return f"{when} works for us. At what time may we call you?"
    if len(facts.slots) == 2:
        first, second = (say_slot(slot, language, facts.today) for slot in facts.slots)
        if ro:
            return (
                f"Vă putem suna {first} sau {second}. Care variantă vă convine? "
                "Dacă preferați altă zi și oră, ne spuneți aici."
            )
        return (
            f"We could call you {first} or {second}. Which suits you best? "
            "If you prefer another day and time, just let us know here."
        )
    return ""


def _price_body(language: str, facts: DraftFacts, for_company: str, thanks: bool = True) -> str:
    """The tenant's answer and/or link, else "a colleague sends the prices"."""
    prices = facts.price_list
    url, text = prices.url.strip(), prices.answer.strip()
    ro = language == "ro"
    opening = ("Vă mulțumim pentru întrebare! " if ro else "Thank you for your question! ") * thanks
    if text:
        link = ""
        if url and url not in text:
            link = f"\nLista de prețuri: {url}" if ro else f"\nOur price list: {url}"
        return f"{opening.strip()}\n{text}{link}".lstrip()
    if url:
        if ro:
            return (
                f"{opening}Lista noastră de prețuri este aici: {url} . Dacă ne spuneți "
                f"cantitatea, un coleg vă trimite și o ofertă personalizată{for_company}."
            )
        return (
            f"{opening}Our price list is here: {url} . If you tell us the quantity, a "
            f"colleague will also send you a tailored quote{for_company}."
        )
    if thanks:
        return _TEMPLATES[language]["price_request"].format(for_company=for_company)
    if ro:
        return f"Un coleg vă trimite în cel mai scurt timp prețurile{for_company}."
    return f"A colleague will send you the prices{for_company} shortly."


def _referral_body(language: str, referral: Referral) -> str:
    ro = language == "ro"
    name = referral.name
    if referral.reachable:
        reach = referral.phone or referral.email
        who = f"{name} ({reach})" if name else reach
        if ro:
            return f"Vă mulțumim pentru recomandare! Vom lua legătura cu {who}."
        return f"Thank you for the referral! We will get in touch with {who}."
    if name:
        if ro:
            return (
                "Vă mulțumim pentru recomandare! Ne puteți trimite un număr de telefon sau o "
                f"adresă de email pentru {name}, ca să luăm legătura?"
            )
        return (
            "Thank you for the referral! Could you send us a phone number or an email "
            f"address for {name}, so that we can get in touch?"
        )
    if ro:
        return (
            "Vă mulțumim pentru îndrumare! Ne puteți spune numele persoanei care se ocupă și "
            "un număr de telefon sau o adresă de email, ca să luăm legătura cu ea?"
        )
    return (
        "Thank you for pointing us in the right direction! Could you tell us the name of the "
        "person in charge and a phone number or an email address, so that we can reach them?"
    )


def draft_reply(
    intent: str,
    language: str,
    *,
    contact_name: str = "",
    company_name: str = "",
    return_date: date | None = None,
    deferral: bool = False,
    facts: DraftFacts | None = None,
) -> str:
    """The drafted answer, or "" for unsubscribe (the opt-out confirmation is sent elsewhere).
    Without `facts` (no context at all) the per-intent templates answer alone."""
    if intent == "unsubscribe":
        return ""
    templates = _TEMPLATES[language]
    key = "deferral" if intent == "not_interested" and deferral else intent
    company = " ".join(company_name.split())
    if language == "ro":
        for_company = f" pentru {company}" if company else ""
        after = f"după {format_date(return_date, 'ro')}" if return_date else "după ce reveniți"
    else:
        for_company = f" for {company}" if company else ""
        after = f"after {format_date(return_date, 'en')}" if return_date else "once you are back"
    body = templates[key].format(for_company=for_company, after=after)
    if facts is not None:
        body = _with_facts(intent, language, body, facts, for_company)
    return f"{greeting(language, contact_name)}\n{body}"


def _with_facts(intent: str, language: str, body: str, facts: DraftFacts, for_company: str) -> str:
    ro = language == "ro"
    if intent in CALL_INTENTS:
        if intent == "meeting_request":
            thanks = "Vă mulțumim, cu plăcere!" if ro else "Thank you, with pleasure!"
        elif facts.asks_price:
            thanks = "Vă mulțumim pentru interes!" if ro else "Thank you for your interest!"
        elif ro:
            thanks = f"Vă mulțumim pentru interes! Vă trimitem detaliile ofertei{for_company}."
        else:
            thanks = f"Thank you for your interest! We will send you the details{for_company}."
        if facts.asks_price:
            thanks += " " + _price_body(language, facts, for_company, thanks=False)
        return f"{thanks} {_call_sentence(intent, language, facts)}".strip()
    if intent == "price_request":
        body = _price_body(language, facts, for_company)
        proposed = facts.proposed_time
        if proposed is not None and proposed.day is not None and proposed.at is not None:
            body += " " + _call_sentence("meeting_request", language, facts)
        return body
    if intent == "referral":
        return _referral_body(language, facts.referral)
    return body
