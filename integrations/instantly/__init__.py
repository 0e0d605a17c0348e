"""Instantly: cold email campaigns (providers.md §2).

client.py      the HTTP client (campaigns, bulk leads, replies, webhooks), rate limited
campaigns.py   campaign and lead payloads from our sequences (per-lead rendered text)
timezones.py   the 102 time zones Instantly accepts, and the mapping onto them
receiver.py    the webhook receiver (`/webhooks/instantly/<tenant token>/`, secret header)
handlers.py    what each webhook event does to our leads, campaigns and alerts
management/    `instantly_setup`: registers the webhook subscription of a tenant
fixtures/      recorded API answers and webhook payloads (tests, `replay_webhook`)

No backend is declared: Instantly does not send one email per call; leads are pushed into
a campaign in bulk and Instantly sends them on its schedule. The send path's
`email.instantly` alias (settings.PROVIDERS) stays as it is until that push exists.
"""

from pathlib import Path

from cerniq.integrations import Integration, Option

integration = Integration(
    key="instantly",
    label="Instantly",
    backends={},
    options={
        "api_key": Option("INSTANTLY_API_KEY"),
        "base_url": Option("INSTANTLY_BASE_URL", default="https://api.instantly.ai"),
        "webhook_secret": Option("INSTANTLY_WEBHOOK_SECRET"),
    },
    receiver="integrations.instantly.receiver.InstantlyReceiver",
    package_dir=Path(__file__).parent,
)
