"""A lead reaching a chosen stage is upserted into the tenant's Mailchimp audience.

The "stage_changed" hook (called after the stage change commits) queues `tasks.sync_lead`
for a lead whose new stage is one the tenant chose, or who is in the audience already (its
stage tag follows). The actor calls `sync_lead`: the lead is checked first (`members.why_not`:
erased, no address, opted out, listed, a dead address, an address Mailchimp keeps out), and
its record says why when it is not sent. Otherwise one `PUT …/members/{hash}` with
`status_if_new` (an existing member keeps its status: never resubscribed) and, when its
tags changed, one `POST …/tags`. The record keeps the hash and a digest of the member body,
so a lead synced twice unchanged costs one PUT in all.

Faults go through the retry table (cerniq.retry.decide, each class of error counting its
own tries, carried from run to run by the actor); past it the record says so. Mailchimp's
refusal of an address is final for that content ("Invalid Resource": its text is kept); a
key or an audience it refuses is the audience's error, shown on Settings → Mailchimp.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from django.utils import timezone

from cerniq import reasons, retry
from cerniq.logging import mask_pii
from cerniq.provider_errors import (
    AuthenticationFailed,
    PermanentProviderError,
    ProviderError,
    RejectedRequest,
)
from integrations.mailchimp import config, members
from integrations.mailchimp import reasons as codes
from integrations.mailchimp.client import MailchimpClient, MemberKeptOut
from integrations.mailchimp.models import MailchimpAudience, MailchimpMember
from outreach.models import Journey, Lead

log = logging.getLogger(__name__)

State = MailchimpMember.State
LATER = timedelta(hours=1)  # a retry-table row that waits for "the next day's window"


@dataclass(frozen=True)
class Outcome:
    """What one run did: synced, unchanged, not_synced (the record says why), refused,
    failed, retry (at `retry_in`), off (no audience), not_chosen, gone; `counts` for a
    backfill."""

    outcome: str
    failures: dict[str, int] = field(default_factory=dict)
    retry_in: timedelta | None = None
    counts: dict[str, int] = field(default_factory=dict)


def audience_of(tenant_id: int) -> MailchimpAudience | None:
    """The tenant's audience when its sync is on."""
    return (
        MailchimpAudience.objects.filter(tenant_id=tenant_id, enabled=True)
        .exclude(list_id="")
        .first()
    )


def stage_changed(*, journey_id: int, from_stage: str, to_stage: str, by_system: str) -> None:
    """The "stage_changed" hook (cerniq.integrations.notify): queue the lead's sync."""
    stages_changed(changes=[{"journey_id": journey_id, "to_stage": to_stage}])


def stages_changed(*, changes: list[dict[str, Any]]) -> None:
    """The same hook for many changes at once (cerniq.integrations.notify_many: a batch of
    sends moving its leads): three queries however many, one sync queued per lead that
    belongs in its tenant's audience."""
    to_stage = {change["journey_id"]: change["to_stage"] for change in changes}
    journeys = list(
        Journey.objects.filter(pk__in=to_stage).values_list("pk", "tenant_id", "lead_id")
    )
    audiences = {
        audience.tenant_id: audience
        for audience in MailchimpAudience.objects.filter(
            tenant_id__in={tenant_id for _, tenant_id, _ in journeys}, enabled=True
        ).exclude(list_id="")
    }
    covered = [(pk, audiences[t], lead_id) for pk, t, lead_id in journeys if t in audiences]
    if not covered:
        return
    in_audience = set(
        MailchimpMember.objects.filter(
            lead_id__in=[lead_id for *_, lead_id in covered], state=State.SYNCED
        ).values_list("lead_id", flat=True)
    )
    from integrations.mailchimp.tasks import sync_lead as actor

    for pk, audience, lead_id in covered:
        if to_stage[pk] in audience.stages or lead_id in in_audience:
            actor.send(lead_id)


def sync_lead(
    lead_id: int, failures: dict[str, int] | None = None, *, client: MailchimpClient | None = None
) -> Outcome:
    """Bring one lead's member in line with the lead, if it belongs in the audience. Safe to
    run twice: an unchanged lead costs no call. `failures`: the provider errors of the
    earlier runs, by class of the retry table."""
    failures = dict(failures or {})
    lead = Lead.objects.filter(pk=lead_id).first()
    if lead is None:
        return Outcome("gone", failures)
    audience = audience_of(lead.tenant_id)
    if audience is None:
        return Outcome("off", failures)
    journey = Journey.objects.filter(lead=lead).first()
    stage = journey.stage if journey is not None else ""
    record = MailchimpMember.objects.filter(lead=lead).first()
    if stage not in audience.stages and not (record and record.state == State.SYNCED):
        return Outcome("not_chosen", failures)
    why = members.why_not(lead, journey, record)
    if why:
        not_synced(lead, audience, record, why)
        return Outcome("not_synced", failures)
    if problem := config.problem():
        audience_failed(audience, problem)
        return Outcome("off", failures)
    client = client or config.client()
    try:
        know_merge_fields(audience, client)
        want = members.wanted(lead, stage, audience)
        if members.unchanged(record, want):
            return Outcome("unchanged", failures)
        return _push(client, audience, lead, record, want)
    except MemberKeptOut as kept:
        kept_out(lead, audience, record, kept)
        return Outcome("not_synced", failures)
    except ProviderError as error:
        return failed(lead, audience, record, error, failures)


