"""What counts as an email address when a provider tells us one (webhooks, API answers)
and when we hand one to a provider: the one rule every email integration uses.

The rule is email-validator's syntax check (no DNS look-up) with internationalised
addresses allowed: a local part with non-ASCII letters (SMTPUTF8, RFC 6531) and an IDN
domain (`office@fermă.ro`, checked through IDNA 2008) are addresses, because Romanian
companies have them and a provider that reports one must not have its event refused.
Refused: no `@`, a domain without a dot, two dots in a row, spaces, a quoted local part,
an IP literal, a reserved name (`.local`, `.test`), more than 254 characters. Django's
own validator refuses every non-ASCII local part, which is why it is not the rule here.
"""

from __future__ import annotations

import functools
from email.utils import parseaddr

from email_validator import EmailNotValidError, validate_email

EMAIL_MAX = 254  # RFC 5321 path limit


def is_email(value: object) -> bool:
    """An address as written (no display name, no spaces around it)."""
    if not isinstance(value, str) or not value or len(value) > EMAIL_MAX:
        return False
    return value == value.strip() and _valid(value)


@functools.lru_cache(maxsize=4096)  # the same senders and leads come back: ~160 µs a check
def _valid(value: str) -> bool:
    try:
        validate_email(value, check_deliverability=False, allow_smtputf8=True)
    except EmailNotValidError:
        return False
    return True


def domain_of(address: str) -> str:
    """The domain of an address, lowercased ("" without an @)."""
    _, at, domain = (address or "").strip().lower().rpartition("@")
    return domain if at else ""


def address_in(value: object) -> str:
    """The address of `Name <address>` or of a bare address; "" when there is none."""
    if not isinstance(value, str) or len(value) > 2 * EMAIL_MAX + 200:
        return ""
    _, address = parseaddr(value)
    return address if is_email(address) else ""
