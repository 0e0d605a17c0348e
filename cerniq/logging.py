"""Log filter that masks phone numbers and email addresses (the security contract)."""

from __future__ import annotations

import logging
import re

_EMAIL = re.compile(r"([A-Za-z0-9._%+-])[A-Za-z0-9._%+-]*@([A-Za-z0-9.-]+\.[A-Za-z]{2,})")
_PHONE = re.compile(r"(?<![\w-])(\+?\d{3})\d{4,}(\d{3})(?![\w-])")


def mask_pii(text: str) -> str:
    """`+40712345678` → `+40***678`, `ion.pop@agro.ro` → `i***@agro.ro`."""
    text = _EMAIL.sub(r"\1***@\2", text)
    return _PHONE.sub(r"\1***\2", text)


class MaskPIIFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        masked = mask_pii(message)
        if masked != message:
            record.msg, record.args = masked, None
        return True
