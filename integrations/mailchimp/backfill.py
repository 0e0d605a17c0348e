"""The backfill: every lead of the chosen stages brought into the audience in batches (on
"sync now" and when the settings change).

Each lead is checked as `sync.sync_lead` checks it (its record says why when it is not
sent); the ones whose member changed since the last sync go to `POST /lists/{id}` in
batches of at most 500 with `update_existing: true`, their tags with them. Mailchimp answers
per address: written (its status there is kept on the record) or refused (`errors[]`, its
text on the record). An address Mailchimp keeps out ("in a compliance state": unsubscribed
or cleaned; "permanently deleted") is recorded so and never sent again.

Status. A batch member carries a `status`, which with `update_existing` also changes an
existing member. So a member whose status we know from Mailchimp keeps it (subscribed,
non-subscribed or pending is sent back as it is), and only an address we never heard of is
sent with the settings' status; Mailchimp itself refuses to subscribe an unsubscribed or
cleaned address, and we never send one we know is.

A batch that fails follows the retry table for the whole backfill: the batches before it
are recorded, so the next run sends only what is left.
"""

from __future__ import annotations

import logging
from typing import Any

from django.db.models import Q
from django.utils import timezone

from cerniq import reasons, retry
from cerniq.logging import mask_pii
from cerniq.provider_errors import ProviderError
from integrations.mailchimp import config, members
from integrations.mailchimp import reasons as codes
from integrations.mailchimp.client import MAX_BATCH, BatchAnswer, MailchimpClient
from integrations.mailchimp.models import MailchimpAudience, MailchimpMember
from integrations.mailchimp.sync import (
    LATER,
    Outcome,
    audience_failed,
    audience_of,
    know_merge_fields,
    not_synced,
    save_record,
)
from outreach.models import Lead

log = logging.getLogger(__name__)

State = MailchimpMember.State
KEPT_AS_IS = frozenset({"subscribed", "transactional", "pending"})

Planned = tuple[Lead, MailchimpMember | None, members.Wanted]


def backfill(
    tenant_id: int, failures: dict[str, int] | None = None, *, client: MailchimpClient | None = None
) -> Outcome:
    """Sync every lead of the tenant's chosen stages (and those in the audience already).
    Safe to run twice: unchanged leads cost nothing."""
    failures = dict(failures or {})
    audience = audience_of(tenant_id)
    if audience is None:
        return Outcome("off", failures)
    if problem := config.problem():
        audience_failed(audience, problem)
        return Outcome("off", failures)
    client = client or config.client()
    counts = {"sent": 0, "synced": 0, "unchanged": 0, "not_synced": 0}
    try:
        know_merge_fields(audience, client)
        planned = _plan(audience, counts)
        for start in range(0, len(planned), MAX_BATCH):
            _send(client, audience, planned[start : start + MAX_BATCH], counts)
    except ProviderError as error:
        return _failed(audience, error, failures, counts)
    audience.backfill_finished_at = timezone.now()
    audience.last_error = ""
    audience.save(update_fields=["backfill_finished_at", "last_error", "updated_at"])
    log.info("mailchimp: backfill of tenant %s: %s", tenant_id, counts)
    return Outcome("done", {}, counts=counts)


def _plan(audience: MailchimpAudience, counts: dict[str, int]) -> list[Planned]:
    """The leads to send (changed since their last sync); the others recorded or counted."""
    records = {r.lead_id: r for r in MailchimpMember.objects.filter(tenant_id=audience.tenant_id)}
    in_audience = [lead_id for lead_id, r in records.items() if r.state == State.SYNCED]
    leads = (
        Lead.objects.filter(tenant_id=audience.tenant_id)
        .filter(Q(journey__stage__in=list(audience.stages)) | Q(pk__in=in_audience))
        .select_related("journey")
        .order_by("pk")
    )
    planned: list[Planned] = []
    for lead in leads:
        journey = getattr(lead, "journey", None)  # every lead has one; a bare row stays bare
        record = records.get(lead.pk)
        why = members.why_not(lead, journey, record)
        if why:
            not_synced(lead, audience, record, why)
            counts["not_synced"] += 1
            continue
        want = members.wanted(lead, journey.stage if journey else "", audience)
        if members.unchanged(record, want):
            counts["unchanged"] += 1
            continue
        planned.append((lead, record, want))
    return planned


