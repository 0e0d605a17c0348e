"""Quick replies: a workspace's canned answers, written once and inserted in the inbox's
composer. They use the templates' syntax and variables (outreach.spintax), plus the name of
the operator who inserts one; the settings page and the API save them through `save` with
the same checks, and the composer renders one for a lead through `render_for`.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.db.models import Q, QuerySet
from django.utils.translation import gettext as _

from cerniq.model_fields import max_length
from cerniq.models import Tenant
from cerniq.tenancy import display_name
from outreach import spintax
from outreach.models import Channel, Lead, QuickReply, Template, known_custom_fields

OPERATOR_VARIABLE = "operator_name"  # who inserts the reply: "Ana Popescu"
MAX_NAME = max_length(QuickReply, "name")
MAX_SUBJECT = max_length(QuickReply, "subject")
# A reply for any channel may be sent on WhatsApp: it keeps to WhatsApp's limit.
MAX_BODY = spintax.CHANNEL_LIMITS[Channel.WHATSAPP]


class QuickReplyInvalid(ValueError):
    """The reply cannot be saved; `problems` names each field at fault."""

    def __init__(self, problems: dict[str, list[str]]) -> None:
        super().__init__(problems)
        self.problems = problems


@dataclass(frozen=True)
class QuickReplyData:
    name: str
    body: str
    channel: str = ""
    language: str = "ro"
    subject: str = ""


def _spintax_channel(channel: str) -> str:
    return Channel.EMAIL_WARM if channel == Channel.EMAIL_WARM else Channel.WHATSAPP


def problems(
    tenant: Tenant, data: QuickReplyData, *, instance: QuickReply | None = None
) -> dict[str, list[str]]:
    """Every problem with `data`, by field ({} when it can be saved): a name unique in the
    workspace, a body and subject that render (the templates' rules: syntax, known
    variables, the channel's length)."""
    found: dict[str, list[str]] = {}
    name = data.name.strip()
    if not name:
        found["name"] = [_("Give the quick reply a name.")]
    elif len(name) > MAX_NAME or "\n" in name:
        found["name"] = [_("A name is one line of at most %(n)d characters.") % {"n": MAX_NAME}]
    else:
        taken = QuickReply.objects.filter(tenant=tenant, name__iexact=name)
        if instance is not None and instance.pk:
            taken = taken.exclude(pk=instance.pk)
        if taken.exists():
            found["name"] = [_("A quick reply with this name already exists.")]
    if data.channel not in QuickReply.ChannelChoice.values:
        found["channel"] = [_("Choose WhatsApp, email or any channel.")]
    if data.language not in Template.Language.values:
        found["language"] = [_("Choose a language.")]
    known = {*known_custom_fields(tenant.pk), OPERATOR_VARIABLE}
    channel = _spintax_channel(data.channel)
    if not data.body.strip():
        found["body"] = [_("Write the text of the quick reply.")]
    elif len(data.body) > MAX_BODY:
        found["body"] = [_("At most %(n)d characters.") % {"n": MAX_BODY}]
    elif body_problems := spintax.validate(data.body, channel=channel, custom_fields=known):
        found["body"] = body_problems
    if data.subject and data.channel == Channel.WHATSAPP:
        found["subject"] = [_("A WhatsApp message has no subject.")]
    elif len(data.subject) > MAX_SUBJECT:
        found["subject"] = [_("At most %(n)d characters.") % {"n": MAX_SUBJECT}]
    elif data.subject and (
        subject_problems := spintax.validate(
            data.subject, channel=Channel.EMAIL_WARM, custom_fields=known
        )
    ):
        found["subject"] = subject_problems
    return found


def save(
    tenant: Tenant, data: QuickReplyData, *, user: User | None, instance: QuickReply | None = None
) -> QuickReply:
    """Create (no `instance`) or change a quick reply; QuickReplyInvalid names the fields."""
    found = problems(tenant, data, instance=instance)
    if found:
        raise QuickReplyInvalid(found)
    reply = instance or QuickReply(tenant=tenant, created_by=user)
    reply.name = data.name.strip()
    reply.body = data.body
    reply.channel = data.channel
    reply.language = data.language
    reply.subject = " ".join(data.subject.split())
    try:
        with transaction.atomic():
            reply.save()
    except IntegrityError:  # the same name saved at the same moment by someone else
        raise QuickReplyInvalid(
            {"name": [_("A quick reply with this name already exists.")]}
        ) from None
    return reply


def for_channel(tenant: Tenant, channel: str = "") -> QuerySet[QuickReply]:
    """The workspace's replies usable on `channel` (all of them when it is "")."""
    replies = QuickReply.objects.filter(tenant=tenant)
    if channel:
        replies = replies.filter(Q(channel="") | Q(channel=channel))
    return replies.order_by("name")


@dataclass(frozen=True)
class RenderedReply:
    text: str
    subject: str


def variables_for(lead: Lead, user: User | None) -> dict[str, str]:
    """What a quick reply's {{variables}} read for this lead and operator."""
    return {**spintax.lead_variables(lead), OPERATOR_VARIABLE: display_name(user)}


def render_for(reply: QuickReply, lead: Lead, user: User | None) -> RenderedReply:
    """The reply as this lead reads it (the same variant every time for the same lead)."""
    values = variables_for(lead, user)
    seed = f"quick-reply:{reply.pk}:{lead.pk}"
    subject = spintax.render(reply.subject, values, seed=seed).text if reply.subject else ""
    return RenderedReply(spintax.render(reply.body, values, seed=seed).text, subject)
