"""Settings for Cerniq Outreach, read from the environment (django-environ).

With nothing set, the app runs in embedded mode: SQLite under var/, a StubBroker with an
in-process worker and sandbox providers. Production sets DATABASE_URL, REDIS_URL,
SECRET_KEY and the provider credentials; it refuses to start without a SECRET_KEY.
"""

from __future__ import annotations

import os
from datetime import timedelta
from pathlib import Path
from typing import Any

import environ
import jinja2
from django.core.exceptions import ImproperlyConfigured

from cerniq import integrations
from cerniq.logging import log_format
from cerniq.metrics import directory as metrics_directory

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = BASE_DIR / "var"

env = environ.Env()

DEBUG = env.bool("DEBUG", default=False)

SECRET_KEY = env.str("SECRET_KEY", default="")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured(
            "SECRET_KEY is not set. Set it in the environment (production), "
            "or set DEBUG=true for local development."
        )
    SECRET_KEY = "django-insecure-development-only-key-do-not-use-in-production"  # noqa: S105

ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", default=["127.0.0.1", "localhost"] if DEBUG else [])
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "django_dramatiq",
    "cerniq",
    "outreach",
    "whatsapp",
    "email_channels",
    "hitl",
    "axes",  # sign-in lockouts (cerniq.signin)
    "csp",  # Content-Security-Policy (cerniq.security_headers has the other headers)
]
# REST API (#13): the api app (top row, beside console) and the libraries it stands on.
INSTALLED_APPS += ["rest_framework_api_key", "django_filters", "drf_spectacular_sidecar", "api"]

# --- Provider integrations: one line each (docs/adding-a-provider.md) ------------------
INTEGRATIONS = [
    "integrations.sandbox",
    "integrations.timelinesai",
    "integrations.resend",
    "integrations.instantly",
    "integrations.mailchimp",
    "integrations.meta",
]
INSTALLED_APPS += INTEGRATIONS  # their commands, actors (tasks.py) and fixtures

MIDDLEWARE = [
    "cerniq.health.ProbeMiddleware",  # /health*, /metrics: before host checks and redirects
    "cerniq.log_context.RequestIDMiddleware",
    "cerniq.metrics.web.RequestMetricsMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # Below static files, above every page and redirect (docs/security.md).
    "csp.middleware.CSPMiddleware",
    "cerniq.security_headers.SecurityHeadersMiddleware",  # Permissions-Policy, no-store
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "cerniq.text_input.UnprintableTextMiddleware",  # form text: no control characters
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "console.middleware.NoWorkspaceMiddleware",  # signed in, no workspace: a page saying so
    "axes.middleware.AxesMiddleware",  # last: a locked-out sign-in becomes the lockout page
]

ROOT_URLCONF = "cerniq.urls"
WSGI_APPLICATION = "cerniq.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "django.template.context_processors.i18n",
                "console.context_processors.tenant",
            ],
            # `{{ x|reason }}` renders a stored reason code in the reader's language.
            "builtins": ["cerniq.templatetags.reasons", "cerniq.templatetags.numbers"],
            # `{% load chrome %}`: the top bar (console is not an installed app)
            "libraries": {"chrome": "console.templatetags.chrome"},
        },
    },
    {
        # The long row loops of the operator pages (`*.jinja` beside their pages), compiled
        # to Python by Jinja2: six times faster than the loop in Django's engine. They print
        # fields worked out in the view, words translated there (docs/page-rendering.md).
        "NAME": "rows",
        "BACKEND": "django.template.backends.jinja2.Jinja2",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": False,
        "OPTIONS": {"undefined": jinja2.StrictUndefined, "autoescape": True},
    },
]

# --- Database -------------------------------------------------------------------------
DATABASE_URL = env.str("DATABASE_URL", default="")
if not DATABASE_URL:
    VAR_DIR.mkdir(exist_ok=True)
    DATABASE_URL = f"sqlite:///{VAR_DIR / 'db.sqlite3'}"
DATABASES = {"default": env.db_url_config(DATABASE_URL)}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # The in-process worker writes while the web thread reads: wait instead of failing.
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {"timeout": 20, "transaction_mode": "IMMEDIATE", "init_command": "PRAGMA journal_mode=WAL;"}
    )
    # A file, not shared memory, so worker threads in tests wait for locks instead of failing.
    VAR_DIR.mkdir(exist_ok=True)
    # One file per test run (pid), so parallel runs never share it.
    DATABASES["default"]["TEST"] = {"NAME": str(VAR_DIR / f"test-{os.getpid()}.sqlite3")}
else:
    DATABASES["default"].setdefault("CONN_MAX_AGE", env.int("CONN_MAX_AGE", default=60))
    DATABASES["default"].setdefault("CONN_HEALTH_CHECKS", True)
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Redis, broker, cache -------------------------------------------------------------
REDIS_URL = env.str("REDIS_URL", default="")
EMBEDDED = not REDIS_URL

