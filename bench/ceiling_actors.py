"""Bench-only actors and middleware for bench/send_pipeline.py; imported by the bench's
worker processes next to the app's task modules, never by the app.

`noop` costs only the broker and the worker (fetch, decode, middleware, ack); `insert_one`
adds one INSERT through Django's connection, like the smallest real actor would: their
rates are the ceiling the send pipeline is held against.

With BENCH_STAMPS_DIR set (the bench sets it for its workers only), every worker process
counts the messages each actor processed, when the first and the last finished, and how
long they waited in the queue and ran, and its own CPU time from the first message to the
last (a dict update per message, no I/O); it also counts, from the log records themselves
(not their text, whatever the log format), each `outreach.tasks` phone run's outcome and
every record at ERROR or above. It writes that to BENCH_STAMPS_DIR/<pid>.json when it
stops.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from pathlib import Path
from typing import Any

import dramatiq
from django.db import connection

QUEUE = "bench.ceiling"
TABLE = "bench_ceiling"  # created and emptied by bench/send_pipeline.py


@dramatiq.actor(queue_name=QUEUE, max_retries=0)
def noop(n: int) -> None:
    """Nothing at all."""


@dramatiq.actor(queue_name=QUEUE, max_retries=0)
def insert_one(n: int) -> None:
    """One row."""
    with connection.cursor() as cursor:
        cursor.execute(f"INSERT INTO {TABLE} (n) VALUES (%s)", [n])  # noqa: S608 - a constant


from bench.harness import RUN_OUTCOME  # noqa: E402 - "phone %s: %s", run_phone's outcome


class RecordCounter(logging.Handler):
    """Counts phone-run outcomes and error records as they are logged, before any format."""

    def __init__(self) -> None:
        super().__init__(level=logging.INFO)
        self.outcomes: dict[str, int] = {}
        self.errors: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        try:
            message = record.getMessage()
        except Exception:  # a record with wrong arguments still counts as itself
            message = str(record.msg)
        if record.levelno >= logging.ERROR:
            self.errors.append(f"{record.name}: {message}"[:300])
        elif record.name == "outreach.tasks":
            match = RUN_OUTCOME.match(message)
            if match:
                self.outcomes[match[2]] = self.outcomes.get(match[2], 0) + 1


class Stamps(dramatiq.Middleware):
    """Per actor: messages processed (and failed), the first and the last end of
    processing (epoch seconds), and the summed wait in the queue (enqueued -> started)
    and processing time (started -> ended)."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.lock = threading.Lock()
        self.local = threading.local()
        # Messages queued before the workers were launched count as waiting from then.
        self.launched = float(os.environ.get("BENCH_LAUNCHED_AT") or 0)
        self.seen: dict[str, dict[str, float]] = {}
        # This process's CPU time (all threads) when the first message started and the
        # last ended: the CPU of processing, without starting and stopping the worker.
        self.cpu: list[float | None] = [None, None]
        self.records = RecordCounter()
        logging.getLogger().addHandler(self.records)

    def before_process_message(self, broker: dramatiq.Broker, message: Any) -> None:
        self.local.started = time.time()
        if self.cpu[0] is None:
            with self.lock:
                if self.cpu[0] is None:
                    self.cpu[0] = time.process_time()

    def after_process_message(
        self, broker: dramatiq.Broker, message: Any, *, result: Any = None, exception: Any = None
    ) -> None:
        now = time.time()
        started = getattr(self.local, "started", now)
        # A delayed message counts from when it was due, not from when it was enqueued.
        due = max((message.options.get("eta") or message.message_timestamp) / 1000, self.launched)
        with self.lock:
            entry = self.seen.setdefault(
                message.actor_name,
                {"count": 0, "failed": 0, "first": now, "last": now, "waited": 0.0, "ran": 0.0},
            )
            entry["count"] += 1
            entry["failed"] += exception is not None
            entry["last"] = now
            entry["waited"] += max(0.0, started - due)
            entry["ran"] += now - started
            self.cpu[1] = time.process_time()

    def after_worker_shutdown(self, broker: dramatiq.Broker, worker: Any) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        with self.lock:
            stamps = json.dumps(
                {
                    "actors": self.seen,
                    "cpu": self.cpu,
                    "outcomes": self.records.outcomes,
                    "errors": self.records.errors,
                }
            )
        (self.directory / f"{os.getpid()}.json").write_text(stamps)


if os.environ.get("BENCH_STAMPS_DIR"):
    dramatiq.get_broker().add_middleware(Stamps(Path(os.environ["BENCH_STAMPS_DIR"])))
