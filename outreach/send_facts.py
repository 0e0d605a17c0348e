"""What the still-wanted check (outreach.sending.why_not_send) reads, for one message or a
whole batch at once.

The rule reads, per message: the lead's journey; the do-not-contact entries naming its
address, domain or company; the lead's latest enrollment in the message's sequence; and,
only when the workspace's policy may hold a first message for want of a lawful basis, the
lead's recorded basis and whether it was written to before on that channel. `load` reads
each of them for all the messages in one query, so asking about a push of a thousand cold
emails costs what asking about one does; the rule itself stays in `why_not_send`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from outreach import lawful_basis
from outreach.models import ContactBasis, Enrollment, Journey, Message
from outreach.sequences import is_opt_out_confirmation
from outreach.suppression import Listed
from outreach.transports import Transport


@dataclass(frozen=True)
class Facts:
    journeys: dict[int, Journey] = field(default_factory=dict)  # by lead id
    listed: Listed = field(default_factory=Listed)
    # The latest enrollment of each (lead id, sequence id) the messages are steps of.
    enrollments: dict[tuple[int, int], Enrollment] = field(default_factory=dict)
    # Read only for the channel kinds the policy may hold (lawful_basis.may_hold).
    bases: dict[tuple[int, str], ContactBasis] = field(default_factory=dict)
    contacted: dict[str, set[int]] = field(default_factory=dict)  # kind -> lead ids


def load(messages: list[Message], transport: Transport) -> Facts:
    """The facts of these messages (of one tenant and one channel): at most five queries."""
    lead_ids = {m.lead_id for m in messages if m.lead_id is not None}
    if not lead_ids:
        return Facts()
    journeys = {j.lead_id: j for j in Journey.objects.filter(lead_id__in=lead_ids)}
    screened = [m for m in messages if m.lead_id and not is_opt_out_confirmation(m)]
    return Facts(
        journeys=journeys,
        listed=transport.listed_for(screened),
        enrollments=_enrollments(messages),
        **_bases(screened),
    )


def _enrollments(messages: list[Message]) -> dict[tuple[int, int], Enrollment]:
    steps = [m for m in messages if m.step_id and m.sequence_id is not None and m.lead_id]
    if not steps:
        return {}
    latest: dict[tuple[int, int], Enrollment] = {}
    for enrollment in Enrollment.objects.filter(
        lead_id__in={m.lead_id for m in steps}, sequence_id__in={m.sequence_id for m in steps}
    ).order_by("pk"):
        latest[(enrollment.lead_id, enrollment.sequence_id)] = enrollment
    return latest


def _bases(messages: list[Message]) -> dict:
    kinds = {
        kind
        for m in messages
        if lawful_basis.may_hold(m.tenant, kind := lawful_basis.kind_of(m.channel))
    }
    if not kinds:
        return {}
    lead_ids = {m.lead_id for m in messages if m.lead_id is not None}
    return {
        "bases": lawful_basis.current(lead_ids),
        "contacted": {kind: lawful_basis.contacted(lead_ids, kind) for kind in kinds},
    }
