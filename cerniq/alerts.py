"""Raise, acknowledge and resolve alerts; one open alert per (tenant, kind, subject), counted.

Opening or resolving an alert asks the workers to notify its channels once the transaction
commits (cerniq.notifications); the minute job catches up on whatever that missed.
"""

from __future__ import annotations

import functools
import logging
from datetime import datetime

from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.db.models import F, QuerySet
from django.utils import timezone

from cerniq.logging import mask_pii
from cerniq.models import Alert, Tenant

log = logging.getLogger(__name__)

SEVERITY_RANK: dict[str, int] = {
    Alert.Severity.INFO: 0,
    Alert.Severity.WARNING: 1,
    Alert.Severity.CRITICAL: 2,
}


def _notify_on_commit(alert_id: int | None = None) -> None:
    """Enqueue the fast-path delivery after commit; a broker outage costs nothing but a
    minute (the periodic job sends what is owed)."""
    from cerniq.tasks import deliver_alert_notifications, notify_alert

    if alert_id is None:
        send = deliver_alert_notifications.send
    else:
        send = functools.partial(notify_alert.send, alert_id)
    transaction.on_commit(send, robust=True)


def raise_alert(
    tenant: Tenant | None,
    kind: str,
    subject: str,
    message: str,
    *,
    severity: str = Alert.Severity.WARNING,
) -> Alert:
    """Open an alert, or count one more occurrence of the open one (keeping the higher
    severity, so an escalating problem never looks milder)."""
    open_alerts = Alert.objects.filter(
        tenant=tenant, kind=kind, subject=subject, resolved_at__isnull=True
    )
    if open_alerts.update(
        occurrences=F("occurrences") + 1, message=message, last_seen_at=timezone.now()
    ):
        alert = open_alerts.get()
        if SEVERITY_RANK[severity] > SEVERITY_RANK[alert.severity]:
            Alert.objects.filter(pk=alert.pk).update(severity=severity)
            alert.severity = severity
        return alert
    try:
        with transaction.atomic():
            alert = Alert.objects.create(
                tenant=tenant, kind=kind, subject=subject, message=message, severity=severity
            )
    except IntegrityError:  # a concurrent raise created it first
        return raise_alert(tenant, kind, subject, message, severity=severity)
    log.warning("alert %s %s: %s", kind, subject, mask_pii(message))
    _notify_on_commit(alert.pk)
    return alert


def resolve_alerts(tenant: Tenant | None, kind: str, subject: str) -> int:
    """The condition cleared by itself: resolve the open alert (and send its "resolved"
    notice where it was announced)."""
    resolved = Alert.objects.filter(
        tenant=tenant, kind=kind, subject=subject, resolved_at__isnull=True
    ).update(resolved_at=timezone.now())
    if resolved:
        _notify_on_commit()
    return resolved


def acknowledge(alerts: QuerySet[Alert], user: User, now: datetime | None = None) -> int:
    """Someone is on it: no more reminders. Open, unacknowledged alerts only; the count."""
    return alerts.filter(resolved_at__isnull=True, acknowledged_at__isnull=True).update(
        acknowledged_at=now or timezone.now(), acknowledged_by=user
    )


def resolve_by_hand(alerts: QuerySet[Alert], user: User, now: datetime | None = None) -> int:
    """An operator says it is over. If the condition comes back, its raiser opens a new
    alert (and a new notice goes out). Open alerts only; the count."""
    resolved = alerts.filter(resolved_at__isnull=True).update(
        resolved_at=now or timezone.now(), resolved_by=user
    )
    if resolved:
        _notify_on_commit()
    return resolved