DRAMATIQ_MIDDLEWARE = [
    "dramatiq.middleware.AgeLimit",
    "dramatiq.middleware.TimeLimit",
    "dramatiq.middleware.ShutdownNotifications",
    "dramatiq.middleware.Callbacks",
    "dramatiq.middleware.Pipelines",
    "dramatiq.middleware.Retries",
    "django_dramatiq.middleware.DbConnectionsMiddleware",
    "cerniq.metrics.workers.QueueMetrics",
    "cerniq.log_context.TaskContextMiddleware",
]
if REDIS_URL:
    DRAMATIQ_BROKER: dict[str, Any] = {
        "BROKER": "dramatiq.brokers.redis.RedisBroker",
        "OPTIONS": {
            "url": REDIS_URL,
            "namespace": env.str("DRAMATIQ_NAMESPACE", default="cerniq"),
        },
        "MIDDLEWARE": DRAMATIQ_MIDDLEWARE,
    }
    DRAMATIQ_RATE_LIMITER_BACKEND = {
        "BACKEND": "dramatiq.rate_limits.backends.redis.RedisBackend",
        "BACKEND_OPTIONS": {"url": REDIS_URL},
    }
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": "cerniq",
        }
    }
else:
    DRAMATIQ_BROKER = {
        "BROKER": "dramatiq.brokers.stub.StubBroker",
        "OPTIONS": {},
        "MIDDLEWARE": DRAMATIQ_MIDDLEWARE,
    }
    DRAMATIQ_RATE_LIMITER_BACKEND = {"BACKEND": "dramatiq.rate_limits.backends.stub.StubBackend"}
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
DRAMATIQ_AUTODISCOVER_MODULES = ["tasks"]
# Per-phone queues `wa.phone_01` …; phones map onto them by id (whatsapp.queues).
WHATSAPP_PHONE_QUEUES = env.int("WHATSAPP_PHONE_QUEUES", default=20)

# Periodic work: cron expression -> management command (or actor). `manage.py run` runs it
# in-process (embedded mode); production runs `manage.py scheduler` or system cron.
PERIODIC_JOBS: list[dict[str, str]] = [
    # In the scheduler's process: its own heartbeat, one onto every queue, the WORKER_DOWN check.
    {"name": "heartbeat", "cron": "* * * * *", "call": "cerniq.heartbeats.beat", "at_start": "1"},
    {"name": "watch-workers", "cron": "* * * * *", "call": "cerniq.heartbeats.watch_workers"},
    # Also at start: a fresh `make run` (or a restarted scheduler) sends within a minute,
    # not at the next multiple of five minutes.
    {
        "name": "dispatch",
        "cron": "*/5 * * * *",
        "actor": "outreach.tasks.dispatch_all_tenants",
        "at_start": "1",
    },
    {"name": "requeue-stale", "cron": "* * * * *", "command": "requeue_stale"},
    {"name": "requeue-triage", "cron": "* * * * *", "command": "requeue_triage"},
    {"name": "check-sla", "cron": "* * * * *", "command": "check_sla"},
    {"name": "rollup-stats", "cron": "*/15 * * * *", "command": "rollup_stats"},
    # Alerts (docs/alerts.md): notices owed (catch-up, reminders, retries); webhook health.
    {
        "name": "alert-notices",
        "cron": "* * * * *",
        "actor": "cerniq.tasks.deliver_alert_notifications",
    },
    {"name": "webhook-health", "cron": "* * * * *", "actor": "cerniq.tasks.check_webhook_health"},
    {"name": "check-phones", "cron": "*/5 * * * *", "command": "check_phones"},
    # The dashboard's "cannot be contacted" and "stalled" counts (outreach.analytics.reach).
    {"name": "reach-counts", "cron": "* * * * *", "call": "outreach.analytics.reach.refresh_all"},
    *integrations.periodic_jobs(INTEGRATIONS),
]

# --- Outgoing webhooks (#13, docs/outbound-webhooks.md) -----------------------------------
# Webhook endpoints and alert channels may reach private, loopback and link-local addresses
# (and endpoints may be http://): development and tests only. In production the server
# calls only public addresses (cerniq.net_guard). OUTBOUND_WEBHOOKS_ALLOW_LOCAL: old name.
OUTBOUND_ALLOW_LOCAL_TARGETS = env.bool(
    "OUTBOUND_ALLOW_LOCAL_TARGETS", default=env.bool("OUTBOUND_WEBHOOKS_ALLOW_LOCAL", default=DEBUG)
)
PERIODIC_JOBS.append(
    {"name": "outbound-webhooks", "cron": "* * * * *", "actor": "cerniq.tasks.deliver_due_webhooks"}
)
# Delivered and failed deliveries are deleted this many days after their last attempt
# (their payloads carry reply texts); rows still owed are never deleted.
OUTBOUND_WEBHOOK_RETENTION_DAYS = env.int("OUTBOUND_WEBHOOK_RETENTION_DAYS", default=30)
PERIODIC_JOBS.append(
    {
        "name": "purge-webhook-deliveries",
        "cron": "17 * * * *",
        "actor": "cerniq.tasks.purge_webhook_deliveries",
    }
)

