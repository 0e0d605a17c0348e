"""Alert notifications: each alert reaches the tenant's channels once when it opens, again
as a reminder after a quiet period while nobody acknowledges it, and once more when it is
resolved. The database is the outbox; sending goes through apprise (cerniq.alert_channels).

Who sends: `deliver_pending` (every minute, settings.PERIODIC_JOBS) finds the alerts that
owe a notice, and `deliver_alert` (enqueued when an alert opens or is resolved) sends one
at once. Either claims the alert first with a conditional UPDATE of `notify_after`, so two
workers never send the same notice. A channel that fails is logged (masked) and tried
again on a later run with back-off; the channels that already have the notice are
remembered (`notice_sent_to`) and not sent it twice; a bad channel never blocks the others.
"""

from __future__ import annotations

import logging
import re
from collections import defaultdict
from collections.abc import Iterable
from contextlib import nullcontext
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import Exists, OuterRef, Q
from django.urls import reverse
from django.utils import timezone

from cerniq import alert_channels, alert_messages, net_guard, reasons
from cerniq.alert_channels import ChannelURLError, Target
from cerniq.logging import mask_log_text
from cerniq.models import Alert, AlertChannel

log = logging.getLogger(__name__)

Notice = Alert.Notice

# A claimed alert is left alone this long: longer than sending to all its channels takes.
CLAIM_FOR = timedelta(minutes=5)
# A channel that failed is tried again after 1, 2, 4 … minutes, at most an hour apart.
RETRY_FIRST = timedelta(minutes=1)
RETRY_MAX = timedelta(hours=1)
BATCH = 200  # alerts per run; the rest wait for the next minute
ERROR_LIMIT = 500


@dataclass
class Report:
    """What one run did, for the command line and the tests."""

    alerts: int = 0
    sent: int = 0
    failed: int = 0


def _quiet_since(now: datetime) -> datetime:
    return now - settings.ALERT_REMINDER_AFTER


def owes_notice(now: datetime) -> Q:
    """Alerts that owe a notice now (and are not claimed or backing off)."""
    quiet = _quiet_since(now)
    owed = (
        ~Q(notice_pending="")  # reached only some channels so far
        | Q(resolved_at__isnull=True, notified_at__isnull=True)
        | Q(resolved_at__isnull=True, acknowledged_at__isnull=True, reminded_at__lte=quiet)
        | Q(
            resolved_at__isnull=True,
            acknowledged_at__isnull=True,
            reminded_at__isnull=True,
            notified_at__lte=quiet,
        )
        | Q(resolved_at__isnull=False, notified_at__isnull=False, resolved_notified_at__isnull=True)
    )
    return owed & (Q(notify_after__isnull=True) | Q(notify_after__lte=now))


def _has_somewhere_to_go() -> Q | Exists:
    """Alerts with a channel to go to: an enabled channel of the tenant, or the
    deployment's ALERT_URLS for platform-wide alerts. Others wait (and are sent once a
    channel is added) instead of being claimed every minute."""
    tenant_channels = Exists(AlertChannel.objects.filter(tenant=OuterRef("tenant"), enabled=True))
    if settings.ALERT_URLS:
        return tenant_channels | Q(tenant__isnull=True)
    return tenant_channels


def _claim(alert_id: int, now: datetime) -> bool:
    """Take the alert for CLAIM_FOR; False when another worker has it or nothing is owed."""
    return bool(
        Alert.objects.filter(owes_notice(now), pk=alert_id).update(notify_after=now + CLAIM_FOR)
    )


def notice_owed(alert: Alert, now: datetime) -> str | None:
    """Which notice the alert owes: OPENED, REMINDER, RESOLVED, or None.

    An alert resolved before anybody heard of it owes nothing; once resolved, a pending
    opening or reminder gives way to the "resolved" notice. A reminder round starts a quiet
    period after the last notice reached someone, unless the alert is acknowledged (someone
    is on it); until then a notice that missed some channels is still owed to them."""
    if alert.resolved_at is not None:
        if alert.notified_at is None or alert.resolved_notified_at is not None:
            return None
        return Notice.RESOLVED
    if alert.notified_at is None:
        return Notice.OPENED
    if alert.acknowledged_at is None and _new_reminder_round(alert, now):
        return Notice.REMINDER
    if alert.notice_pending == Notice.OPENED:
        return Notice.OPENED
    if alert.notice_pending == Notice.REMINDER and alert.acknowledged_at is None:
        return Notice.REMINDER
    return None


def _new_reminder_round(alert: Alert, now: datetime) -> bool:
    last_reached = alert.reminded_at or alert.notified_at
    return last_reached is not None and last_reached <= _quiet_since(now)


