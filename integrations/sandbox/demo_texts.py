"""What the demo's history says: leads' replies in Romanian (one list per intent, as real
farmers write them), the B version of the first WhatsApp message, an operator's warm email.

The offline triage (hitl.triage) reads every reply here as the intent it is listed under
(tests/test_demo_living.py checks that every intent shows up in the history)."""

from __future__ import annotations

# intent -> (weight among replies, texts)
REPLIES: dict[str, tuple[int, tuple[str, ...]]] = {
    "interested": (
        16,
        (
            "Bună ziua, da, ne interesează. Trimiteți-mi detalii despre oferta de îngrășăminte.",
            "Sună bine, sunt interesat. Cu ce firme mai lucrați din zonă?",
            "Da, ne interesează, mai ales pentru sezonul de primăvară.",
        ),
    ),
    "meeting_request": (
        10,
        (
            "Putem vorbi joi la ora 11? Sunt la fermă până la prânz.",
            "Aș vrea o întâlnire săptămâna viitoare, marți după-amiază, la sediul nostru.",
            "Sunați-mă mâine la ora 10, vă rog, să discutăm.",
        ),
    ),
    "price_request": (
        12,
        (
            "Cât costă azotatul la tonă? Avem nevoie de 30 de tone pentru primăvară.",
            "Ce preț aveți la sămânța de porumb, sacul de 50.000 boabe?",
        ),
    ),
    "question": (
        8,
        (
            "Livrați și în județul nostru? Ce termen de plată aveți?",
            "Aveți și motorină agricolă sau doar inputuri?",
        ),
    ),
    "referral": (
        5,
        (
            "Nu mă ocup eu de aprovizionare, vorbiți cu domnul Marin Dobre, 0744 123 456.",
            "Vă rog să discutați cu colegul meu de la achiziții, Ioana.",
        ),
    ),
    "not_interested": (
        14,
        (
            "Nu suntem interesați, avem deja furnizor.",
            "Mulțumesc, dar nu avem nevoie.",
        ),
    ),
    "unsubscribe": (6, ("STOP", "Vă rog să nu mă mai contactați.")),
    "out_of_office": (
        5,
        (
            "Sunt în concediu până pe 15, revin atunci.",
            "Mesaj automat: sunt plecat din birou până luni.",
        ),
    ),
}

# The B version of "WhatsApp — primul mesaj": shorter, names the crop. The history gives it
# the better reply rate, so the templates page has an A/B result to show.
FIRST_MESSAGE_B = (
    "{Bună ziua|Salut}, {{contact_name|stimate client}}! Andrei de la Cerniq aici. "
    "Avem inputuri pentru ferme din {{county}} cu livrare în {{locality}}. "
    "{Vă trimit|Pot să vă trimit} o ofertă scurtă pentru {{company_name}}?"
)

WARM_EMAIL_SUBJECT = "Oferta Cerniq pentru {company}"
WARM_EMAIL_BODY = (
    "Bună ziua,\n\nVă mulțumesc pentru discuție. Atașat găsiți oferta pentru {company}: "
    "prețuri pe tonă, livrare în {locality}, plata la 60 de zile după recoltă.\n\n"
    "Cu stimă,\nAndrei Pop\nCerniq"
)

RESOLUTIONS = (
    "Am sunat, trimit oferta pe email.",
    "Am vorbit la telefon, revine după ce discută cu asociatul.",
    "I-am răspuns pe WhatsApp cu prețurile.",
    "Programat apel joi la 10.",
    "Închis: a primit răspunsul.",
)
BAN_REASON = "WhatsApp a blocat numărul (raportat ca spam)"
PAUSED_CAMPAIGN = "Email rece — fermieri Dobrogea"
PAUSE_REASON = "Prea multe răspunsuri „nu ne interesează”: revizuim textul înainte de reluare."
