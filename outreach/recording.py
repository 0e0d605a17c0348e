"""Recording a send: the message SENT and everything a send changes, exactly once.

Whichever finds that a message went out records it here: its own attempt, a run that
reconciled it at the provider after its worker died, a provider that says it holds it
already. A second record of the same message (two runs that both found it) writes and
counts nothing, so the sender's counters, the template's sent count and the sequence step
move once per message.
"""

from __future__ import annotations

import logging
from collections import Counter
from datetime import datetime

from django.db import transaction
from django.db.models import DateTimeField, F, Value
from django.db.models.functions import Coalesce
from django.utils import timezone

from cerniq import reasons
from cerniq.provider_errors import SendResult
from cerniq.row_updates import update_rows
from outreach import sequences, stages
from outreach.metrics import count_message
from outreach.models import Enrollment, Journey, Message, TemplateVersion
from outreach.reasons import STAGE_SENT
from outreach.transports import Transport, recipient_id

log = logging.getLogger(__name__)

# A provider's echo of a send that no row of ours matched yet (WhatsApp's
# `message:sent:new`) is stored as an outbound row with this key true in `raw_response`;
# the send that owns the provider id adopts it in `record_sent` (`adopt_echo`).
ECHO_MARK = "provider_echo"

# A message is recorded sent from these only: once recorded, a second record (a run that
# reconciled it while its own attempt was still answering) changes and counts nothing.
RECORDABLE = (Message.Status.QUEUED, Message.Status.SENDING)


@transaction.atomic
def record_sent(message: Message, transport: Transport, result: SendResult) -> bool:
    """SENT, plus everything a send changes: journey, stage, sequence, template results,
    the sender's counters. Exactly once per message: False (nothing written) when it was
    recorded already."""
    return bool(record_sent_many([(message, result)], transport))


@transaction.atomic
def record_sent_many(sent: list[tuple[Message, SendResult]], transport: Transport) -> list[Message]:
    """`record_sent` for a batch (a push of cold email): the same changes, written in a
    number of statements that does not grow with the batch. Returns the messages recorded
    by this call; one recorded already (another run found it) is left out, its effects
    neither written nor counted again."""
    if not sent:
        return []
    now = timezone.now()
    given = {message.pk: (message, result) for message, result in sent}
    # Locked, so of two runs recording the same message only the first finds it recordable
    # (rows are locked in id order, here and below: two batches never wait on each other).
    current = {
        pk: (thread, url)
        for pk, thread, url in Message.objects.select_for_update()
        .filter(pk__in=given, status__in=RECORDABLE)
        .order_by("pk")
        .values_list("pk", "provider_thread_id", "provider_url")
    }
    for pk in given.keys() - current.keys():
        log.info("message %s: recorded already; %s not counted again", pk, given[pk][1])
    if not current:
        return []
    recorded = [given[pk][0] for pk in current]
    echoes = adopt_echoes([(m, given[m.pk][1].provider_message_id) for m in recorded])
    _write_results(recorded, given, current, echoes, now)
    for message in recorded:
        message.status = Message.Status.SENT
    for channel, n in Counter(m.channel for m in recorded).items():
        count_message(channel, "sent", n)
    transport.count_sent_many(recorded, now)
    transport.recipient_confirmed_many(recorded)
    journeys = _advance_journeys(recorded, transport, now)
    _count_templates(recorded)
    _advance_enrollments(recorded, journeys, now)
    return recorded


def _write_results(
    recorded: list[Message],
    given: dict[int, tuple[Message, SendResult]],
    current: dict[int, tuple[str, str]],
    echoes: dict[int, dict[str, str]],
    now: datetime,
) -> None:
    """SENT, with each message's provider id and answer, and its chat and link when this
    send or its adopted echo taught them (only then: the row may have learnt its chat
    meanwhile from a webhook, and the value read under the lock is what stays)."""
    rows = {}
    for message in recorded:
        result = given[message.pk][1]
        thread, url = current[message.pk]
        echo = echoes.get(message.pk, {})
        rows[message.pk] = {
            "raw_response": result.raw,
            "provider_message_id": result.provider_message_id,
            "provider_thread_id": result.thread_id or echo.get("provider_thread_id") or thread,
            "provider_url": echo.get("provider_url") or url,
        }
    sent = {"status": Message.Status.SENT, "needs_reconcile": False, "sent_at": now, "error": ""}
    update_rows(Message, rows, also=sent)


