"""Run work in threads started together (races on real PostgreSQL rows)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from django.db import connection


def run_at_once(count: int, work: Callable[[], Any]) -> list:
    """`work()` in `count` threads released together by a barrier; their results, in
    thread order. An error in any thread fails the caller; each thread closes its own
    database connection."""
    barrier = threading.Barrier(count)
    results: list = [None] * count
    errors: list[BaseException] = []

    def runner(index: int) -> None:
        try:
            barrier.wait()
            results[index] = work()
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=runner, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not errors, errors
    return results
