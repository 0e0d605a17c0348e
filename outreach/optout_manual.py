"""What a person does about an opt-out: record one a lead asked for outside our channels'
own paths (a phone call), or lift one the lead takes back. Each needs a reason (one rule,
`_stated_reason`) and leaves an audit row; what an opt-out does is `outreach.optout.opt_out`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from outreach import stalls
from outreach.models import Channel, Journey, Lead, OptOutLift, OptOutRecord, Suppression
from outreach.optout import opt_out


class OptOutRefused(ValueError):
    """An opt-out cannot be recorded or lifted as asked; the text says why, for the
    operator. `field` names the input at fault (the API answers 400 naming it); empty when
    the lead's state is what refuses."""

    def __init__(self, message: str, *, field: str = "") -> None:
        super().__init__(message)
        self.field = field


class LiftRefused(OptOutRefused):
    """The opt-out cannot be lifted as asked."""


MIN_REASON = 15  # characters: a sentence a colleague can check, not "ok"
MAX_REASON = 1000


def _stated_reason(reason: str, refused: type[OptOutRefused], ask: str) -> str:
    """The one rule for the reason of a recorded or lifted opt-out: at least MIN_REASON
    characters once spaces are squeezed, at most MAX_REASON. Returns it as kept; `ask` is
    the refusal of a reason too short."""
    reason = " ".join((reason or "").split())
    if len(reason) < MIN_REASON:
        raise refused(ask % {"n": MIN_REASON}, field="reason")
    if len(reason) > MAX_REASON:
        raise refused(
            _("The reason can be at most %(n)d characters long.") % {"n": MAX_REASON},
            field="reason",
        )
    if "\x00" in reason:
        raise refused(_("The reason contains a NUL character."), field="reason")
    return reason


# Where an operator says the lead asked, as opt_out's `channel` (the webhook's `channel`):
# ALL when it was asked outside our channels (a phone call, in person).
RECORDED_CHANNEL: dict[str, str] = {
    OptOutRecord.AskedOn.WHATSAPP: Channel.WHATSAPP,
    OptOutRecord.AskedOn.EMAIL: Channel.EMAIL_WARM,
    OptOutRecord.AskedOn.ALL: "ALL",
}


def _checked(channel: str, reason: str) -> str:
    if channel not in OptOutRecord.AskedOn.values:
        raise OptOutRefused(
            _("Choose where the lead asked to stop: WhatsApp, email or another way."),
            field="channel",
        )
    return _stated_reason(
        reason,
        OptOutRefused,
        _("Say why the lead is opted out (at least %(n)d characters): who asked, when, how."),
    )


@transaction.atomic
def record_opt_out(lead: Lead, *, user, channel: str, reason: str) -> OptOutRecord | None:
    """An operator records that the lead asked us to stop (on a call, by email to a
    colleague, on WhatsApp outside the thread): opt_out's rule (every channel stops, open
    enrollments end, queued messages are cancelled, providers are told, the addresses are
    suppressed), audited in OptOutRecord with where it was asked (`channel`: whatsapp,
    email or all) and why. None when the lead is already out of every channel: nothing
    changes and nothing is recorded."""
    reason = _checked(channel, reason)
    journey = Journey.objects.select_for_update().filter(lead=lead).first()
    if journey is None:
        raise OptOutRefused(_("This lead has no journey yet."))
    if journey.whatsapp_opted_out and journey.email_opted_out:
        return None
    opt_out(lead, RECORDED_CHANNEL[channel])
    return OptOutRecord.objects.create(
        tenant_id=lead.tenant_id, lead=lead, by_user=user, asked_on=channel, reason=reason
    )


@dataclass
class RecordedOptOuts:
    done: int = 0
    already_out: int = 0
    refused: dict[str, int] = field(default_factory=dict)  # why not, how many leads


def record_opt_outs(leads: Iterable[Lead], *, user, channel: str, reason: str) -> RecordedOptOuts:
    """The bulk action: one place and reason for every lead, checked before any changes."""
    _checked(channel, reason)
    result = RecordedOptOuts()
    for lead in leads:
        try:
            recorded = record_opt_out(lead, user=user, channel=channel, reason=reason)
        except OptOutRefused as refused:
            result.refused[str(refused)] = result.refused.get(str(refused), 0) + 1
            continue
        if recorded is None:
            result.already_out += 1
        else:
            result.done += 1
    return result


@transaction.atomic
def lift_opt_out(lead: Lead, *, user, reason: str) -> OptOutLift:
    """Lift a lead's opt-out on every channel, for a stated reason (issue #11 §8): the lead
    asked to hear from us again (a call, a signed form). Takes its phone and email off the
    suppression list, and an unsubscribed or complained address back to valid (a bounce
    stays: the address still does not exist). Audited in OptOutLift."""
    reason = _stated_reason(
        reason,
        LiftRefused,
        _("Say why the opt-out is lifted (at least %(n)d characters): who asked, when, how."),
    )
    if lead.erased_at is not None:
        raise LiftRefused(_("This person was erased on request: they are never contacted again."))
    journey = Journey.objects.select_for_update().get(lead=lead)
    if not (journey.whatsapp_opted_out or journey.email_opted_out):
        raise LiftRefused(_("This lead has not opted out."))
    addresses = [a for a in (lead.phone, (lead.email or "").strip().lower()) if a]
    listed = Suppression.objects.filter(
        Q(phone__in=addresses) | Q(email__in=addresses), tenant_id=lead.tenant_id
    )
    removed = list(listed.values_list("phone", "email"))
    listed.delete()
    lift = OptOutLift.objects.create(
        tenant_id=lead.tenant_id,
        lead=lead,
        by_user=user,
        reason=reason,
        whatsapp_opted_out_at=journey.whatsapp_opted_out_at,
        email_opted_out_at=journey.email_opted_out_at,
        email_status_before=lead.email_status,
        unsuppressed=[phone or email for phone, email in removed],
    )
    Journey.objects.filter(pk=journey.pk).update(
        whatsapp_opted_out=False,
        whatsapp_opted_out_at=None,
        email_opted_out=False,
        email_opted_out_at=None,
        updated_at=timezone.now(),
    )
    if lead.email_status in (Lead.EmailStatus.UNSUBSCRIBED, Lead.EmailStatus.COMPLAINED):
        Lead.objects.filter(pk=lead.pk).update(email_status=Lead.EmailStatus.VALID)
    stalls.wake([lead.pk])  # an enrollment the opt-out stalled is due again
    return lift