def _status(record: MailchimpMember | None, want: members.Wanted, default: str) -> str:
    """A status Mailchimp told us is sent back as it is; only a new address gets ours."""
    known = record is not None and record.subscriber_hash == want.subscriber_hash
    if known and record is not None and record.mailchimp_status in KEPT_AS_IS:
        return record.mailchimp_status
    return default


def _send(
    client: MailchimpClient,
    audience: MailchimpAudience,
    batch: list[Planned],
    counts: dict[str, int],
) -> None:
    body: list[dict[str, Any]] = []
    for _lead, record, want in batch:
        member: dict[str, Any] = {
            "email_address": want.email,
            "status": _status(record, want, audience.status_if_new),
        }
        if want.merge_fields:
            member["merge_fields"] = want.merge_fields
        if want.tags:
            member["tags"] = want.tags
        body.append(member)
    answer = client.batch_subscribe(audience.list_id, body)
    counts["sent"] += len(body)
    for lead, record, want in batch:
        _record(client, audience, lead, record, want, answer, counts)


def _record(
    client: MailchimpClient,
    audience: MailchimpAudience,
    lead: Lead,
    record: MailchimpMember | None,
    want: members.Wanted,
    answer: BatchAnswer,
    counts: dict[str, int],
) -> None:
    address = want.email.lower()
    if address in answer.errors:
        _refused(lead, audience, record, want, answer.errors[address])
        counts["not_synced"] += 1
        return
    status = answer.written.get(address)
    if status is None:  # neither written nor refused: left for the next run
        return
    if why := members.kept_out_reason(status):
        save_record(
            lead,
            audience,
            record,
            subscriber_hash=want.subscriber_hash,
            mailchimp_status=status,
            state=State.NOT_SYNCED,
            reason=why,
            digest="",
        )
        counts["not_synced"] += 1
        return
    # The batch adds tags; a tag sent before and wanted no more is taken off here.
    removed = {tag: False for tag, on in members.tag_changes(record, want).items() if not on}
    tags = want.tags
    if removed:
        try:
            client.set_tags(audience.list_id, want.subscriber_hash, removed)
        except ProviderError:
            tags = sorted(set(want.tags) | set(removed))  # the next sync takes them off
    save_record(
        lead,
        audience,
        record,
        subscriber_hash=want.subscriber_hash,
        digest=want.digest,
        sent_tags=tags,
        mailchimp_status=status,
        state=State.SYNCED if tags == want.tags else State.QUEUED,
        reason="",
        detail="",
        failures={},
        synced_at=timezone.now(),
    )
    counts["synced"] += 1


def _refused(
    lead: Lead,
    audience: MailchimpAudience,
    record: MailchimpMember | None,
    want: members.Wanted,
    text: str,
) -> None:
    """An address Mailchimp refused in a batch: kept out for good, or refused with its text."""
    lowered = text.lower()
    status = ""
    if "compliance state" in lowered:
        status = "compliance"
    elif "permanently deleted" in lowered:
        status = "forgotten"
    why = members.kept_out_reason(status) or reasons.code(
        codes.REFUSED, detail=mask_pii(text)[:150]
    )
    save_record(
        lead,
        audience,
        record,
        subscriber_hash=want.subscriber_hash,
        mailchimp_status=status or (record.mailchimp_status if record else ""),
        state=State.NOT_SYNCED,
        reason=why,
        detail=text[:500],
        digest="",
    )


def _failed(
    audience: MailchimpAudience, error: ProviderError, failures: dict[str, int], counts: dict
) -> Outcome:
    kind = retry.error_class(error)
    failures[kind] = failures.get(kind, 0) + 1
    decision = retry.decide(error, failures[kind])
    text = f"{type(error).__name__}: {error}"[:300]
    audience_failed(audience, text)
    if decision.give_up:
        return Outcome("failed", failures, counts=counts)
    return Outcome("retry", failures, decision.retry_in or LATER, counts=counts)
