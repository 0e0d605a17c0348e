"""Heartbeats: proof that the scheduler runs and that a worker consumes every queue group.

Every minute the scheduler's `beat` job writes its own heartbeat and sends the
`record_heartbeat` actor onto every declared queue; a worker consuming that queue records
when it ran it. A queue group is the queue name's first part (`wa.phone_07` and `wa.status`
are group `wa`; `email.cold` and `email.warm` group `email`; `default`, `webhooks`,
`outreach`): a deployment runs one worker per group or one for all, and a group is alive
only when every one of its queues has beaten within HEALTH_WORKER_STALE_SECONDS. The
queues are the ones the actors declare (every app's `tasks` module is imported first), so
a new queue is watched without being listed anywhere.

The beats live in the cache (Redis in production; in embedded mode the process's memory,
shared by its web, worker and scheduler threads). `/health/ready` reads them
(cerniq.health), so does `/metrics`, and `watch_workers` (the scheduler, every minute)
raises the WORKER_DOWN alert for a group that went quiet and resolves it when it beats
again.
"""

from __future__ import annotations

import functools
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime

import dramatiq
from django.conf import settings
from django.core.cache import cache
from django.utils import timezone
from django.utils.module_loading import autodiscover_modules
from dramatiq.common import q_name

from cerniq import platform_reasons, reasons
from cerniq.alerts import raise_alert, resolve_alerts
from cerniq.models import Alert

SCHEDULER_KEY = "cerniq:heartbeat:scheduler"
QUEUE_KEY = "cerniq:heartbeat:queue:{queue}"

OK, STALE, MISSING = "ok", "stale", "missing"

_scheduler_since: datetime | None = None  # this process's first beat (a running scheduler)


def group_of(queue: str) -> str:
    return queue.split(".", 1)[0]


@functools.cache
def _declare_every_actor() -> None:
    autodiscover_modules(*settings.DRAMATIQ_AUTODISCOVER_MODULES)


def queue_groups() -> dict[str, list[str]]:
    """Group name → its queues, from every queue the actors declare."""
    _declare_every_actor()
    groups: dict[str, list[str]] = defaultdict(list)
    for queue in sorted({q_name(q) for q in dramatiq.get_broker().get_declared_queues()}):
        groups[group_of(queue)].append(queue)
    return dict(sorted(groups.items()))


def beat(now: datetime | None = None) -> int:
    """The scheduler's heartbeat, and a worker heartbeat sent onto every queue. Returns how
    many were sent. A beat still queued after the stale threshold is dropped (AgeLimit):
    by then it proves nothing."""
    global _scheduler_since
    from cerniq.tasks import record_heartbeat

    now = now or timezone.now()
    _scheduler_since = _scheduler_since or now
    cache.set(SCHEDULER_KEY, {"at": now, "since": _scheduler_since}, timeout=None)
    max_age = settings.HEALTH_WORKER_STALE_SECONDS * 1000
    queues = [queue for queues in queue_groups().values() for queue in queues]
    for queue in queues:
        message = record_heartbeat.message_with_options(args=(queue,), max_age=max_age)
        record_heartbeat.broker.enqueue(message.copy(queue_name=queue))
    return len(queues)


def record(queue: str) -> None:
    """A worker ran the heartbeat sent onto `queue` (cerniq.tasks.record_heartbeat)."""
    cache.set(QUEUE_KEY.format(queue=queue), timezone.now(), timeout=None)


@dataclass(frozen=True)
class GroupBeat:
    """A queue group's heartbeat: its oldest queue's age, and the queues that fail it."""

    group: str
    state: str  # ok | stale | missing
    age_seconds: float | None  # of the oldest beat among the group's queues
    queues: list[str]
    missing: list[str] = field(default_factory=list)
    stale: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, object]:
        found: dict[str, object] = {"status": self.state, "queues": len(self.queues)}
        if self.age_seconds is not None:
            found["age_seconds"] = round(self.age_seconds, 1)
        found["threshold_seconds"] = settings.HEALTH_WORKER_STALE_SECONDS
        if self.missing:
            found["missing_queues"] = self.missing
        if self.stale:
            found["stale_queues"] = self.stale
        return found


def worker_beats(now: datetime | None = None) -> list[GroupBeat]:
    """Each queue group's heartbeat (one cache round trip)."""
    now = now or timezone.now()
    threshold = settings.HEALTH_WORKER_STALE_SECONDS
    groups = queue_groups()
    keys = {queue: QUEUE_KEY.format(queue=queue) for queues in groups.values() for queue in queues}
    found = cache.get_many(list(keys.values()))
    beats = []
    for group, queues in groups.items():
        ages = {q: (now - found[keys[q]]).total_seconds() for q in queues if keys[q] in found}
        missing = [q for q in queues if q not in ages]
        stale = [q for q, age in ages.items() if age > threshold]
        state = MISSING if missing else STALE if stale else OK
        oldest = max(ages.values()) if ages else None
        beats.append(GroupBeat(group, state, oldest, queues, missing, stale))
    return beats


@dataclass(frozen=True)
class SchedulerBeat:
    state: str
    age_seconds: float | None
    running_seconds: float | None  # since the scheduler process's first beat

    def as_dict(self) -> dict[str, object]:
        found: dict[str, object] = {"status": self.state}
        if self.age_seconds is not None:
            found["age_seconds"] = round(self.age_seconds, 1)
        found["threshold_seconds"] = settings.HEALTH_SCHEDULER_STALE_SECONDS
        return found


def scheduler_beat(now: datetime | None = None) -> SchedulerBeat:
    now = now or timezone.now()
    found = cache.get(SCHEDULER_KEY)
    if not found:
        return SchedulerBeat(MISSING, None, None)
    age = (now - found["at"]).total_seconds()
    state = STALE if age > settings.HEALTH_SCHEDULER_STALE_SECONDS else OK
    return SchedulerBeat(state, age, (now - found["since"]).total_seconds())


def watch_workers(now: datetime | None = None) -> dict[str, str]:
    """Raise WORKER_DOWN (critical, platform-wide) for every queue group whose heartbeat is
    stale, or missing once the scheduler has been beating for longer than the threshold
    (right after a start nothing has beaten yet); resolve it for every group that beats.
    Returns group → state."""
    now = now or timezone.now()
    scheduler = scheduler_beat(now)
    started_long_ago = (scheduler.running_seconds or 0) > settings.HEALTH_WORKER_STALE_SECONDS
    states = {}
    for beat_ in worker_beats(now):
        states[beat_.group] = beat_.state
        subject = f"queue-group:{beat_.group}"
        if beat_.state == OK:
            resolve_alerts(None, Alert.Kind.WORKER_DOWN, subject)
        elif beat_.state == STALE or started_long_ago:
            quiet = beat_.missing + beat_.stale
            raise_alert(
                None,
                Alert.Kind.WORKER_DOWN,
                subject,
                reasons.code(
                    platform_reasons.WORKER_DOWN,
                    group=beat_.group,
                    seconds=settings.HEALTH_WORKER_STALE_SECONDS,
                    queues=", ".join(quiet[:10])
                    + (f" (+{len(quiet) - 10})" if len(quiet) > 10 else ""),
                ),
                severity=Alert.Severity.CRITICAL,
            )
    return states
