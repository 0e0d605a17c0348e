"""Can a person write to this lead now, and if not, why: the checks `outreach.manual` makes
before it queues a message (it calls these, inside its lock), asked here before anyone
types, so the inbox composer shows the same reason the send would give.

Each check returns the reason as text for the operator ("" when nothing stops the send).
The sending window is the tenant's (outreach.hours, through outreach.next_send), the
phone's new-contact quota is whatsapp.quota's; the readiness of the lead's addresses
(outreach.readiness) is shown as a hint when the channel is allowed but not checked yet.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from zoneinfo import ZoneInfo

from django.contrib.auth.models import User
from django.utils import timezone
from django.utils.functional import Promise
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from cerniq import reasons
from cerniq.formats import shown
from cerniq.models import Tenant
from cerniq.tenancy import display_name
from outreach import reasons as codes
from outreach.models import SENT_STATUSES, Channel, Journey, Lead, Message
from outreach.next_send import Reason, next_send_at
from outreach.next_send_text import closure_text, moment
from outreach.readiness import State, for_tenant
from outreach.suppression import is_suppressed
from whatsapp import quota
from whatsapp.allocation import choose_phone
from whatsapp.models import Phone

EMAIL_CHANNELS = (Channel.EMAIL_COLD, Channel.EMAIL_WARM)
# What a person writes on: WhatsApp, or a warm email (Resend).
COMPOSER_CHANNELS = (Channel.WHATSAPP, Channel.EMAIL_WARM)

# An address the providers told us not to write to (outreach.email_events).
UNSENDABLE_EMAIL: dict[str, Promise] = {
    Lead.EmailStatus.INVALID: gettext_lazy("This lead's email address is invalid."),
    Lead.EmailStatus.BOUNCED: gettext_lazy(
        "Emails to this address bounce; nothing can be sent to it."
    ),
    Lead.EmailStatus.UNSUBSCRIBED: gettext_lazy(
        "This address unsubscribed; nothing can be sent to it."
    ),
    Lead.EmailStatus.COMPLAINED: gettext_lazy(
        "This address reported us as spam; nothing can be sent to it."
    ),
}


def held_by_message(journey: Journey) -> str:
    """Why only the holder may write: "Ana took over this conversation on 24 Nov at 10:05…"."""
    who = display_name(journey.taken_over_by)
    if journey.taken_over_at is None:
        return _("%(user)s took over this conversation; ask them to hand it back first.") % {
            "user": who
        }
    at = timezone.localtime(journey.taken_over_at, ZoneInfo(journey.tenant.time_zone))
    return _(
        "%(user)s took over this conversation on %(day)s at %(time)s; "
        "ask them to hand it back first."
    ) % {"user": who, "day": shown(at, "MONTH_DAY_FORMAT"), "time": shown(at, "TIME_FORMAT")}


def takeover_refusal(journey: Journey, user: User | None) -> str:
    """The takeover rule (the one place): while a person holds the conversation only they
    write to the lead; automation (`user` None) never does."""
    if not journey.taken_over_by_id:
        return ""
    if user is None:
        return _("An operator has taken over this conversation; automation is off.")
    if journey.taken_over_by_id != user.pk:
        return held_by_message(journey)
    return ""


def whatsapp_refusal(
    lead: Lead, journey: Journey, user: User | None, *, allow_opted_out: bool = False
) -> str:
    """Why nothing may go to the lead on WhatsApp now (its phone's quota aside)."""
    if journey.whatsapp_opted_out and not allow_opted_out:
        return _("This lead opted out of WhatsApp; nothing can be sent to it there.")
    if why := takeover_refusal(journey, user):
        return why
    if not lead.phone:
        return _("This lead has no phone number.")
    if not allow_opted_out and is_suppressed(lead.tenant_id, phone=lead.phone):
        return _("This phone number asked us to stop; nothing can be sent to it.")
    return ""


def email_refusal(lead: Lead, journey: Journey, user: User | None) -> str:
    """Why no email may go to the lead now."""
    if journey.email_opted_out:
        return _("This lead opted out of email; nothing can be sent to it there.")
    if why := takeover_refusal(journey, user):
        return why
    if not lead.email:
        return _("This lead has no email address.")
    if lead.email_status in UNSENDABLE_EMAIL:
        return str(UNSENDABLE_EMAIL[lead.email_status])
    if is_suppressed(lead.tenant_id, email=lead.email):
        return _("This address asked us to stop; nothing can be sent to it.")
    return ""


def pick_phone(lead: Lead, journey: Journey) -> tuple[Phone, bool] | None:
    """The phone for this lead (whatsapp.allocation's rule) and whether it is a new contact;
    None when no usable phone can write to it today (no quota left for a new contact)."""
    phones = {p.pk: p for p in Phone.objects.usable().filter(tenant_id=lead.tenant_id)}
    chat_phone = (
        Message.objects.filter(
            lead=lead,
            channel=Channel.WHATSAPP,
            direction=Message.Direction.OUTBOUND,
            status__in=SENT_STATUSES,
        )
        .order_by("-created_at")
        .values_list("phone_id", flat=True)
        .first()
    )
    day = quota.quota_day(lead.tenant)
    status = quota.status_many(phones.values(), day)
    chosen = choose_phone(
        phones,
        {pk: s.remaining for pk, s in status.items()},
        chat_phone=chat_phone,
        assigned_phone=journey.assigned_phone_id,
    )
    if chosen is None:
        return None
    return phones[chosen.phone_id], chosen.new_contact


NO_QUOTA = gettext_lazy("No active WhatsApp phone has quota left today for a new contact.")


def window_notice(tenant: Tenant, now: datetime | None = None) -> str:
    """The tenant's sending window, closed now: until when and why, and that a person's
    message still goes out ("" when open). Automation waits; the operator should know."""
    answer = next_send_at(tenant, now=now or timezone.now())
    if answer.reason != Reason.WINDOW_CLOSED or answer.at is None or answer.window is None:
        return ""
    return _(
        "The sending window is closed until %(moment)s (%(why)s); sequences wait, "
        "messages you write still go out now."
    ) % {
        "moment": moment(answer.at, answer.window),
        "why": closure_text(answer),
    }


@dataclass(frozen=True)
class ChannelAnswer:
    """One channel of the composer: may the operator send on it now, or why not."""

    channel: str  # a COMPOSER_CHANNELS value
    label: str
    refusal: str = ""  # "" when allowed
    hint: str = ""  # something to know although it is allowed (readiness: not checked yet)

    @property
    def allowed(self) -> bool:
        return not self.refusal


def _journey(lead: Lead) -> Journey:
    """The lead's journey (a lead without one yet: a fresh one, unsaved, nothing held)."""
    found = Journey.objects.select_related("taken_over_by", "tenant").filter(lead=lead).first()
    return found or Journey(lead=lead, tenant=lead.tenant)


def channel_answers(
    lead: Lead, user: User | None, *, now: datetime | None = None
) -> tuple[ChannelAnswer, ChannelAnswer]:
    """WhatsApp's and email's answer for `user` writing to `lead` now: the refusals
    send_manual gives, then WhatsApp's quota. (The sending window refuses nothing a
    person writes: see `window_notice`.)"""
    journey = _journey(lead)
    ready = for_tenant(lead)
    found = []
    for channel, label, refusal, readiness in (
        (Channel.WHATSAPP, _("WhatsApp"), whatsapp_refusal(lead, journey, user), ready.whatsapp),
        (Channel.EMAIL_WARM, _("Email"), email_refusal(lead, journey, user), ready.email),
    ):
        if not refusal and channel == Channel.WHATSAPP and pick_phone(lead, journey) is None:
            refusal = str(NO_QUOTA)
        hint = ""
        taken = reasons.is_code(readiness.reason, codes.TAKEN_OVER)
        if not refusal and readiness.state != State.READY and not taken:
            hint = readiness.text
        found.append(ChannelAnswer(channel, label, refusal, hint))
    return found[0], found[1]


def default_channel(lead: Lead, answers: tuple[ChannelAnswer, ...] = ()) -> str:
    """The channel an answer goes on: the one the lead last wrote on, else WhatsApp when it
    has a phone, else email; a refused one gives way to an allowed other."""
    last = (
        Message.objects.filter(lead=lead, direction=Message.Direction.INBOUND)
        .order_by("-created_at", "-pk")
        .values_list("channel", flat=True)
        .first()
    )
    if last in EMAIL_CHANNELS:
        chosen: str = Channel.EMAIL_WARM
    elif last == Channel.WHATSAPP or lead.phone:
        chosen = Channel.WHATSAPP
    else:
        chosen = Channel.EMAIL_WARM
    allowed = [a.channel for a in answers if a.allowed]
    if allowed and chosen not in allowed:
        return allowed[0]
    return chosen