# --- Retention (outreach.retention): message texts past a workspace's retention age -----
PERIODIC_JOBS.append(
    # Our email senders' readiness as their providers report it (email_channels.readiness).
    {"name": "check-senders", "cron": "*/30 * * * *", "actor": "outreach.tasks.check_senders"}
)
PERIODIC_JOBS.append(
    # Contacts paused because a colleague replied, once the pause is over (company_stop).
    {
        "name": "resume-company-pauses",
        "cron": "*/5 * * * *",
        "actor": "outreach.tasks.resume_company_pauses",
    }
)
PERIODIC_JOBS.append(
    # Templates' A/B versions judged on positive replies (outreach.ab_winners, hourly).
    {"name": "ab-winners", "cron": "25 * * * *", "actor": "outreach.tasks.evaluate_ab_winners"}
)
PERIODIC_JOBS.append(
    # Opt-out and erasure receipts whose provider call is due again (outreach.propagation).
    {"name": "propagate-due", "cron": "* * * * *", "actor": "outreach.tasks.propagate_due"}
)
PERIODIC_JOBS.append(
    {
        "name": "anonymise-old-messages",
        "cron": "40 3 * * *",
        "actor": "outreach.tasks.anonymise_old_messages",
    }
)

# --- Dead letters (#12) -------------------------------------------------------------------
# Kept this many days, then discarded (outreach.deadletters: re-planned, never deleted); a
# tenant with more than the threshold gets a DEAD_LETTERS alert. One job does both.
DEAD_LETTER_RETENTION_DAYS = env.int("DEAD_LETTER_RETENTION_DAYS", default=7)
DEAD_LETTER_ALERT_THRESHOLD = env.int("DEAD_LETTER_ALERT_THRESHOLD", default=100)
PERIODIC_JOBS.append(
    {"name": "purge-dead-letters", "cron": "*/5 * * * *", "command": "purge_dead_letters"}
)

# --- Phone health, warm-up, quota alert (outreach.phone_health, whatsapp.warmup) ---------
# The health guard scores each number 0-100 from its last PHONE_HEALTH_WINDOW_HOURS
# (outreach/phone_health.py has the signals and why): at or below THROTTLE_SCORE its daily
# limit drops to THROTTLE_SHARE of it; at or below PAUSE_SCORE it is paused and its work
# re-planned; paused, it rests PAUSE_COOLDOWN_HOURS and comes back throttled once it scores
# above THROTTLE_SCORE; throttled, it is healthy again at RECOVER_SCORE. Shares of messages
# or leads count from MIN_SAMPLE of them; a first message is judged undelivered after
# DELIVERY_GRACE_HOURS. An operator resuming a number the guard paused keeps it unpaused
# for OPERATOR_HOLD_HOURS.
PHONE_HEALTH_WINDOW_HOURS = env.int("PHONE_HEALTH_WINDOW_HOURS", default=72)
PHONE_HEALTH_THROTTLE_SCORE = env.int("PHONE_HEALTH_THROTTLE_SCORE", default=70)
PHONE_HEALTH_PAUSE_SCORE = env.int("PHONE_HEALTH_PAUSE_SCORE", default=40)
PHONE_HEALTH_RECOVER_SCORE = env.int("PHONE_HEALTH_RECOVER_SCORE", default=85)
PHONE_HEALTH_THROTTLE_SHARE = env.float("PHONE_HEALTH_THROTTLE_SHARE", default=0.5)
PHONE_HEALTH_MIN_SAMPLE = env.int("PHONE_HEALTH_MIN_SAMPLE", default=20)
PHONE_HEALTH_DELIVERY_GRACE_HOURS = env.int("PHONE_HEALTH_DELIVERY_GRACE_HOURS", default=6)
PHONE_HEALTH_PAUSE_COOLDOWN_HOURS = env.int("PHONE_HEALTH_PAUSE_COOLDOWN_HOURS", default=24)
PHONE_HEALTH_OPERATOR_HOLD_HOURS = env.int("PHONE_HEALTH_OPERATOR_HOLD_HOURS", default=24)
# A number back from a disconnection at least this long warms up again (whatsapp.warmup).
WARMUP_AFTER_OFFLINE_DAYS = env.int("WARMUP_AFTER_OFFLINE_DAYS", default=7)
# QUOTA_EXHAUSTED alert: the tenant's usable numbers used this share of today's new contacts.
QUOTA_ALERT_SHARE = env.float("QUOTA_ALERT_SHARE", default=0.9)
# Lifetime contacts a WhatsApp provider allots a workspace (whatsapp.lifetime): TimelinesAI
# counts each number × contact pair once its chat has a message, 100,000 for a workspace's
# life. The sandbox stands in for TimelinesAI in the demo. A provider absent has no allotment.
WHATSAPP_LIFETIME_CONTACTS = {
    "timelinesai": env.int("TIMELINESAI_LIFETIME_CONTACTS", default=100_000),
    "sandbox": env.int("TIMELINESAI_LIFETIME_CONTACTS", default=100_000),
}

