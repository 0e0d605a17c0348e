"""gunicorn settings for the web process (Dockerfile, docker-compose.yml: `-c gunicorn.conf.py`).

The access log is written to stdout through `cerniq.gunicorn_logging.MaskingLogger`, which
masks the tenants' webhook tokens (`/webhooks/timelinesai/AbCd***/`), phone numbers and
emails in every access and error line, as JSON unless LOG_FORMAT=text (or DEBUG) says
otherwise. Command-line flags still override these values.

Metrics: the workers write to the multiprocess directory (cerniq/metrics/directory.py),
exported here before any worker starts; a worker that exits has its live gauges dropped.
"""

from cerniq.metrics import directory as _metrics_directory

logger_class = "cerniq.gunicorn_logging.MaskingLogger"
accesslog = "-"

_metrics_directory.ensure()


def child_exit(server, worker):
    _metrics_directory.mark_process_dead(worker.pid)
