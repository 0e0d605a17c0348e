"""The suppression list: phones, addresses, email domains and companies that must not be
contacted, honoured on every path.

A WhatsApp stop suppresses the phone number, an email unsubscribe the address; people add
numbers, addresses, whole domains and companies (CUI) by hand, by CSV or over the API
(outreach.suppression_list). Readiness reads the list live, so dispatch, the pages and the
import report follow it; manual sends and the send path check it again before a send. An
opt-out also flags the lead's journey (outreach.optout): an entry a person added does not,
so taking it off the list makes the leads it blocked reachable again. Emails and domains
are compared lowercased. An erased person is listed by a one-way hash of their phone and
address (`digest`), matched like the plain entries.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Q, Value
from django.db.models.functions import Lower, StrIndex, Substr
from django.utils import timezone

from cerniq.models import Tenant
from email_channels.addresses import domain_of
from outreach.models import Channel, Journey, Lead, Message, Suppression

Kind = Suppression.Kind


def _email(value: str) -> str:
    return (value or "").strip().lower()


def email_domain(email: str) -> str:
    """The domain part of an address, lowercased ("" without one)."""
    return domain_of(email)


def email_domain_sql(email: Any) -> Substr:
    """`email_domain` in SQL, on both databases: what follows the @, lowercased. `email` is
    a field name or an expression (an OuterRef)."""
    return Substr(Lower(email), StrIndex(email, Value("@")) + 1)


def digest(kind: str, value: str) -> str:
    """The one-way hash an erased phone (E.164) or address is listed by: HMAC-SHA256 under
    ERASURE_HASH_KEY (a plain hash of a phone number is reversed by trying them all).
    `kind` is "phone" or "email"."""
    if kind not in (Kind.PHONE, Kind.EMAIL):
        raise ValueError(f"no digest for {kind!r}")
    normal = _email(value) if kind == Kind.EMAIL else value.strip()
    key = (settings.ERASURE_HASH_KEY or f"cerniq-erasure:{settings.SECRET_KEY}").encode()
    return hmac.new(key, f"{kind}:{normal}".encode(), hashlib.sha256).hexdigest()


HASH_CHUNK = 900  # hashes per query: under SQLite's 999 bound-parameter limit


def erased(tenant: Tenant | int, *, phones: Iterable[str] = (), emails: Iterable[str] = ()) -> set:
    """Which of these phones and addresses belong to an erased person (their hash is
    listed): the import refuses those rows, a lead cannot be given one."""
    tenant_id = tenant if isinstance(tenant, int) else tenant.pk
    hashed = {digest(Kind.PHONE, p): p for p in phones if p}
    hashed |= {digest(Kind.EMAIL, e): _email(e) for e in emails if e}
    if (
        not hashed
        or not Suppression.objects.filter(tenant_id=tenant_id).exclude(digest="").exists()
    ):
        return set()
    keys, found = list(hashed), set()
    for start in range(0, len(keys), HASH_CHUNK):
        rows = Suppression.objects.filter(
            tenant_id=tenant_id, digest__in=keys[start : start + HASH_CHUNK]
        )
        found |= {hashed[value] for value in rows.values_list("digest", flat=True)}
    return found


def suppress(
    tenant: Tenant | int,
    *,
    phone: str = "",
    email: str = "",
    reason: str,
    message: Message | None = None,
    source: str = Suppression.Source.OPT_OUT,
) -> bool:
    """A recipient asked us to stop (or their address is dead): list the address (once) and
    opt the leads carrying it out of that channel. True when the entry is new."""
    tenant_id = tenant if isinstance(tenant, int) else tenant.pk
    fields = {"phone": phone} if phone else {"email": _email(email)}
    if not (phone or email):
        raise ValueError("suppress() needs a phone or an email")
    try:
        with transaction.atomic():
            _, created = Suppression.objects.get_or_create(
                tenant_id=tenant_id,
                **fields,
                defaults={"reason": reason[:255], "source_message": message, "source": source},
            )
    except IntegrityError:  # a concurrent stop for the same address won the insert
        created = False
    flag_journeys(tenant_id, phones=[phone] if phone else [], emails=[email] if email else [])
    return created


def flag_journeys(
    tenant_id: int,
    *,
    phones: Iterable[str] = (),
    emails: Iterable[str] = (),
    lead_ids: Iterable[int] | None = None,
) -> int:
    """Opt the leads using these suppressed addresses out of the matching channel (all the
    tenant's leads, or only `lead_ids`). Returns how many journeys changed."""
    now = timezone.now()
    journeys = Journey.objects.filter(tenant_id=tenant_id)
    if lead_ids is not None:
        journeys = journeys.filter(lead_id__in=list(lead_ids))
    changed = 0
    phones, emails = [p for p in phones if p], [_email(e) for e in emails if e]
    if phones:
        changed += journeys.filter(lead__phone__in=phones, whatsapp_opted_out=False).update(
            whatsapp_opted_out=True, whatsapp_opted_out_at=now, updated_at=now
        )
    if emails:
        # Lead emails are stored lowercased (import, forms), as suppressed ones are.
        changed += journeys.filter(lead__email__in=emails, email_opted_out=False).update(
            email_opted_out=True, email_opted_out_at=now, updated_at=now
        )
    return changed


def flag_imported(tenant_id: int, lead_ids: Iterable[int]) -> int:
    """After an import: leads whose phone or email asked us to stop are opted out of that
    channel, as if they had asked again. (Domain and company entries need no flag: readiness
    reads them live.)"""
    lead_ids = list(lead_ids)
    listed = Suppression.objects.filter(tenant_id=tenant_id, source__in=_RECIPIENT_SOURCES)
    if not lead_ids or not listed.exists():
        return 0
    return flag_journeys(
        tenant_id,
        phones=listed.exclude(phone="").values_list("phone", flat=True),
        emails=listed.exclude(email="").values_list("email", flat=True),
        lead_ids=lead_ids,
    )


# What the recipient did (as opposed to what a person added): only these flag journeys.
_RECIPIENT_SOURCES = sorted(set(Suppression.Source) - Suppression.REMOVABLE_SOURCES)


def channel_address(channel: str, *, phone: str, email: str) -> dict[str, str]:
    """The address a channel uses: WhatsApp the phone, email the email."""
    return {"phone": phone} if channel == Channel.WHATSAPP else {"email": _email(email)}


@dataclass(frozen=True)
class LeadListed:
    """Which of a lead's addresses the list names."""

    phone: bool = False
    email: bool = False
    domain: bool = False
    cui: bool = False

    @property
    def whatsapp_kind(self) -> str:
        """The entry that closes WhatsApp ("" when none): the number, else the company."""
        return Kind.PHONE if self.phone else Kind.CUI if self.cui else ""

    @property
    def email_kind(self) -> str:
        """The entry that closes email ("" when none): the address, its domain, the company."""
        if self.email:
            return Kind.EMAIL
        return Kind.DOMAIN if self.domain else Kind.CUI if self.cui else ""


@dataclass(frozen=True)
class Listed:
    """The entries naming some leads' addresses, read in one query."""

    phones: set[str] = field(default_factory=set)
    emails: set[str] = field(default_factory=set)
    domains: set[str] = field(default_factory=set)
    cuis: set[str] = field(default_factory=set)

    def of(self, *, phone: str = "", email: str = "", cui: str = "") -> LeadListed:
        return LeadListed(
            phone=bool(phone) and phone in self.phones,
            email=bool(email) and _email(email) in self.emails,
            domain=bool(email) and email_domain(email) in self.domains,
            cui=bool(cui) and cui in self.cuis,
        )

    def for_lead(self, lead: Lead) -> LeadListed:
        return self.of(phone=lead.phone, email=lead.email, cui=lead.cui)


def listed(
    tenant: Tenant | int,
    *,
    phones: Iterable[str] = (),
    emails: Iterable[str] = (),
    cuis: Iterable[str] = (),
) -> Listed:
    """Which of these phones, emails (and their domains) and CUIs the list names: one query
    at most (a list page asks for its fifty leads at once)."""
    tenant_id = tenant if isinstance(tenant, int) else tenant.pk
    phones = {p for p in phones if p}
    emails = {_email(e) for e in emails if e}
    domains = {d for d in map(email_domain, emails) if d}
    cuis = {c for c in cuis if c}
    if not (phones or emails or cuis):
        return Listed()
    hashed = {digest(Kind.PHONE, p): (Kind.PHONE, p) for p in phones}
    hashed |= {digest(Kind.EMAIL, e): (Kind.EMAIL, e) for e in emails}
    matching = Q(phone__in=phones) | Q(email__in=emails) | Q(domain__in=domains) | Q(cui__in=cuis)
    matching |= Q(digest__in=hashed)
    found = Listed()
    rows = Suppression.objects.filter(matching, tenant_id=tenant_id)
    for *values, hashed_value in rows.values_list("phone", "email", "domain", "cui", "digest"):
        if hashed_value:  # an erased person's phone or address
            kind, plain = hashed[hashed_value]
            values = [plain, "", "", ""] if kind == Kind.PHONE else ["", plain, "", ""]
        for value, into in zip(
            values, (found.phones, found.emails, found.domains, found.cuis), strict=True
        ):
            if value:
                into.add(value)
    return found


def listed_for_leads(tenant: Tenant | int, leads: Iterable[Lead]) -> Listed:
    leads = list(leads)
    return listed(
        tenant,
        phones=[lead.phone for lead in leads],
        emails=[lead.email for lead in leads],
        cuis=[lead.cui for lead in leads],
    )


def lead_listed(lead: Lead) -> LeadListed:
    """One lead's entries (one query)."""
    return listed_for_leads(lead.tenant_id, [lead]).for_lead(lead)


def is_suppressed(tenant: Tenant | int, *, phone: str = "", email: str = "", cui: str = "") -> bool:
    """The list names this phone, or this email or its domain, or this company."""
    found = listed(tenant, phones=[phone], emails=[email], cuis=[cui])
    return any(vars(found.of(phone=phone, email=email, cui=cui)).values())