# Largest webhook body taken in, per provider key (bytes; 413 above it). Unnamed providers
# use their receiver's own cap (TimelinesAI: 512 KiB). "timelinesai=262144;resend=65536".
# Seconds a process gathers stored webhook events before sending them to the workers as one
# message (cerniq.relay); 0 sends each at once from the request's thread.
WEBHOOK_RELAY_WAIT = env.float("WEBHOOK_RELAY_WAIT", default=0.02)
WEBHOOK_MAX_BODY_BYTES = env.dict("WEBHOOK_MAX_BODY_BYTES", cast={"value": int}, default={})

# --- Alerts (docs/alerts.md) -----------------------------------------------------------
# Where platform-wide alerts (no tenant) go: apprise URLs separated by spaces. Tenants
# configure their own channels (AlertChannel) on the alerts page.
ALERT_URLS: list[str] = env.str("ALERT_URLS", default="").split()
# An open alert nobody acknowledged is sent again after this quiet period.
ALERT_REMINDER_AFTER = timedelta(minutes=env.int("ALERT_REMINDER_AFTER_MINUTES", default=240))
# WEBHOOK_FAILURE: this many of a tenant's events of one provider failing in the window
# raise it; this many refused requests to one provider's endpoint raise the platform one.
WEBHOOK_ALERT_WINDOW = timedelta(minutes=env.int("WEBHOOK_ALERT_WINDOW_MINUTES", default=15))
WEBHOOK_FAILURE_ALERT_THRESHOLD = env.int("WEBHOOK_FAILURE_ALERT_THRESHOLD", default=5)
WEBHOOK_REJECTED_ALERT_THRESHOLD = env.int("WEBHOOK_REJECTED_ALERT_THRESHOLD", default=100)

# --- Providers ------------------------------------------------------------------------
# Each alias names a backend class and its options (Django's STORAGES shape). The
# integrations' own aliases (`whatsapp.timelinesai`, `whatsapp.sandbox`, …) come from their
# declarations, with options from the environment; `<KEY>_BACKEND` may swap the class.
# With DEBUG off a sandbox backend is refused unless ALLOW_SANDBOX_PROVIDERS names it
# ("true" for all, or aliases: "email.instantly,email.resend"): see cerniq.checks.
ALLOW_SANDBOX_PROVIDERS = env.list("ALLOW_SANDBOX_PROVIDERS", default=[])
# Which integration carries each email channel (a key of INTEGRATIONS with an "email"
# backend; outreach.transports reads it, cerniq.checks refuses one that has none).
EMAIL_CHANNEL_PROVIDERS = {
    "EMAIL_COLD": env.str("COLD_EMAIL_PROVIDER", default="instantly"),
    "EMAIL_WARM": env.str("WARM_EMAIL_PROVIDER", default="resend"),
}
PROVIDERS = {
    **integrations.provider_defaults(INTEGRATIONS, os.environ),
    # Reply triage: "hitl.triage.OfflineTriage" (no key needed) or
    # "hitl.triage.OpenAICompatibleTriage" (OpenAI, Ollama, vLLM, LM Studio).
    "ai.triage": {
        "BACKEND": env.str("AI_TRIAGE_BACKEND", default="hitl.triage.OfflineTriage"),
        "OPTIONS": {
            "base_url": env.str("AI_BASE_URL", default="https://api.openai.com/v1"),
            "api_key": env.str("AI_API_KEY", default=""),
            "model": env.str("AI_MODEL", default="gpt-4o-mini"),
            "timeout": env.float("AI_TIMEOUT", default=20.0),
            # LM Studio accepts only "json_schema"; "none" for servers without JSON mode.
            "response_format": env.str("AI_RESPONSE_FORMAT", default="json_object"),
        },
    },
}

