"""`{{ value|reason }}`: a stored reason in the reader's language (cerniq.reasons).

Registered as a template builtin (settings.TEMPLATES), so no page needs `{% load %}`.
"""

from django import template

from cerniq import reasons

register = template.Library()


@register.filter(name="reason")
def reason(stored: str | None) -> str:
    return reasons.render(stored)
