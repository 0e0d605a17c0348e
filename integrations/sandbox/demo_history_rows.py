"""The demo history's bulk rows (integrations.sandbox.demo_history): the sends, as dispatch
builds them and recording marks them sent, with the journey and stage changes a first send
makes, the phones' counters and quota days. Bulk-created because the real send path is one
worker task per message; every field is the one those services write."""

from __future__ import annotations

import random
import uuid
from collections import Counter, defaultdict
from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import Any, cast

from django.db import connection
from django.db.models import Count, Field, Model

from cerniq import reasons
from outreach import spintax
from outreach.analytics.definitions import WENT_OUT_STATUSES
from outreach.channels import email_subject
from outreach.hours import SendingWindow
from outreach.models import (
    Channel,
    Enrollment,
    Journey,
    Message,
    Stage,
    StageTransition,
    TemplateVersion,
)
from outreach.reasons import STAGE_SENT
from outreach.sequences import steps_of
from whatsapp.models import Phone, QuotaUsage

BATCH = 500
CONTACTED: dict[str, str] = {
    Channel.WHATSAPP: Stage.CONTACTED_WA,
    Channel.EMAIL_COLD: Stage.CONTACTED_EMAIL,
}


def _uid(rng: random.Random) -> str:
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def _version(send: Any, versions: dict[int, list[TemplateVersion]]) -> TemplateVersion:
    if send.version is not None:
        return send.version
    found = versions[send.step.template_id]
    seed = f"{send.lead.pk}:{send.step.pk}"
    return found[spintax.choose_version([v.weight for v in found], seed)]


def _outcome(channel: str, at: datetime, rng: random.Random) -> dict[str, Any]:
    """What the provider reported after the send: delivered and read times for WhatsApp,
    opens and a few bounces for cold email."""
    roll = rng.random()
    if channel == Channel.WHATSAPP:
        delivered = at + timedelta(seconds=rng.randint(3, 90))
        if roll < 0.08:
            return {"status": Message.Status.SENT}
        if roll < 0.45:
            return {"status": Message.Status.DELIVERED, "delivered_at": delivered}
        read = delivered + timedelta(minutes=rng.randint(1, 600))
        return {"status": Message.Status.READ, "delivered_at": delivered, "read_at": read}
    if roll < 0.03:
        return {
            "status": Message.Status.BOUNCED,
            "failed_at": at + timedelta(minutes=rng.randint(1, 20)),
            "error": "550 5.1.1 mailbox unavailable",
        }
    if roll < 0.45:
        return {
            "status": Message.Status.READ,
            "read_at": at + timedelta(hours=rng.uniform(0.1, 40)),
        }
    return {"status": Message.Status.SENT}


def outbound_rows(tenant_id: int, sends: Iterable[Any], rng: random.Random) -> list[Message]:
    """One Message per send, field for field what outreach.dispatch builds (key, version,
    render, quota) and outreach.recording writes when the provider took it."""
    sends = list(sends)
    template_ids = {s.step.template_id for s in sends}
    versions: dict[int, list[TemplateVersion]] = defaultdict(list)
    for version in TemplateVersion.objects.filter(
        template_id__in=template_ids, is_active=True
    ).order_by("version"):
        versions[version.template_id].append(version)
    chats: dict[int, str] = {}
    rows = []
    for send in sends:
        lead, step, channel = send.lead, send.step, send.channel
        version = _version(send, versions)
        variables = spintax.lead_variables(lead)
        seed = spintax.variant_seed(lead.pk, step.pk, version.pk)
        body = spintax.render(version.body, variables, seed=seed)
        subject = (
            spintax.render(version.subject, variables, seed=seed).text if version.subject else ""
        )
        whatsapp = channel == Channel.WHATSAPP
        if not whatsapp:
            subject = email_subject(subject, body.text)
        new_contact = whatsapp and step.position == 1
        chat = chats.setdefault(lead.pk, str(rng.randint(10**8, 10**9))) if whatsapp else ""
        day = send.at.date()
        rows.append(
            Message(
                tenant_id=tenant_id,
                lead=lead,
                channel=channel,
                direction=Message.Direction.OUTBOUND,
                subject=subject,
                body=body.text,
                template_version=version,
                variant_hash=body.variant_hash,
                phone=send.phone if whatsapp else None,
                counterpart=lead.phone if whatsapp else lead.email,
                provider_message_id=_uid(rng),
                provider_thread_id=chat,
                quota_cost=1 if new_contact else 0,
                quota_day=day if new_contact else None,
                sequence_id=step.sequence_id,
                step=step,
                idempotency_key=f"{lead.pk}:{step.sequence_id}:{step.pk}:{channel}",
                attempts=1,
                scheduled_for=send.at - timedelta(seconds=rng.randint(20, 900)),
                sent_at=send.at,
                **_outcome(channel, send.at, rng),
            )
        )
    return rows


