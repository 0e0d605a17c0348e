"""A lawful basis for every first message (issue #22 §1).

Romanian law asks for prior consent for commercial email, corporate recipients included,
with a soft opt-in for existing customers (Legea 506/2004 art. 12, Legea 365/2002 art. 6);
WhatsApp messages are judged the same way. The product records and shows; it does not
decide the law: each workspace sets, per channel and recipient country, what a first
message on that channel needs (`Tenant.basis_policy`):

- "off": nothing is asked;
- "warn": the message goes, marked "sent without a recorded basis" (`Message.basis`);
- "require": it is held, with the reason, until a basis is recorded: dispatch stalls the
  enrollment (outreach.dispatch_plan), the send path drops a message queued before
  (outreach.sending.why_not_send), a person's first message is refused.

Default: Romania warns on both channels, any other country is off. A workspace's entry for a
channel replaces the default for that channel: its countries, then "*" for the rest.

A basis is recorded per lead and channel with its evidence (`ContactBasis`): on the lead
page, by import columns, over the API, by forms and Lead Ads, and from a reply asking for
the offer (consent on that channel). Only a first message on a channel is checked: once a
lead has been written to on it, the conversation goes on.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

import phonenumbers
from django.contrib.auth.models import User
from django.db import transaction
from django.utils.translation import gettext as _

from cerniq import reasons
from cerniq.models import Tenant
from outreach import reasons as codes
from outreach import stalls
from outreach.models import SENT_STATUSES, Channel, ContactBasis, Enrollment, Lead, Message

WHATSAPP, EMAIL = ContactBasis.Channel.WHATSAPP.value, ContactBasis.Channel.EMAIL.value
KINDS = (WHATSAPP, EMAIL)
OFF, WARN, REQUIRE = "off", "warn", "require"
MISSING = "missing"  # Message.basis of a first message the policy warned about
DEFAULT_POLICY: dict[str, dict[str, str]] = {WHATSAPP: {"RO": WARN}, EMAIL: {"RO": WARN}}
HOME_COUNTRY = "RO"  # a recipient whose country nothing says
CHANNELS_OF = {
    WHATSAPP: (Channel.WHATSAPP,),
    EMAIL: (Channel.EMAIL_COLD, Channel.EMAIL_WARM),
}
# Replies that ask for the offer: consent on the channel they came on.
ASKING_INTENTS = frozenset({"interested", "meeting_request", "price_request"})
EVIDENCE_MAX = 2000
CONSENT_MIN_CONFIDENCE = 0.7


class BasisRefused(ValueError):
    """A basis that cannot be recorded as given; `field` names what is wrong."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


def kind_of(channel: str) -> str:
    """whatsapp or email, for a message channel."""
    return WHATSAPP if channel == Channel.WHATSAPP else EMAIL


def mode(tenant: Tenant, kind: str, country: str) -> str:
    """What a first message on `kind` to `country` needs: off, warn or require."""
    chosen = (tenant.basis_policy or {}).get(kind)
    table = chosen if isinstance(chosen, dict) else DEFAULT_POLICY.get(kind, {})
    return table.get(country) or table.get("*") or OFF


def may_hold(tenant: Tenant, kind: str) -> bool:
    """Whether the policy requires a basis anywhere on this channel kind (else no message of
    it is ever held, and the send path asks nothing more)."""
    chosen = (tenant.basis_policy or {}).get(kind)
    table = chosen if isinstance(chosen, dict) else DEFAULT_POLICY.get(kind, {})
    return REQUIRE in table.values()


def recipient_country(lead: Lead) -> str:
    """The recipient's country: its number's, else its address's country domain (.ro, .de),
    else Romania."""
    if lead.phone:
        try:
            region = phonenumbers.region_code_for_number(phonenumbers.parse(lead.phone))
        except phonenumbers.NumberParseException:
            region = None
        if region:
            return region
    tld = lead.email.rsplit(".", 1)[-1].upper() if "@" in lead.email else ""
    if len(tld) == 2 and tld.isalpha():
        return "GB" if tld == "UK" else tld
    return HOME_COUNTRY


