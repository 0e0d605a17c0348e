"""The one door every new lead passes through (the import, the API, the leads page, Meta
Lead Ads): the tenant's lead rules are applied, each firing recorded, and `lead.created`
owed to the outgoing webhooks.

Called inside the transaction that created the leads, so a rolled-back creation leaves no
firing, no enrollment and no event. A batch costs a fixed number of queries whatever its
size (the import is benchmarked): the rules are read once, matched in memory, and each
rule's actions are written for all the leads it took at once (one enrollment call, one
journey update, one tag update per distinct result), the firings in one insert and the
events in one insert.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from functools import partial

from django.db import transaction
from django.utils import timezone

from cerniq import reasons
from cerniq.models import Membership, Tenant
from cerniq.outbound.events import emit_many
from outreach import sequences
from outreach.lead_rules import reasons as codes
from outreach.lead_rules.matching import Intake, clean_tags, has_action, winner
from outreach.models import Journey, Lead, LeadRule, RuleFiring
from outreach.models import Sequence as OutreachSequence

log = logging.getLogger(__name__)

CHUNK = 900  # ids per `pk__in` UPDATE: under SQLite's 999 bound-parameter limit


@dataclass
class _Taken:
    """The leads one rule took, and what it did and was refused for each."""

    rule: LeadRule
    leads: list[Lead] = field(default_factory=list)
    done: dict[int, list[str]] = field(default_factory=lambda: defaultdict(list))
    refused: dict[int, list[str]] = field(default_factory=lambda: defaultdict(list))

    def did(self, stored: str, lead_ids: Sequence[int] | None = None) -> None:
        for lead_id in self._ids(lead_ids):
            self.done[lead_id].append(stored)

    def refuse(self, stored: str, lead_ids: Sequence[int] | None = None) -> None:
        for lead_id in self._ids(lead_ids):
            self.refused[lead_id].append(stored)

    def _ids(self, lead_ids: Sequence[int] | None) -> Sequence[int]:
        return [lead.pk for lead in self.leads] if lead_ids is None else lead_ids


def lead_created(
    lead: Lead, *, source: str, form_id: str = "", requested_contact: bool = False
) -> RuleFiring | None:
    """A lead was just created: apply the first matching rule of its tenant. Returns the
    firing, None when no rule took it. `source`: import, api, page or lead_ads; `form_id`:
    the Lead Ads form; `requested_contact`: the person asked to be contacted."""
    firings = leads_created(
        lead.tenant, [lead], source=source, form_id=form_id, requested_contact=requested_contact
    )
    return firings[0] if firings else None


def leads_created(
    tenant: Tenant,
    leads: Sequence[Lead],
    *,
    source: str,
    form_id: str = "",
    requested_contact: bool = False,
    now: datetime | None = None,
) -> list[RuleFiring]:
    """`lead_created` for many new leads of one tenant (an import's batch), in a fixed
    number of queries. Returns the firings written (a lead no rule took has none)."""
    if source not in LeadRule.Source.values:
        raise ValueError(f"unknown lead source {source!r}: one of {LeadRule.Source.values}")
    leads = [lead for lead in leads if lead.tenant_id == tenant.pk]
    if not leads:
        return []
    now = now or timezone.now()
    intake = Intake(source, (form_id or "").strip()[:64], requested_contact)
    if requested_contact:
        _mark_asked([lead.pk for lead in leads], now)
    rules = list(
        LeadRule.objects.filter(tenant=tenant, enabled=True)
        .select_related("sequence", "operator", "phone")
        .order_by("position", "pk")
    )
    taken: dict[int, _Taken] = {}
    winners: dict[int, LeadRule] = {}
    for lead in leads:
        rule = winner(rules, lead, intake)
        if rule is not None:
            taken.setdefault(rule.pk, _Taken(rule)).leads.append(lead)
            winners[lead.pk] = rule
    members = _members(tenant, [t.rule for t in taken.values()])
    for batch in taken.values():
        _apply(batch, intake, members, now)
    firings = RuleFiring.objects.bulk_create(_firings(tenant, taken.values(), intake), 500)
    _announce(tenant, leads, winners, intake)
    if requested_contact:
        _dispatch_soon(tenant, taken.values())
    return firings


def _mark_asked(lead_ids: list[int], now: datetime) -> None:
    """The journeys remember that the person asked (dispatch and pacing read it)."""
    for start in range(0, len(lead_ids), CHUNK):
        Journey.objects.filter(
            lead_id__in=lead_ids[start : start + CHUNK], contact_requested_at__isnull=True
        ).update(contact_requested_at=now, updated_at=now)


def _members(tenant: Tenant, rules: list[LeadRule]) -> set[int]:
    """Which of the rules' operators still belong to the workspace (one query, or none)."""
    wanted = {rule.operator_id for rule in rules if rule.operator_id}
    if not wanted:
        return set()
    found = Membership.objects.filter(tenant=tenant, user_id__in=wanted)
    return set(found.values_list("user_id", flat=True))


def _apply(batch: _Taken, intake: Intake, members: set[int], now: datetime) -> None:
    """The rule's actions for every lead it took: tags, operator and phone, enrollment."""
    rule = batch.rule
    if rule.add_tags:
        _tag(batch, clean_tags(rule.add_tags), now)
    _assign(batch, members, now)
    if rule.sequence is not None:
        _enroll(batch, rule.sequence, now)
    if intake.requested_contact:
        batch.did(reasons.code(codes.ASKED))
    if not has_action(rule):
        batch.did(reasons.code(codes.NOTHING))


def _tag(batch: _Taken, tags: list[str], now: datetime) -> None:
    """Each lead keeps its tags and gains the rule's: one UPDATE per distinct result."""
    groups: dict[tuple[str, ...], list[int]] = defaultdict(list)
    for lead in batch.leads:
        merged = clean_tags([*(lead.tags or []), *tags])
        if merged != list(lead.tags or []):
            groups[tuple(merged)].append(lead.pk)
            lead.tags = merged
    for merged_tags, ids in groups.items():
        for start in range(0, len(ids), CHUNK):
            Lead.objects.filter(pk__in=ids[start : start + CHUNK]).update(
                tags=list(merged_tags), updated_at=now
            )
    batch.did(reasons.code(codes.TAGGED, tags=", ".join(tags)))


def _assign(batch: _Taken, members: set[int], now: datetime) -> None:
    """The rule's operator (still a member) and phone, on every journey it took."""
    rule = batch.rule
    changes: dict[str, object] = {}
    if rule.operator is not None:
        who = rule.operator.get_full_name() or rule.operator.get_username()
        if rule.operator_id in members:
            changes["operator_id"] = rule.operator_id
            batch.did(reasons.code(codes.OPERATOR, operator=who))
        else:
            batch.refuse(reasons.code(codes.OPERATOR_GONE, operator=who))
    if rule.phone is not None:
        changes |= {"assigned_phone_id": rule.phone_id, "assigned_at": now}
        batch.did(reasons.code(codes.PHONE, phone=str(rule.phone)))
    if not changes:
        return
    ids = [lead.pk for lead in batch.leads]
    for start in range(0, len(ids), CHUNK):
        Journey.objects.filter(lead_id__in=ids[start : start + CHUNK]).update(
            **changes, updated_at=now
        )


def _enroll(batch: _Taken, sequence: OutreachSequence, now: datetime) -> None:
    """Enroll through the one enrollment service; its refusals are recorded, not raised."""
    gone = [lead.pk for lead in batch.leads if lead.erased_at is not None]
    batch.refuse(reasons.code(codes.ERASED, sequence=sequence.name), gone)
    wanted = [lead.pk for lead in batch.leads if lead.erased_at is None]
    if not wanted:
        return
    try:
        result = sequences.enroll_many(wanted, sequence, at=now)
    except sequences.EnrollmentError:
        batch.refuse(reasons.code(codes.SEQUENCE_UNUSABLE, sequence=sequence.name), wanted)
        return
    for lead_id, refusal in result.outcomes.items():
        if refusal:
            why = reasons.code(codes.NOT_ENROLLED, sequence=sequence.name, reason=refusal)
            batch.refuse(why, [lead_id])
        else:
            batch.did(reasons.code(codes.ENROLLED, sequence=sequence.name), [lead_id])


def _firings(tenant: Tenant, taken: Iterable[_Taken], intake: Intake) -> list[RuleFiring]:
    return [
        RuleFiring(
            tenant=tenant,
            lead=lead,
            rule=batch.rule,
            rule_name=batch.rule.name,
            source=intake.source,
            form_id=intake.form_id,
            requested_contact=intake.requested_contact,
            done=batch.done.get(lead.pk, []),
            refused=batch.refused.get(lead.pk, []),
        )
        for batch in taken
        for lead in batch.leads
    ]


def _announce(
    tenant: Tenant, leads: Sequence[Lead], winners: dict[int, LeadRule], intake: Intake
) -> None:
    """`lead.created`, once per lead, in the creating transaction (sent after it commits)."""
    emit_many(
        tenant.pk,
        "lead.created",
        [
            {
                "lead_id": lead.pk,
                "source": intake.source,
                "form_id": intake.form_id,
                "requested_contact": intake.requested_contact,
                "rule_id": winners[lead.pk].pk if lead.pk in winners else None,
                "rule": winners[lead.pk].name if lead.pk in winners else None,
            }
            for lead in leads
        ],
    )


def _dispatch_soon(tenant: Tenant, taken: Iterable[_Taken]) -> None:
    """Leads that asked and were enrolled are dispatched as soon as this commits, not at
    the next periodic dispatch (inside the sending window; otherwise at its opening)."""
    asked = sorted(
        lead_id
        for batch in taken
        for lead_id, done in batch.done.items()
        if any(reasons.is_code(d, codes.ENROLLED) for d in done)
    )
    if asked:
        transaction.on_commit(partial(_send_dispatch, tenant.pk, asked), robust=True)


def _send_dispatch(tenant_id: int, lead_ids: list[int]) -> None:
    from outreach.tasks import dispatch_requested  # the actor module imports the services

    dispatch_requested.send(tenant_id, lead_ids)
