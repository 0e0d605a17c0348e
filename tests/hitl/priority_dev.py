"""Development replies for the priority of a reply (issue 19 §2): real-world wordings,
Romanian with and without diacritics and English, written for this work and labelled with
what the product must do with them. Development side only: never derived from
`triage_heldout.py` (bench/triage.py reports the held-out priority figures separately).

Outcomes: a review priority (URGENT, HIGH, MEDIUM, LOW), "OPT_OUT" (honoured by
outreach.optout; a complaint in it opens an URGENT item) or "NONE" (an out-of-office reply:
no item, the sequence waits).
"""

from __future__ import annotations

from typing import NamedTuple


class PriorityCase(NamedTuple):
    text: str
    outcome: str
    what: str  # interest, meeting, price, question, decline, deferral, complaint, legal, ooo


U, H, M, L = "URGENT", "HIGH", "MEDIUM", "LOW"

CASES: tuple[PriorityCase, ...] = (
    # --- interest: URGENT ---------------------------------------------------------------
    PriorityCase(
        "Bună ziua, da, mă interesează. Trimiteți-mi vă rog o ofertă pe mail.", U, "interest"
    ),
    PriorityCase(
        "Buna ziua, suntem interesati de seminte de floarea soarelui pentru 200 ha.", U, "interest"
    ),
    PriorityCase("Sună interesant, spuneți-mi mai multe.", U, "interest"),
    PriorityCase("Da, ma intereseaza, sunati-ma", U, "interest"),
    PriorityCase("Yes, we'd be interested. Please send the brochure.", U, "interest"),
    PriorityCase("Sounds good, count us in.", U, "interest"),
    # --- a meeting, a call, a visit (with a proposed time): URGENT ----------------------
    PriorityCase("Puteți trece pe la fermă joi dimineață, pe la 9?", U, "meeting"),
    PriorityCase("Ma puteti suna dupa ora 17? Acum sunt pe tractor.", U, "meeting"),
    PriorityCase("Hai să vorbim mâine la 11, vă convine?", U, "meeting"),
    PriorityCase("Vreau o programare pentru o demonstrație săptămâna viitoare.", U, "meeting"),
    PriorityCase("Could you give me a call on Tuesday afternoon?", U, "meeting"),
    PriorityCase(
        "Let's schedule a quick call next week, Wednesday at 2pm works for me.", U, "meeting"
    ),
    PriorityCase("We'd like to see a demo, are you free on Friday at 10?", U, "meeting"),
    # --- a price: HIGH ------------------------------------------------------------------
    PriorityCase("Cât costă tona de azotat livrată la Slobozia?", H, "price"),
    PriorityCase("Ce preturi aveti la motorina agricola?", H, "price"),
    PriorityCase("Care e prețul pentru 10 saci de sămânță de porumb?", H, "price"),
    PriorityCase("Ce discount faceti la 50 de tone?", H, "price"),
    PriorityCase("How much would the drone spraying cost per hectare?", H, "price"),
    PriorityCase("Can you send me a quote for 30 tonnes of urea?", H, "price"),
    # --- a concrete question: HIGH ------------------------------------------------------
    PriorityCase("Se poate plăti în rate sau doar integral?", H, "question"),
    PriorityCase("In cat timp livrati in judetul Vaslui?", H, "question"),
    PriorityCase("Do you deliver to the Republic of Moldova?", H, "question"),
    PriorityCase("Is the seed treated against wireworm?", H, "question"),
    # --- a plain, polite decline: LOW ---------------------------------------------------
    PriorityCase("Mulțumesc pentru ofertă, dar nu suntem interesați.", L, "decline"),
    PriorityCase("Multumesc pentru oferta, dar nu suntem interesati.", L, "decline"),
    PriorityCase("Nu, mersi.", L, "decline"),
    PriorityCase("Nu avem nevoie, lucrăm deja cu un furnizor.", L, "decline"),
    PriorityCase("Multumim, nu e cazul.", L, "decline"),
    PriorityCase("Nu e pentru noi, mulțumim.", L, "decline"),
    PriorityCase("Ne pare rău, nu avem buget anul acesta.", L, "decline"),
    PriorityCase("Thank you, but we are not interested at this time.", L, "decline"),
    PriorityCase("No thanks, we already have a supplier.", L, "decline"),
    # --- a rude decline: LOW when it only declines, an opt-out when it asks to stop -----
    PriorityCase("Nu ne interesează, ce tot trimiteți prostii?", L, "decline"),
    PriorityCase("Nu vreau nimic, lasati-ma.", "OPT_OUT", "decline"),
    PriorityCase("Not interested, don't bother.", "OPT_OUT", "decline"),
    # --- "not now, maybe later": MEDIUM (a person agrees when to come back) -------------
    PriorityCase("Poate la toamnă, acum nu e momentul.", M, "deferral"),
    # --- a complaint: URGENT ------------------------------------------------------------
    PriorityCase(
        "Mi-ați livrat sămânța cu o săptămână întârziere și jumătate din saci erau rupți. "
        "Inacceptabil!",
        U,
        "complaint",
    ),
    PriorityCase(
        "Factura pe care mi-ați trimis-o este greșită, am plătit de două ori.", U, "complaint"
    ),
    PriorityCase(
        "The fertiliser you delivered was wet and caked. I want a refund.", U, "complaint"
    ),
    PriorityCase("Vă rog să mă sunați urgent, am o problemă cu comanda.", U, "complaint"),
    # --- a legal or data-protection threat: URGENT (an opt-out too when it asks to stop) -
    PriorityCase("De unde aveți datele mele? Fac plângere la ANSPDCP.", U, "legal"),
    PriorityCase("Conform GDPR vă cer să îmi spuneți de unde aveți numărul meu.", U, "legal"),
    PriorityCase(
        "Prelucrarea datelor mele fără consimțământ încalcă GDPR, voi anunța avocatul.", U, "legal"
    ),
    PriorityCase("This is a GDPR violation, my lawyer will be in touch.", U, "legal"),
    PriorityCase("Vă dau în judecată dacă mai primesc un mesaj.", "OPT_OUT", "legal"),
    # --- out of office: no item ---------------------------------------------------------
    PriorityCase(
        "Sunt în concediu până pe 12 august. Pentru urgențe sunați la 0740123456.", "NONE", "ooo"
    ),
    PriorityCase("Răspuns automat: lipsesc de la birou până luni.", "NONE", "ooo"),
    PriorityCase(
        "I am out of the office until 3 September with no access to email.", "NONE", "ooo"
    ),
    PriorityCase("Auto-reply: I'm on annual leave and will be back on Monday.", "NONE", "ooo"),
)
