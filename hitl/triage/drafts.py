"""Drafted replies, one template per intent and language (Romanian with comma-below ș/ț).

Drafts promise nothing a person has not decided (no prices, no dates except the lead's own
return date) — a reviewer or the AI reply path sends them, never this module.
"""

from __future__ import annotations

from datetime import date

from hitl.triage.dates import format_date

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


def greeting(language: str, contact_name: str) -> str:
    name = " ".join(contact_name.split())
    if language == "ro":
        return f"Bună ziua, {name}," if name else "Bună ziua,"
    return f"Hello {name}," if name else "Hello,"


def draft_reply(
    intent: str,
    language: str,
    *,
    contact_name: str = "",
    company_name: str = "",
    return_date: date | None = None,
    deferral: bool = False,
) -> str:
    """The drafted answer, or "" for unsubscribe (the opt-out confirmation is sent elsewhere)."""
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
    return f"{greeting(language, contact_name)}\n{body}"