# Embedded demo: share of sandbox WhatsApp sends that get a simulated reply, posted to
# our own webhook endpoint after a delay (seconds, min..max). 0 turns it off.
SANDBOX_REPLY_RATE = env.float("SANDBOX_REPLY_RATE", default=0.0)
SANDBOX_REPLY_DELAY_SECONDS = (20, 90)
# Where recipients and providers reach us (the unsubscribe links in every email).
# Required with DEBUG off, https unless it names this machine (cerniq.checks, E020).
PUBLIC_BASE_URL = env.str("PUBLIC_BASE_URL", default="http://127.0.0.1:8000" if DEBUG else "")
SANDBOX_WEBHOOK_BASE_URL = env.str("SANDBOX_WEBHOOK_BASE_URL", default="http://127.0.0.1:8000")
# The demo tenant `seed_demo` creates sends at any hour, every day (its window is 24/7, no
# holidays), so a fresh `make run` shows sends and replies at once; true gives it the real
# business window (Monday to Friday 09:00-18:00, Romanian holidays). docs/demo.md
DEMO_REAL_WINDOW = env.bool("DEMO_REAL_WINDOW", default=False)

# E-mail to people (a hot reply to the operator the lead belongs to: hitl.hot_replies).
# EMAIL_URL, e.g. smtp+tls://user:password@smtp.example.com:587; unset, those notices go to
# the tenant's alert channels instead.
NOTIFY_BY_EMAIL = bool(env.str("EMAIL_URL", default=""))
if NOTIFY_BY_EMAIL:
    vars().update(env.email_url("EMAIL_URL"))
DEFAULT_FROM_EMAIL = env.str("DEFAULT_FROM_EMAIL", default="Cerniq Outreach <cerniq@localhost>")

# --- A WhatsApp chat's history (hitl.chat_backfill, docs/chat-history.md) -----------------
# Fetched once when a lead's chat becomes known (false: only when a person asks on the lead
# page), at most this many pages (50 messages each on TimelinesAI) and this many days back
# per fetch (never beyond a workspace's retention age). TimelinesAI allows 30 requests a
# second per IP address for everything: the fetches take at most this many of them.
CHAT_HISTORY_ON_NEW_CHAT = env.bool("CHAT_HISTORY_ON_NEW_CHAT", default=True)
CHAT_HISTORY_MAX_PAGES = env.int("CHAT_HISTORY_MAX_PAGES", default=20)
CHAT_HISTORY_MAX_DAYS = env.int("CHAT_HISTORY_MAX_DAYS", default=365)
TIMELINESAI_HISTORY_REQUESTS_PER_SECOND = env.int(
    "TIMELINESAI_HISTORY_REQUESTS_PER_SECOND", default=5
)

# --- Auth, i18n, static ---------------------------------------------------------------
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "/login/"
LOGIN_REDIRECT_URL = "/outreach/dashboard/"
LOGOUT_REDIRECT_URL = "/login/"

# --- Sign-in lockouts, password reset, the client's address (docs/security.md) ------------
# The address a request came from: REMOTE_ADDR, or behind a proxy the header it sets and
# nothing else (cerniq.client_ip). X-Forwarded-For: the entry CLIENT_IP_PROXY_COUNT from
# the right (1: the address our proxy saw; entries further left are the client's to forge).
CLIENT_IP_HEADER = env.str(
    "CLIENT_IP_HEADER", default="X-Forwarded-For" if env.bool("BEHIND_PROXY", False) else ""
)
CLIENT_IP_PROXY_COUNT = env.int("CLIENT_IP_PROXY_COUNT", default=1)
# django-axes: an account locks after SIGNIN_ACCOUNT_FAILURES failed sign-ins from anywhere,
# an address after SIGNIN_ADDRESS_FAILURES across accounts (cerniq.signin.LockoutHandler),
# for SIGNIN_LOCKOUT_MINUTES after the last attempt. /login/ and /admin/login/ alike.
SIGNIN_ACCOUNT_FAILURES = env.int("SIGNIN_ACCOUNT_FAILURES", default=10)
SIGNIN_ADDRESS_FAILURES = env.int("SIGNIN_ADDRESS_FAILURES", default=30)
SIGNIN_LOCKOUT_MINUTES = env.int("SIGNIN_LOCKOUT_MINUTES", default=15)
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",  # first: refuses a locked-out sign-in
    "django.contrib.auth.backends.ModelBackend",
]
AXES_HANDLER = "cerniq.signin.LockoutHandler"
AXES_VERBOSE = False  # no banner on every process start (commands' output stays theirs)
AXES_FAILURE_LIMIT = SIGNIN_ACCOUNT_FAILURES
AXES_LOCKOUT_PARAMETERS = ["username", "ip_address"]
AXES_USERNAME_FORM_FIELD = "username"  # axes' default, set here for cerniq.signin to read
AXES_COOLOFF_TIME = timedelta(minutes=SIGNIN_LOCKOUT_MINUTES)
AXES_RESET_ON_SUCCESS = True  # the account's own failures only (LockoutHandler)
AXES_CLIENT_IP_CALLABLE = "cerniq.client_ip.client_ip"
AXES_LOCKOUT_CALLABLE = "cerniq.signin.lockout_response"
# Password reset by e-mail (console.views.password_reset): with EMAIL_URL, or in development
# printed by the console backend; otherwise the login page says to ask an admin. Requests
# per address and per e-mail address in an hour.
PASSWORD_RESET_BY_EMAIL = NOTIFY_BY_EMAIL or DEBUG
if DEBUG and not NOTIFY_BY_EMAIL:
    EMAIL_BACKEND = "django.core.mail.backends.console.EmailBackend"
