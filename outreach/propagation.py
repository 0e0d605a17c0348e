"""Opt-outs and erasures reach every provider that holds the person, with a receipt each.

When a lead opts out or is erased, `start` writes a receipt (`Propagation`) for our own
queues (applied at once: the opt-out cancelled them in the same transaction) and one per
call an integration must make (its `propagation` module's `targets`: Instantly deletes the
lead from its campaigns, a newsletter unsubscribes it...). Each pending receipt is applied
by an actor as soon as the transaction commits; a provider error follows the retry table
(cerniq.retry) for its delay, and a receipt is retried until the provider confirms, at
most an hour apart: a provider that keeps refusing (ALERT_AFTER attempts, or an error the
table does not retry) turns the receipt "refused" and raises an alert, and it is still
retried. A sweep every minute (`apply_due`) picks up what a lost actor message left.

The lead page shows the receipts; the figure to watch is the time from `requested_at` to
`applied_at` (bench/propagation.py).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from importlib import import_module
from types import ModuleType
from typing import Any

from django.db import transaction
from django.utils import timezone

from cerniq import integrations, reasons, retry
from cerniq.alerts import raise_alert, resolve_alerts
from cerniq.models import Alert
from cerniq.provider_errors import PermanentProviderError, ProviderError
from outreach import reasons as codes
from outreach.models import Erasure, Lead, Message, Propagation
from outreach.sequences import cancel_queued

log = logging.getLogger(__name__)

OURS = "cerniq"  # the provider name of our own queues' receipt
ALERT_AFTER = 5  # failed attempts before a receipt is "refused" and an alert is raised
LONGEST_WAIT = timedelta(hours=1)  # between two attempts, whatever the retry table says
FIRST_WAIT = timedelta(seconds=10)
LEASE = timedelta(minutes=2)  # a worker applying a receipt holds it this long
Cause = Propagation.Cause
State = Propagation.State


@dataclass(frozen=True)
class Target:
    """One call an integration must make for a person: `target` holds what it needs (the
    provider's ids; an address to look up, kept only until the provider confirmed)."""

    action: str
    target: dict[str, Any] = field(default_factory=dict)


def _modules() -> dict[str, ModuleType]:
    return {
        key: import_module(integration.propagation)
        for key, integration in integrations.registry().items()
        if integration.propagation
    }


def start(
    lead: Lead, *, cause: str, at: datetime | None = None, erasure: Erasure | None = None
) -> list[Propagation]:
    """The receipts of an opt-out or an erasure of `lead` (inside its transaction, while the
    lead's addresses are still known); the pending ones are applied after commit."""
    at = at or timezone.now()
    waiting = Message.objects.filter(lead=lead, status=Message.Status.QUEUED).count()
    in_flight = Message.objects.filter(lead=lead, status=Message.Status.SENDING).count()
    common = {"tenant_id": lead.tenant_id, "lead": lead, "cause": cause, "erasure": erasure}
    receipts = [
        Propagation(
            **common,
            provider=OURS,
            action="queues_cancelled",
            state=State.DONE if not waiting else State.PENDING,
            answer={"still_queued": waiting, "in_flight_rechecked_before_send": in_flight},
            requested_at=at,
            applied_at=at if not waiting else None,
            next_attempt_at=None if not waiting else at,
        )
    ]
    for provider, module in _modules().items():
        for target in module.targets(lead, cause):
            receipts.append(
                Propagation(
                    **common,
                    provider=provider,
                    action=target.action,
                    target=target.target,
                    requested_at=at,
                    next_attempt_at=at,
                )
            )
    Propagation.objects.bulk_create(receipts)
    pending = [r.pk for r in receipts if r.state != State.DONE]
    if pending:
        transaction.on_commit(lambda: _queue(pending))
    return receipts


def _queue(receipt_ids: list[int]) -> None:
    from outreach.tasks import propagate

    for receipt_id in receipt_ids:
        propagate.send(receipt_id)


def _claim(receipt_id: int, now: datetime) -> Propagation | None:
    """Take the receipt for one attempt (a lease, so two workers never call twice)."""
    claimed = (
        Propagation.objects.filter(pk=receipt_id, next_attempt_at__lte=now)
        .exclude(state=State.DONE)
        .update(next_attempt_at=now + LEASE)
    )
    return Propagation.objects.select_related("tenant").get(pk=receipt_id) if claimed else None


def apply(receipt_id: int, now: datetime | None = None) -> Propagation | None:
    """One attempt at one receipt, if it is due; the receipt as it then stands."""
    now = now or timezone.now()
    receipt = _claim(receipt_id, now)
    if receipt is None:
        return None
    receipt.attempts += 1
    try:
        answer = _apply(receipt)
    except ProviderError as error:
        return _failed(receipt, error, now)
    receipt.state, receipt.applied_at, receipt.next_attempt_at = State.DONE, now, None
    receipt.answer, receipt.last_error = answer, ""
    receipt.target = {k: v for k, v in receipt.target.items() if k != "lookup"}
    receipt.save()
    if receipt.alerted_at:
        resolve_alerts(receipt.tenant, Alert.Kind.OTHER, _alert_subject(receipt))
    return receipt


def _apply(receipt: Propagation) -> dict[str, Any]:
    if receipt.provider == OURS:
        return _cancel_ours(receipt)
    module = _modules().get(receipt.provider)
    if module is None:
        raise PermanentProviderError(f"{receipt.provider} is not configured any more")
    return module.apply(receipt)


def _cancel_ours(receipt: Propagation) -> dict[str, Any]:
    """Messages queued after the opt-out (a race with dispatch): cancelled now."""
    if receipt.lead_id is None:  # the lead was deleted: nothing of it can be queued
        return {"still_queued": 0}
    cancel_queued([receipt.lead_id], reasons.code(codes.STOP_OPT_OUT))
    left = Message.objects.filter(lead_id=receipt.lead_id, status=Message.Status.QUEUED).count()
    if left:
        raise ProviderError(f"{left} messages still queued")
    return {"still_queued": 0}


def _failed(receipt: Propagation, error: ProviderError, now: datetime) -> Propagation:
    decision = retry.decide(error, receipt.attempts)
    wait = decision.retry_in or LONGEST_WAIT
    wait = min(max(wait, FIRST_WAIT), LONGEST_WAIT)
    receipt.last_error = f"{type(error).__name__}: {error}"[:300]
    receipt.next_attempt_at = now + wait
    if decision.give_up or receipt.attempts >= ALERT_AFTER:
        receipt.state = State.REFUSED
        if receipt.alerted_at is None:
            receipt.alerted_at = now
            raise_alert(
                receipt.tenant,
                Alert.Kind.OTHER,
                _alert_subject(receipt),
                f"{receipt.get_cause_display()} of lead #{receipt.lead_id} not applied at "
                f"{receipt.provider} after {receipt.attempts} attempts: {receipt.last_error}. "
                "Retried every hour until it is.",
                severity=Alert.Severity.CRITICAL,
            )
    receipt.save()
    log.warning(
        "propagation %s to %s failed (attempt %s): %s",
        receipt.pk,
        receipt.provider,
        receipt.attempts,
        receipt.last_error,
    )
    return receipt


def _alert_subject(receipt: Propagation) -> str:
    return f"propagation:{receipt.provider}:{receipt.pk}"


def apply_due(now: datetime | None = None, limit: int = 200) -> int:
    """The sweep: every receipt whose next attempt is due (a lost actor message, a retry)."""
    now = now or timezone.now()
    due = list(
        Propagation.objects.filter(next_attempt_at__lte=now)
        .exclude(state=State.DONE)
        .order_by("next_attempt_at")
        .values_list("pk", flat=True)[:limit]
    )
    return sum(1 for receipt_id in due if apply(receipt_id, now) is not None)


def receipts_of(lead: Lead) -> list[Propagation]:
    return list(Propagation.objects.filter(lead=lead).order_by("pk"))
