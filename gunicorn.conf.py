"""gunicorn settings for the web process (Dockerfile, docker-compose.yml: `-c gunicorn.conf.py`).

The access log is written to stdout through `cerniq.gunicorn_logging.MaskingLogger`, which
masks the tenants' webhook tokens (`/webhooks/timelinesai/AbCd***/`), phone numbers and
emails in every access and error line. Command-line flags still override these values.
"""

logger_class = "cerniq.gunicorn_logging.MaskingLogger"
accesslog = "-"
