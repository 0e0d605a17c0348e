"""Hand stored webhook events to the workers in batches, off the request path.

The intake's answer waits only for its INSERT: the event is then stored, and whether it
reaches the broker now or a minute later changes when it is processed, never whether. So the
request thread only puts the event's id on an in-process queue, and one thread per process
sends what has gathered in a short window as one message (`process_webhook_events`). A
broker round trip per delivery cost about a quarter of the intake's CPU (bench/webhooks.py);
one per batch costs a fraction of that, and a slow or absent Redis never delays an answer.

What is not sent (the process killed between the INSERT and the send, Redis down) stays
RECEIVED and is sent again by `cerniq.webhooks.requeue_stale_events` (every minute, after
a 2-minute grace), exactly as a message lost in the broker is. Processing claims each row,
so an event sent twice is processed once. At a clean exit the thread's queue is flushed.

`settings.WEBHOOK_RELAY_WAIT` (seconds) is the window; 0 sends each event at once from the
caller's thread (the tests' default, so a test sees its message when its transaction
commits).
"""

from __future__ import annotations

import atexit
import logging
import os
import threading
from collections.abc import Callable

from django.conf import settings

log = logging.getLogger(__name__)

MAX_BATCH = 50  # events per message: a batch runs in one worker thread, one after another


def _send_batch(event_ids: list[int]) -> None:
    from cerniq.tasks import process_webhook_event, process_webhook_events

    if len(event_ids) == 1:
        process_webhook_event.send(event_ids[0])
    else:
        process_webhook_events.send(event_ids)


class Relay:
    """Gathers ids for `wait()` seconds and hands them to `send` in batches of at most
    MAX_BATCH. One sending thread per process, started on first use and again after a fork
    (gunicorn and Dramatiq fork their workers; a thread does not survive a fork).

    A submit only appends to a list under an uncontended lock and wakes the thread when the
    list was empty: one wake-up per batch, not per event (a queue that wakes its reader on
    every put cost more CPU than the broker call it saved)."""

    def __init__(self, send: Callable[[list[int]], None] = _send_batch) -> None:
        self.send = send
        self._lock = threading.Lock()
        self._pid: int | None = None
        self._pending: list[int] = []
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    @staticmethod
    def wait() -> float:
        return float(getattr(settings, "WEBHOOK_RELAY_WAIT", 0) or 0)

    def submit(self, event_id: int) -> None:
        """Send `event_id` to the workers soon. Never raises: the row is stored already."""
        if self.wait() <= 0:
            self._deliver([event_id])
            return
        if self._pid != os.getpid():
            self._start()
        with self._lock:
            self._pending.append(event_id)
            first = len(self._pending) == 1
        if first:
            self._wake.set()

    def flush(self, timeout: float = 5.0) -> None:
        """Send what is queued and stop the thread (process exit, tests)."""
        with self._lock:
            thread, self._thread, self._pid = self._thread, None, None
            if thread is None or not thread.is_alive():
                return
            self._stop.set()
        self._wake.set()
        thread.join(timeout)

    def _start(self) -> None:
        with self._lock:
            if self._pid == os.getpid():
                return
            # A forked child's copies of the list and the event belong to its parent.
            self._pending, self._wake, self._stop = [], threading.Event(), threading.Event()
            self._thread = threading.Thread(target=self._run, name="webhook-relay", daemon=True)
            self._thread.start()
            self._pid = os.getpid()

    def _run(self) -> None:
        wake, stop = self._wake, self._stop
        while True:
            wake.wait()
            stop.wait(self.wait())  # gather (requests keep appending), unless stopping
            wake.clear()
            with self._lock:
                batch, self._pending = self._pending, []
                stopping = stop.is_set()
            for start in range(0, len(batch), MAX_BATCH):
                self._deliver(batch[start : start + MAX_BATCH])
            if stopping:
                return

    def _deliver(self, batch: list[int]) -> None:
        try:
            self.send(batch)
        except Exception:  # the rows stay RECEIVED: requeue_stale_events sends them again
            log.exception("webhook events %s stored, not sent to the workers", batch)


relay = Relay()
atexit.register(relay.flush)
