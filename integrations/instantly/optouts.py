"""Leads leaving Instantly. A lead we pushed into a campaign is written to by Instantly on
its own schedule, not through our send path, so our stops must reach it there:

- an opt-out on any channel (issue #11 §8: every channel stops, across Instantly, Resend
  and WhatsApp) deletes the lead from Instantly (our history of it stays here);
- a sequence that stops before Instantly has sent our email (the lead answered on
  WhatsApp, an operator paused or closed it: the stage left the automated ones) withdraws
  the pushed lead that Instantly has not written to yet (`Lead.status` 1 Active and no
  `timestamp_last_contact`). One already written to stays: deleting it would lose its
  thread in Instantly's inbox, and a one-step campaign sends it nothing more.

Nothing else we send needs telling: our own sends check the journey before every message."""

from __future__ import annotations

import logging

from integrations.instantly import config
from outreach.models import Channel, Message

log = logging.getLogger(__name__)
ACTIVE = 1  # Instantly's Lead.status "Active" (docs/providers.md §2.2)

PUSHED = (Message.Status.SENT, Message.Status.DELIVERED, Message.Status.READ)


def pushed_lead_ids(**lead: object) -> set[str]:
    """Instantly's ids of the lead (`lead_id=…` or `lead__journey=…`) from our pushes of it
    into campaigns: empty when Instantly never had it."""
    return set(
        Message.objects.filter(
            channel=Channel.EMAIL_COLD,
            direction=Message.Direction.OUTBOUND,
            status__in=PUSHED,
            provider_thread_id="",  # a push, not an answer in a thread
            **lead,
        )
        .exclude(provider_message_id="")
        .values_list("provider_message_id", flat=True)
    )


def opted_out(*, lead_id: int) -> None:
    """The "opted_out" hook (cerniq.integrations.notify): queue the deletions, if any."""
    if not config.talks_to_instantly():
        return
    instantly_ids = pushed_lead_ids(lead_id=lead_id)
    if instantly_ids:
        from integrations.instantly.tasks import forget_lead

        for instantly_id in sorted(instantly_ids):
            forget_lead.send(instantly_id)


def withdraw_pushed(*, journey_id: int) -> None:
    """The sequence of this journey stopped: queue a withdrawal of each lead pushed."""
    if not config.talks_to_instantly():
        return
    instantly_ids = pushed_lead_ids(lead__journey=journey_id)
    if instantly_ids:
        from integrations.instantly.tasks import withdraw_lead

        for instantly_id in sorted(instantly_ids):
            withdraw_lead.send(instantly_id)


def withdraw_if_unsent(instantly_lead_id: str) -> bool:
    """Delete the Instantly lead if Instantly has not emailed it yet; True if deleted."""
    client = config.client()
    lead = client.get_lead(instantly_lead_id)
    if lead is None or lead.get("status") != ACTIVE or lead.get("timestamp_last_contact"):
        return False
    deleted = client.delete_lead(instantly_lead_id)
    if deleted:
        log.info("instantly lead %s withdrawn before its email went", instantly_lead_id)
    return deleted
