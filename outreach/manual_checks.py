"""Can a person write to this lead now, and if not, why: the checks `outreach.manual` makes
before it queues a message (it calls these, inside its lock), asked here before anyone
types, so the inbox composer shows the same reason the send would give.

Each check returns the reason as text for the operator ("" when nothing stops the send).
The sending window is the tenant's (outreach.hours, through outreach.next_send), the
phone's new-contact quota is whatsapp.quota's; the readiness of the lead's addresses
(outreach.readiness) is shown as a hint when the channel is allowed but not checked yet.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from zoneinfo import ZoneInfo

from django.contrib.auth.models import User
from django.db import connection
from django.utils import timezone
from django.utils.functional import Promise
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from cerniq import reasons
from cerniq.formats import shown
from cerniq.models import Tenant
from cerniq.tenancy import display_name
from outreach import lawful_basis
from outreach import reasons as codes
from outreach.models import SENT_STATUSES, Channel, Journey, Lead, Message
from outreach.next_send import Reason, next_send_at
from outreach.next_send_text import closure_text, moment
from outreach.readiness import ContactPolicy, State, readiness
from outreach.suppression import Kind, LeadListed, lead_listed
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
    lead: Lead,
    journey: Journey,
    user: User | None,
    *,
    allow_opted_out: bool = False,
    listed: LeadListed | None = None,
) -> str:
    """Why nothing may go to the lead on WhatsApp now (its phone's quota aside).
    `listed`: which of the lead's addresses the suppression list names, when the caller has
    read it already (None: looked up here)."""
    if journey.whatsapp_opted_out and not allow_opted_out:
        return _("This lead opted out of WhatsApp; nothing can be sent to it there.")
    if why := takeover_refusal(journey, user):
        return why
    if not lead.phone:
        return _("This lead has no phone number.")
    if allow_opted_out:
        return ""
    kind = (listed if listed is not None else lead_listed(lead)).whatsapp_kind
    return _LISTED_REFUSALS[kind]() if kind else basis_refusal(lead, Channel.WHATSAPP)


def email_refusal(
    lead: Lead, journey: Journey, user: User | None, *, listed: LeadListed | None = None
) -> str:
    """Why no email may go to the lead now (`listed`: as for `whatsapp_refusal`)."""
    if journey.email_opted_out:
        return _("This lead opted out of email; nothing can be sent to it there.")
    if why := takeover_refusal(journey, user):
        return why
    if not lead.email:
        return _("This lead has no email address.")
    if lead.email_status in UNSENDABLE_EMAIL:
        return str(UNSENDABLE_EMAIL[lead.email_status])
    kind = (listed if listed is not None else lead_listed(lead)).email_kind
    return _LISTED_REFUSALS[kind]() if kind else basis_refusal(lead, Channel.EMAIL_WARM)


def basis_refusal(lead: Lead, channel: str) -> str:
    """A first message the workspace's policy holds for want of a lawful basis."""
    if not lawful_basis.may_hold(lead.tenant, lawful_basis.kind_of(channel)):
        return ""
    check = lawful_basis.check(lead, channel)
    if not check.held:
        return ""
    return _(
        "A first message to this lead needs a lawful basis (the workspace requires one for "
        "%(country)s): record it on the lead's page first."
    ) % {"country": check.country}


# What a manual send is told when the suppression list names the lead, by the entry's kind.
_LISTED_REFUSALS: dict[str, Callable[[], str]] = {
    Kind.PHONE: lambda: _("This phone number asked us to stop; nothing can be sent to it."),
    Kind.EMAIL: lambda: _("This address asked us to stop; nothing can be sent to it."),
    Kind.DOMAIN: lambda: _(
        "This address's domain is on the do-not-contact list; nothing can be sent to it."
    ),
    Kind.CUI: lambda: _(
        "This lead's company (CUI) is on the do-not-contact list; nothing can be sent to it."
    ),
}


def _chat_phones(lead: Lead):
    """The phones of the lead's WhatsApp messages that went out, the latest first."""
    return (
        Message.objects.filter(
            lead=lead,
            channel=Channel.WHATSAPP,
            direction=Message.Direction.OUTBOUND,
            status__in=SENT_STATUSES,
        )
        .order_by("-created_at")
        .values_list("phone_id", flat=True)
    )


def _inbound(lead: Lead):
    """The lead's replies, the latest first."""
    return Message.objects.filter(lead=lead, direction=Message.Direction.INBOUND).order_by(
        "-created_at", "-pk"
    )


def email_subjects(lead: Lead):
    """The subjects of the lead's email replies, the latest first."""
    return (
        _inbound(lead)
        .filter(channel__in=EMAIL_CHANNELS)
        .exclude(subject="")
        .values_list("subject", flat=True)
    )


@dataclass(frozen=True)
class Latest:
    """What the composer reads of the lead's messages, in one query: the channel of its
    last reply, the subject of its last email reply, the phone of our last WhatsApp
    message that went out."""

    channel: str | None
    subject: str | None
    chat_phone: int | None


def _latest_sql() -> str:
    table = Message._meta.db_table
    emails = ", ".join("%s" for _ in EMAIL_CHANNELS)
    sent = ", ".join("%s" for _ in SENT_STATUSES)
    return f"""
        SELECT
            (SELECT channel FROM {table} WHERE lead_id = %s AND direction = %s
             ORDER BY created_at DESC, id DESC LIMIT 1),
            (SELECT subject FROM {table} WHERE lead_id = %s AND direction = %s
             AND channel IN ({emails}) AND subject <> ''
             ORDER BY created_at DESC, id DESC LIMIT 1),
            (SELECT phone_id FROM {table} WHERE lead_id = %s AND channel = %s
             AND direction = %s AND status IN ({sent})
             ORDER BY created_at DESC LIMIT 1)
    """  # noqa: S608 - a table name and placeholders only


_LATEST = _latest_sql()


def latest(lead: Lead) -> Latest:
    """The lead's `Latest`: `_inbound`, `email_subjects` and `_chat_phones`, the first of
    each, written out as one statement (the composer's page reads it on every render)."""
    inbound, outbound = str(Message.Direction.INBOUND), str(Message.Direction.OUTBOUND)
    emails, sent = [str(c) for c in EMAIL_CHANNELS], [str(s) for s in SENT_STATUSES]
    params: list[int | str] = [lead.pk, inbound, lead.pk, inbound]
    params += emails
    params += [lead.pk, str(Channel.WHATSAPP), outbound]
    params += sent
    with connection.cursor() as cursor:
        cursor.execute(_LATEST, params)
        channel, subject, chat_phone = cursor.fetchone()
    return Latest(channel, subject, chat_phone)


def pick_phone(
    lead: Lead, journey: Journey, *, known: Latest | None = None
) -> tuple[Phone, bool] | None:
    """The phone for this lead (whatsapp.allocation's rule) and whether it is a new contact;
    None when no usable phone can write to it today (no quota left for a new contact).
    `known`: the lead's `latest`, when the caller has read it."""
    phones = {p.pk: p for p in Phone.objects.usable().filter(tenant_id=lead.tenant_id)}
    chat_phone = known.chat_phone if known is not None else _chat_phones(lead).first()
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


def _journey(lead: Lead, known: Journey | None = None) -> Journey:
    """The lead's journey (a lead without one yet: a fresh one, unsaved, nothing held);
    `known`: the journey the page read with the lead."""
    found = known
    if found is None:
        found = Journey.objects.select_related("taken_over_by", "tenant").filter(lead=lead).first()
    elif Lead.tenant.is_cached(lead) and found.tenant_id == lead.tenant_id:
        found.tenant = lead.tenant  # for the take-over's time (held_by_message)
    return found or Journey(lead=lead, tenant=lead.tenant)


def channel_answers(
    lead: Lead,
    user: User | None,
    *,
    now: datetime | None = None,
    journey: Journey | None = None,
    known: Latest | None = None,
) -> tuple[ChannelAnswer, ChannelAnswer]:
    """WhatsApp's and email's answer for `user` writing to `lead` now: the refusals
    send_manual gives, then WhatsApp's quota. (The sending window refuses nothing a
    person writes: see `window_notice`.) `journey`: the lead's, when the page has read it
    with the lead; `known`: the lead's `latest`."""
    journey = _journey(lead, journey)
    listed = lead_listed(lead)
    ready = readiness(
        lead,
        journey if journey.pk is not None else None,
        policy=ContactPolicy.of(lead.tenant),
        listed=listed,
    )
    found = []
    for channel, label, refusal, ready_on in (
        (
            Channel.WHATSAPP,
            _("WhatsApp"),
            whatsapp_refusal(lead, journey, user, listed=listed),
            ready.whatsapp,
        ),
        (
            Channel.EMAIL_WARM,
            _("Email"),
            email_refusal(lead, journey, user, listed=listed),
            ready.email,
        ),
    ):
        if (
            not refusal
            and channel == Channel.WHATSAPP
            and pick_phone(lead, journey, known=known) is None
        ):
            refusal = str(NO_QUOTA)
        hint = ""
        taken = reasons.is_code(ready_on.reason, codes.TAKEN_OVER)
        if not refusal and ready_on.state != State.READY and not taken:
            hint = ready_on.text
        found.append(ChannelAnswer(channel, label, refusal, hint))
    return found[0], found[1]


def default_channel(
    lead: Lead, answers: tuple[ChannelAnswer, ...] = (), known: Latest | None = None
) -> str:
    """The channel an answer goes on: the one the lead last wrote on, else WhatsApp when it
    has a phone, else email; a refused one gives way to an allowed other. `known`: the
    lead's `latest`, when the caller has read it."""
    if known is not None:
        last = known.channel
    else:
        last = _inbound(lead).values_list("channel", flat=True).first()
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
