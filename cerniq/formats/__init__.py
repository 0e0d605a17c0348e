"""Our date and number formats, one per language (FORMAT_MODULE_PATH, docs/locale.md).

`ro/formats.py` and `en/formats.py` hold the named formats; the helpers here are how Python
code shows a moment to an operator: in the tenant's zone, in the active language, by name —
never a literal pattern, strftime or f"{at:%H:%M}".
"""

from datetime import datetime, time, tzinfo
from typing import Any

from django.utils import formats, timezone


def shown(
    value: datetime | time, name: str = "SHORT_DATETIME_FORMAT", zone: tzinfo | None = None
) -> str:
    """`value` by the named format of the active language (in `zone` when it is a moment)."""
    if isinstance(value, datetime):
        if timezone.is_aware(value):
            value = timezone.localtime(value, zone)
        return formats.date_format(value, name)
    return formats.time_format(value, name)


def stored_moment(value: datetime, zone: tzinfo) -> str:
    """A moment for a stored reason's parameters: ISO 8601 in the tenant's zone, so the
    reader's language formats it later (`moment_label`) and the zone's clock stays."""
    return timezone.localtime(value, zone).isoformat(timespec="minutes")


def moment_label(value: Any) -> Any:
    """A reason labeller: a stored ISO moment shown by SHORT_DATETIME_FORMAT; anything else
    (rows written before, already formatted) as it is."""
    if not isinstance(value, str):
        return value
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        return value
    return formats.date_format(moment, "SHORT_DATETIME_FORMAT")
