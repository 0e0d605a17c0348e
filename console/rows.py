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
from django.utils import dateformat, timezone, translation
from django.utils.formats import get_format
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


class Dates:
    """A page's moments as `|date:'c'` and `|date:"<NAMED_FORMAT>"` print them: the time zone
    and the locale's formats looked up once a page, each format split into its parts once
    (Django's own `DateFormat.format` splits it for every date, ~25 µs a date, and a list page
    has fifty to two hundred)."""

    def __init__(self) -> None:
        self.tz = timezone.get_current_timezone()
        self._parts: dict[str, list[tuple[bool, str]]] = {}

    def _split(self, name: str) -> list[tuple[bool, str]]:
        """As `Formatter.format` reads a format: (is a format character, the piece)."""
        found = self._parts.get(name)
        if found is None:
            found = self._parts[name] = [
                (True, piece) if i % 2 else (False, dateformat.re_escaped.sub(r"\1", piece))
                for i, piece in enumerate(dateformat.re_formatchars.split(get_format(name)))
                if i % 2 or piece
            ]
        return found

    def local(self, moment: datetime) -> datetime:
        return moment.astimezone(self.tz) if timezone.is_aware(moment) else moment

    def iso(self, moment: datetime | None) -> str:
        return "" if moment is None else self.local(moment).isoformat()

    def format(self, moment: date | datetime | None, name: str) -> str:
        """`moment` by the named format ("SHORT_DATE_FORMAT", "TIME_FORMAT"…); "" for None."""
        if moment is None:
            return ""
        if isinstance(moment, datetime):
            moment = self.local(moment)
        formatter = dateformat.DateFormat(moment)
        return "".join(
            str(getattr(formatter, piece)()) if char else piece for char, piece in self._split(name)
        )

    def short_datetime(self, moment: datetime | None) -> str:
        return self.format(moment, "SHORT_DATETIME_FORMAT")

    def datetime(self, moment: datetime | None) -> str:
        return self.format(moment, "DATETIME_FORMAT")