PASSWORD_RESET_PER_ADDRESS = env.int("PASSWORD_RESET_PER_ADDRESS", default=5)
PASSWORD_RESET_PER_EMAIL = env.int("PASSWORD_RESET_PER_EMAIL", default=3)
PASSWORD_RESET_TIMEOUT = env.int("PASSWORD_RESET_TIMEOUT_SECONDS", default=3600)

LANGUAGE_CODE = "ro"
LANGUAGES = [("ro", "Română"), ("en", "English")]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = "Europe/Bucharest"
# One date and number format per language (cerniq/formats/, docs/locale.md). Thousands
# separators stay off globally (ids in URLs and data-* attributes): figures use `|num`.
FORMAT_MODULE_PATH = "cerniq.formats"
USE_I18N = True
USE_TZ = True

# Request bodies (cerniq.http_errors: over a limit, a 413/400 naming it). Forms and JSON:
# Django's DATA_UPLOAD_MAX_MEMORY_SIZE (2.5 MiB) and DATA_UPLOAD_MAX_NUMBER_FIELDS (1,000).
# Multipart, files included: the largest a page takes, a message's attachments (25 MiB
# together) or a lead import (20 MiB), with the rest of its form.
UPLOAD_MAX_REQUEST_BYTES = env.int("UPLOAD_MAX_REQUEST_BYTES", default=26 * 1024 * 1024)
FILE_UPLOAD_HANDLERS = [
    "cerniq.http_errors.BoundedUploadHandler",
    "django.core.files.uploadhandler.MemoryFileUploadHandler",
    "django.core.files.uploadhandler.TemporaryFileUploadHandler",
]

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "static"]
# Uploaded files (email attachments): var/media in embedded mode; production points the
# default storage at object storage (django-storages) through the environment.
MEDIA_ROOT = env.path("MEDIA_ROOT", default=str(VAR_DIR / "media"))
STORAGES: dict[str, dict[str, Any]] = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        if DEBUG
        else "whitenoise.storage.CompressedManifestStaticFilesStorage"
    },
}

# --- Backups (cerniq.backups: manage.py backup / restore) -----------------------------
# The database (pg_dump, or SQLite's online backup) and the media files, gzipped, into
# STORAGES["dbbackup"]: a local folder (BACKUP_DIR; files 0600 in a 0700 folder) or, when
# BACKUP_S3_BUCKET is set, an S3-compatible bucket (objects private, server-side encryption
# BACKUP_S3_SSE requested: "AES256", "aws:kms", or "" for a server without it). Not
# encrypted by us: python-gnupg is not a dependency. The newest BACKUP_KEEP are kept.
# BACKUP_SCHEDULE (cron, TIME_ZONE) adds the "backup" periodic job; "" turns it off.
# Production backs up nightly by default, embedded mode (a demo on SQLite) only by hand.
BACKUP_KEEP = env.int("BACKUP_KEEP", default=14)
BACKUP_SCHEDULE = env.str("BACKUP_SCHEDULE", default="" if EMBEDDED else "15 3 * * *")
BACKUP_DIR = env.str("BACKUP_DIR", default="") or str(VAR_DIR / "backups")
BACKUP_S3_BUCKET = env.str("BACKUP_S3_BUCKET", default="")
BACKUP_S3_SSE = env.str("BACKUP_S3_SSE", default="AES256")
if BACKUP_S3_BUCKET:
    STORAGES["dbbackup"] = {
        "BACKEND": "storages.backends.s3.S3Storage",
        "OPTIONS": {
            "bucket_name": BACKUP_S3_BUCKET,
            "location": env.str("BACKUP_S3_PREFIX", default="cerniq-backups"),
            "endpoint_url": env.str("BACKUP_S3_ENDPOINT_URL", default="") or None,
            "region_name": env.str("BACKUP_S3_REGION", default="") or None,
            # Empty: boto3's own credential chain (AWS_* variables, an instance role).
            "access_key": env.str("BACKUP_S3_ACCESS_KEY_ID", default="") or None,
            "secret_key": env.str("BACKUP_S3_SECRET_ACCESS_KEY", default="") or None,
            # No ACL sent: objects are private to the bucket owner by default, and buckets
            # with ACLs disabled (AWS's default) refuse any other canned ACL.
            "default_acl": None,
            "file_overwrite": False,
            "object_parameters": {"ServerSideEncryption": BACKUP_S3_SSE} if BACKUP_S3_SSE else {},
        },
    }
