"""Run work in threads started together (races on real PostgreSQL rows)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from django.db import connection


def run_at_once(count: int, work: Callable[[], Any]) -> list:
    """`work()` in `count` threads released together by a barrier; their results, in
    thread order. An error in any thread fails the caller; each thread closes its own
    database connection."""
    return run_together(*[work] * count)


def run_together(*works: Callable[[], Any]) -> list:
    """Each of `works` in its own thread, released together by a barrier; their results,
    in order. An error in any thread fails the caller; each thread closes its own database
    connection."""
    barrier = threading.Barrier(len(works))
    results: list = [None] * len(works)
    errors: list[BaseException] = []

    def runner(index: int) -> None:
        try:
            barrier.wait()
            results[index] = works[index]()
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=runner, args=(i,)) for i in range(len(works))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not errors, errors
    return results


def wait_for_a_lock_wait(timeout: float = 10.0) -> None:
    """Until another connection waits for a lock another transaction holds (PostgreSQL's
    pg_stat_activity). SQLite has no such view and nothing to wait for: its writers queue
    for its one write lock before they start."""
    if connection.vendor != "postgresql":
        return
    deadline = time.monotonic() + timeout
    with connection.cursor() as cursor:
        while time.monotonic() < deadline:
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                "AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()"
            )
            if cursor.fetchone()[0]:
                return
            time.sleep(0.02)
    raise AssertionError(f"no connection waited for a lock within {timeout} s")
