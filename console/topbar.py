"""The top bar of every operator page, printed by the compiled `_topbar.jinja` (console.rows).

Through Django's engine its dozen links, their translations, the language switch and the two
badges cost ~4 ms of CPU on every page; here the words are translated and the links reversed
in Python and the template prints fields (docs/page-rendering.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.conf import settings
from django.middleware.csrf import get_token
from django.urls import reverse
from django.utils import translation
from django.utils.safestring import SafeString
from django.utils.translation import gettext, gettext_noop, ngettext_lazy

from cerniq.templatetags.numbers import num
from console.rows import render_rows

# key, URL name, label, the path prefixes under which the link is the current section
NAV = (
    ("dashboard", "outreach:dashboard", gettext_noop("Dashboard"), ("/outreach/dashboard",)),
    ("inbox", "outreach:inbox", gettext_noop("Inbox"), ("/outreach/inbox",)),
    ("leads", "outreach:leads", gettext_noop("Leads"), ("/outreach/leads",)),
    ("phones", "outreach:phones", gettext_noop("Phones"), ("/outreach/phones",)),
    ("review", "hitl:review", gettext_noop("Review"), ("/outreach/review",)),
    ("sequences", "outreach:sequences", gettext_noop("Sequences"), ("/outreach/sequences",)),
    ("templates", "outreach:templates", gettext_noop("Templates"), ("/outreach/templates",)),
    ("campaigns", "outreach:campaigns", gettext_noop("Campaigns"), ("/outreach/campaigns",)),
    ("analytics", "outreach:analytics", gettext_noop("Analytics"), ("/outreach/analytics",)),
    (
        "operations",
        "outreach:queues",
        gettext_noop("Operations"),
        ("/outreach/queues", "/outreach/dead-letters"),
    ),
)
# the right-hand links' sections
SECTIONS = (
    ("alerts", "/outreach/alerts"),
    ("api-keys", "/outreach/api-keys"),
    ("settings", "/outreach/settings"),
)


def _value(found: object) -> Any:
    """A context value as the template engine reads it: a callable (a lazy count) called."""
    return found() if callable(found) else found


def _counted(phrase: Any, n: int) -> str:
    """A plural phrase for `n`, as `{% blocktranslate count counter=n %}` prints it."""
    return phrase % {"counter": n}


def inbox_badge(unread: int, *, oob: bool = False) -> SafeString:
    """The Inbox link's badge: how many open conversations have a reply the user has not
    read. `oob`: for the inbox's list poll, which replaces the bar's badge out of band (a
    conversation opened beside the list was read)."""
    title = _counted(
        ngettext_lazy(
            "%(counter)s conversation with an unread reply",
            "%(counter)s conversations with an unread reply",
            "counter",
        ),
        unread,
    )
    return render_rows("_inbox_badge.jinja", unread=unread, text=num(unread), title=title, oob=oob)


def topbar(context: Mapping[str, Any]) -> SafeString:
    """The bar for the page's context (the request, the user, `console.context_processors`)."""
    request = context["request"]
    path = request.path
    tenant = context.get("current_tenant")
    words = {
        "outreach": gettext("Outreach"),
        "main_navigation": gettext("Main navigation"),
        "alerts": gettext("Alerts"),
        "api_keys": gettext("API keys"),
        "api": gettext("API"),
        "settings": gettext("Settings"),
        "settings_title": gettext("Sending hours, contact policy, review deadlines"),
        "workspace": gettext("Workspace"),
        "log_out": gettext("Log out"),
    }
    values: dict[str, Any] = {"tenant": tenant, "words": words, "links": [], "alerts": 0}
    if tenant is not None:
        values["links"] = [
            {
                "key": key,
                "url": reverse(name),
                "label": gettext(label),
                "active": path.startswith(prefixes),
            }
            for key, name, label, prefixes in NAV
        ]
        unread = _value(context.get("inbox_unread")) or 0
        alerts = _value(context.get("open_alert_count")) or 0
        values.update(
            inbox_badge=inbox_badge(unread),
            alerts=alerts,
            alerts_text=num(alerts),
            alerts_title=_counted(
                ngettext_lazy(
                    "%(counter)s open alert nobody acknowledged",
                    "%(counter)s open alerts nobody acknowledged",
                    "counter",
                ),
                alerts,
            ),
        )
    user = context.get("user") or getattr(request, "user", None)
    current = translation.get_language()
    values.update(
        section=next((key for key, prefix in SECTIONS if path.startswith(prefix)), ""),
        is_admin=bool(context.get("is_tenant_admin")),
        urls={
            "alerts": reverse("outreach:alerts"),
            "api_keys": reverse("outreach:api_keys"),
            "settings": reverse("outreach:sending_settings"),
            "set_language": reverse("set_language"),
            "logout": reverse("logout"),
        },
        csrf_token=get_token(request),
        full_path=request.get_full_path(),
        # each language named in itself: Română, English
        languages=[
            {
                "code": code,
                "name": translation.get_language_info(code)["name_local"],
                "current": code == current,
            }
            for code, _name in settings.LANGUAGES
        ],
        username=user.get_username() if user is not None and user.is_authenticated else None,
    )
    return render_rows("_topbar.jinja", **values)