def _continues(alert: Alert, notice: str, now: datetime) -> bool:
    """Is this attempt the pending notice again (its channels that have it are skipped,
    its back-off grows), or a new one? A reminder round that reached someone a quiet period
    ago is over: the next one goes to every channel again (a channel that stays broken never
    holds the others' reminders back)."""
    if alert.notice_pending != notice:
        return False
    if notice == Notice.REMINDER and alert.notice_sent_to:
        return not _new_reminder_round(alert, now)
    return True


def _channels_by_tenant(tenant_ids: Iterable[int | None]) -> dict[int, list[AlertChannel]]:
    by_tenant: dict[int, list[AlertChannel]] = defaultdict(list)
    ids = {tid for tid in tenant_ids if tid is not None}
    if ids:
        for channel in AlertChannel.objects.filter(tenant_id__in=ids, enabled=True):
            by_tenant[channel.tenant_id].append(channel)
    return by_tenant


def deliver_pending(now: datetime | None = None, *, limit: int = BATCH) -> Report:
    """Send every notice owed now (the periodic catch-up); a constant number of queries
    to find them, then a claim and an update per alert."""
    now = now or timezone.now()
    rows = list(
        Alert.objects.filter(owes_notice(now))
        .filter(_has_somewhere_to_go())
        .order_by("first_seen_at", "pk")
        .values_list("pk", "tenant_id")[:limit]
    )
    channels = _channels_by_tenant(tenant_id for _, tenant_id in rows)
    report = Report()
    for alert_id, tenant_id in rows:
        _deliver(alert_id, now, channels.get(tenant_id, []) if tenant_id else [], report)
    return report


def deliver_alert(alert_id: int, now: datetime | None = None) -> Report:
    """Send what one alert owes now (the fast path, right after it opened or resolved)."""
    now = now or timezone.now()
    report = Report()
    tenant_id = Alert.objects.filter(pk=alert_id).values_list("tenant_id", flat=True).first()
    channels = _channels_by_tenant([tenant_id]).get(tenant_id, []) if tenant_id else []
    if channels or (tenant_id is None and settings.ALERT_URLS):
        _deliver(alert_id, now, channels, report)
    return report


def _deliver(alert_id: int, now: datetime, channels: list[AlertChannel], report: Report) -> None:
    if not _claim(alert_id, now):
        return
    alert = Alert.objects.select_related("tenant").get(pk=alert_id)
    notice = notice_owed(alert, now)
    if notice is None:
        Alert.objects.filter(pk=alert_id).update(
            notify_after=None, notice_pending="", notice_sent_to=[], notice_attempts=0
        )
        return
    report.alerts += 1
    continuing = _continues(alert, notice, now)
    before = set(alert.notice_sent_to) if continuing else set()
    already = set(before)
    targets = [t for t in alert_channels.targets_for(alert, channels) if t.key not in already]
    failed = 0
    for target in targets:
        problem = send(target, alert, notice)
        _record_channel_outcome(target, problem, now)
        if problem:
            failed += 1
            log.warning(
                "alert %s: %s notice to %s failed: %s",
                alert.pk,
                notice,
                target.label,
                reasons.render(problem),
            )
        else:
            already.add(target.key)
    report.sent += len(targets) - failed
    report.failed += failed
    outcome = _outcome(alert, notice, continuing, before, already, failed, now)
    Alert.objects.filter(pk=alert_id).update(**outcome)


def _outcome(
    alert: Alert,
    notice: str,
    continuing: bool,
    before: set[str],
    sent_to: set[str],
    failed: int,
    now: datetime,
) -> dict:
    """The alert's notification fields after one attempt at `notice`. `notified_at` and
    `reminded_at` mark when the notice first reached a channel (or found none taking it):
    the quiet period counts from there."""
    fields: dict[str, object] = {}
    reached_first = not before and (sent_to or not failed)
    if notice == Notice.OPENED and alert.notified_at is None and reached_first:
        fields["notified_at"] = now
    elif notice == Notice.REMINDER and reached_first:
        fields["reminded_at"] = now
    if failed:
        attempts = alert.notice_attempts + 1 if continuing else 1
        delay = min(RETRY_FIRST * 2 ** (attempts - 1), RETRY_MAX)
        return fields | {
            "notice_pending": notice,
            "notice_sent_to": sorted(sent_to),
            "notice_attempts": attempts,
            "notify_after": now + delay,
        }
    if notice == Notice.RESOLVED:
        fields["resolved_notified_at"] = now
    return fields | {
        "notice_pending": "",
        "notice_sent_to": [],
        "notice_attempts": 0,
        "notify_after": None,
    }


