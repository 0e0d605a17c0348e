"""Row loops rendered by the compiled engine (settings.TEMPLATES "rows": Jinja2).

A page's long loops (fifty leads, fifty bubbles, twenty-five review items) print fields the
view has worked out — labels and fixed words translated there, dates formatted there —
from a `*.jinja` template beside the page's own. Django's engine resolves each printed
field through its lookup chain (~10 µs); the compiled loop costs a sixth of that. The page
itself stays a Django template and prints the result with `{{ rows_html }}`.

The rows templates hold no words of their own (makemessages does not read them), print
missing fields as errors (StrictUndefined) and escape everything not marked safe.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

from django.template import engines
from django.utils import dateformat, formats, timezone, translation
from django.utils.html import conditional_escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext


def render_rows(template_name: str, **context: Any) -> SafeString:
    """The rows template's output, safe to print in a Django template (it escaped)."""
    template = engines["rows"].env.get_template(template_name)  # type: ignore[attr-defined]
    return mark_safe(template.render(context))  # noqa: S308 - autoescaped by Jinja2


def blocktranslate(msgid: str, **values: str) -> SafeString:
    """What `{% blocktranslate with name=value %}…{% endblocktranslate %}` prints: the
    translation (not escaped) with the values escaped; the message id itself when the
    translation does not fit the values (as the tag falls back). Callers mark `msgid` with
    gettext_noop so that makemessages keeps it in the catalogue."""
    escaped = {name: conditional_escape(value) for name, value in values.items()}
    try:
        return mark_safe(gettext(msgid) % escaped)  # noqa: S308 - the values are escaped
    except (KeyError, ValueError):
        with translation.override(None):
            return mark_safe(gettext(msgid) % escaped)  # noqa: S308 - as above


class LocalDates:
    """A page's dates as `|date:"<FORMAT>"` prints them: in the active time zone, by the
    active language's named format, the format looked up once a page."""

    def __init__(self, name: str) -> None:
        self.format = formats.get_format(name)

    def __call__(self, moment: date | datetime | None) -> str:
        if moment is None:
            return ""
        if isinstance(moment, datetime):
            moment = timezone.localtime(moment)
        return dateformat.format(moment, self.format)
