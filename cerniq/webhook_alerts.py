"""WEBHOOK_FAILURE alerts: provider callbacks we stored but cannot process, and callbacks
we refuse.

- **Failing events**, per (tenant, provider): when an event fails (`process_event`), the
  tenant's events of that provider that are FAILED now and arrived in the last
  WEBHOOK_ALERT_WINDOW are counted; at WEBHOOK_FAILURE_ALERT_THRESHOLD or more, the alert
  `webhooks:<provider>` is raised (critical at four times the threshold). Distinct events
  are counted, not attempts: one poisonous event retried five times is one. The minute job
  (`check`) resolves it once an event of that provider is processed after the last
  failure, so the worker's path for a successful event gains no query.
- **Refused requests**, per provider, platform-wide (a refused request names no tenant we
  can trust): the intake counts wrong tokens and bad signatures in per-minute cache
  buckets; at WEBHOOK_REJECTED_ALERT_THRESHOLD in the window the platform alert
  `webhooks-rejected:<provider>` is raised (a rotated secret nobody updated at the provider,
  or someone probing), and resolved after a window without any.
"""

from __future__ import annotations

import logging
import time

from django.conf import settings
from django.core.cache import cache
from django.utils import timezone

from cerniq import platform_reasons, reasons
from cerniq.alerts import raise_alert, resolve_alerts
from cerniq.models import Alert, Tenant, WebhookEvent

log = logging.getLogger(__name__)

FAILING_PREFIX = "webhooks:"
REJECTED_PREFIX = "webhooks-rejected:"
_BUCKET_KEY = "cerniq:webhook-rejected:{provider}:{minute}"


def _window_minutes() -> int:
    return max(int(settings.WEBHOOK_ALERT_WINDOW.total_seconds() // 60), 1)


def note_failure(tenant: Tenant | None, provider: str, error: str) -> None:
    """An event of `provider` just failed: raise the alert when enough of them are failing.
    Never raises (the caller is already handling the event's own failure)."""
    if tenant is None:
        return
    try:
        since = timezone.now() - settings.WEBHOOK_ALERT_WINDOW
        failing = WebhookEvent.objects.filter(
            tenant=tenant,
            provider=provider,
            status=WebhookEvent.Status.FAILED,
            received_at__gte=since,
        ).count()
        threshold = settings.WEBHOOK_FAILURE_ALERT_THRESHOLD
        if failing < threshold:
            return
        last = error.strip().splitlines()[0][:200] if error.strip() else ""
        message = reasons.code(
            platform_reasons.WEBHOOK_EVENTS_FAILING,
            count=failing,
            provider=provider,
            minutes=_window_minutes(),
            error=last,
        )
        severity = Alert.Severity.CRITICAL if failing >= 4 * threshold else Alert.Severity.WARNING
        raise_alert(
            tenant,
            Alert.Kind.WEBHOOK_FAILURE,
            FAILING_PREFIX + provider,
            message,
            severity=severity,
        )
    except Exception:
        log.exception("webhook failure alert for %s could not be raised", provider)


def note_rejected(provider: str) -> None:
    """One refused request (wrong token, bad signature): counted, never raised here, so a
    flood of them costs the intake two cache operations each and no database write."""
    key = _BUCKET_KEY.format(provider=provider, minute=int(time.time() // 60))
    try:
        cache.add(key, 0, timeout=int(settings.WEBHOOK_ALERT_WINDOW.total_seconds()) + 120)
        cache.incr(key)
    except Exception:  # noqa: BLE001 - counting must never break the intake's answer
        log.debug("could not count a refused webhook request", exc_info=True)


def rejected_recently(provider: str) -> int:
    minute = int(time.time() // 60)
    keys = [
        _BUCKET_KEY.format(provider=provider, minute=minute - n) for n in range(_window_minutes())
    ]
    return sum(int(v) for v in cache.get_many(keys).values())


def check() -> None:
    """The minute job: resolve recovered providers, raise or resolve refused-request alerts."""
    from cerniq.webhooks import receivers  # the intake imports this module

    resolve_recovered()
    threshold = settings.WEBHOOK_REJECTED_ALERT_THRESHOLD
    for provider in sorted(receivers()):
        refused = rejected_recently(provider)
        if refused >= threshold:
            raise_alert(
                None,
                Alert.Kind.WEBHOOK_FAILURE,
                REJECTED_PREFIX + provider,
                reasons.code(
                    platform_reasons.WEBHOOK_REQUESTS_REFUSED,
                    count=refused,
                    provider=provider,
                    minutes=_window_minutes(),
                ),
            )
        elif refused == 0:
            resolve_alerts(None, Alert.Kind.WEBHOOK_FAILURE, REJECTED_PREFIX + provider)


def resolve_recovered() -> int:
    """Resolve each open failing-events alert whose provider processed an event for the
    tenant after the alert's last failure: processing works again."""
    resolved = 0
    open_alerts = Alert.objects.filter(
        kind=Alert.Kind.WEBHOOK_FAILURE,
        subject__startswith=FAILING_PREFIX,
        resolved_at__isnull=True,
        tenant__isnull=False,
    ).select_related("tenant")
    for alert in open_alerts:
        provider = alert.subject.removeprefix(FAILING_PREFIX)
        recovered = WebhookEvent.objects.filter(
            tenant=alert.tenant,
            provider=provider,
            status=WebhookEvent.Status.PROCESSED,
            processed_at__gt=alert.last_seen_at,
        ).exists()
        if recovered:
            resolved += resolve_alerts(alert.tenant, Alert.Kind.WEBHOOK_FAILURE, alert.subject)
    return resolved
