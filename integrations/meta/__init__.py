"""Meta: WhatsApp's official Cloud API and Lead Ads, through one Meta app.

cloud.py            the WhatsApp backend (`whatsapp.meta`): approved templates outside the
                    24-hour window, free text inside it, media
errors.py           Meta's error codes → the retry table and the phone-health guard
receiver.py         the webhook (`/webhooks/meta/<workspace token>/`): hub.* verification,
                    X-Hub-Signature-256, batched changes
whatsapp_events.py  messages, statuses, account changes → the core's WhatsApp rules
leadgen.py          Lead Ads: a notification → the lead fetched → a lead of ours
models.py           approved templates, sends Meta confirmed, the messaging limit, forms
"""

from pathlib import Path

from cerniq.integrations import Integration, Option

integration = Integration(
    key="meta",
    label="WhatsApp Cloud API (Meta)",
    backends={"whatsapp": "integrations.meta.cloud.CloudAPI"},
    options={
        "access_token": Option("META_ACCESS_TOKEN"),
        "waba_id": Option("META_WABA_ID"),
        "api_version": Option("META_GRAPH_VERSION", default="v23.0"),
        "base_url": Option("META_GRAPH_BASE_URL", default="https://graph.facebook.com"),
        "app_secret": Option("META_APP_SECRET"),
        "verify_token": Option("META_VERIFY_TOKEN"),
        "page_tokens": Option("META_PAGE_TOKENS"),
        "messaging_limit": Option("META_MESSAGING_LIMIT"),
    },
    backend_env="META_BACKEND",
    receiver="integrations.meta.receiver.MetaReceiver",
    periodic_jobs=(
        {
            "name": "lead-ads-waiting",
            "cron": "*/5 * * * *",
            "actor": "integrations.meta.tasks.fetch_waiting",
        },
    ),
    account_id_pattern=r"[0-9]{5,32}",
    account_id_hint=(
        "the number's Phone number ID, shown in WhatsApp Manager → Phone numbers (digits)"
    ),
    shared_daily_limit="integrations.meta.limits.portfolio_limit",
    settings_urls="integrations.meta.urls",
    package_dir=Path(__file__).parent,
)
