"""What the broker holds, per Dramatiq queue: the numbers BullBoard gives the seeds.

Read straight from the broker in a fixed number of round trips, whatever the number of
queues. For each declared queue: messages ready to run, delayed ones (retries, planned
phone runs, work waiting for the window), in flight (fetched by a worker, not yet
acknowledged), failed (in Dramatiq's dead-letter queue, kept there 7 days), and how long
the message at the head of the ready queue has been waiting since it came due.

Dramatiq's RedisBroker keeps, under its namespace (dramatiq/brokers/redis/dispatch.lua):
`<ns>:<queue>` a list of ready message ids, `<ns>:<queue>.msgs` a hash of every message of
the queue not yet acknowledged (ready or fetched), the same two for `<queue>.DQ` (delayed:
a worker fetches those and holds them until their eta), and `<ns>:<queue>.XQ` a sorted set
of dead-lettered ids. The StubBroker (embedded mode, tests) keeps a `queue.Queue` per
queue and per delay queue, and its dead letters in a list per queue.

These are the broker's numbers for the whole platform: every tenant's work shares the
queues. What a tenant has waiting is in the database (outreach.backlog).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import dramatiq
from django.conf import settings
from django.utils.module_loading import autodiscover_modules
from dramatiq.brokers.redis import RedisBroker
from dramatiq.brokers.stub import StubBroker
from dramatiq.common import dq_name, xq_name


@dataclass(frozen=True)
class QueueStats:
    name: str
    ready: int
    delayed: int
    in_flight: int
    failed: int
    oldest_since: datetime | None  # when the head of the ready queue came due

    def oldest_wait(self, now: datetime) -> timedelta | None:
        """How long the head of the ready queue has been waiting."""
        return max(now - self.oldest_since, timedelta(0)) if self.oldest_since else None

    @property
    def total(self) -> int:
        return self.ready + self.delayed + self.in_flight


@dataclass(frozen=True)
class BrokerSnapshot:
    broker: str  # "redis", "stub", or the class name of a broker this cannot read
    queues: list[QueueStats]

    @property
    def readable(self) -> bool:
        return self.broker in ("redis", "stub")


def declared_queues(broker: dramatiq.Broker) -> list[str]:
    """Every queue an actor or a worker uses. The web process imports no actor module by
    itself, so each app's task modules are loaded first (as `rundramatiq` does)."""
    autodiscover_modules(*settings.DRAMATIQ_AUTODISCOVER_MODULES)
    return sorted(q for q in broker.get_declared_queues() if not q.endswith((".DQ", ".XQ")))


def snapshot(
    broker: dramatiq.Broker | None = None, queues: Iterable[str] | None = None
) -> BrokerSnapshot:
    """The numbers of `queues` (every declared queue by default) on `broker`."""
    broker = broker or dramatiq.get_broker()
    names = sorted(queues) if queues is not None else declared_queues(broker)
    if isinstance(broker, RedisBroker):
        return BrokerSnapshot("redis", _redis(broker, names))
    if isinstance(broker, StubBroker):
        return BrokerSnapshot("stub", [_stub(broker, name) for name in names])
    return BrokerSnapshot(type(broker).__name__, [])


def _waiting_since(data: bytes | str | None) -> datetime | None:
    """When an encoded message came due: its eta if it was delayed, else its creation."""
    if not data:
        return None
    message: dict[str, Any] = json.loads(data)
    millis = (message.get("options") or {}).get("eta") or message.get("message_timestamp")
    return datetime.fromtimestamp(millis / 1000, tz=UTC) if millis else None


def _redis(broker: RedisBroker, names: list[str]) -> list[QueueStats]:
    """Two pipelined round trips: the counts and head ids, then the heads' bodies."""
    ns = broker.namespace
    counts = broker.client.pipeline(transaction=False)
    for name in names:
        key = f"{ns}:{name}"
        counts.llen(key)
        counts.hlen(f"{key}.msgs")
        counts.hlen(f"{ns}:{dq_name(name)}.msgs")
        counts.zcard(f"{ns}:{xq_name(name)}")
        counts.lindex(key, 0)
    replies = counts.execute()
    rows = [replies[i : i + 5] for i in range(0, len(replies), 5)]
    heads = broker.client.pipeline(transaction=False)
    for name, (_ready, _unacked, _delayed, _failed, head) in zip(names, rows, strict=True):
        if head is not None:
            heads.hget(f"{ns}:{name}.msgs", head)
    bodies = iter(heads.execute())
    stats = []
    for name, (ready, unacked, delayed, failed, head) in zip(names, rows, strict=True):
        body = next(bodies) if head is not None else None
        stats.append(
            QueueStats(
                name=name,
                ready=ready,
                delayed=delayed,
                in_flight=max(unacked - ready, 0),
                failed=failed,
                oldest_since=_waiting_since(body),
            )
        )
    return stats


def _stub(broker: StubBroker, name: str) -> QueueStats:
    queue, delay_queue = broker.queues.get(name), broker.queues.get(dq_name(name))
    if queue is None or delay_queue is None:
        return QueueStats(name, 0, 0, 0, 0, None)
    with queue.mutex:  # taken, not yet acknowledged = unfinished but no longer queued
        ready, unfinished = len(queue.queue), queue.unfinished_tasks
        head = queue.queue[0] if queue.queue else None
    with delay_queue.mutex:
        delayed = delay_queue.unfinished_tasks  # waiting, or held by a worker until its eta
    dead = broker.dead_letters_by_queue  # a defaultdict: read without adding keys
    failed = len(dead.get(name, ())) + len(dead.get(dq_name(name), ()))
    in_flight = max(unfinished - ready, 0)
    return QueueStats(name, ready, delayed, in_flight, failed, _waiting_since(head))
