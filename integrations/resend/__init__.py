"""Resend: warm (transactional) email, one message at a time (docs/providers.md §3).

client.py     the HTTP client, an `email_channels.backends.EmailBackend` (POST /emails)
schemas.py    strict schemas of the webhook events we act on
receiver.py   the webhook receiver (`/webhooks/resend/<tenant token>/`, Svix-signed)
fixtures/     recorded API answers and webhook payloads (tests, `replay_webhook`)
"""

from pathlib import Path

from cerniq.integrations import Integration, Option

integration = Integration(
    key="resend",
    label="Resend",
    backends={"email": "integrations.resend.client.ResendEmail"},
    options={
        "api_key": Option("RESEND_API_KEY"),
        "base_url": Option("RESEND_BASE_URL", default="https://api.resend.com"),
        "from_address": Option("RESEND_FROM"),
        "webhook_secret": Option("RESEND_WEBHOOK_SECRET"),
        # Our own ceiling on sends per second for the whole deployment (the seeds' 100/s for
        # q:email:warm); Resend's `ratelimit-limit`, when lower, wins (client.py).
        "max_per_second": Option("RESEND_MAX_PER_SECOND", default="100"),
    },
    backend_env="RESEND_BACKEND",
    receiver="integrations.resend.receiver.ResendReceiver",
    package_dir=Path(__file__).parent,
)