def set_columns(model: type[Model], objs: list[Any], names: list[str]) -> None:
    """UPDATE these fields of these rows to their values in memory, one statement run for
    every row (executemany): bulk_update's CASE per row takes a minute for a few thousand;
    and it lets the auto_now(_add) dates say when a row was made in the history."""
    if not objs:
        return
    fields = [cast(Field, model._meta.get_field(name)) for name in names]
    quote = connection.ops.quote_name
    assignments = ", ".join(f"{quote(f.column)} = %s" for f in fields)
    table = quote(model._meta.db_table)
    sql = f"UPDATE {table} SET {assignments} WHERE {quote('id')} = %s"  # noqa: S608 - names
    params = [
        [f.get_db_prep_save(getattr(obj, f.attname), connection) for f in fields] + [obj.pk]
        for obj in objs
    ]
    with connection.cursor() as cursor:
        cursor.executemany(sql, params)


def write_sends(tenant_id: int, rows: list[Any]) -> None:
    """Bulk-create the sends dated when they were queued (auto_now would say today)."""
    Message.objects.bulk_create(rows, batch_size=BATCH)
    for row in rows:
        row.created_at = row.scheduled_for
        row.updated_at = row.read_at or row.delivered_at or row.failed_at or row.sent_at
    set_columns(Message, rows, ["created_at", "updated_at"])
    _first_contacts(tenant_id, rows)
    _enrollments(tenant_id, rows)
    _phone_counters(tenant_id, rows)


def _enrollments(tenant_id: int, rows: list[Any]) -> None:
    """Each lead's enrollment as enroll_many started it and advance_after_send left it:
    COMPLETED after its sequence's last step, else ACTIVE with its next step's time (in
    the tenant's window, as advance_after_send reckons it; a due one goes out live)."""
    by_lead: dict[int, list[Any]] = defaultdict(list)
    for row in rows:
        by_lead[row.lead_id].append(row)
    sequences = {row.step.sequence_id: row.step.sequence for row in rows}
    steps = {pk: steps_of(sequence) for pk, sequence in sequences.items()}
    journeys = {j.lead_id: j for j in Journey.objects.filter(lead_id__in=list(by_lead))}
    window = SendingWindow.for_tenant(next(iter(journeys.values())).tenant) if journeys else None
    enrollments = []
    for lead_id, sent in by_lead.items():
        sent.sort(key=lambda m: m.sent_at)
        last, sequence = sent[-1], sequences[sent[-1].step.sequence_id]
        following = next((s for s in steps[sequence.pk] if s.position > last.step.position), None)
        done = following is None
        run_at = (
            window.add_delay(last.sent_at, following.delay_value, following.delay_unit)
            if window and following
            else None
        )
        enrollment = Enrollment(
            tenant_id=tenant_id,
            lead_id=lead_id,
            sequence=sequence,
            sequence_version=last.step.sequence_version,
            status=Enrollment.Status.COMPLETED if done else Enrollment.Status.ACTIVE,
            current_step=last.step.position,
            next_run_at=run_at,
            completed_at=last.sent_at if done else None,
        )
        enrollments.append(enrollment)
        journey = journeys[lead_id]
        journey.current_sequence_id, journey.sequence_step = sequence.pk, last.step.position
        journey.next_action_at = run_at
    Enrollment.objects.bulk_create(enrollments, batch_size=BATCH)
    for enrollment in enrollments:  # auto_now_add wrote today
        enrollment.started_at = by_lead[enrollment.lead_id][0].scheduled_for
    set_columns(Enrollment, enrollments, ["started_at"])
    set_columns(
        Journey, list(journeys.values()), ["current_sequence", "sequence_step", "next_action_at"]
    )


