"""TimelinesAI: WhatsApp through linked (QR) numbers (docs/providers.md §1).

client.py     the HTTP client, a `whatsapp.backends.WhatsAppBackend`
receiver.py   the webhook receiver (`/webhooks/timelinesai/<tenant token>/`)
inbound.py    message events → stored messages and the reply path
status_sync.py  polling what TimelinesAI does not push: delivery status, account health
fixtures/     recorded API answers and webhook payloads (tests, `replay_webhook`)
"""

from pathlib import Path

from cerniq.integrations import Integration, Option

integration = Integration(
    key="timelinesai",
    label="TimelinesAI",
    backends={"whatsapp": "integrations.timelinesai.client.TimelinesAI"},
    options={
        "api_token": Option("TIMELINESAI_API_TOKEN"),
        "base_url": Option(
            "TIMELINESAI_BASE_URL", default="https://app.timelines.ai/integrations/api"
        ),
    },
    backend_env="TIMELINESAI_BACKEND",
    receiver="integrations.timelinesai.receiver.TimelinesAIReceiver",
    periodic_jobs=(
        {
            "name": "delivery-status",
            "cron": "*/5 * * * *",
            "actor": "integrations.timelinesai.tasks.sync_delivery_status",
        },
        {"name": "phone-status", "cron": "*/10 * * * *", "command": "sync_phone_status"},
    ),
    account_id_from_number="integrations.timelinesai.schemas.jid_of_phone",
    package_dir=Path(__file__).parent,
)
