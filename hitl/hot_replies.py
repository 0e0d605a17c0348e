"""A hot reply (interest, a meeting, a price: hitl.routing.is_hot) reaches a person within
seconds of its arrival, not at the next look at the queue.

Who hears of it: the operator the lead belongs to now (the one who took the conversation
over, else the assignee of one of its open review items, else the operator a lead rule
gave it to) by e-mail, when the deployment sends e-mail (EMAIL_URL) and that person has an
address; otherwise the tenant's alert channels, through a HOT_REPLY alert (cerniq.alerts).
Both are handed to the workers the moment the reply's transaction commits (the `alerts`
queue, no delay): no periodic job stands between the reply and the notice. An e-mail that
cannot be sent falls back to the alert channels, so the notice is never lost.
"""

from __future__ import annotations

import logging

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.mail import send_mail
from django.db import transaction
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext as _

from cerniq import reasons
from cerniq.alerts import raise_alert, resolve_alerts
from cerniq.models import Alert
from hitl import reasons as why
from hitl.models import ReviewItem
from outreach.models import Journey, Lead, Message

log = logging.getLogger(__name__)

SNIPPET = 120  # characters of the reply quoted in a notice


def subject_of(lead_id: int) -> str:
    """The alert's subject: one open HOT_REPLY alert per lead."""
    return f"lead:{lead_id}"


def owner_of(lead: Lead):
    """The person the lead belongs to now, or None: who took it over, else the assignee of
    its open review item, else the operator a lead rule gave it to."""
    journey = Journey.objects.filter(lead=lead).select_related("taken_over_by", "operator").first()
    if journey is not None and journey.taken_over_by is not None:
        return journey.taken_over_by
    item = (
        ReviewItem.objects.filter(
            lead=lead, status=ReviewItem.Status.ASSIGNED, assignee__isnull=False
        )
        .select_related("assignee")
        .order_by("-assigned_at", "-pk")
        .first()
    )
    if item is not None:
        return item.assignee
    return journey.operator if journey is not None else None


def announce(lead: Lead, message: Message, intent: str) -> str:
    """Called in the reply's transaction. Returns who is told: "assignee" or "channels"."""
    owner = owner_of(lead)
    if owner is not None and owner.email and settings.NOTIFY_BY_EMAIL:
        from hitl.tasks import email_hot_reply

        transaction.on_commit(
            lambda: email_hot_reply.send(message.pk, owner.pk, intent), robust=True
        )
        return "assignee"
    alert_channels(lead, message, intent)
    return "channels"


def alert_channels(lead: Lead, message: Message, intent: str) -> Alert:
    """Open (or count again) the lead's HOT_REPLY alert; its notice leaves on commit."""
    # The reply's words stay out of the alert (it is logged); the e-mail quotes them.
    text = reasons.code(why.HOT_REPLY_ALERT, lead=lead.name, intent=intent)
    return raise_alert(lead.tenant, Alert.Kind.HOT_REPLY, subject_of(lead.pk), text)


def handled(lead: Lead) -> int:
    """A person took the lead's replies in hand: its hot-reply alert is resolved."""
    return resolve_alerts(lead.tenant, Alert.Kind.HOT_REPLY, subject_of(lead.pk))


def email(message_id: int, user_id: int, intent: str) -> bool:
    """E-mail the owner of the lead about its hot reply; on failure, the alert channels.
    True when the e-mail went out."""
    message = Message.objects.select_related("lead__tenant").get(pk=message_id)
    user = get_user_model().objects.get(pk=user_id)
    lead = message.lead
    assert lead is not None, "announce() is called with the reply of a lead"
    link = settings.PUBLIC_BASE_URL.rstrip("/") + reverse("outreach:lead", args=[lead.pk])
    with translation.override(settings.LANGUAGE_CODE):
        said = {
            "lead": lead.name,
            "intent": reasons.render(reasons.code(why.INTENT, intent=intent)),
        }
        title = _("Hot reply from %(lead)s: %(intent)s") % said
        body = "\n".join([_snippet(message.body), "", _("Conversation: %(link)s") % {"link": link}])
    try:
        send_mail(title, body, None, [user.email])
    except Exception as failed:  # any mail failure: the channels still hear of it
        log.warning("hot reply e-mail for lead %s failed (%s)", lead.pk, type(failed).__name__)
        with transaction.atomic():
            alert_channels(lead, message, intent)
        return False
    return True


def _snippet(text: str) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= SNIPPET else text[: SNIPPET - 1] + "…"
