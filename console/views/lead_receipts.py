"""The lead page's receipts: each provider told of the lead's opt-out or erasure, when it
was asked, when the provider confirmed, and what it said (outreach.propagation)."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

from cerniq import integrations
from outreach.models import Lead, Propagation
from outreach.propagation import OURS

ACTIONS = {
    "queues_cancelled": _("queued messages cancelled"),
    "delete_lead": _("lead deleted"),
    "unsubscribe_member": _("member unsubscribed"),
    "delete_member": _("member deleted permanently"),
    "unsubscribed_there": _("the person unsubscribed there"),
}
ANSWERS = {
    "deleted": _("deleted"),
    "unsubscribed": _("unsubscribed"),
    "unsubscribed_there": _("already unsubscribed there"),
    "already_gone": _("already gone"),
    "still_queued": _("still queued"),
}
SHOWN = 20


def provider_label(key: str) -> str:
    if key == OURS:
        return str(_("Our queues"))
    integration = integrations.get(key)
    return integration.label if integration is not None else key


def answer_text(answer: dict) -> str:
    """ "1 deleted, 1 already gone": lists counted, numbers as they are."""
    parts = []
    for key, value in answer.items():
        label = ANSWERS.get(key)
        if label is None:
            continue
        count = len(value) if isinstance(value, list) else value
        if key == "still_queued" and not count:
            parts.append(str(_("nothing left queued")))
            continue
        parts.append(f"{count} {label}")
    return ", ".join(parts)


def receipt_rows(lead: Lead) -> list[dict]:
    rows = []
    receipts = Propagation.objects.filter(lead=lead).order_by("-requested_at", "-pk")[:SHOWN]
    for receipt in receipts:
        took = None
        if receipt.applied_at is not None:
            took = max(0, round((receipt.applied_at - receipt.requested_at).total_seconds()))
        rows.append(
            {
                "cause": receipt.get_cause_display(),
                "provider": provider_label(receipt.provider),
                "action": str(ACTIONS.get(receipt.action, receipt.action)),
                "state": receipt.state,
                "state_label": receipt.get_state_display(),
                "requested_at": receipt.requested_at,
                "applied_at": receipt.applied_at,
                "took_seconds": took,
                "attempts": receipt.attempts,
                "next_attempt_at": receipt.next_attempt_at,
                "answer": answer_text(receipt.answer),
                "last_error": receipt.last_error,
            }
        )
    return rows
