"""A phone number as people write it, to E.164: the one rule for leads and sending numbers.

Why here: the lead import (outreach) and adding a WhatsApp number (whatsapp) both need it,
and the apps below outreach may not import it.
"""

from __future__ import annotations

import phonenumbers

DEFAULT_REGION = "RO"  # a number written without a country code is Romanian

_PROBLEMS = {
    phonenumbers.NumberParseException.NOT_A_NUMBER: "not_a_number",
    phonenumbers.NumberParseException.INVALID_COUNTRY_CODE: "country_code",
    phonenumbers.NumberParseException.TOO_SHORT_NSN: "too_short",
    phonenumbers.NumberParseException.TOO_SHORT_AFTER_IDD: "too_short",
    phonenumbers.NumberParseException.TOO_LONG: "too_long",
}


class NotAPhoneNumber(ValueError):
    """`why`: not_a_number, country_code, too_short, too_long or invalid."""

    def __init__(self, why: str) -> None:
        super().__init__(why)
        self.why = why


def to_e164(raw: str) -> str:
    """`0740 000 101`, `+40 740-000-101`, `0040 740 000 101` → `+40740000101`; raises
    NotAPhoneNumber saying why for anything that is not a valid number."""
    try:
        number = phonenumbers.parse(raw, DEFAULT_REGION)
    except phonenumbers.NumberParseException as exc:
        raise NotAPhoneNumber(_PROBLEMS.get(exc.error_type, "invalid")) from exc
    if not phonenumbers.is_valid_number(number):
        raise NotAPhoneNumber("invalid")
    return phonenumbers.format_number(number, phonenumbers.PhoneNumberFormat.E164)