def _push(
    client: MailchimpClient,
    audience: MailchimpAudience,
    lead: Lead,
    record: MailchimpMember | None,
    want: members.Wanted,
) -> Outcome:
    status = record.mailchimp_status if record is not None else ""
    if record is None or (record.digest, record.subscriber_hash) != (
        want.digest,
        want.subscriber_hash,
    ):
        member = client.upsert_member(
            audience.list_id,
            want.email,
            status_if_new=audience.status_if_new,
            merge_fields=want.merge_fields,
        )
        status = str(member["status"])
        record = save_record(
            lead,
            audience,
            record,
            subscriber_hash=want.subscriber_hash,
            digest=want.digest,
            mailchimp_status=status,
            state=State.QUEUED,
        )
        if why := members.kept_out_reason(status):
            # Mailchimp kept the member as it was (unsubscribed, cleaned): not subscribed
            # again, and nothing more is sent for it.
            save_record(lead, audience, record, state=State.NOT_SYNCED, reason=why)
            return Outcome("not_synced")
    changes = members.tag_changes(record, want)
    if changes:
        client.set_tags(audience.list_id, want.subscriber_hash, changes)
    save_record(
        lead,
        audience,
        record,
        subscriber_hash=want.subscriber_hash,
        digest=want.digest,
        sent_tags=want.tags,
        mailchimp_status=status,
        state=State.SYNCED,
        reason="",
        detail="",
        failures={},
        synced_at=timezone.now(),
    )
    log.info("mailchimp: lead %s synced (%s)", lead.pk, status)
    return Outcome("synced")


def know_merge_fields(audience: MailchimpAudience, client: MailchimpClient) -> None:
    """The audience's merge tags, read once (they are read again when the settings are
    saved): only those are sent."""
    if not audience.merge_fields:
        audience.merge_fields = client.merge_fields(audience.list_id)
        audience.save(update_fields=["merge_fields", "updated_at"])


def save_record(
    lead: Lead, audience: MailchimpAudience, record: MailchimpMember | None, **values: Any
) -> MailchimpMember:
    """Create or update the lead's record with `values` (its audience always the current)."""
    if record is None:
        record = MailchimpMember(tenant_id=lead.tenant_id, lead=lead)
    record.list_id = audience.list_id
    for name, value in values.items():
        setattr(record, name, value)
    record.save()
    return record


def not_synced(
    lead: Lead, audience: MailchimpAudience, record: MailchimpMember | None, why: str
) -> MailchimpMember:
    """The lead is not sent, and its record says why. The hash is kept (what Mailchimp says
    of the address stays known); the digest is not, so it is sent afresh if it may again."""
    if record is not None and (record.state, record.reason) == (State.NOT_SYNCED, why):
        return record
    return save_record(lead, audience, record, state=State.NOT_SYNCED, reason=why, digest="")


def kept_out(
    lead: Lead, audience: MailchimpAudience, record: MailchimpMember | None, kept: MemberKeptOut
) -> None:
    status = "forgotten" if kept.forgotten else "compliance"
    save_record(
        lead,
        audience,
        record,
        subscriber_hash=members.subscriber_hash(lead.email),
        mailchimp_status=status,
        state=State.NOT_SYNCED,
        reason=members.kept_out_reason(status),
        detail=kept.provider_message[:500],
        digest="",
    )
    log.info("mailchimp: lead %s kept out by Mailchimp (%s)", lead.pk, kept.error_code)


def failed(
    lead: Lead,
    audience: MailchimpAudience,
    record: MailchimpMember | None,
    error: ProviderError,
    failures: dict[str, int],
) -> Outcome:
    """The retry table decides: again later, or give up and say so on the record."""
    kind = retry.error_class(error)
    failures[kind] = failures.get(kind, 0) + 1
    decision = retry.decide(error, failures[kind])
    if not decision.give_up:
        save_record(lead, audience, record, state=State.QUEUED, failures=failures)
        return Outcome("retry", failures, decision.retry_in or LATER)
    text = f"{type(error).__name__}: {error}"[:200]
    if audience_wide(error):
        audience_failed(audience, text)
        why = reasons.code(codes.AUDIENCE_FAILED, error=text)
        save_record(lead, audience, record, state=State.FAILED, reason=why, failures=failures)
        return Outcome("failed", failures)
    if isinstance(error, PermanentProviderError):
        detail = error.provider_message or str(error)
        why = reasons.code(codes.REFUSED, detail=mask_pii(detail)[:150])
        save_record(
            lead,
            audience,
            record,
            state=State.NOT_SYNCED,
            reason=why,
            detail=detail[:500],
            digest="",
            failures={},
        )
        log.info("mailchimp: lead %s refused: %s", lead.pk, mask_pii(detail)[:200])
        return Outcome("refused", failures)
    why = reasons.code(codes.FAILED, error=text)
    save_record(lead, audience, record, state=State.FAILED, reason=why, failures=failures)
    log.warning("mailchimp: sync of lead %s given up: %s", lead.pk, text)
    return Outcome("failed", failures)


def audience_wide(error: ProviderError) -> bool:
    """A refused key, or an audience Mailchimp does not have: no lead can be synced."""
    return isinstance(error, AuthenticationFailed) or (
        isinstance(error, RejectedRequest) and error.status_code == 404
    )


def audience_failed(audience: MailchimpAudience, text: str) -> None:
    audience.last_error, audience.last_error_at = text[:500], timezone.now()
    audience.save(update_fields=["last_error", "last_error_at", "updated_at"])
    log.warning("mailchimp: audience of tenant %s: %s", audience.tenant_id, text)
