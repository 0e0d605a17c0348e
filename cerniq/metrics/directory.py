"""Where one deployment's processes write their metrics (prometheus-client multiprocess).

prometheus-client picks multiprocess mode when it is first imported, from the environment,
so `ensure()` runs first: in settings.py (every Django process) and in gunicorn.conf.py
(the master, which only marks its dead workers). PROMETHEUS_MULTIPROC_DIR names the
directory; without it, `var/prometheus` of this checkout (embedded mode, development).
Processes that are to add up share it (docker-compose.yml mounts one volume on web,
worker and scheduler). Counters of processes that have exited stay in the sum, as a
Prometheus counter must; live gauges (in-flight work) of a dead process are dropped by
`mark_process_dead`.
"""

from __future__ import annotations

import os
from collections.abc import MutableMapping
from pathlib import Path

ENV = "PROMETHEUS_MULTIPROC_DIR"
DEFAULT = Path(__file__).resolve().parents[2] / "var" / "prometheus"


def ensure(environ: MutableMapping[str, str] = os.environ) -> Path:
    """The directory (created if missing), also exported in `environ` for prometheus-client
    and for child processes."""
    path = Path(environ.get(ENV) or DEFAULT)
    path.mkdir(parents=True, exist_ok=True)
    environ[ENV] = str(path)
    return path


def is_multiprocess() -> bool:
    """Whether prometheus-client writes to the shared directory in this process (it chose
    at its import: an import before `ensure()` means single-process mode)."""
    from prometheus_client import values

    return bool(getattr(values.ValueClass, "_multiprocess", False))


def mark_process_dead(pid: int) -> None:
    """Drop the live gauges of a process that has exited (gunicorn's child_exit, a Dramatiq
    worker process at shutdown)."""
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(pid, str(ensure()))
