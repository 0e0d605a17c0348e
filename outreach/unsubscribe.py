"""One-click unsubscribe (RFC 8058) for the emails we send ourselves (Resend).

Every email carries `List-Unsubscribe: <https://…/u/<token>/>` and
`List-Unsubscribe-Post: List-Unsubscribe=One-Click`. The token is signed with SECRET_KEY
(django.core.signing), names the tenant and the lead, and never expires: an unsubscribe link
in an email from last year must still work. A mail client (Gmail, Yahoo) POSTs
`List-Unsubscribe=One-Click` to the URL without a cookie, a CSRF token or a login; a person
who opens the link sees a page with one button, because link scanners and previews GET
every URL in an email and must never unsubscribe anybody.

Unsubscribing is `outreach.email_events.unsubscribed`: every channel stops, the address is
suppressed, and a second POST changes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings
from django.core import signing

from outreach.email_events import unsubscribed
from outreach.models import Channel, Lead
from outreach.optout import opt_out

SALT = "cerniq.outreach.unsubscribe"
ONE_CLICK = "List-Unsubscribe=One-Click"


@dataclass(frozen=True)
class Recipient:
    lead: Lead

    @property
    def already_out(self) -> bool:
        journey = getattr(self.lead, "journey", None)
        return bool(journey and journey.email_opted_out)


def token_for(lead: Lead) -> str:
    return signing.dumps({"t": lead.tenant_id, "l": lead.pk}, salt=SALT, compress=True)


def url_for(lead: Lead) -> str:
    return f"{settings.PUBLIC_BASE_URL.rstrip('/')}/u/{token_for(lead)}/"


def headers_for(lead: Lead) -> dict[str, str]:
    """The RFC 8058 headers of an email to `lead` (RFC 2369 form: the URL in angle brackets)."""
    return {"List-Unsubscribe": f"<{url_for(lead)}>", "List-Unsubscribe-Post": ONE_CLICK}


def recipient_for(token: str) -> Recipient | None:
    """The lead a token was made for, or None when the token is forged, mangled or its lead
    is gone (the page then says the link is not valid; nothing changes)."""
    try:
        data = signing.loads(token, salt=SALT)
    except signing.BadSignature:
        return None
    if not isinstance(data, dict):
        return None
    lead = (
        Lead.objects.select_related("tenant", "journey")
        .filter(pk=data.get("l"), tenant_id=data.get("t"))
        .first()
    )
    return Recipient(lead) if lead is not None else None


def unsubscribe(recipient: Recipient) -> bool:
    """Unsubscribe the lead (idempotent). True when it was still subscribed."""
    was_in = not recipient.already_out
    lead = recipient.lead
    if lead.email:
        unsubscribed(lead.tenant, email=lead.email, source="one-click")
    else:  # its address was removed since: the click still means stop
        opt_out(lead, Channel.EMAIL_WARM)
    return was_in
