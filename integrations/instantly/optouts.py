"""An opt-out reaches Instantly. A lead we pushed into a campaign is written to by
Instantly on its own schedule, not through our send path, so an opt-out on any channel
(issue #11 §8: every channel stops, across Instantly, Resend and WhatsApp) deletes the
lead from Instantly, emailed or not (our history of it stays here).

The pushes Instantly may not have emailed yet are left to the withdrawal
(withdrawal.py), which the same opt-out starts (it stops automation) and which deletes
an opted-out lead whatever Instantly did with it: one actor per lead at Instantly, so the
two never race to record the same push differently. Every other stop of automation (a
takeover, a review hold, a pause, a reply, a stage) is withdrawal.py's alone.

Nothing else we send needs telling: our own sends check the journey before every message.
"""

from __future__ import annotations

from integrations.instantly import config
from outreach.automation import held_pushes
from outreach.models import Channel, Message

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
    held = set(
        Message.objects.filter(pk__in=held_pushes([lead_id])).values_list(
            "provider_message_id", flat=True
        )
    )
    instantly_ids = pushed_lead_ids(lead_id=lead_id) - held
    if instantly_ids:
        from integrations.instantly.tasks import forget_lead

        for instantly_id in sorted(instantly_ids):
            forget_lead.send(instantly_id)
