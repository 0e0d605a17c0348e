"""Settings for bench/webhooks.py's gunicorn: the production settings (cerniq.settings, read
from the environment the bench sets: DEBUG off, PostgreSQL, Redis) plus the bench URLconf,
which adds the ceiling endpoint `/bench/insert/` beside every real URL. Never used by the app.
"""

from cerniq.settings import *  # noqa: F403

ROOT_URLCONF = "bench.webhook_urls"
DEBUG = False
ALLOWED_HOSTS = ["127.0.0.1"]
# As production runs behind its TLS proxy (BEHIND_PROXY=true): the load generator sends
# `X-Forwarded-Proto: https`, so SECURE_SSL_REDIRECT lets the plain-HTTP requests through.
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
