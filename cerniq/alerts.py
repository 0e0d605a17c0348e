"""Raise and resolve alerts; one open alert per (tenant, kind, subject), counted."""

from __future__ import annotations

import logging

from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from cerniq.logging import mask_pii
from cerniq.models import Alert, Tenant

log = logging.getLogger(__name__)

SEVERITY_RANK = {Alert.Severity.INFO: 0, Alert.Severity.WARNING: 1, Alert.Severity.CRITICAL: 2}


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
    return alert


def resolve_alerts(tenant: Tenant | None, kind: str, subject: str) -> int:
    return Alert.objects.filter(
        tenant=tenant, kind=kind, subject=subject, resolved_at__isnull=True
    ).update(resolved_at=timezone.now())
