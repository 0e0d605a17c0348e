"""`{{ count|num }}`: a figure shown to people, grouped in the reader's language.

USE_THOUSAND_SEPARATOR stays off (ids in URLs and data-* attributes must stay bare), so
every count on a page asks for grouping here: 12.345 in Romanian, 12,345 in English.
Registered as a template builtin (settings.TEMPLATES). Never for ids, URLs or form values.
"""

from decimal import Decimal

from django import template
from django.utils import formats

register = template.Library()


@register.filter(name="num")
def num(value: object) -> object:
    """The value grouped by the active locale; anything not a number comes back as it was."""
    if isinstance(value, bool) or not isinstance(value, int | float | Decimal):
        if isinstance(value, str) and value.lstrip("-").isdigit():
            value = int(value)
        else:
            return value
    return formats.number_format(value, force_grouping=True)