def current(lead_ids: Iterable[int]) -> dict[tuple[int, str], ContactBasis]:
    """The current basis of each lead and channel kind (one query)."""
    found: dict[tuple[int, str], ContactBasis] = {}
    rows = ContactBasis.objects.filter(lead_id__in=list(lead_ids)).order_by("-created_at", "-pk")
    for row in rows:
        found.setdefault((row.lead_id, row.channel), row)
    return found


def contacted(lead_ids: Iterable[int], kind: str) -> set[int]:
    """The leads already written to on this channel kind (one query)."""
    return set(
        Message.objects.filter(
            lead_id__in=list(lead_ids),
            direction=Message.Direction.OUTBOUND,
            channel__in=CHANNELS_OF[kind],
            status__in=SENT_STATUSES,
        )
        .order_by()
        .values_list("lead_id", flat=True)
        .distinct()
    )


@dataclass(frozen=True)
class Check:
    """What the policy says of one first message (`first=False`: not a first message)."""

    kind: str
    mode: str
    country: str
    basis: ContactBasis | None
    first: bool = True

    @property
    def lawful(self) -> bool:
        return self.basis is not None and self.basis.lawful

    @property
    def held(self) -> bool:
        return self.first and self.mode == REQUIRE and not self.lawful

    @property
    def mark(self) -> str:
        """`Message.basis` for the message: its basis, "missing" under "warn", else ""."""
        if not self.first:
            return ""
        if self.lawful and self.basis is not None:
            return self.basis.basis
        return MISSING if self.mode == WARN else ""

    @property
    def reason(self) -> str:
        """Why a held message waits (a stored reason code)."""
        return reasons.code(codes.NO_BASIS, channel=self.kind, country=self.country)


def check(
    lead: Lead,
    channel: str,
    *,
    basis: ContactBasis | None | bool = True,
    first: bool | None = None,
    tenant: Tenant | None = None,
) -> Check:
    """The policy's answer for a message to `lead` on `channel`. `basis`, `first` and the
    lead's `tenant` are looked up unless given (dispatch reads them for a whole batch)."""
    kind = kind_of(channel)
    if basis is True:
        basis = current([lead.pk]).get((lead.pk, kind))
    if first is None:
        first = lead.pk not in contacted([lead.pk], kind)
    country = recipient_country(lead)
    policy = mode(tenant or lead.tenant, kind, country)
    return Check(kind, policy, country, basis or None, first)


def record(
    lead: Lead,
    *,
    channels: Iterable[str],
    basis: str,
    source: str,
    detail: str = "",
    evidence: str = "",
    given_at: datetime | None = None,
    by: User | None = None,
) -> list[ContactBasis]:
    """Record a basis for the lead on these channel kinds; BasisRefused says what is wrong
    (nothing is stored then). A lead held for want of one moves on at the next dispatch."""
    kinds = list(dict.fromkeys(channels))
    if not kinds or any(kind not in KINDS for kind in kinds):
        raise BasisRefused("channel", _("Choose WhatsApp, email or both."))
    if basis not in ContactBasis.Basis.values:
        raise BasisRefused(
            "basis", _("Choose consent, existing customer, legitimate interest or none.")
        )
    if source not in ContactBasis.Source.values:
        raise BasisRefused("source", _("Unknown source."))
    evidence = (evidence or "").strip()
    if len(evidence) > EVIDENCE_MAX:
        raise BasisRefused(
            "evidence", _("Keep the evidence under %(count)d characters.") % {"count": EVIDENCE_MAX}
        )
    # Consent needs its evidence; an import line or a reply is the evidence itself.
    self_evident = source in (ContactBasis.Source.IMPORT, ContactBasis.Source.REPLY)
    if basis == ContactBasis.Basis.CONSENT and not evidence and not self_evident:
        raise BasisRefused(
            "evidence",
            _("Say how consent was given: its wording, the page's address or the document."),
        )
    if lead.erased_at is not None:
        raise BasisRefused("lead", _("This person was erased on request."))
    with transaction.atomic():
        rows = ContactBasis.objects.bulk_create(
            ContactBasis(
                tenant_id=lead.tenant_id,
                lead=lead,
                channel=kind,
                basis=basis,
                source=source,
                source_detail=detail[:255],
                evidence=evidence,
                given_at=given_at,
                recorded_by=by,
            )
            for kind in kinds
        )
        stalls.wake([lead.pk])
    return rows


