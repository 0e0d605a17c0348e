"""Our stage machine → Instantly's lead interest (issue #11 §2, "both ways"; the other way
is handlers.STAGE_MOVES). When a lead Instantly knows (one we pushed into a campaign) moves
to a stage that means something to Instantly, its interest status there follows, so the
unibox and Instantly's own reports agree with ours. Changes that came from Instantly are
not sent back (no echo)."""

from __future__ import annotations

import logging

from integrations.instantly import config
from integrations.instantly.optouts import pushed_lead_ids
from outreach.models import Journey, Stage

log = logging.getLogger(__name__)
SYSTEM = "instantly"  # by_system of the transitions the webhook handlers make

# Our stage → Instantly's `interest_value` (docs/providers.md §2.2: 1 Interested, 2 Meeting
# Booked, 4 Won, -1 Not Interested). Stages not listed say nothing new to Instantly.
INTEREST: dict[str, int] = {
    Stage.WARM_REPLY: 1,
    Stage.NEGOTIATION: 2,
    Stage.CONVERTED: 4,
    Stage.DEAD: -1,
}


def stage_changed(*, journey_id: int, from_stage: str, to_stage: str, by_system: str) -> None:
    """The "stage_changed" hook (cerniq.integrations.notify): the interest update, if any.
    (A stage that stops automation withdraws unsent pushes through the
    "automation_stopped" hook: withdrawal.py.)"""
    if by_system == SYSTEM or to_stage not in INTEREST or not config.talks_to_instantly():
        return
    if pushed_lead_ids(lead__journey=journey_id):
        from integrations.instantly.tasks import push_interest

        push_interest.send(journey_id, INTEREST[to_stage])


def set_interest(journey_id: int, interest_value: int) -> None:
    """Tell Instantly the lead's interest (a 202 background job there)."""
    journey = Journey.objects.select_related("lead").filter(pk=journey_id).first()
    if journey is None or not journey.lead.email:
        return
    config.client().update_interest_status(journey.lead.email, interest_value)
    log.info("instantly interest of journey %s set to %s", journey_id, interest_value)