else:
    STORAGES["dbbackup"] = {
        "BACKEND": "django.core.files.storage.FileSystemStorage",
        "OPTIONS": {
            "location": BACKUP_DIR,
            "file_permissions_mode": 0o600,
            "directory_permissions_mode": 0o700,
        },
    }
if BACKUP_SCHEDULE:
    PERIODIC_JOBS.append({"name": "backup", "cron": BACKUP_SCHEDULE, "command": "backup"})

# --- Erasure (outreach.erasure, docs/data-subject-rights.md) ------------------------------
# The key of the one-way hashes an erased person's phone and address are listed by. Set it
# once and never change it: hashes made under another key match nobody. Empty: derived
# from SECRET_KEY (so changing SECRET_KEY would forget every erased person: check W040).
ERASURE_HASH_KEY = env.str("ERASURE_HASH_KEY", default="")
# Each erasure is also written, as hashes only, beside the backups (STORAGES["dbbackup"],
# under this folder), so a restored database is erased again (manage.py restore).
ERASURE_LEDGER_PREFIX = "erasure-ledger/"

# --- REST API (#13, api/) ------------------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    # Api-Key first: its challenge makes a request without credentials a 401, not a 403.
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "api.auth.APIKeyAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["api.auth.TenantAccess"],
    "DEFAULT_THROTTLE_CLASSES": ["api.auth.PerKeyThrottle"],
    "DEFAULT_FILTER_BACKENDS": ["django_filters.rest_framework.DjangoFilterBackend"],
    "EXCEPTION_HANDLER": "api.errors.exception_handler",
    "DEFAULT_PAGINATION_CLASS": "api.pagination.Cursor",
    # The browsable API under a policy of its own (api.renderers).
    "DEFAULT_RENDERER_CLASSES": [
        "rest_framework.renderers.JSONRenderer",
        "api.renderers.BrowsableAPI",
    ],
    "DEFAULT_PARSER_CLASSES": [
        "api.parsers.BoundedJSONParser",
        "api.parsers.BoundedFormParser",
        "api.parsers.BoundedMultiPartParser",  # its files bounded by FILE_UPLOAD_HANDLERS
    ],
    # OPTIONS describes the endpoint only (the schema has the bodies): no serializer built.
    "DEFAULT_METADATA_CLASS": "api.metadata.EndpointMetadata",
    "PAGE_SIZE": 50,
}
# Requests per API key (or per signed-in operator) and period, e.g. 120/min, 5000/hour.
API_THROTTLE_RATE = env.str("API_THROTTLE_RATE", default="120/min")
# An address that sends API_KEY_FAILURE_LIMIT wrong keys within API_KEY_FAILURE_WINDOW_MINUTES
# gets 429 for every key it sends during API_KEY_LOCKOUT_MINUTES (api.auth).
API_KEY_FAILURE_LIMIT = env.int("API_KEY_FAILURE_LIMIT", default=20)
API_KEY_FAILURE_WINDOW_MINUTES = env.int("API_KEY_FAILURE_WINDOW_MINUTES", default=10)
API_KEY_LOCKOUT_MINUTES = env.int("API_KEY_LOCKOUT_MINUTES", default=15)
SPECTACULAR_SETTINGS = {
    "TITLE": "Cerniq Outreach API",
    "VERSION": "1.0.0",
    "DESCRIPTION": (
        "Tenant-scoped REST API. Authenticate with `Authorization: Api-Key <key>` "
        "(keys are created by a tenant admin under Outreach > API keys)."
    ),
    "SERVE_INCLUDE_SCHEMA": False,
    "SCHEMA_PATH_PREFIX": "/api/v1",
    # The enums' default hook, then a 413 on every operation that takes a body.
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "api.schema.document_body_limits",
    ],
    "COMPONENT_SPLIT_REQUEST": True,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "ENUM_NAME_OVERRIDES": {
        "StageEnum": "outreach.models.Stage",
        "ChannelEnum": "outreach.models.Channel",
        # Phones, Reviews, Messages (api-more)
        "PriorityEnum": "outreach.models.Priority",
        "MessageStatusEnum": "outreach.models.Message.Status",
        "PhoneStatusEnum": "whatsapp.models.Phone.Status",
        "PhoneHealthEnum": "whatsapp.models.Phone.Health",
        "ReviewStatusEnum": "hitl.models.ReviewItem.Status",
        "OptOutAskedOnEnum": "outreach.models.OptOutRecord.AskedOn",
        "QuickReplyChannelEnum": "outreach.models.QuickReply.ChannelChoice",
        "SuppressionKindEnum": "outreach.models.Suppression.Kind",
        "ReviewKindEnum": "hitl.models.ReviewItem.Kind",
        "SuppressionSourceEnum": "outreach.models.Suppression.Source",
        "TemplateABModeEnum": "outreach.models.Template.ABMode",
    },
}

