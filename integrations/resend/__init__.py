"""Resend: warm (transactional) email, one message at a time, and the replies to it
(docs/providers.md §3).

client.py         the HTTP client, an `email_channels.backends.EmailBackend` (POST /emails,
                  GET /emails/receiving/{id})
schemas.py        schemas of the webhook events we act on (strict where we read)
receiver.py       the webhook receiver (`/webhooks/resend/<tenant token>/`, Svix-signed)
reply_address.py  the Reply-To address that routes a lead's answer back to its message
inbound.py        `email.received`: the reply threaded to its lead, into the reply path
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
        # A Resend receiving domain (MX to Resend): every warm email's Reply-To is
        # `reply+<token>@<this domain>`, so replies come back as `email.received`. Empty:
        # no Reply-To (replies go to RESEND_FROM's mailbox, outside the product).
        "inbound_domain": Option("RESEND_INBOUND_DOMAIN"),
    },
    backend_env="RESEND_BACKEND",
    receiver="integrations.resend.receiver.ResendReceiver",
    sender_readiness="integrations.resend.readiness.senders",
    package_dir=Path(__file__).parent,
)
