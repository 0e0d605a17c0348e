"""Drafts built by rules from what was read (no model): the same brochure gives the same
drafts. Used when no AI model is configured, the workspace's AI budget is used up, or the
model failed or answered badly; the page marks them as automatic drafts.

The brochure's words go in as plain text: braces and bars (spintax syntax) become
brackets and slashes, links and e-mail addresses are left out (a first WhatsApp message
may not carry links), each piece is cut to a short length. The first messages say who is
writing (the workspace's name) and how to stop (outreach.template_compliance).
"""

from __future__ import annotations

import re
from pathlib import PurePath

from outreach import spintax
from outreach.brochures.drafts import Drafts, problems
from outreach.brochures.reading import Product, Reading

_LINKISH = re.compile(
    r"https?://\S+|www\.\S+|\S+@\S+|\S+\.[a-z]{2,6}/\S*"
    r"|\b[\w-]+(?:\.[\w-]+)*\.(?:ro|com|eu|net|org|info|md|biz|shop|store|farm)\b",
    re.IGNORECASE,
)
TITLE_CHARS = 70
WHATSAPP_PRODUCTS = 3
EMAIL_PRODUCTS = 8
GREETING = "{Bună ziua|Salut}, {{contact_name|stimate client}}!"


def plain(text: str, limit: int = 80) -> str:
    """A piece of the brochure safe inside a template: no spintax syntax, no links, short."""
    text = text.replace("{", "(").replace("}", ")").replace("|", "/")
    text = " ".join(_LINKISH.sub(" ", text).split()).strip(" ,;:-–—")
    if len(text) > limit:
        text = text[: limit - 1].rsplit(" ", 1)[0].rstrip(" ,;:-–—") + "…"
    if spintax.validate(text, channel="WHATSAPP", first_message=True):
        return ""  # a link our rule sees and the pattern above did not: left out
    return text


def offline_drafts(workspace: str, reading: Reading, file_name: str = "") -> Drafts:
    """The drafts of a brochure by rules; always valid (outreach.brochures.drafts)."""
    title = plain(reading.title, TITLE_CHARS) or plain(PurePath(file_name).stem, TITLE_CHARS)
    drafts = _compose(
        plain(workspace, 60) or "noi",
        title or "oferta noastră",
        [p for p in (_plain_product(p) for p in reading.products) if p is not None],
        [h for h in (plain(h, 60) for h in reading.headings[1:]) if h],
    )
    if problems(drafts):  # a piece of the brochure broke a rule: the drafts without them
        drafts = _compose(plain(workspace, 60) or "noi", "oferta noastră", [], [])
    return drafts


def _plain_product(product: Product) -> Product | None:
    name, price = plain(product.name, 60), plain(product.price, 30)
    return Product(name, price) if name and price else None


def _compose(workspace: str, title: str, products: list[Product], headings: list[str]) -> Drafts:
    offer = f"„{title}”"
    first = [
        GREETING,
        "{Sunt de la|Vă scriu din partea} " + workspace + ".",
        "{Am pregătit|Avem} pentru {{company_name}} {oferta|lista de prețuri} "
        + offer
        + _listed(products[:WHATSAPP_PRODUCTS], headings[:3])
        + ".",
        "{Vă interesează|Doriți să vă trimit} {detaliile|oferta completă}?",
        "Dacă nu doriți mesaje de la noi, răspundeți STOP.",
    ]
    follow_up_1 = [
        "{Revin|Revin cu un mesaj scurt} {legat de|despre} {oferta|lista de prețuri} "
        + offer
        + ", {{contact_name|stimate client}}.",
        *_prices_said(products[:2]),
        "{Vă pot trimite|Vă trimit cu plăcere} {detaliile|oferta completă} aici?",
    ]
    later = products[WHATSAPP_PRODUCTS : WHATSAPP_PRODUCTS + 2] or products[:2]
    follow_up_2 = [
        GREETING,
        "{Un ultim mesaj|Ultimul meu mesaj} despre " + offer + _also(later, headings) + ".",
        "{Dacă acum nu este momentul|Dacă nu vă interesează acum}, {nicio problemă|înțeleg "
        "perfect}: {scrieți-mi oricând|răspundeți oricând} și revin cu {detaliile|oferta}.",
    ]
    email = [
        "Bună ziua, {{contact_name|stimate client}},",
        "",
        "{Sunt de la|Vă scriu din partea} "
        + workspace
        + " și {vă trimit|vă propun} {oferta|lista de prețuri} "
        + offer
        + ", {potrivită|gândită} pentru {{company_name}}.",
        "",
        *_email_list(products[:EMAIL_PRODUCTS], headings[:5]),
        "{Dacă vă interesează|Dacă doriți}, {vă trimit|vă pot trimite} oferta completă "
        "{și condițiile de livrare|și disponibilitatea}: un răspuns la acest e-mail ajunge.",
        "",
        "{Cu stimă|Toate cele bune},",
        workspace,
        "",
        "Dacă nu doriți să mai primiți e-mailuri de la noi, răspundeți cu „dezabonare”.",
    ]
    return Drafts(
        whatsapp_first=" ".join(first),
        whatsapp_followup_1=" ".join(follow_up_1),
        whatsapp_followup_2=" ".join(follow_up_2),
        email_subject="{Oferta|Lista de prețuri} " + offer + " pentru {{company_name}}",
        email_body="\n".join(email),
    )


def _listed(products: list[Product], headings: list[str]) -> str:
    if products:
        return ": " + "; ".join(f"{p.name} – {p.price}" for p in products)
    if headings:
        return ", cu " + ", ".join(headings)
    return ""


def _prices_said(products: list[Product]) -> list[str]:
    if not products:
        return []
    said = f"{products[0].name} este la {products[0].price}"
    if len(products) > 1:
        said += f", iar {products[1].name} la {products[1].price}"
    return [said + "."]


def _also(products: list[Product], headings: list[str]) -> str:
    if products:
        return ": {oferta include și|în ofertă găsiți și} " + " și ".join(
            f"{p.name} ({p.price})" for p in products
        )
    if headings:
        return ": {oferta include și|în ofertă găsiți și} " + ", ".join(headings[:2])
    return ""


def _email_list(products: list[Product], headings: list[str]) -> list[str]:
    if products:
        rows = [f"- {p.name}: {p.price}" for p in products]
        return ["{Câteva|Iată câteva} {produse|repere} din ofertă:", *rows, ""]
    if headings:
        return ["{În ofertă|În broșură} găsiți:", *(f"- {h}" for h in headings), ""]
    return []
