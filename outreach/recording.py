"""Recording a send: the message SENT and everything a send changes, exactly once.

Whichever finds that a message went out records it here: its own attempt, a run that
reconciled it at the provider after its worker died, a provider that says it holds it
already. A second record of the same message (two runs that both found it) writes and
counts nothing, so the sender's counters, the template's sent count and the sequence step
move once per message.
"""

from __future__ import annotations

import logging

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from cerniq import reasons
from cerniq.provider_errors import SendResult
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
    now = timezone.now()
    moved = Message.objects.filter(pk=message.pk, status__in=RECORDABLE).update(
        status=Message.Status.SENT,
        needs_reconcile=False,
        raw_response=result.raw,
        sent_at=now,
        error="",
    )
    if not moved:
        log.info("message %s: recorded already; %s not counted again", message.pk, result)
        return False
    echo = adopt_echo(message, result.provider_message_id)
    # Only a thread we learnt: the row may have learnt its chat meanwhile (a webhook), and
    # `message` in memory would not know it.
    thread = {"provider_thread_id": result.thread_id} if result.thread_id else {}
    Message.objects.filter(pk=message.pk).update(
        provider_message_id=result.provider_message_id, **{**echo, **thread}
    )
    message.status = Message.Status.SENT
    count_message(message.channel, "sent")
    transport.count_sent(message, now)
    transport.recipient_confirmed(message)
    journey = Journey.objects.select_for_update().get(lead_id=recipient_id(message))
    contacted = transport.contacted_stage
    if journey.stage in stages.AUTOMATED and journey.stage != contacted:
        sent = reasons.code(STAGE_SENT, channel=message.channel)
        stages.transition(journey, contacted, reason=sent, by_system="send")
    Journey.objects.filter(pk=journey.pk).update(
        last_channel=message.channel,
        first_contact_at=journey.first_contact_at or now,
        last_contact_at=now,
        **transport.journey_changes(message),
    )
    if message.template_version_id:
        TemplateVersion.objects.filter(pk=message.template_version_id).update(
            sent_count=F("sent_count") + 1
        )
    if message.step_id and message.sequence_id:
        enrollment = Enrollment.objects.filter(
            lead_id=journey.lead_id,
            sequence_id=message.sequence_id,
            status=Enrollment.Status.ACTIVE,
        ).first()
        if enrollment and message.step:
            sequences.advance_after_send(enrollment, message.step, now, journey)
    return True


def adopt_echo(message: Message, provider_message_id: str) -> dict[str, str]:
    """The provider's echo of this send may be stored already, as its own row (it came back
    before this send was recorded): remove it, so the send stays one row (ours) and the
    unique (channel, provider_message_id) holds, and return the chat it taught us.
    Only rows marked ECHO_MARK of the same tenant are ever taken."""
    if not provider_message_id:
        return {}
    echo = (
        Message.objects.select_for_update()
        .filter(
            tenant_id=message.tenant_id,
            channel=message.channel,
            direction=Message.Direction.OUTBOUND,
            provider_message_id=provider_message_id,
            **{f"raw_response__{ECHO_MARK}": True},
        )
        .exclude(pk=message.pk)
        .first()
    )
    if echo is None:
        return {}
    echo.delete()
    learnt = {"provider_thread_id": echo.provider_thread_id, "provider_url": echo.provider_url}
    return {name: value for name, value in learnt.items() if value}
