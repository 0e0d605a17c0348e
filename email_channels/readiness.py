"""Whether each of our email senders is ready to send, as its provider reports it (issue #22
§6), and the rule that one not ready is not used.

Each email integration may declare a `sender_readiness` function (cerniq.integrations)
returning a `SenderState` per sender it knows: Resend its sending domain (verified, sending
enabled, every DNS record verified), Instantly each account (active, set up, warm-up not
banned or suspended, warm-up score at least MIN_WARMUP_SCORE). `check_all`, every 30
minutes (`check-senders`), stores them (`SenderCheck`) and raises a platform alert when a
sender stops being ready, resolved when it is again. Our warm email waits while its
domain is not ready (outreach.transports); a new Instantly campaign leaves out the accounts
that are not (integrations.instantly.campaign_sync). A sender never checked is used.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from importlib import import_module
from typing import Any

from django.utils import timezone

from cerniq import integrations, reasons
from cerniq.alerts import raise_alert, resolve_alerts
from cerniq.models import Alert
from cerniq.provider_errors import ProviderError
from email_channels import reasons as codes
from email_channels.models import SenderCheck

log = logging.getLogger(__name__)

MIN_WARMUP_SCORE = 70  # Instantly's warm-up score (0-100): under it, mail goes to spam


@dataclass(frozen=True)
class SenderState:
    sender: str  # a sending domain or a mailbox, lowercased
    problems: list[str] = field(default_factory=list)  # stored reason codes; none: ready
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def ready(self) -> bool:
        return not self.problems


def _subject(provider: str, sender: str) -> str:
    return f"sender-ready:{provider}:{sender}"


def record(provider: str, states: Iterable[SenderState], now: datetime | None = None) -> int:
    """Store what the provider said; alert on a sender that stopped being ready, resolve
    when it is again. Senders it no longer reports are forgotten. Rows changed."""
    now = now or timezone.now()
    states = list(states)
    known = {c.sender: c for c in SenderCheck.objects.filter(provider=provider)}
    integration = integrations.get(provider)
    label = integration.label if integration is not None else provider
    changed = 0
    for state in states:
        reason = (
            reasons.code(
                codes.SENDER_NOT_READY, provider=label, sender=state.sender, why=state.problems
            )
            if state.problems
            else ""
        )
        before = known.get(state.sender)
        flipped = before is None or before.ready != state.ready
        values = {
            "ready": state.ready,
            "reason": reason[:1000],
            "details": state.details,
            "checked_at": now,
            **({"changed_at": now} if flipped else {}),
        }
        SenderCheck.objects.update_or_create(
            provider=provider, sender=state.sender, defaults=values
        )
        changed += flipped
        subject = _subject(provider, state.sender)
        if state.ready:
            resolve_alerts(None, Alert.Kind.SENDER_ACCOUNT, subject)
        else:
            raise_alert(None, Alert.Kind.SENDER_ACCOUNT, subject, reason)
    gone = set(known) - {s.sender for s in states}
    SenderCheck.objects.filter(provider=provider, sender__in=gone).delete()
    for sender in gone:
        resolve_alerts(None, Alert.Kind.SENDER_ACCOUNT, _subject(provider, sender))
    return changed


def check_all() -> dict[str, int]:
    """Ask every integration that reports sender readiness; senders recorded, by provider.
    A provider that cannot be reached keeps its last answer (logged)."""
    done = {}
    for key, integration in integrations.registry().items():
        path = getattr(integration, "sender_readiness", "")
        if not path:
            continue
        module, _, name = path.rpartition(".")
        try:
            states = getattr(import_module(module), name)()
        except ProviderError as error:
            log.warning("sender readiness of %s not checked: %s", key, error)
            continue
        record(key, states)
        done[key] = len(states)
    return done


def not_ready(provider: str, senders: Iterable[str]) -> dict[str, SenderCheck]:
    """Of these senders (domains or mailboxes), those the provider last said are not ready."""
    wanted = [s.strip().lower() for s in senders if s]
    rows = SenderCheck.objects.filter(provider=provider, sender__in=wanted, ready=False)
    return {row.sender: row for row in rows}