def consent_from_reply(
    message: Message, intent: str, *, confidence: float = 1.0
) -> ContactBasis | None:
    """A reply that asks for the offer is consent on its channel (unless consent is already
    the current basis there); the reply itself is the evidence. A triage less sure than
    CONSENT_MIN_CONFIDENCE records nothing: a person reads the reply and records it."""
    if intent not in ASKING_INTENTS or confidence < CONSENT_MIN_CONFIDENCE:
        return None
    lead = message.lead
    if lead is None or lead.erased_at is not None:
        return None
    kind = kind_of(message.channel)
    now = current([lead.pk]).get((lead.pk, kind))
    if now is not None and now.basis == ContactBasis.Basis.CONSENT:
        return None
    (row,) = record(
        lead,
        channels=[kind],
        basis=ContactBasis.Basis.CONSENT,
        source=ContactBasis.Source.REPLY,
        detail=f"reply #{message.pk} ({intent})",
        given_at=message.created_at,
    )
    return row


# --- the policy as people write it (the consent settings page) ---------------------------


def policy_table(tenant: Tenant, kind: str) -> dict[str, str]:
    """The effective table of a channel: the workspace's own, else the default."""
    chosen = (tenant.basis_policy or {}).get(kind)
    return dict(chosen if isinstance(chosen, dict) else DEFAULT_POLICY.get(kind, {}))


def policy_text(table: dict[str, str]) -> str:
    """One "RO: warn" line per country, "*" last."""
    keys = sorted(k for k in table if k != "*") + (["*"] if "*" in table else [])
    return "\n".join(f"{key}: {table[key]}" for key in keys)


def parse_policy(text: str, field: str) -> dict[str, str]:
    """Lines "RO: require", "DE = warn", "*: off" → the table; BasisRefused naming the line."""
    table: dict[str, str] = {}
    for number, raw in enumerate((text or "").splitlines(), start=1):
        line = raw.strip()
        if not line:
            continue
        country, sep, mode = line.replace("=", ":").partition(":")
        country, mode = country.strip().upper(), mode.strip().lower()
        if not sep or not (country == "*" or (len(country) == 2 and country.isalpha())):
            raise BasisRefused(
                field,
                _("Line %(line)d: write a country code, a colon and a mode, e.g. RO: require.")
                % {"line": number},
            )
        if mode not in (OFF, WARN, REQUIRE):
            raise BasisRefused(
                field,
                _("Line %(line)d: “%(mode)s” is not off, warn or require.")
                % {"line": number, "mode": mode},
            )
        if country in table:
            raise BasisRefused(
                field,
                _("Line %(line)d: %(country)s is listed twice.")
                % {"line": number, "country": country},
            )
        table[country] = mode
    return table


def save_policy(tenant: Tenant, *, whatsapp: str, email: str, templates_must_comply: bool) -> None:
    """The workspace's policy from the page; nothing is saved when a line is wrong. Leads
    held for want of a basis that no longer need one move on at the next dispatch."""
    policy = {WHATSAPP: parse_policy(whatsapp, WHATSAPP), EMAIL: parse_policy(email, EMAIL)}
    Tenant.objects.filter(pk=tenant.pk).update(
        basis_policy=policy, first_templates_must_comply=templates_must_comply
    )
    tenant.basis_policy, tenant.first_templates_must_comply = policy, templates_must_comply
    stalled = Enrollment.objects.filter(
        tenant=tenant, status=Enrollment.Status.ACTIVE, stalled_since__isnull=False
    ).values_list("lead_id", flat=True)
    stalls.wake(list(stalled))
