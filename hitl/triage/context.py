"""The draft context of a stored reply (hitl.triage.facts.DraftContext): when the lead wrote
it in the tenant's time zone, the tenant's working calendar and its price-list answer with
the lead's variables filled in (outreach.spintax, the templates' own renderer)."""

from __future__ import annotations

import logging

from django.utils import timezone
from django.utils.translation import gettext as _

from cerniq import reasons
from cerniq.models import Tenant
from hitl.triage.facts import DraftContext, PriceList
from outreach.hours import SendingWindow
from outreach.models import Lead, Message
from outreach.spintax import TemplateError, lead_variables, render

log = logging.getLogger(__name__)


def price_list_configured(tenant: Tenant) -> bool:
    """Whether a price question has an answer of the tenant's (a link or a text)."""
    return bool((tenant.price_list_url or "").strip() or (tenant.price_list_answer or "").strip())


def price_list_for(lead: Lead) -> PriceList:
    """The tenant's price-list link and answer, the answer rendered for this lead (the same
    variant every time for the same lead)."""
    tenant = lead.tenant
    source = (tenant.price_list_answer or "").strip()
    answer = ""
    if source:
        try:
            answer = render(source, lead_variables(lead), seed=f"price-list:{lead.pk}").text
        except TemplateError:  # the settings form refuses these; an older text as it is
            log.warning("price-list answer of tenant %s does not render", tenant.pk)
            answer = source
    return PriceList(url=(tenant.price_list_url or "").strip(), answer=answer.strip())


def draft_context(lead: Lead, message: Message) -> DraftContext:
    """What the drafts of this reply may use besides its text."""
    window = SendingWindow.for_tenant(lead.tenant)
    received = message.sent_at or message.created_at or timezone.now()
    return DraftContext(
        received_at=timezone.localtime(received, window.tz),
        price_list=price_list_for(lead),
        window=window,
    )


def with_price_list_note(tenant: Tenant, result, reason: str) -> str:
    """A price question's review reason (the intent, or "preț"/"price" among the reply's
    keywords), saying so when the tenant has no price list (the operator sees why the draft
    gives no prices); any other reason as it is."""
    from hitl import reasons as why

    asks = result.intent == "price_request" or "pret" in tuple(result.keywords)
    if not asks or price_list_configured(tenant):
        return reason
    parsed = reasons.parse(reason)
    found = list(parsed[1].get("reasons", [])) if parsed and parsed[0] == why.ROUTE_SEVERAL else []
    codes = [*(found or [reason]), reasons.code(why.ROUTE_PRICE_LIST_MISSING)]
    return reasons.code(why.ROUTE_SEVERAL, reasons=codes)


# The longest price-list answer: it goes into a WhatsApp draft with a greeting and a link.
MAX_PRICE_LIST_ANSWER = 1500


def price_list_problems(tenant: Tenant, url: str, answer: str) -> dict[str, list[str]]:
    """What is wrong with a price-list setting, per field ({} when fine): the answer must
    render (outreach.spintax: known variables, balanced braces) and fit a draft."""
    from outreach.models import Channel, known_custom_fields
    from outreach.spintax import validate

    problems: dict[str, list[str]] = {}
    text = (answer or "").strip()
    if len(text) > MAX_PRICE_LIST_ANSWER:
        problems["price_list_answer"] = [
            _("At most %(n)d characters.") % {"n": MAX_PRICE_LIST_ANSWER}
        ]
    elif text:
        found = validate(
            text, channel=Channel.WHATSAPP, custom_fields=known_custom_fields(tenant.pk)
        )
        if found:
            problems["price_list_answer"] = found
    return problems


def save_price_list(tenant: Tenant, *, url: str, answer: str) -> None:
    """Store the tenant's price-list answer (checked by price_list_problems first)."""
    tenant.price_list_url = (url or "").strip()
    tenant.price_list_answer = (answer or "").strip()
    tenant.save(update_fields=["price_list_url", "price_list_answer"])
