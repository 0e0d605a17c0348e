"""Run real Dramatiq workers (StubBroker here, Redis in CI) until a condition holds."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import dramatiq
from django.db import connection

from cerniq.embedded import stop_worker


@contextmanager
def running_workers(count: int = 1, threads: int = 4) -> Iterator[list[dramatiq.Worker]]:
    broker = dramatiq.get_broker()
    if connection.vendor == "sqlite":
        threads = 1  # SQLite's shared in-memory test database serialises writers anyway
    workers = [dramatiq.Worker(broker, worker_threads=threads) for _ in range(count)]
    for worker in workers:
        worker.start()
    try:
        yield workers
    finally:
        for worker in workers:
            stop_worker(worker)
        broker.flush_all()  # leave nothing behind for the next test


def wait_until(condition: Callable[[], bool], timeout: float = 60.0, what: object = "") -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.05)
    detail = what() if callable(what) else what
    raise AssertionError(f"timed out after {timeout}s waiting for {detail or condition}")


def run_triage() -> list[str]:
    """What the `ai.triage` workers do, in this thread: triage and route every reply still
    being analysed (hitl.triage_jobs.run), oldest first. For tests that keep everything in
    the test's transaction, where the hand-over on commit never fires; tests that run real
    workers (`running_workers`) drain the broker itself. Returns the decisions."""
    from hitl import triage_jobs
    from hitl.models import ReplyTriage

    pending = ReplyTriage.objects.filter(state=ReplyTriage.State.PENDING).order_by("pk")
    return [triage_jobs.run(pk) for pk in pending.values_list("pk", flat=True)]
