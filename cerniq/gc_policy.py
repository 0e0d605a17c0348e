"""The garbage collector's policy for a process that serves requests.

A web process holds ~180,000 objects once Django, the apps, the URL resolvers, the compiled
templates and the translation catalogues are loaded, and they live as long as the process.
CPython's collector does not know that: every so often a full collection walks all of them,
~90 ms on this product's pages (bench/pages.py), added to whichever request happened to
trigger it: one request in twenty on the review queue, the whole of a page's p95.

So after the process's 10th, 100th and 1,000th request (by then what the pages load
has been loaded), the garbage is collected once and everything left is frozen
(`gc.freeze()`): moved to a permanent generation that later collections never walk. Cycles
made afterwards are collected as before; memory freed by reference counting (most of a
request's garbage) is unaffected. The young generation is also raised from 700 to 5,000
allocations: a page allocates tens of thousands of short-lived containers, and each young
collection promotes survivors that a full collection must then walk.

Wired to `request_finished` (cerniq.apps), so gunicorn's workers, `manage.py run` and the
page benches all run with it; the Dramatiq workers serve no requests and keep the defaults.
"""

from __future__ import annotations

import gc
import threading

FREEZE_AFTER = frozenset({10, 100, 1000})  # requests served by this process
YOUNG_THRESHOLD = 5000

_lock = threading.Lock()
_served = 0


def after_request(**_: object) -> None:
    """request_finished: count the request; at a FREEZE_AFTER count, collect and freeze."""
    global _served
    with _lock:
        _served += 1
        due = _served in FREEZE_AFTER
    if due:
        settle()


def settle() -> None:
    """Collect what is garbage now, freeze the rest, and raise the young threshold."""
    gc.collect()
    gc.freeze()
    _, older, oldest = gc.get_threshold()
    gc.set_threshold(YOUNG_THRESHOLD, older, oldest)


def as_after_warm_up() -> None:
    """Settle now and skip the settles ahead: the process as a worker is after its first
    1,000 requests (for benches, which measure a warmed-up worker, not its first minutes)."""
    global _served
    settle()
    with _lock:
        _served = max(FREEZE_AFTER)
