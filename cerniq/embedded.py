"""Embedded runtime: a Dramatiq worker and the scheduler inside the web process.

Used by `manage.py run` on a machine with no Redis (StubBroker); the same actors and
jobs run as they would on separate worker and scheduler processes in production.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

import dramatiq
from apscheduler.schedulers.background import BackgroundScheduler
from django.conf import settings

from cerniq.scheduler import add_jobs

log = logging.getLogger(__name__)


@dataclass
class EmbeddedRuntime:
    worker_threads: int = 4
    with_scheduler: bool = True
    worker: dramatiq.Worker | None = field(default=None, init=False)
    scheduler: BackgroundScheduler | None = field(default=None, init=False)

    def start(self) -> None:
        broker = dramatiq.get_broker()
        self.worker = dramatiq.Worker(broker, worker_threads=self.worker_threads)
        self.worker.start()
        if self.with_scheduler:
            self.scheduler = BackgroundScheduler(timezone=settings.TIME_ZONE)
            add_jobs(self.scheduler)
            self.scheduler.start()
        log.info(
            "embedded runtime: %s with %d worker threads, scheduler %s",
            type(broker).__name__,
            self.worker_threads,
            "on" if self.scheduler else "off",
        )

    def stop(self) -> None:
        if self.scheduler is not None:
            self.scheduler.shutdown(wait=False)
            self.scheduler = None
        if self.worker is not None:
            stop_worker(self.worker)
            self.worker = None


def stop_worker(worker: dramatiq.Worker) -> None:
    """Stop a worker and detach it from the broker.

    Dramatiq leaves a stopped worker's middleware on the broker, and that middleware adds
    consumers to the dead worker whenever a queue is declared later, which then take
    messages nobody processes. Detaching it keeps later workers in this process honest.
    """
    worker.stop()
    worker.broker.middleware[:] = [
        m for m in worker.broker.middleware if getattr(m, "worker", None) is not worker
    ]