def _record_channel_outcome(target: Target, problem: str, now: datetime) -> None:
    if target.channel_id is None:
        return
    channels = AlertChannel.objects.filter(pk=target.channel_id)
    if problem:
        channels.update(last_error=problem[:ERROR_LIMIT], last_error_at=now)
    else:
        channels.update(last_sent_at=now, last_error="")


# --- Sending ----------------------------------------------------------------------------

# apprise's notification types (apprise.NotifyType values: the colour and icon of a notice).
NOTIFY_TYPES: dict[str, str] = {
    Alert.Severity.INFO: "info",
    Alert.Severity.WARNING: "warning",
    Alert.Severity.CRITICAL: "failure",
}


def alerts_page_url(alert: Alert | None = None) -> str:
    """Where a notice sends the reader: the tenant's alerts page (the admin for an alert
    that belongs to no tenant)."""
    base = settings.PUBLIC_BASE_URL.rstrip("/")
    if alert is not None and alert.tenant_id is None:
        return base + reverse("admin:cerniq_alert_change", args=[alert.pk])
    path = reverse("outreach:alerts")
    return f"{base}{path}#alert-{alert.pk}" if alert is not None else base + path


def send(target: Target, alert: Alert, notice: str) -> str:
    """Send one notice to one target: "" when it went out, else what went wrong."""
    title, body = alert_messages.compose(alert, notice, target.language, alerts_page_url(alert))
    notify_type = "success" if notice == Notice.RESOLVED else NOTIFY_TYPES[alert.severity]
    return send_text(target, title, body, notify_type)


def send_test(channel: AlertChannel) -> str:
    """A test notice through one channel ("send test notification"): "" when it went out,
    else what went wrong, in the reader's language. The channel's status shows the outcome
    too."""
    target = alert_channels.channel_target(channel)
    title, body = alert_messages.channel_check_message(channel, target.language, alerts_page_url())
    problem = send_text(target, title, body, "info")
    _record_channel_outcome(target, problem, timezone.now())
    shown = reasons.render(problem)
    if problem:
        log.warning("alert channel %s: test notice failed: %s", target.label, shown)
    return shown


def send_text(target: Target, title: str, body: str, notify_type: str) -> str:
    """Through apprise: "" when it went out, else the problem (a stored reason or text).

    A tenant's channel goes only to public addresses (net_guard, docs/alerts.md): its host
    is vetted first (refused: nothing is connected, and the answer is the same whatever
    listens there), and while apprise sends, every name it resolves is vetted and pinned.
    The deployment's own ALERT_URLS are its operator's choice and are not guarded.
    Apprise's own log lines stay inside this call (they can carry the URL in full:
    settings.LOGGING keeps the "apprise" logger to itself) and the failure reason comes
    back scrubbed of the URL's secrets."""
    try:
        url = alert_channels.resolve(target.url)
        if target.channel_id is None:
            plugin, hosts = alert_channels.service(url), None
        else:
            found = alert_channels.channel_service(url)
            plugin, hosts = found.plugin, [found.host] if found.host else []
    except ChannelURLError as problem:
        return str(problem)
    import apprise  # loaded already by alert_channels.service

    notifier = apprise.Apprise()
    notifier.add(plugin)
    try:
        with net_guard.guarded(*hosts) if hosts is not None else nullcontext() as guard:
            # Plain text: apprise escapes it for services that read HTML (Telegram), so a
            # "<" in an alert's message cannot break the notice.
            result = notifier.notify(
                body=body,
                title=title,
                notify_type=notify_type,
                body_format=apprise.NotifyFormat.TEXT,
            )
    except net_guard.DestinationRefused as refused:
        return refused.reason
    except Exception as exc:  # noqa: BLE001 - one channel's crash must not stop the others
        return _scrub(f"{type(exc).__name__}: {exc}", url)
    if guard is not None and guard.refused:
        return guard.refusal  # apprise's words ("connection error") would hide why
    if result:
        return ""
    said = [e.message for e in result.logs() if e.level in ("WARNING", "ERROR", "CRITICAL")]
    return _scrub(said[-1] if said else "the service refused the notification", url)


_URL_PARTS = re.compile(r"[^/:@?&=#+]+")


def _scrub(text: str, url: str) -> str:
    """`text` without any longer piece of `url` (tokens, passwords, secret paths; a host
    name with a dot stays, it says which service failed), masked like every log line."""
    parts = set(_URL_PARTS.findall(url.partition("://")[2]))
    for part in sorted(parts, key=len, reverse=True):
        if len(part) >= 6 and "." not in part:
            text = text.replace(part, "***")
    return mask_log_text(text)[:ERROR_LIMIT]
