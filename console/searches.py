"""Search text kept out of URLs. A search box takes phone numbers and email addresses, which
must not sit in URLs (access logs, browser history, Referer headers): the form is posted,
the text is kept in the session and the page's address carries an opaque `?s=<key>` in its
place. The leads list and the do-not-contact list share the session's searches."""

from __future__ import annotations

import secrets

from django.http import HttpRequest

SEARCH_KEY = "s"
SESSION_SEARCHES = "lead_searches"  # {key: search text}, the latest few, oldest first
KEEP_SEARCHES = 20


def remember(request: HttpRequest, text: str) -> str:
    """The session's key for the search `text` (the same key for the same text)."""
    searches = request.session.get(SESSION_SEARCHES, {})
    for key, known in searches.items():
        if known == text:
            return key
    key = secrets.token_urlsafe(6)
    searches[key] = text
    for oldest in list(searches)[:-KEEP_SEARCHES]:
        del searches[oldest]
    request.session[SESSION_SEARCHES] = searches
    return key


def recall(request: HttpRequest, key: str) -> str | None:
    """The search text the session keeps under `key`; None for a key it does not know
    (another browser's, or an expired session's)."""
    return request.session.get(SESSION_SEARCHES, {}).get(key)
