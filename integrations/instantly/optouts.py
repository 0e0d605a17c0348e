"""An opt-out or an erasure reaches Instantly (the integration's `propagation` module,
outreach.propagation). A lead we pushed into a campaign is written to by Instantly on its
own schedule, not through our send path, so an opt-out on any channel (issue #11 §8: every
channel stops, across Instantly, Resend and WhatsApp) deletes the lead from Instantly,
emailed or not (our history of it stays here). An erasure deletes every lead Instantly
holds with the person's address, pushed by us or not, found by `POST /api/v2/leads/list`.

For an opt-out, the pushes Instantly may not have emailed yet are left to the withdrawal
(withdrawal.py), which the same opt-out starts (it stops automation) and which deletes an
opted-out lead whatever Instantly did with it: one actor per lead at Instantly, so the two
never race to record the same push differently. Every other stop of automation (a
takeover, a review hold, a pause, a reply, a stage) is withdrawal.py's alone.

Nothing else we send needs telling: our own sends check the journey before every message.
"""

from __future__ import annotations

from typing import Any

from integrations.instantly import config
from outreach.automation import held_pushes
from outreach.models import Channel, Lead, Message, Propagation
from outreach.propagation import Target

PUSHED = (Message.Status.SENT, Message.Status.DELIVERED, Message.Status.READ)
DELETE = "delete_lead"


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


def targets(lead: Lead, cause: str) -> list[Target]:
    """What Instantly must delete: for an opt-out, the leads of our emailed pushes (none
    when it never had the lead); for an erasure, those and whatever it has at the address."""
    if not config.talks_to_instantly():
        return []
    ids = pushed_lead_ids(lead_id=lead.pk)
    if cause == Propagation.Cause.OPT_OUT:
        held = set(
            Message.objects.filter(pk__in=held_pushes([lead.pk])).values_list(
                "provider_message_id", flat=True
            )
        )
        ids -= held
        return [Target(DELETE, {"ids": sorted(ids)})] if ids else []
    target: dict[str, Any] = {"ids": sorted(ids)}
    if lead.email:
        target["lookup"] = lead.email.strip().lower()  # dropped once Instantly confirmed
    return [Target(DELETE, target)] if ids or lead.email else []


def apply(receipt: Propagation) -> dict[str, Any]:
    """Delete the leads (`DELETE /api/v2/leads/{id}`; a 404 is a lead already gone). A
    provider error is raised: the receipt's retry decides what next."""
    client = config.client()
    ids = list(receipt.target.get("ids", []))
    if lookup := receipt.target.get("lookup"):
        ids += [str(found["id"]) for found in client.find_leads(contacts=[lookup])]
    deleted: list[str] = []
    gone: list[str] = []
    for instantly_id in dict.fromkeys(ids):
        (deleted if client.delete_lead(instantly_id) else gone).append(instantly_id)
    return {"deleted": deleted, "already_gone": gone}