def _advance_journeys(
    recorded: list[Message], transport: Transport, now: datetime
) -> dict[int, Journey]:
    """The leads' journeys, locked: a lead still in automation's stages moves to the
    channel's contacted stage (the stage machine, all at once), and each journey keeps its
    last contact. Returns them by lead id."""
    lead_ids = {recipient_id(m) for m in recorded}
    locked = Journey.objects.select_for_update().filter(lead_id__in=lead_ids).order_by("pk")
    journeys = {journey.lead_id: journey for journey in locked}
    contacted = transport.contacted_stage
    moving: dict[str, dict[int, Journey]] = {}
    contact: dict[tuple, set[int]] = {}
    for message in recorded:
        journey = journeys.get(recipient_id(message))
        if journey is None:  # the send path drops a message without one first
            continue
        if journey.stage in stages.AUTOMATED and journey.stage != contacted:
            moving.setdefault(message.channel, {})[journey.pk] = journey
        changes = tuple(sorted(transport.journey_changes(message).items()))
        contact.setdefault((message.channel, changes), set()).add(journey.pk)
    for channel, group in moving.items():
        sent = reasons.code(STAGE_SENT, channel=channel)
        stages.transition_many(
            list(group.values()), contacted, reason=sent, by_system="send", locked=True
        )
    for (channel, changes), ids in contact.items():
        Journey.objects.filter(pk__in=ids).update(
            last_channel=channel,
            first_contact_at=Coalesce(F("first_contact_at"), Value(now, DateTimeField())),
            last_contact_at=now,
            **dict(changes),
        )
    return journeys


def _count_templates(recorded: list[Message]) -> None:
    """Each template version's sent count, one UPDATE per distinct number added."""
    per_version = Counter(m.template_version_id for m in recorded if m.template_version_id)
    by_amount: dict[int, list[int]] = {}
    for version_id, n in per_version.items():
        by_amount.setdefault(n, []).append(version_id)
    for n, ids in by_amount.items():
        TemplateVersion.objects.filter(pk__in=ids).update(sent_count=F("sent_count") + n)


def _advance_enrollments(
    recorded: list[Message], journeys: dict[int, Journey], now: datetime
) -> None:
    """A sequence's step that went out moves its running enrollment on (sequences)."""
    stepping = [m for m in recorded if m.step_id and m.sequence_id and m.lead_id in journeys]
    if not stepping:
        return
    active: dict[tuple[int, int | None], Enrollment] = {}
    for running in Enrollment.objects.filter(
        lead_id__in={m.lead_id for m in stepping},
        sequence_id__in={m.sequence_id for m in stepping},
        status=Enrollment.Status.ACTIVE,
    ).order_by("pk"):
        active.setdefault((running.lead_id, running.sequence_id), running)
    advancing = []
    for message in stepping:
        enrollment = active.get((recipient_id(message), message.sequence_id))
        if enrollment and message.step:
            advancing.append((enrollment, message.step, journeys[recipient_id(message)]))
    sequences.advance_many(advancing, now)


def adopt_echo(message: Message, provider_message_id: str) -> dict[str, str]:
    """The provider's echo of this send may be stored already, as its own row (it came back
    before this send was recorded): remove it, so the send stays one row (ours) and the
    unique (channel, provider_message_id) holds, and return the chat it taught us.
    Only rows marked ECHO_MARK of the same tenant are ever taken."""
    return adopt_echoes([(message, provider_message_id)]).get(message.pk, {})


def adopt_echoes(sends: list[tuple[Message, str]]) -> dict[int, dict[str, str]]:
    """`adopt_echo` for many sends (message, provider id) in one lookup: what each echo
    taught, by message id (none for a send without an echo)."""
    wanted = {(m.tenant_id, m.channel, pid): m for m, pid in sends if pid}
    if not wanted:
        return {}
    echoes = (
        Message.objects.select_for_update()
        .filter(
            tenant_id__in={tenant for tenant, _, _ in wanted},
            channel__in={channel for _, channel, _ in wanted},
            direction=Message.Direction.OUTBOUND,
            provider_message_id__in={pid for _, _, pid in wanted},
            **{f"raw_response__{ECHO_MARK}": True},
        )
        .exclude(pk__in=[m.pk for m in wanted.values()])
    )
    taught: dict[int, dict[str, str]] = {}
    adopted: list[int] = []
    for echo in echoes:
        message = wanted.get((echo.tenant_id, echo.channel, echo.provider_message_id))
        if message is None or message.pk in taught:
            continue
        adopted.append(echo.pk)
        learnt = {"provider_thread_id": echo.provider_thread_id, "provider_url": echo.provider_url}
        taught[message.pk] = {name: value for name, value in learnt.items() if value}
    if adopted:
        Message.objects.filter(pk__in=adopted).delete()
    return taught
