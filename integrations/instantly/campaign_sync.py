"""One Instantly campaign per (tenant, sequence), created the first time a lead needs it.

`ensure_campaign` returns the `EmailCampaign` row of a tenant's sequence at Instantly,
creating and activating the campaign there when the row has no Instantly id yet:

- the row comes first (get or create; the partial unique constraint
  `emailcampaign_one_per_sequence` makes two pushers share one row), then it is locked
  (`select_for_update`) while the campaign is created at Instantly, so a second pusher waits
  and finds the id instead of creating a second campaign;
- the campaign has ONE step whose subject and body are the lead's `{{subject_1}}` and
  `{{body_1}}`: a lead gets exactly one cold email per sequence (its follow-ups are warm
  email through Resend, outreach.channels.email_kind), rendered by us (campaigns.py);
- its schedule is the tenant's sending window, its daily limit INSTANTLY_DAILY_LIMIT and
  its sending accounts INSTANTLY_SENDERS (refused, naming the variable, when empty);
- the Instantly id is stored as soon as the campaign exists (status DRAFT), then the
  campaign is activated (status ACTIVE). A failed activation is retried by the next call;
  a creation whose answer was lost (timeout) is looked up by name before creating again.

Instantly has no idempotency key (docs/providers.md §2.1), hence the lock and the name lookup.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence as Seq

from django.db import IntegrityError, transaction

from cerniq import reasons
from cerniq.models import Tenant
from cerniq.provider_errors import PermanentProviderError, ProviderError, RejectedRequest
from email_channels import readiness
from email_channels.models import EmailCampaign
from integrations.instantly import campaigns, config
from integrations.instantly.client import InstantlyClient
from outreach.hours import SendingWindow
from outreach.models import Sequence

log = logging.getLogger(__name__)

PROVIDER = "instantly"
DEFAULT_DAILY_LIMIT = 50
# status_reason of a row whose creation at Instantly may have happened (answer lost).
UNCERTAIN = "creation uncertain"
# Instantly's Campaign.status (docs/providers.md §2.2) → ours.
STATUSES: dict[object, str] = {  # by Instantly's `status` (a JSON value)
    1: EmailCampaign.Status.ACTIVE,
    2: EmailCampaign.Status.PAUSED,
    3: EmailCampaign.Status.COMPLETED,
    4: EmailCampaign.Status.ACTIVE,  # running subsequences
}


def campaign_name(tenant: Tenant, sequence: Sequence) -> str:
    return f"{tenant.name} · {sequence.name}"[:200]


def senders_from(value: str | Seq[str]) -> list[str]:
    items = value.split(",") if isinstance(value, str) else value
    return [s.strip() for s in items if s and s.strip()]


def daily_limit_from(value: str | int | None) -> int:
    if value is None or value == "":
        return DEFAULT_DAILY_LIMIT
    try:
        limit = int(value)
    except (TypeError, ValueError):
        limit = 0
    if limit < 1:
        raise RejectedRequest(f"INSTANTLY_DAILY_LIMIT must be a positive whole number: {value!r}")
    return limit


def campaign_body(
    tenant: Tenant, sequence: Sequence, *, senders: Seq[str], daily_limit: int
) -> dict:
    """The `POST /api/v2/campaigns` body of a tenant's sequence (one step, per-lead text)."""
    if not senders:
        raise RejectedRequest(
            "no Instantly sending accounts: set INSTANTLY_SENDERS (comma-separated addresses)"
        )
    try:
        return campaigns.campaign_payload(
            name=campaign_name(tenant, sequence),
            step_delays_days=[0],
            schedule=campaigns.Schedule.for_window(SendingWindow.for_tenant(tenant)),
            daily_limit=daily_limit,
            senders=senders,
        )
    except ValueError as exc:  # a window or a sender Instantly cannot take
        raise RejectedRequest(f"Instantly campaign for {sequence.name!r}: {exc}") from exc


def _row(tenant: Tenant, sequence: Sequence) -> EmailCampaign:
    lookup = {"tenant": tenant, "provider": PROVIDER, "sequence": sequence}
    found = EmailCampaign.objects.filter(**lookup).first()
    if found is not None:
        return found
    try:
        with transaction.atomic():
            return EmailCampaign.objects.create(
                **lookup,
                name=campaign_name(tenant, sequence),
                status=EmailCampaign.Status.DRAFT,
            )
    except IntegrityError:  # another pusher created it in between
        return EmailCampaign.objects.get(**lookup)


def _adopt_lost(client: InstantlyClient, row: EmailCampaign) -> str:
    """The id of the campaign an earlier creation made whose answer was lost, if exactly
    one campaign of the workspace has the row's name."""
    found = [c for c in client.find_campaigns(row.name) if c.get("name") == row.name]
    return str(found[0]["id"]) if len(found) == 1 and found[0].get("id") else ""


def ensure_campaign(
    tenant: Tenant,
    sequence: Sequence,
    *,
    client: InstantlyClient | None = None,
    senders: str | Seq[str] | None = None,
    daily_limit: str | int | None = None,
) -> EmailCampaign:
    """The tenant's Instantly campaign for `sequence`, created and activated at Instantly if
    need be. Raises the ProviderError of a failed call (the row keeps what was done)."""
    row = _row(tenant, sequence)
    if row.external_id and row.status != EmailCampaign.Status.DRAFT:
        return row
    client = client or config.client()
    error: ProviderError | None = None
    with transaction.atomic():
        row = EmailCampaign.objects.select_for_update().get(pk=row.pk)
        if not row.external_id:
            try:
                row.external_id = _create(client, tenant, sequence, row, senders, daily_limit)
            except ProviderError as exc:
                if exc.uncertain:
                    row.status_reason = f"{UNCERTAIN}: {exc}"[:255]
                    row.save(update_fields=["status_reason"])
                error = exc
        if row.external_id and row.status == EmailCampaign.Status.DRAFT and error is None:
            try:
                answer = client.activate_campaign(row.external_id)
                row.status = STATUSES.get(answer.get("status"), EmailCampaign.Status.ACTIVE)
                row.status_reason = ""
            except ProviderError as exc:
                row.status_reason = f"created, not activated: {exc}"[:255]
                error = exc
            row.save(update_fields=["external_id", "status", "status_reason"])
    if error is not None:
        raise error
    return row


def _create(client, tenant, sequence, row, senders, daily_limit) -> str:
    if row.status_reason.startswith(UNCERTAIN):
        adopted = _adopt_lost(client, row)
        if adopted:
            log.info("instantly: adopted campaign %s for %s", adopted, row.name)
            return adopted
    chosen = senders_from(config.option("senders") if senders is None else senders)
    unready = readiness.not_ready(PROVIDER, chosen)
    ready = [s for s in chosen if s.strip().lower() not in unready]
    if chosen and not ready:  # a campaign only of accounts that cannot send: not created
        why = "; ".join(reasons.render(row.reason) for row in unready.values())
        raise PermanentProviderError(f"no sending account is ready: {why}"[:500])
    body = campaign_body(
        tenant,
        sequence,
        senders=ready,
        daily_limit=daily_limit_from(
            config.option("daily_limit") if daily_limit is None else daily_limit
        ),
    )
    created = client.create_campaign(body)
    campaign_id = str(created.get("id") or "")
    if not campaign_id:
        raise ProviderError("Instantly POST /api/v2/campaigns: no campaign id in the answer")
    log.info("instantly: created campaign %s for %s", campaign_id, row.name)
    return campaign_id
