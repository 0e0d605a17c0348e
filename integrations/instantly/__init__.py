"""Instantly: cold email campaigns (docs/providers.md §2).

backend.py     the `email.instantly` EmailBackend: cold email pushed into campaigns in bulk
campaign_sync.py  one Instantly campaign per tenant sequence, created on first use
client.py      the HTTP client (campaigns, bulk leads, replies, webhooks), rate limited
campaigns.py   campaign and lead payloads from our sequences (per-lead rendered text)
timezones.py   the 102 time zones Instantly accepts, and the mapping onto them
receiver.py    the webhook receiver (`/webhooks/instantly/<tenant token>/`, secret header)
handlers.py    what each webhook event does to our leads, campaigns and alerts
withdrawal.py  a pushed lead not emailed yet leaves its campaign when automation stops
management/    `instantly_setup`: registers the webhook subscription of a tenant
fixtures/      recorded API answers and webhook payloads (tests, `replay_webhook`)

Instantly does not send one email per call: leads are pushed into a campaign in bulk
(outreach.pushing calls the backend's `send_many` with up to `max_batch` = 1,000 emails)
and Instantly sends them on the campaign's schedule. `INSTANTLY_BACKEND` swaps the class
(`make run` uses the sandbox).
"""

from pathlib import Path

from cerniq.integrations import Integration, Option

integration = Integration(
    key="instantly",
    label="Instantly",
    backends={"email": "integrations.instantly.backend.InstantlyEmail"},
    options={
        "api_key": Option("INSTANTLY_API_KEY"),
        "base_url": Option("INSTANTLY_BASE_URL", default="https://api.instantly.ai"),
        "webhook_secret": Option("INSTANTLY_WEBHOOK_SECRET"),
        # The sending accounts of the campaigns we create (comma-separated addresses) and
        # their daily limit per account (campaign_sync).
        "senders": Option("INSTANTLY_SENDERS"),
        "daily_limit": Option("INSTANTLY_DAILY_LIMIT", default="50"),
    },
    backend_env="INSTANTLY_BACKEND",
    receiver="integrations.instantly.receiver.InstantlyReceiver",
    # Our stage changes → the lead's interest status at Instantly (interest.py); any
    # stop of automation withdraws the pushes Instantly has not emailed yet
    # (withdrawal.py); an opt-out or an erasure deletes the lead there (optouts.py).
    hooks={
        "stage_changed": "integrations.instantly.interest.stage_changed",
        "automation_stopped": "integrations.instantly.withdrawal.automation_stopped",
    },
    propagation="integrations.instantly.optouts",
    periodic_jobs=(
        {
            "name": "instantly-analytics",
            "cron": "17 * * * *",
            "actor": "integrations.instantly.tasks.sync_analytics",
        },
    ),
    sender_readiness="integrations.instantly.readiness.senders",
    package_dir=Path(__file__).parent,
)
