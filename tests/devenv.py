"""Pytest plugin loaded first (`-p tests.devenv`): development settings unless the
environment says otherwise, before pytest-django imports the settings.

Under pytest-xdist (`make test` runs workers gw0, gw1, …) each worker gets its own Redis:
database number REDIS_URL's + worker index, and its own Dramatiq namespace. A test that
flushes Redis, or a worker draining its broker, then never touches another worker's keys.
pytest-django already gives each worker its own test database (suffix `_gw0`, `_gw1`, …).
"""

import os
import tempfile
from urllib.parse import urlsplit, urlunsplit

import pytest

REDIS_DATABASES = 16  # Redis' default `databases`


def redis_url_for_worker(url: str, index: int) -> str:
    """`url` with its database number moved up by `index`: redis://h:6379/12 -> /13 for 1."""
    parts = urlsplit(url)
    base = int(parts.path.strip("/") or 0)
    if base + index >= REDIS_DATABASES:
        raise pytest.UsageError(
            f"xdist worker {index} would use Redis database {base + index}: REDIS_URL's "
            f"database {base} leaves room for {REDIS_DATABASES - base} worker(s). "
            "Use a lower database in REDIS_URL or fewer workers (-n)."
        )
    return urlunsplit(parts._replace(path=f"/{base + index}"))


os.environ.setdefault("DEBUG", "true")
# DEBUG would let webhooks and alert channels reach local addresses; tests run with the
# production rule (cerniq.net_guard), and those that talk to a receiver on 127.0.0.1 say so
# (settings.OUTBOUND_ALLOW_LOCAL_TARGETS = True).
os.environ.setdefault("OUTBOUND_ALLOW_LOCAL_TARGETS", "false")
# Webhook events go to the broker when their transaction commits, not from the relay's
# thread a moment later, so a test sees its message at once (tests/cerniq/test_relay.py
# runs the batching itself).
os.environ.setdefault("WEBHOOK_RELAY_WAIT", "0")
# Uploaded files (email attachments) land in a directory of the run's own, never var/media.
os.environ.setdefault("MEDIA_ROOT", tempfile.mkdtemp(prefix="cerniq-test-media-"))
# Metrics (prometheus-client multiprocess files) in a directory of this process's own: an
# xdist worker's counters never add up with another's, nor with var/prometheus.
os.environ["PROMETHEUS_MULTIPROC_DIR"] = tempfile.mkdtemp(prefix="cerniq-test-metrics-")

_worker = os.environ.get("PYTEST_XDIST_WORKER", "")  # "gw0", "gw1", … in xdist workers
if _worker.startswith("gw") and os.environ.get("REDIS_URL"):
    os.environ["REDIS_URL"] = redis_url_for_worker(os.environ["REDIS_URL"], int(_worker[2:]))
    namespace = os.environ.get("DRAMATIQ_NAMESPACE", "cerniq")
    os.environ["DRAMATIQ_NAMESPACE"] = f"{namespace}-{_worker}"


def pytest_configure(config: pytest.Config) -> None:
    """In the xdist controller, before any worker starts: fail the run (not just the
    workers, which xdist would count as no tests) when REDIS_URL leaves too few databases."""
    workers = len(getattr(config.option, "tx", None) or [])
    if workers and not hasattr(config, "workerinput") and os.environ.get("REDIS_URL"):
        redis_url_for_worker(os.environ["REDIS_URL"], workers - 1)
