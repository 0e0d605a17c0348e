"""Demo workspace: plausible Romanian agriculture companies, phones, sequences, templates.

Generated from a fixed seed, so `seed_demo` creates the same data on every machine and a
second run changes nothing.
"""

from __future__ import annotations

import random
import unicodedata
from collections.abc import Iterator
from typing import TypedDict

from stdnum.ro import cui as ro_cui

COUNTIES: dict[str, list[str]] = {
    "Alba": ["Alba Iulia", "Blaj", "Sebeș", "Aiud"],
    "Arad": ["Arad", "Pecica", "Curtici", "Sântana"],
    "Argeș": ["Pitești", "Costești", "Topoloveni"],
    "Bacău": ["Bacău", "Onești", "Podu Turcului"],
    "Bihor": ["Oradea", "Salonta", "Marghita"],
    "Botoșani": ["Botoșani", "Dorohoi", "Săveni"],
    "Brăila": ["Brăila", "Ianca", "Însurăței", "Făurei"],
    "Buzău": ["Buzău", "Râmnicu Sărat", "Pogoanele"],
    "Călărași": ["Călărași", "Oltenița", "Lehliu-Gară", "Fundulea"],
    "Constanța": ["Constanța", "Medgidia", "Cernavodă", "Negru Vodă"],
    "Dâmbovița": ["Târgoviște", "Găești", "Titu"],
    "Dolj": ["Craiova", "Băilești", "Calafat", "Segarcea"],
    "Galați": ["Galați", "Tecuci", "Târgu Bujor"],
    "Giurgiu": ["Giurgiu", "Bolintin-Vale", "Mihăilești"],
    "Ialomița": ["Slobozia", "Urziceni", "Fetești", "Țăndărei"],
    "Iași": ["Iași", "Pașcani", "Hârlău", "Târgu Frumos"],
    "Ilfov": ["Buftea", "Otopeni", "Snagov"],
    "Mehedinți": ["Drobeta-Turnu Severin", "Strehaia", "Vânju Mare"],
    "Mureș": ["Târgu Mureș", "Luduș", "Iernut"],
    "Neamț": ["Piatra Neamț", "Roman", "Târgu Neamț"],
    "Olt": ["Slatina", "Caracal", "Corabia", "Balș"],
    "Prahova": ["Ploiești", "Mizil", "Urlați"],
    "Satu Mare": ["Satu Mare", "Carei", "Tășnad"],
    "Suceava": ["Suceava", "Fălticeni", "Rădăuți"],
    "Teleorman": ["Alexandria", "Roșiorii de Vede", "Turnu Măgurele", "Zimnicea"],
    "Timiș": ["Timișoara", "Lugoj", "Jimbolia", "Sânnicolau Mare"],
    "Tulcea": ["Tulcea", "Babadag", "Măcin", "Isaccea"],
    "Vaslui": ["Vaslui", "Bârlad", "Huși"],
    "Vrancea": ["Focșani", "Adjud", "Panciu", "Odobești"],
}

_NAME_PATTERNS = [
    "Agro {surname} SRL",
    "Ferma {surname} SRL",
    "{surname} Agricultura SRL",
    "Cereale {place} SRL",
    "Agricola {place} SA",
    "{surname} & Fiii Agro SRL",
    "Legume {place} SRL",
    "Zootehnia {place} SRL",
    "Podgoria {surname} SRL",
    "Câmpia {place} Agro SRL",
    "Sere {surname} SRL",
    "Apicola {surname} SRL",
]
_SURNAMES = [
    "Popescu",
    "Ionescu",
    "Dumitru",
    "Stoica",
    "Munteanu",
    "Constantin",
    "Ștefan",
    "Moldovan",
    "Gheorghe",
    "Rusu",
    "Matei",
    "Lungu",
    "Ciobanu",
    "Tudor",
    "Dobre",
    "Ene",
    "Marin",
    "Neagu",
    "Barbu",
    "Sârbu",
    "Mihăilă",
    "Pavel",
    "Toma",
    "Roman",
    "Nistor",
    "Căpraru",
]
_FIRST_NAMES = [
    "Ion",
    "Gheorghe",
    "Vasile",
    "Mihai",
    "Constantin",
    "Marian",
    "Florin",
    "Adrian",
    "Maria",
    "Elena",
    "Ioana",
    "Ana",
    "Mihaela",
    "Cristina",
    "Daniela",
    "Andreea",
]
_CROPS = ["grâu", "porumb", "floarea-soarelui", "rapiță", "legume", "viță-de-vie", "lapte", "miere"]


