"""Dramatiq per queue and actor: enqueued, processed, failed, retried, dead, in flight,
run time and wait (from due to started). Registered in settings.DRAMATIQ_MIDDLEWARE.

Dramatiq ships `dramatiq.middleware.prometheus`, which serves its own HTTP port; these
metrics go out through our `/metrics` instead, with the rest.

A delayed message (`send_with_options(delay=...)`, a retry's back-off) is enqueued twice
by Dramatiq: onto the delay queue, then, when due, by the worker holding it onto its queue.
The second is a move, not new work, and is not counted; it stamps the time the message
became due, which the wait is measured from.
"""

from __future__ import annotations

import os
import threading
import time
from typing import Any

import dramatiq
from dramatiq.common import current_millis, q_name
from prometheus_client import Counter, Gauge, Histogram

from cerniq.metrics.directory import mark_process_dead

LABELS = ["queue", "actor"]
ENQUEUED = Counter(
    "cerniq_dramatiq_messages_enqueued_total", "Messages sent to a queue (retries apart).", LABELS
)
PROCESSED = Counter(
    "cerniq_dramatiq_messages_processed_total", "Actor runs that finished without raising.", LABELS
)
FAILED = Counter("cerniq_dramatiq_messages_failed_total", "Actor runs that raised.", LABELS)
RETRIED = Counter(
    "cerniq_dramatiq_messages_retried_total", "Failed messages enqueued again to retry.", LABELS
)
DEAD = Counter(
    "cerniq_dramatiq_messages_dead_total",
    "Messages given up on (retries spent): Dramatiq's dead-letter queue.",
    LABELS,
)
IN_FLIGHT = Gauge(
    "cerniq_dramatiq_messages_in_flight",
    "Messages being processed now.",
    LABELS,
    multiprocess_mode="livesum",
)
DURATION = Histogram(
    "cerniq_dramatiq_message_duration_seconds",
    "Time an actor run took.",
    LABELS,
    buckets=(0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 150.0, 600.0),
)
WAIT = Histogram(
    "cerniq_dramatiq_message_wait_seconds",
    "Time from a message being due (enqueued, or its delay over) to a worker starting it.",
    ["queue"],
    buckets=(0.01, 0.05, 0.1, 0.5, 1.0, 5.0, 15.0, 30.0, 60.0, 300.0, 900.0, 3600.0),
)

DUE_AT = "cerniq_due_at"  # message option: when the message joined its queue (ms)


def _labels(message: Any) -> tuple[str, str]:
    return q_name(message.queue_name), message.actor_name


class QueueMetrics(dramatiq.Middleware):
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._delayed: set[str] = set()  # held by this process until due
        self._started: dict[str, float] = {}  # message id -> perf_counter at start
        self._worker_process = False

    def before_enqueue(self, broker: dramatiq.Broker, message: Any, delay: int | None) -> None:
        if delay is None:
            message.options[DUE_AT] = current_millis()

    def after_enqueue(self, broker: dramatiq.Broker, message: Any, delay: int | None) -> None:
        with self._lock:
            if delay is None and message.message_id in self._delayed:
                self._delayed.discard(message.message_id)
                return  # due now: moved from the delay queue, counted when it was sent
        counter = RETRIED if "retries" in message.options else ENQUEUED
        counter.labels(*_labels(message)).inc()

    def before_delay_message(self, broker: dramatiq.Broker, message: Any) -> None:
        with self._lock:
            self._delayed.add(message.message_id)

    def before_process_message(self, broker: dramatiq.Broker, message: Any) -> None:
        queue, actor = _labels(message)
        with self._lock:
            self._started[message.message_id] = time.perf_counter()
        IN_FLIGHT.labels(queue, actor).inc()
        due = message.options.get(DUE_AT) or message.message_timestamp
        WAIT.labels(queue).observe(max(0, current_millis() - due) / 1000)

    def after_process_message(
        self, broker: dramatiq.Broker, message: Any, *, result: Any = None, exception: Any = None
    ) -> None:
        started = self._finish(message)
        if started is None:
            return
        labels = _labels(message)
        DURATION.labels(*labels).observe(time.perf_counter() - started)
        (FAILED if exception is not None else PROCESSED).labels(*labels).inc()

    def after_skip_message(self, broker: dramatiq.Broker, message: Any) -> None:
        self._finish(message)

    def after_nack(self, broker: dramatiq.Broker, message: Any) -> None:
        DEAD.labels(*_labels(message)).inc()

    def _finish(self, message: Any) -> float | None:
        with self._lock:
            started = self._started.pop(message.message_id, None)
        if started is not None:
            IN_FLIGHT.labels(*_labels(message)).dec()
        return started

    def after_process_boot(self, broker: dramatiq.Broker) -> None:
        self._worker_process = True  # a `rundramatiq` process, not the embedded worker

    def after_worker_shutdown(self, broker: dramatiq.Broker, worker: dramatiq.Worker) -> None:
        if self._worker_process:  # the process ends now: its in-flight gauge goes with it
            mark_process_dead(os.getpid())