# --- Security (production) ------------------------------------------------------------
# Secure cookies unless the public address is plain http, which E020 allows only for this
# machine (a local docker compose trial at http://127.0.0.1:8000, where a browser would
# drop them and no one could log in).
_PLAIN_HTTP = PUBLIC_BASE_URL.startswith("http://")
SESSION_COOKIE_SECURE = env.bool("SESSION_COOKIE_SECURE", default=not DEBUG and not _PLAIN_HTTP)
CSRF_COOKIE_SECURE = env.bool("CSRF_COOKIE_SECURE", default=not DEBUG and not _PLAIN_HTTP)
SECURE_SSL_REDIRECT = env.bool("SECURE_SSL_REDIRECT", default=not DEBUG)
SECURE_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", default=0 if DEBUG else 31536000)
SECURE_HSTS_INCLUDE_SUBDOMAINS = not DEBUG
SECURE_HSTS_PRELOAD = not DEBUG
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
if env.bool("BEHIND_PROXY", default=False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
# Content-Security-Policy (django-csp): scripts and styles from our own static files only,
# no inline code; the API's HTML pages relax styles for themselves (api.renderers).
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'"],
        "img-src": ["'self'", "data:"],
        "font-src": ["'self'"],
        "connect-src": ["'self'"],
        "frame-ancestors": ["'none'"],
        "form-action": ["'self'"],
        "base-uri": ["'self'"],
        "object-src": ["'none'"],
    },
}

LOG_FORMAT = log_format(os.environ)
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {
        "mask_pii": {"()": "cerniq.logging.MaskPIIFilter"},
        "log_context": {"()": "cerniq.log_context.ContextFilter"},
    },
    "formatters": {
        "plain": {
            "class": "cerniq.logging.MaskingFormatter",
            "format": "%(asctime)s %(levelname)s %(name)s %(message)s",
        },
        "json": {"()": "cerniq.logging.JSONFormatter"},
    },
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            # LOG_FORMAT: json (default with DEBUG off) or text (default in development).
            "formatter": "json" if LOG_FORMAT == "json" else "plain",
            "filters": ["mask_pii", "log_context"],
        },
        "null": {"class": "logging.NullHandler"},
    },
    "root": {"handlers": ["console"], "level": env.str("LOG_LEVEL", default="INFO")},
    "loggers": {
        "django.db.backends": {"level": "WARNING"},
        # Django's defaults give "django" a console handler of its own in DEBUG (and
        # mail_admins, idle without ADMINS) and runserver's access log ("django.server") an
        # unfiltered one: both would print webhook tokens and searched phones. Theirs go
        # through ours instead.
        "django": {"handlers": [], "level": "INFO", "propagate": True},
        "django.server": {"handlers": [], "level": "INFO", "propagate": True},
        # apprise logs a URL it cannot parse in full (an alert channel's secret): its lines
        # stay with it; cerniq.notifications logs the reason, masked.
        "apprise": {"handlers": ["null"], "propagate": False},
        # urllib3's DEBUG request lines hold the path, where webhook URLs keep their secret.
        "urllib3.connectionpool": {"level": "INFO"},
    },
}

# --- Monitoring: /metrics, health, heartbeats ---------------------------------------------
# prometheus-client's multiprocess directory (PROMETHEUS_MULTIPROC_DIR, default var/prometheus),
# set before anything imports prometheus_client: see cerniq/metrics/directory.py.
PROMETHEUS_MULTIPROC_DIR = str(metrics_directory.ensure())
# /metrics answers a scraper with `Authorization: Bearer <METRICS_TOKEN>` or from one of these
# networks (CIDRs, the connecting address); with neither set it is a 404.
METRICS_TOKEN = env.str("METRICS_TOKEN", default="")
METRICS_ALLOWED_NETWORKS = env.list("METRICS_ALLOWED_NETWORKS", default=[])
# /health/ready: a queue group (or the scheduler) whose last heartbeat is older is down.
HEALTH_WORKER_STALE_SECONDS = env.int("HEALTH_WORKER_STALE_SECONDS", default=180)
HEALTH_SCHEDULER_STALE_SECONDS = env.int("HEALTH_SCHEDULER_STALE_SECONDS", default=180)
