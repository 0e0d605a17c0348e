"""Bench-only middleware for bench/instantly_push.py; imported by that bench's worker
processes next to the app's task modules, never by the app.

With BENCH_PUSH_STAMPS set (a file path; the bench sets it for its workers only), every run
of the `push_cold_email` actor appends one JSON line to that file when it ends: when it
started and ended (epoch seconds), the worker thread's CPU seconds, the SQL statements it
ran on that thread's connection (every statement Django executes, savepoints included, the
hooks run on commit too) and whether it raised. The bench reads the lines to know when a
push ended and what it cost, in the worker that ran it.
"""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path
from typing import Any

import dramatiq
from django.db import connection

ACTOR = "push_cold_email"


class PushStamps(dramatiq.Middleware):
    def __init__(self, path: Path) -> None:
        self.path = path
        self.lock = threading.Lock()
        self.local = threading.local()

    def before_process_message(self, broker: dramatiq.Broker, message: Any) -> None:
        if message.actor_name != ACTOR:
            return
        count = [0]

        def counted(execute, sql, params, many, context):  # noqa: ANN001 - Django's signature
            count[0] += 1
            return execute(sql, params, many, context)

        wrapper = connection.execute_wrapper(counted)
        wrapper.__enter__()
        self.local.run = (wrapper, count, time.time(), time.thread_time())

    def after_process_message(
        self, broker: dramatiq.Broker, message: Any, *, result: Any = None, exception: Any = None
    ) -> None:
        run = getattr(self.local, "run", None)
        if run is None:
            return
        self.local.run = None
        wrapper, count, started, cpu = run
        wrapper.__exit__(None, None, None)
        line = {
            "args": list(message.args),
            "started": started,
            "ended": time.time(),
            "cpu": time.thread_time() - cpu,
            "queries": count[0],
            "failed": exception is not None,
        }
        with self.lock, self.path.open("a", encoding="utf-8") as out:
            out.write(json.dumps(line) + "\n")

    after_skip_message = after_process_message


if os.environ.get("BENCH_PUSH_STAMPS"):
    dramatiq.get_broker().add_middleware(PushStamps(Path(os.environ["BENCH_PUSH_STAMPS"])))
