"""The broker's numbers per queue (cerniq.queues), read from the broker of the run: the
StubBroker by default, Dramatiq's RedisBroker when REDIS_URL is set (CI)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import dramatiq
import pytest
from django.conf import settings

from cerniq import queues
from outreach.tasks import send_message
from whatsapp.queues import all_phone_queues


@pytest.fixture
def broker():
    broker = dramatiq.get_broker()
    broker.flush_all()
    yield broker
    broker.flush_all()


def at(millis: int) -> datetime:
    return datetime.fromtimestamp(millis / 1000, tz=UTC)


def counts(broker, name: str) -> tuple[int, int, int, int]:
    (stats,) = queues.snapshot(broker, [name]).queues
    return stats.ready, stats.delayed, stats.in_flight, stats.failed


def test_ready_delayed_in_flight_and_failed_messages_are_counted(broker):
    """Counted as changes: earlier tests' stopped workers may have left the process's
    StubBroker with messages taken and never acknowledged (flushing does not reset those)."""
    before = {name: counts(broker, name) for name in ("email.warm", "email.cold")}
    enqueued = [
        broker.enqueue(send_message.message(pk).copy(queue_name="email.warm")) for pk in (1, 2, 3)
    ]
    for pk, delay in ((4, 60_000), (5, 3_600_000)):  # a retry's back-off, a planned run
        broker.enqueue(send_message.message(pk).copy(queue_name="email.warm"), delay=delay)
    consumer = broker.consume("email.warm", prefetch=2, timeout=1000)
    working = next(consumer)  # a worker took it and runs it
    gave_up = next(consumer)
    consumer.nack(gave_up)  # its retries spent: Dramatiq's dead-letter queue

    snapshot = queues.snapshot(broker, ["email.warm", "email.cold"])
    assert snapshot.broker == ("redis" if settings.REDIS_URL else "stub")
    warm, cold = sorted(snapshot.queues, key=lambda q: q.name != "email.warm")
    after = counts(broker, "email.warm")
    change = [now - then for now, then in zip(after, before["email.warm"], strict=True)]
    assert change == [1, 2, 1, 1]  # ready, delayed, in flight, failed
    assert warm.oldest_since == at(enqueued[2].message_timestamp)  # the head: message 3
    assert counts(broker, "email.cold") == before["email.cold"]
    assert cold.oldest_since is None

    consumer.ack(working)
    ready, _, in_flight, _ = counts(broker, "email.warm")
    assert (ready, in_flight) == (before["email.warm"][0] + 1, before["email.warm"][2])
    consumer.close()


def test_a_delayed_message_waits_from_when_it_came_due(broker):
    """A worker moves a delayed message to its queue at its eta, keeping its creation time:
    its wait counts from the eta."""
    eta = int((datetime.now(tz=UTC) - timedelta(seconds=30)).timestamp() * 1000)
    message = send_message.message(7).copy(queue_name="email.cold", options={"eta": eta})
    broker.enqueue(message)
    (cold,) = queues.snapshot(broker, ["email.cold"]).queues
    assert cold.ready == 1 and cold.oldest_since == at(eta)
    now = at(eta) + timedelta(seconds=30)
    assert cold.oldest_wait(now) == timedelta(seconds=30)


def test_every_queue_the_workers_consume_is_listed(broker):
    names = queues.declared_queues(broker)
    for name in ("default", "webhooks", "email.cold", "email.warm", *all_phone_queues()):
        assert name in names
    assert not [n for n in names if n.endswith((".DQ", ".XQ"))]
    before = {q.name: q.total for q in queues.snapshot(broker).queues}
    broker.enqueue(send_message.message(8).copy(queue_name="wa.phone_02"))
    snapshot = queues.snapshot(broker)
    assert [q.name for q in snapshot.queues] == names
    changed = {
        q.name: q.total - before[q.name] for q in snapshot.queues if q.total != before[q.name]
    }
    assert changed == {"wa.phone_02": 1}
