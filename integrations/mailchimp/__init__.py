"""Mailchimp: a tenant's warm leads kept in a Mailchimp audience, and what Mailchimp learns
about those people told back to us (docs/mailchimp.md).

models.py     the tenant's audience settings and one sync record per lead
config.py     the options (MAILCHIMP_API_KEY, its data centre; MAILCHIMP_BASE_URL)
client.py     the Marketing API v3 client (members, tags, batch subscribe, delete-permanent)
members.py    what a lead becomes in the audience: hash, merge fields, tags, digest, or why not
sync.py       the per-lead upsert (the `stage_changed` hook and its actor)
backfill.py   every lead of the chosen stages in batches of 500 ("sync now", changed settings)
tasks.py      the actors (retry table between runs)
audience.py   the settings as an admin saves them (checked against the audience)
optouts.py    an opt-out unsubscribes the member there; an erasure deletes it permanently
formdata.py   Mailchimp's form-encoded webhook bodies as nested dicts, hostile input refused
schemas.py    strict schemas of the events we act on
receiver.py   the webhook receiver (`/webhooks/mailchimp/<tenant token>/`, GET validation)
handlers.py   what each event does to our leads
views.py      Settings → Mailchimp (admins): the settings, "sync now", the state of the sync
reasons.py    why a lead is not in the audience (reason codes, in the reader's language)
checks.py     `manage.py check`: a key that reaches no account
fixtures/     recorded API answers and webhook bodies (tests, `replay_webhook`)
"""

from pathlib import Path

from cerniq.integrations import Integration, Option

integration = Integration(
    key="mailchimp",
    label="Mailchimp",
    options={
        # `<key>-<dc>`: the data centre after the last "-" names the API host (config.py).
        "api_key": Option("MAILCHIMP_API_KEY"),
        # Empty: https://<dc>.api.mailchimp.com/3.0 from the key.
        "base_url": Option("MAILCHIMP_BASE_URL"),
    },
    receiver="integrations.mailchimp.receiver.MailchimpReceiver",
    # A lead reaching a chosen stage is upserted (sync.py); an opt-out or an erasure is told
    # to Mailchimp with a receipt (optouts.py).
    hooks={"stage_changed": "integrations.mailchimp.sync.stage_changed"},
    bulk_hooks={"stage_changed": "integrations.mailchimp.sync.stages_changed"},
    propagation="integrations.mailchimp.optouts",
    settings_urls="integrations.mailchimp.urls",
    package_dir=Path(__file__).parent,
)