def _ascii(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def _valid_cui(rng: random.Random) -> str:
    base = str(rng.randint(1_000_000, 49_999_999))
    return base + ro_cui.calc_check_digit(base)


def _distinct(name: str, seen: set[str]) -> str:
    """The name, or once the patterns run out (a few thousand), a numbered branch of it:
    "Agro Popescu 2 SRL". Numbering, not redrawing, so any count ends."""
    if name not in seen:
        return name
    core, legal = (name.rsplit(" ", 1) + [""])[:2] if name.endswith((" SRL", " SA")) else (name, "")
    number = 2
    while (candidate := f"{core} {number} {legal}".strip()) in seen:
        number += 1
    return candidate


def company_rows(count: int = 300, seed: int = 2026) -> Iterator[dict[str, str]]:
    """`count` distinct companies as CSV-like rows (the lead import's columns)."""
    rng = random.Random(seed)
    seen_names: set[str] = set()
    seen_cuis: set[str] = set()
    seen_phones: set[str] = set()
    produced = 0
    while produced < count:
        county = rng.choice(list(COUNTIES))
        place = rng.choice(COUNTIES[county])
        surname = rng.choice(_SURNAMES)
        name = _distinct(
            rng.choice(_NAME_PATTERNS).format(surname=surname, place=place), seen_names
        )
        cui = _valid_cui(rng)
        has_phone = rng.random() < 0.85
        phone = f"07{rng.choice('2345')}{rng.randint(0, 9_999_999):07d}" if has_phone else ""
        if cui in seen_cuis or (phone and phone in seen_phones):
            continue  # a random collision: rare, the next draw differs
        seen_names.add(name)
        seen_cuis.add(cui)
        seen_phones.add(phone)
        produced += 1
        has_email = rng.random() < 0.75 or not has_phone
        slug = _ascii(name.split(" SRL")[0].split(" SA")[0]).lower().replace(" & ", "-")
        slug = "".join(ch if ch.isalnum() else "-" for ch in slug).strip("-")
        yield {
            "company_name": name,
            "cui": cui,
            "county": county,
            "locality": place,
            "contact_name": f"{rng.choice(_FIRST_NAMES)} {surname}",
            "phone": phone,
            "phone_reachable": "true" if has_phone and rng.random() < 0.9 else "false",
            "email": f"office@{slug}.ro" if has_email else "",
            "email_status": rng.choice(["valid", "valid", "valid", "risky", "unknown"])
            if has_email
            else "",
            "hectare": str(rng.choice([50, 120, 300, 800, 1500, 3200])),
            "cultura_principala": rng.choice(_CROPS),
        }


def colleague_rows(rows: list[dict[str, str]], count: int = 3) -> Iterator[dict[str, str]]:
    """A second person (the buyer beside the owner) at the first `count` companies with a
    phone, as import rows: the demo has companies with several contacts, where one's reply
    stops the other's sequence (docs/sequence-rules.md)."""
    found = 0
    for n, row in enumerate(rows):
        if found == count:
            return
        if not row["phone"]:
            continue
        found += 1
        surname = row["contact_name"].split()[-1]
        first = _FIRST_NAMES[(n + 3) % len(_FIRST_NAMES)]
        domain = row["email"].split("@", 1)[1] if row["email"] else ""
        yield {
            **row,
            "contact_name": f"{first} {surname}",
            "phone": f"0760{n:06d}",
            "phone_reachable": "true",
            "email": f"achizitii@{domain}" if domain else "",
        }


DEMO_TEMPLATES: list[dict[str, str]] = [
    {
        "name": "WhatsApp — primul mesaj",
        "channel": "WHATSAPP",
        "body": (
            "{Bună ziua|Salut|Bună ziua, {{contact_name|stimate client}}}! "
            "Sunt {Andrei|Andrei Pop} de la Cerniq. {Lucrăm|Colaborăm} cu ferme din "
            "{{county}} și {am văzut|am observat} că {{company_name}} activează în zonă. "
            "{Ați fi deschis|V-ar interesa} o discuție scurtă despre inputuri la preț de "
            "{fermier|producător}? Dacă nu doriți mesaje de la noi, răspundeți STOP."
        ),
    },
    {
        "name": "WhatsApp — revenire",
        "channel": "WHATSAPP",
        "body": (
            "{Revin|Mă întorc} cu un mesaj scurt, {{contact_name|stimate client}}: "
            "{avem|putem oferi} livrare în {{locality}} {săptămâna aceasta|în câteva zile}. "
            "Vă pot trimite o ofertă?"
        ),
    },
    {
        "name": "Email rece — prezentare",
        "channel": "EMAIL_COLD",
        "subject": "{Ofertă|Propunere} pentru {{company_name}}",
        "body": (
            "{Bună ziua|Stimate} {{contact_name|domnule/doamnă}},\n\n"
            "Cerniq lucrează cu exploatații agricole din {{county}}. {Vă propunem|Am dori să "
            "vă propunem} o colaborare pentru aprovizionarea cu inputuri.\n\n"
            "Cu stimă,\nEchipa Cerniq\n\n"
            "Dacă nu doriți să mai primiți emailuri de la noi, răspundeți cu „dezabonare”."
        ),
    },
]


class DemoSequence(TypedDict):
    name: str
    description: str
    steps: list[tuple[str, int, str, str]]  # channel, delay, delay unit, template name


DEMO_SEQUENCES: list[DemoSequence] = [
    {
        "name": "WhatsApp — două atingeri",
        "description": "Primul mesaj pe WhatsApp, revenire după 2 zile lucrătoare.",
        "steps": [
            ("WHATSAPP", 0, "WORKING_DAYS", "WhatsApp — primul mesaj"),
            ("WHATSAPP", 2, "WORKING_DAYS", "WhatsApp — revenire"),
        ],
    },
    {
        "name": "Email rece — rezervă",
        "description": "Pentru firmele fără telefon WhatsApp valid.",
        "steps": [("EMAIL_COLD", 0, "WORKING_DAYS", "Email rece — prezentare")],
    },
]
