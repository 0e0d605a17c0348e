"""Reason codes of the platform itself (cerniq.reasons): alerts about workers and webhooks,
stored as codes and shown in the reader's (or the alert channel's) language."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

from cerniq import reasons

WORKER_DOWN = reasons.define(
    "platform.worker_down",
    _("No worker has consumed queue group %(group)s for more than %(seconds)s s: %(queues)s."),
)
WEBHOOK_EVENTS_FAILING = reasons.define(
    "platform.webhook_events_failing",
    _(
        "%(count)s %(provider)s webhook events failed to process in the last %(minutes)s "
        "minutes and wait for a retry. Last error: %(error)s"
    ),
)
WEBHOOK_REQUESTS_REFUSED = reasons.define(
    "platform.webhook_requests_refused",
    _(
        "%(count)s requests to /webhooks/%(provider)s/ were refused (wrong token or signature) "
        "in the last %(minutes)s minutes. Check the secret configured at the provider, or "
        "whether someone is probing the endpoint."
    ),
)
DESTINATION_REFUSED = reasons.define(
    "platform.destination_refused",
    _("%(host)s does not resolve to a public Internet address: the server does not connect to it."),
)
