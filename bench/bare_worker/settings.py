"""Settings of the bare Django Dramatiq project (bench/worker_rss.py's baseline): what
`django-admin startproject` gives, plus django_dramatiq as its README sets it up, on the same
PostgreSQL (DATABASE_URL) and Redis (REDIS_URL, DRAMATIQ_NAMESPACE) as the product. The
broker middleware is the product's list (cerniq/settings.py), so the two workers differ by
the application only."""

import os
from urllib.parse import urlsplit

_db = urlsplit(os.environ["DATABASE_URL"])

SECRET_KEY = "bench-only-bare-worker"  # noqa: S105 - never serves a request
DEBUG = False
ALLOWED_HOSTS: list[str] = []
INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django_dramatiq",
    "bench.bare_worker",
]
DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": _db.path.lstrip("/"),
        "USER": _db.username or "",
        "PASSWORD": _db.password or "",
        "HOST": _db.hostname or "",
        "PORT": _db.port or "",
    }
}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
USE_TZ = True
DRAMATIQ_BROKER = {
    "BROKER": "dramatiq.brokers.redis.RedisBroker",
    "OPTIONS": {
        "url": os.environ["REDIS_URL"],
        "namespace": os.environ["DRAMATIQ_NAMESPACE"],
    },
    "MIDDLEWARE": [
        "dramatiq.middleware.AgeLimit",
        "dramatiq.middleware.TimeLimit",
        "dramatiq.middleware.ShutdownNotifications",
        "dramatiq.middleware.Callbacks",
        "dramatiq.middleware.Pipelines",
        "dramatiq.middleware.Retries",
        "django_dramatiq.middleware.DbConnectionsMiddleware",
    ],
}