def _first_contacts(tenant_id: int, rows: list[Any]) -> None:
    """What recording does after a lead's first send: the stage move (with its transition
    row, by_system "send") and the journey's contact times, phone and channel."""
    by_lead: dict[int, list[Any]] = defaultdict(list)  # bulk rows: every date is set
    for row in rows:
        by_lead[row.lead_id].append(row)
    journeys = list(Journey.objects.filter(lead_id__in=list(by_lead)))
    transitions = []
    for journey in journeys:
        sent = sorted(by_lead[journey.lead_id], key=lambda m: m.sent_at)
        first, last = sent[0], sent[-1]
        contacted = CONTACTED[first.channel]
        if journey.stage == Stage.COLD:
            transitions.append(
                StageTransition(
                    tenant_id=tenant_id,
                    journey=journey,
                    from_stage=Stage.COLD,
                    to_stage=contacted,
                    reason=reasons.code(STAGE_SENT, channel=first.channel),
                    by_system="send",
                    created_at=first.sent_at,
                )
            )
            journey.previous_stage, journey.stage = Stage.COLD, contacted
            journey.stage_changed_at = first.sent_at
        journey.first_contact_at, journey.last_contact_at = first.sent_at, last.sent_at
        journey.last_channel = last.channel
        if first.channel == Channel.WHATSAPP:
            journey.assigned_phone_id, journey.assigned_at = first.phone_id, first.scheduled_for
    set_columns(
        Journey,
        journeys,
        [
            "stage",
            "previous_stage",
            "stage_changed_at",
            "first_contact_at",
            "last_contact_at",
            "last_channel",
            "assigned_phone",
            "assigned_at",
        ],
    )
    StageTransition.objects.bulk_create(transitions, batch_size=BATCH)
    moved_at = {journey.pk: journey.stage_changed_at for journey in journeys}
    for transition in transitions:  # auto_now_add wrote today
        transition.created_at = cast(datetime, moved_at[transition.journey_id])
    set_columns(StageTransition, transitions, ["created_at"])


def _phone_counters(tenant_id: int, rows: list[Any]) -> None:
    """The phones' totals and their quota days (whatsapp.quota's durable truth)."""
    per_phone: dict[int, list[Any]] = defaultdict(list)
    for row in rows:
        if row.phone_id:
            per_phone[row.phone_id].append(row)
    phones = Phone.objects.in_bulk(list(per_phone))
    usage = []
    for phone_id, sent in per_phone.items():
        phone = phones[phone_id]
        Phone.objects.filter(pk=phone_id).update(
            total_sent=phone.total_sent + len(sent),
            total_new_contacts=phone.total_new_contacts + sum(m.quota_cost for m in sent),
            last_sent_at=max(m.sent_at for m in sent),
        )
        days = Counter(m.quota_day for m in sent if m.quota_cost)
        usage += [
            QuotaUsage(
                tenant_id=tenant_id, phone=phone, day=day, used=used, limit=phone.daily_limit
            )
            for day, used in sorted(days.items())
        ]
    QuotaUsage.objects.bulk_create(usage, batch_size=BATCH)


def recount_versions(tenant_id: int) -> None:
    """Each version's sent_count, as recording counts it (one per message that went out)."""
    counts = (
        Message.objects.filter(
            tenant_id=tenant_id, template_version__isnull=False, status__in=WENT_OUT_STATUSES
        )
        .order_by()
        .values("template_version")
        .annotate(n=Count("pk"))
    )
    for row in counts:
        TemplateVersion.objects.filter(pk=row["template_version"]).update(sent_count=row["n"])


def mark_sent(message: Message, at: datetime, rng: random.Random) -> None:
    """A message the history queued (an opt-out confirmation, a warm email) as recording
    leaves it once sent: SENT at `at`, with the provider's id."""
    Message.objects.filter(pk=message.pk).update(
        status=Message.Status.SENT,
        sent_at=at,
        attempts=1,
        provider_message_id=_uid(rng),
        updated_at=at,
    )
