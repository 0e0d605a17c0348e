"""A pushed lead Instantly has not emailed yet is withdrawn when automation stops for it.

The "automation_stopped" hook (outreach.automation.stopped: a takeover, a review hold, a
pause, a reply on any channel, the company's stop, a closing stage, an opt-out) queues
one `withdraw_push` per cold email Instantly may still hold for the leads
(outreach.automation.held_pushes). Each run asks the one rule again first
(`still_stopped`): a lead handed back or out of review in the meantime keeps its email.

Which call. For one lead Instantly's API offers `DELETE /api/v2/leads/{id}`, a `PATCH` of
its fields, a move to another campaign or list (`POST /api/v2/leads/move`, a background
job) and the workspace blocklist. Only the delete stops the campaign's send at once and
for certain: no documented field pauses one lead, a move is asynchronous and the lead
goes on in its new campaign, the blocklist is for the whole workspace and outlives the
stop. The delete is undone by pushing the step again, and that is what resuming does:
the withdrawal steps our sequence back (outreach.withdrawal.take_back), so a hand-back,
the end of a pause or a closed review queues the step again, and it is pushed anew only
then, when automation is wanted again.

A lead Instantly has emailed already (`GET`: its `status` is no longer 1 Active, or
`timestamp_last_contact` is set) stays: deleting it would lose its thread in Instantly's
inbox, and its one-step campaign sends it nothing more; it is marked so and never looked
up again. An opt-out is the exception: it leaves nothing of the lead at Instantly
(optouts.py), so an emailed lead who opted out is deleted all the same. A 404 on either
call means Instantly no longer has the lead (our delete whose answer was lost): done.

Faults: a run makes two calls at most; a provider error goes through the retry table
(cerniq.retry.decide, each class of error counting its own tries, carried from run to run
by the actor); past it the failure is said on the lead's conversation and in an alert
(outreach.withdrawal.withdrawal_failed). A push still in flight (its row SENDING) is
waited for.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import timedelta

from cerniq import retry
from cerniq.provider_errors import ProviderError
from email_channels.models import EmailCampaign
from integrations.instantly import config
from integrations.instantly.campaign_sync import PROVIDER
from outreach.automation import HOLDING, held_pushes
from outreach.models import Journey, Message
from outreach.transports import recipient_id
from outreach.withdrawal import mark_emailed, still_stopped, take_back, withdrawal_failed

log = logging.getLogger(__name__)

LABEL = "Instantly"
ACTIVE = 1  # Instantly's Lead.status "Active": the campaign still writes to it
PUSH_WAIT = timedelta(seconds=60)  # a push in flight settles within its lease
PUSH_WAITS = 10
LATER = timedelta(hours=1)  # a retry-table row that waits for "the next day's window"


@dataclass(frozen=True)
class Withdrawal:
    """What one run did: withdrawn, gone (404: done), emailed (left there), wanted
    (automation runs again), settled (nothing held), retry (at `retry_in`), failed."""

    outcome: str
    failures: dict[str, int] = field(default_factory=dict)
    retry_in: timedelta | None = None


def automation_stopped(*, lead_ids: list[int]) -> None:
    """The "automation_stopped" hook (cerniq.integrations.notify): queue the withdrawals."""
    if not config.talks_to_instantly():
        return
    message_ids = held_pushes(lead_ids)
    if message_ids:
        from integrations.instantly.tasks import withdraw_push

        for message_id in message_ids:
            withdraw_push.send(message_id)


def withdraw(message_id: int, failures: dict[str, int] | None = None) -> Withdrawal:
    """Withdraw this pushed cold email from Instantly if automation is still stopped for
    its lead and Instantly has not sent it. Safe to run twice: a settled row costs no call.
    `failures`: the provider errors of the earlier runs, by class of the retry table."""
    failures = dict(failures or {})
    message = Message.objects.select_related("tenant", "step").filter(pk=message_id).first()
    if message is None or message.status not in HOLDING:
        return Withdrawal("settled", failures)
    why = still_stopped(message)
    if not why:
        return Withdrawal("wanted", failures)
    campaign = campaign_label(message)
    if message.status == Message.Status.SENDING or not message.provider_message_id:
        return _wait_for_push(message, failures, campaign=campaign, why=why)
    instantly_id = message.provider_message_id
    client = config.client()
    try:
        lead = client.get_lead(instantly_id)
        if lead is not None and _emailed(lead):
            opted_out = Journey.objects.filter(lead_id=recipient_id(message), email_opted_out=True)
            if opted_out.exists():
                client.delete_lead(instantly_id)  # an opt-out leaves nothing there
            mark_emailed(message, str(lead.get("timestamp_last_contact") or ""))
            return Withdrawal("emailed", failures)
        deleted = lead is not None and client.delete_lead(instantly_id)
    except ProviderError as error:
        return _failed(message, error, failures, campaign=campaign, why=why)
    take_back(message, provider=LABEL, campaign=campaign, why=why)
    log.info("instantly lead %s withdrawn (message %s)", instantly_id, message.pk)
    return Withdrawal("withdrawn" if deleted else "gone", failures)


def _emailed(lead: dict) -> bool:
    """Instantly wrote to the lead already, or its campaign no longer will."""
    return lead.get("status") != ACTIVE or bool(lead.get("timestamp_last_contact"))


def campaign_label(message: Message) -> str:
    """The campaign's name as operators know it (its Instantly id if we have no row)."""
    campaign_id = str((message.raw_response or {}).get("campaign_id") or "")
    name = (
        EmailCampaign.objects.filter(
            tenant_id=message.tenant_id, provider=PROVIDER, external_id=campaign_id
        )
        .values_list("name", flat=True)
        .first()
    )
    return (name or campaign_id or "?")[:80]


def _failed(
    message: Message, error: ProviderError, failures: dict[str, int], *, campaign: str, why: str
) -> Withdrawal:
    """The retry table decides: again later, or give up and say so."""
    kind = retry.error_class(error)
    failures[kind] = failures.get(kind, 0) + 1
    decision = retry.decide(error, failures[kind])
    if not decision.give_up:
        return Withdrawal("retry", failures, decision.retry_in or LATER)
    detail = f"{type(error).__name__}: {error}"[:120]
    withdrawal_failed(message, provider=LABEL, campaign=campaign, why=why, error=detail)
    log.warning("instantly withdrawal of message %s given up: %s", message.pk, detail)
    return Withdrawal("failed", failures)


def _wait_for_push(
    message: Message, failures: dict[str, int], *, campaign: str, why: str
) -> Withdrawal:
    failures["pushing"] = failures.get("pushing", 0) + 1
    if failures["pushing"] <= PUSH_WAITS:
        return Withdrawal("retry", failures, PUSH_WAIT)
    minutes = PUSH_WAITS * int(PUSH_WAIT.total_seconds()) // 60
    error = f"its push did not settle in {minutes} minutes"
    withdrawal_failed(message, provider=LABEL, campaign=campaign, why=why, error=error)
    return Withdrawal("failed", failures)
