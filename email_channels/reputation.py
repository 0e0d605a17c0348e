"""The reputation guard of our own email senders (issue #22 §6): a complaint rate and a
bounce rate per sending address and per sending domain, over a rolling window.

Gmail enforces at a 0.3 % spam-complaint rate and asks bulk senders to stay under 0.1 %;
Yahoo and Microsoft judge alike. So a sender pauses at a rolling complaint rate over
COMPLAINT_LIMIT_PERCENT (0.08 %, under Google's ask), over WINDOW_DAYS. A minimum sample:
the rate is judged from COMPLAINT_MIN_SENT sends and COMPLAINT_MIN_COUNT complaints (one
complaint in 1,000 sends is 0.1 % but says little). The bounce watch uses the bounce
shield's rule (email_channels.shield: 3 % from 100 sends) on the same window, for senders
the shield does not already watch (Resend's warm email; Instantly's campaigns have it).

A pause stops the automated email from that address (or every address of that domain):
its messages wait (the send path defers them) until a person lifts the pause with a reason;
a critical alert says why. The counters are `SenderDay` rows; the pauses `SenderPause`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timedelta
from decimal import Decimal

from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.db.models import F, Q, Sum
from django.utils import timezone

from cerniq import reasons
from cerniq.alerts import raise_alert, resolve_alerts
from cerniq.models import Alert, Tenant
from email_channels import reasons as codes
from email_channels.addresses import domain_of
from email_channels.models import SenderDay, SenderPause
from email_channels.shield import bounce_verdict

WINDOW_DAYS = 30
COMPLAINT_LIMIT_PERCENT = Decimal("0.08")
COMPLAINT_MIN_SENT = 1000
COMPLAINT_MIN_COUNT = 2
BOUNCE_LIMIT_PERCENT = Decimal("3")
Scope = SenderPause.Scope


def count(
    tenant_id: int,
    provider: str,
    address: str,
    day: date,
    *,
    sent: int = 0,
    bounced: int = 0,
    complained: int = 0,
) -> None:
    """Add to the address's day (created when missing)."""
    address = address.strip().lower()
    if not address or "@" not in address:
        return
    key = {"tenant_id": tenant_id, "provider": provider, "address": address, "day": day}
    added = {"sent": F("sent") + sent, "bounced": F("bounced") + bounced}
    added["complained"] = F("complained") + complained
    if SenderDay.objects.filter(**key).update(**added):
        return
    try:
        with transaction.atomic():
            SenderDay.objects.create(
                **key, domain=domain_of(address), sent=sent, bounced=bounced, complained=complained
            )
    except IntegrityError:  # a concurrent first count of the day won
        SenderDay.objects.filter(**key).update(**added)


@dataclass(frozen=True)
class Figures:
    sent: int
    bounced: int
    complained: int

    @property
    def complaint_percent(self) -> Decimal:
        if not self.sent:
            return Decimal(0)
        return (Decimal(self.complained) * 100 / Decimal(self.sent)).quantize(Decimal("0.001"))


def figures(tenant_id: int, provider: str, scope: str, value: str, today: date) -> Figures:
    """The window's sums for an address or a domain."""
    rows = SenderDay.objects.filter(
        tenant_id=tenant_id, provider=provider, day__gt=today - timedelta(days=WINDOW_DAYS)
    ).filter(**{scope: value})
    sums = rows.aggregate(s=Sum("sent"), b=Sum("bounced"), c=Sum("complained"))
    return Figures(sums["s"] or 0, sums["b"] or 0, sums["c"] or 0)


def breach(found: Figures, *, watch_bounces: bool) -> str:
    """Why these figures stop a sender (a stored reason code), or ""."""
    if (
        found.sent >= COMPLAINT_MIN_SENT
        and found.complained >= COMPLAINT_MIN_COUNT
        and found.complaint_percent > COMPLAINT_LIMIT_PERCENT
    ):
        return reasons.code(
            codes.SENDER_COMPLAINTS,
            rate=str(found.complaint_percent),
            complained=found.complained,
            sent=found.sent,
            limit=str(COMPLAINT_LIMIT_PERCENT),
            days=WINDOW_DAYS,
        )
    verdict = bounce_verdict(found.sent, found.bounced, BOUNCE_LIMIT_PERCENT)
    if watch_bounces and verdict.breached:
        return reasons.code(
            codes.SENDER_BOUNCES,
            rate=str(verdict.rate_percent),
            bounced=found.bounced,
            sent=found.sent,
            limit=str(BOUNCE_LIMIT_PERCENT),
            days=WINDOW_DAYS,
        )
    return ""


def guard(
    tenant: Tenant, provider: str, address: str, *, watch_bounces: bool, now: datetime | None = None
) -> list[SenderPause]:
    """Judge the address and its domain after a bounce or a complaint; pause what is over
    its limit (one open pause each, one critical alert). The pauses made now."""
    now = now or timezone.now()
    today = timezone.localdate(now)
    address = address.strip().lower()
    made = []
    for scope, value in ((Scope.ADDRESS, address), (Scope.DOMAIN, domain_of(address))):
        why = breach(figures(tenant.pk, provider, scope, value, today), watch_bounces=watch_bounces)
        if why and (pause := _pause(tenant, provider, scope, value, why)) is not None:
            made.append(pause)
    return made


def _pause(tenant: Tenant, provider: str, scope: str, value: str, why: str) -> SenderPause | None:
    try:
        with transaction.atomic():
            pause = SenderPause.objects.create(
                tenant=tenant, provider=provider, scope=scope, value=value, reason=why
            )
    except IntegrityError:  # paused already
        return None
    raise_alert(
        tenant,
        Alert.Kind.BOUNCE_RATE,
        _subject(provider, value),
        reasons.code(codes.ALERT_SENDER_PAUSED, sender=value, provider=provider, why=why),
        severity=Alert.Severity.CRITICAL,
    )
    return pause


def _subject(provider: str, value: str) -> str:
    return f"sender:{provider}:{value}"


def pause_of(tenant_id: int, provider: str, address: str) -> SenderPause | None:
    """The open pause stopping this address (its own, or its domain's), if any."""
    address = address.strip().lower()
    return (
        SenderPause.objects.filter(tenant_id=tenant_id, provider=provider, lifted_at__isnull=True)
        .filter(
            Q(scope=Scope.ADDRESS, value=address) | Q(scope=Scope.DOMAIN, value=domain_of(address))
        )
        .first()
    )


class LiftRefused(ValueError):
    """The pause cannot be lifted as asked; the text says why."""


LIFT_REASON_MIN = 15


def lift(pause: SenderPause, *, by: User, reason: str) -> None:
    """A person lifts a pause (the cause fixed: a list cleaned, a form's wording changed),
    saying why; the alert is resolved and the waiting messages go at their next try."""
    reason = " ".join((reason or "").split())
    if len(reason) < LIFT_REASON_MIN:
        raise LiftRefused(
            f"Say why the sender may send again (at least {LIFT_REASON_MIN} characters)."
        )
    SenderPause.objects.filter(pk=pause.pk, lifted_at__isnull=True).update(
        lifted_at=timezone.now(), lifted_by=by, lift_reason=reason
    )
    resolve_alerts(pause.tenant, Alert.Kind.BOUNCE_RATE, _subject(pause.provider, pause.value))
