"""The Reply-To address of our warm emails, which routes a lead's answer back to us.

Every warm email says `Reply-To: reply+<tenant>-<message>-<mac>@<inbound domain>`
(RESEND_INBOUND_DOMAIN, a Resend receiving domain: docs/providers.md §3.5). A normal
"Reply" in any mail client then writes to that address; Resend receives it and posts
`email.received`, whose `to` carries the address back. The address names the tenant and
the message it answers, so the reply is threaded without guessing from the sender (one
Resend account serves every tenant: the sender's address alone could be a lead of several).

`mac` is an HMAC of the tenant and message ids keyed from SECRET_KEY (earlier keys in
SECRET_KEY_FALLBACKS still verify), 16 hex characters: nobody can write to a made-up
address and be taken for one of our leads (a "stop" sent there would opt someone out).
Everything is lowercase ASCII, so a mail system that lowercases local parts changes nothing.
"""

from __future__ import annotations

import hmac
import re
from dataclasses import dataclass

from django.conf import settings
from django.utils.crypto import salted_hmac

from email_channels.addresses import address_in

LOCAL_PREFIX = "reply+"
_SALT = "cerniq.resend.reply-address"
_MAC_LENGTH = 16
_LOCAL = re.compile(r"reply\+([1-9][0-9]{0,18})-([1-9][0-9]{0,18})-([0-9a-f]{16})")


@dataclass(frozen=True)
class Route:
    tenant_id: int
    message_id: int


def _mac(tenant_id: int, message_id: int, secret: str) -> str:
    value = f"{tenant_id}:{message_id}"
    digest = salted_hmac(_SALT, value, secret=secret, algorithm="sha256").hexdigest()
    return digest[:_MAC_LENGTH]


def reply_address(domain: str, *, tenant_id: int, message_id: int) -> str:
    """The address a reply to message `message_id` of tenant `tenant_id` is written to."""
    mac = _mac(tenant_id, message_id, settings.SECRET_KEY)
    return f"{LOCAL_PREFIX}{tenant_id}-{message_id}-{mac}@{domain.strip().lower()}"


def route_of(address: str) -> Route | None:
    """The tenant and message a reply address names (on any domain: the MAC is what makes
    it ours), or None for any other address or a wrong MAC."""
    local, _, _domain = address_in(address).lower().rpartition("@")
    match = _LOCAL.fullmatch(local)
    if match is None:
        return None
    tenant_id, message_id, given = int(match[1]), int(match[2]), match[3]
    for secret in (settings.SECRET_KEY, *getattr(settings, "SECRET_KEY_FALLBACKS", ())):
        if hmac.compare_digest(_mac(tenant_id, message_id, secret), given):
            return Route(tenant_id, message_id)
    return None


def first_route(addresses: list[str]) -> Route | None:
    """The first reply address among a received email's recipients."""
    for address in addresses:
        route = route_of(address)
        if route is not None:
            return route
    return None
